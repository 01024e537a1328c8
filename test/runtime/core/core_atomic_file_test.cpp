//===- core_atomic_file_test.cpp - files replaced whole or not at all -----===//
//
// AtomicFile (runtime/core/AtomicFile.h) and the writers built on it: a
// write that fails midway (the file size limit, a full device) leaves the
// old file byte for byte, no temporary file behind, and an error naming the
// path and the system's reason.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/AtomicFile.h"
#include "runtime/core/Npy.h"

#include "core_test_support.h"

#include <WriteFailures.h>

#include <sys/stat.h>

using namespace duet::rt;
using duet::test::FileSizeLimit;
using duet::test::readFile;
using duet::test::TempFolder;
using duet::test::writeFile;

namespace {

const std::string kOld = "the old bytes, which must survive\n";

} // namespace

TEST_CASE("an atomic write replaces the file and leaves nothing beside it",
          "[atomic-file]") {
  TempFolder folder;
  std::string path = folder.file("out.bin");
  writeFile(path, kOld);
  ::chmod(path.c_str(), 0640);
  std::string bytes(100000, 'x');
  Status status = writeFileAtomically(path, bytes.data(), bytes.size());
  INFO(status.message());
  REQUIRE(status.isOk());
  CHECK(readFile(path) == bytes);
  CHECK(folder.entries() == std::vector<std::string>{"out.bin"});
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
}

TEST_CASE("a write past the file size limit leaves the old file",
          "[atomic-file]") {
  TempFolder folder;
  std::string path = folder.file("out.bin");
  writeFile(path, kOld);
  std::string bytes(64 * 1024, 'x');
  Status status;
  {
    FileSizeLimit limit(4096);
    status = writeFileAtomically(path, bytes.data(), bytes.size());
  }
  CHECK_FALSE(status.isOk());
  CHECK(status.message() == "cannot write '" + path + "': File too large");
  CHECK(readFile(path) == kOld);
  CHECK(folder.entries() == std::vector<std::string>{"out.bin"});
}

TEST_CASE("a new file that cannot be written whole is not created",
          "[atomic-file]") {
  TempFolder folder;
  std::string path = folder.file("new.bin");
  std::string bytes(64 * 1024, 'x');
  Status status;
  {
    FileSizeLimit limit(4096);
    status = writeFileAtomically(path, bytes.data(), bytes.size());
  }
  CHECK(status.message() == "cannot write '" + path + "': File too large");
  CHECK(folder.entries().empty());
}

TEST_CASE("a full device is an error naming it", "[atomic-file]") {
  std::string bytes(1024, 'x');
  Status status = writeFileAtomically("/dev/full", bytes.data(), bytes.size());
  CHECK(status.message() ==
        "cannot write '/dev/full': No space left on device");
}

TEST_CASE("a missing folder or a folder as the path fails before writing",
          "[atomic-file]") {
  TempFolder folder;
  std::unique_ptr<AtomicFile> file;
  Status status = AtomicFile::create(folder.file("no/such.bin"), file);
  CHECK_THAT(status.message(),
             Catch::StartsWith("cannot write '" + folder.file("no/such.bin") +
                               "': its folder does not exist"));
  CHECK(!file);
  status = AtomicFile::create(folder.path(), file);
  CHECK(status.message() == "cannot write '" + folder.path() +
                                "': it is a folder; give a file path");
}

TEST_CASE("a discarded file leaves the destination as it was",
          "[atomic-file]") {
  TempFolder folder;
  std::string path = folder.file("out.bin");
  writeFile(path, kOld);
  {
    std::unique_ptr<AtomicFile> file;
    REQUIRE(AtomicFile::create(path, file).isOk());
    REQUIRE(file->isTemporary());
    REQUIRE(file->write("new", 3).isOk());
    CHECK(folder.entries().size() == 2);
  }
  CHECK(readFile(path) == kOld);
  CHECK(folder.entries() == std::vector<std::string>{"out.bin"});
}

TEST_CASE("writeNpy past the file size limit leaves the old .npy",
          "[atomic-file][npy]") {
  TempFolder folder;
  std::string path = folder.file("y.npy");
  writeFile(path, kOld);
  std::vector<float> values(16 * 1024, 1.5f);
  TensorView view;
  view.dtype = DType::f32;
  view.sizes = {static_cast<int64_t>(values.size())};
  view.data = values.data();
  std::string notice;
  Status status;
  {
    FileSizeLimit limit(4096);
    status = writeNpy(path, view, notice);
  }
  CHECK(status.message() == "cannot write '" + path + "': File too large");
  CHECK(readFile(path) == kOld);
  CHECK(folder.entries() == std::vector<std::string>{"y.npy"});
}

TEST_CASE("ProgramBuilder::writeFile past the file size limit leaves the old "
          "program",
          "[atomic-file][program]") {
  TempFolder folder;
  std::string path = folder.file("p.duet");
  writeFile(path, kOld);
  ProgramBuilder builder = test::addReluProgram();
  std::vector<uint8_t> bytes = test::serialize(builder);
  Status status;
  {
    // Less than the program, which is some hundreds of bytes.
    FileSizeLimit limit(bytes.size() / 2);
    status = builder.writeFile(path);
  }
  CHECK(status.message() == "cannot write '" + path + "': File too large");
  CHECK(readFile(path) == kOld);
  CHECK(folder.entries() == std::vector<std::string>{"p.duet"});
}
