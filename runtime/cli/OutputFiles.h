//===- OutputFiles.h - how every duet tool writes its files -----*- C++ -*-===//
//
// Two rules for every output of every command (docs/cli.md, "Files"):
//  - no output is one of the command's inputs or another of its outputs,
//    checked before the command does any work (CommandFiles);
//  - an output is written under a temporary name in its destination's folder,
//    flushed to the disk and renamed over the destination once complete
//    (PendingOutput over rt::AtomicFile, runtime/core/AtomicFile.h), so a
//    command that fails or is killed, or a power cut, leaves the destination
//    as it was or whole.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_OUTPUTFILES_H
#define DUET_RUNTIME_CLI_OUTPUTFILES_H

#include "runtime/core/AtomicFile.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

/// An output being written: an rt::AtomicFile that commit() puts in place of
/// the destination, and that is removed when the object is destroyed
/// uncommitted or the process is killed by a signal. Errors are printed.
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
  const std::string &writePath() const { return file_->writePath(); }
  /// The open file, for a writer that streams into it (the compiler's IR
  /// printer); it reports a failure with failed().
  int fd() const { return file_->fd(); }
  /// Appends `bytes`; kOk, or prints one error and returns kIoError.
  int write(std::string_view bytes);
  /// Prints "cannot write '<path>': <reason>" and returns kIoError.
  int failed(const std::string &reason) const;
  /// Puts the file in place of the destination (AtomicFile::commit); kOk,
  /// or prints one error and returns kIoError.
  int commit();

private:
  PendingOutput() = default;
  /// Drops the file (removing it unless committed) and its signal handling.
  void finish();
  /// kOk, or prints the error and returns kIoError.
  int report(const rt::Status &status) const;

  std::unique_ptr<rt::AtomicFile> file_;
};

/// One output of writeOutputs().
struct OutputBytes {
  std::string path;
  std::string_view bytes;
};

/// Writes each of `outputs` to a temporary file, then, only when all were
/// written, renames each over its destination. kOk, or prints one error and
/// returns kIoError.
int writeOutputs(const std::vector<OutputBytes> &outputs);

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_OUTPUTFILES_H
