//===- OutputFiles.h - how every duet command writes its files --*- C++ -*-===//
//
// Two rules for every output of every command (docs/cli.md, "Files"):
//  - no output is one of the command's inputs or another of its outputs,
//    checked before the command does any work (CommandFiles);
//  - an output is written under a temporary name in its destination's folder
//    and renamed over the destination once complete (PendingOutput), so a
//    command that fails or is killed leaves the destination as it was.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_TOOLS_DUET_OUTPUTFILES_H
#define DUET_COMPILER_TOOLS_DUET_OUTPUTFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace duet::cli {

/// The files one command reads and writes. Files are compared by device and
/// inode, so `./x`, a symlink and a hard link all name the same file; files
/// that are not regular files (/dev/null, a pipe) are never the same as
/// anything, since writing them destroys nothing.
class CommandFiles {
public:
  /// A file the command reads; `role` names it in messages ("the model",
  /// "--input"). A path that does not exist is left for the command to
  /// report.
  void addInput(std::string role, std::string path);
  /// A file the command writes; `role` is its option ("-o").
  void addOutput(std::string role, std::string path);

  /// kOk; or prints one error and returns kBadInput when an output is the
  /// same file as an input or as another output, or kIoError when an output
  /// cannot be written where it is (a missing or unwritable folder, a
  /// folder given as a file).
  int check() const;

private:
  struct File {
    std::string role;
    std::string path;
  };
  std::vector<File> inputs_;
  std::vector<File> outputs_;
};

/// An output being written: a temporary file beside the destination that
/// commit() renames over it, and that is removed when the object is
/// destroyed uncommitted or the process is killed by a signal. A destination
/// that exists but is not a regular file (/dev/null, a pipe) is written
/// directly.
class PendingOutput {
public:
  /// Creates the temporary file for `path`. Returns kOk and sets `out`, or
  /// prints one error and returns kIoError.
  static int create(const std::string &path,
                    std::unique_ptr<PendingOutput> &out);
  PendingOutput(const PendingOutput &) = delete;
  PendingOutput &operator=(const PendingOutput &) = delete;
  ~PendingOutput();

  /// The path the bytes go to: the temporary file, for a tool that writes
  /// the file itself (Graphviz `dot -o`).
  const std::string &writePath() const { return writePath_; }
  /// Writes through `write`; kOk, or prints one error and returns kIoError.
  int write(llvm::function_ref<void(llvm::raw_ostream &)> write);
  /// Writes `bytes`, as write() does.
  int write(std::string_view bytes);
  /// Puts the file in place of the destination; kOk, or prints one error,
  /// removes the temporary file and returns kIoError.
  int commit();

private:
  PendingOutput() = default;
  void discard();

  /// The path as the command was given it, for messages.
  std::string path_;
  std::string destination_;
  std::string writePath_;
  int fd_ = -1;
  bool temporary_ = false;
  bool done_ = false;
};

/// One output of writeOutputs().
struct OutputBytes {
  std::string path;
  std::string_view bytes;
};

/// Writes each of `outputs` to a temporary file, then, only when all were
/// written, renames each over its destination. kOk, or prints one error and
/// returns kIoError.
int writeOutputs(llvm::ArrayRef<OutputBytes> outputs);

/// Writes `path` through `write` as a PendingOutput.
int writeOutput(const std::string &path,
                llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace duet::cli

#endif // DUET_COMPILER_TOOLS_DUET_OUTPUTFILES_H
