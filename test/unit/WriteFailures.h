//===- WriteFailures.h - making file writes fail, for tests -----*- C++ -*-===//
//
// What the tests of duet's file writers (runtime/core/AtomicFile.h) share: a
// folder of their own, a file size limit that makes a write fail midway (as
// `ulimit -f` does in the lit tests), and the bytes of a file, to check that
// a failed write left the old file as it was.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_TEST_UNIT_WRITEFAILURES_H
#define DUET_TEST_UNIT_WRITEFAILURES_H

#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace duet::test {

/// A fresh folder under $TMPDIR (or /tmp), removed with what it holds.
class TempFolder {
public:
  TempFolder() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/duet-test-XXXXXX";
    REQUIRE(::mkdtemp(pattern.data()));
    path_ = pattern;
  }
  ~TempFolder() {
    for (const std::string &name : entries())
      std::remove((path_ + "/" + name).c_str());
    ::rmdir(path_.c_str());
  }
  TempFolder(const TempFolder &) = delete;
  TempFolder &operator=(const TempFolder &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

  /// The names in the folder, hidden ones included, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR *dir = ::opendir(path_.c_str())) {
      while (dirent *entry = ::readdir(dir)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..")
          names.push_back(name);
      }
      ::closedir(dir);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  std::string path_;
};

/// While alive, no file of the process may grow past `bytes`: a write past
/// it fails with EFBIG ("File too large"), SIGXFSZ being ignored meanwhile.
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved_) == 0);
    savedHandler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, savedHandler_);
  }
  FileSizeLimit(const FileSizeLimit &) = delete;
  FileSizeLimit &operator=(const FileSizeLimit &) = delete;

private:
  rlimit saved_;
  void (*savedHandler_)(int);
};

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.flush());
}

} // namespace duet::test

#endif // DUET_TEST_UNIT_WRITEFAILURES_H
