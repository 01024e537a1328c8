//===- core_test_support.cpp - helpers the core tests share ---------------===//

#include "core_test_support.h"

#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace duet::rt::test {

TempFile::TempFile(const std::string &name) {
  path_ = (std::filesystem::temp_directory_path() /
           ("duet-core-tests-" + std::to_string(getpid()) + "-" + name))
              .string();
}

TempFile::~TempFile() { std::remove(path_.c_str()); }

} // namespace duet::rt::test
