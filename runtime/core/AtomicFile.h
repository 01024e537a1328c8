//===- AtomicFile.h - files replaced whole or not at all --------*- C++ -*-===//
//
// Every file duet writes for its user (a program, a report, a .npy output,
// a saved Python Program) is written here: under a temporary name in the
// destination's folder, flushed to the disk (fsync), renamed over the
// destination, and then the folder is flushed too. A crash or a power cut at
// any moment leaves the old file or the new one, never a mix; a write that
// fails (a full disk, `ulimit -f`) removes the temporary file and leaves the
// destination as it was. The command-line tools add their rules on top
// (runtime/cli/OutputFiles.h); the runtime's .npy writer, the partition
// report and the Python package's Program.save use it as it is.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_ATOMICFILE_H
#define DUET_RUNTIME_CORE_ATOMICFILE_H

#include "runtime/core/Status.h"

#include <sys/types.h>

#include <memory>
#include <string>

namespace duet::rt {

/// Where an output path leads.
struct OutputTarget {
  enum Kind { newFile, regularFile, special } kind = newFile;
  /// The file; for a new file, the folder it will be created in.
  dev_t device = 0;
  ino_t inode = 0;
  /// For a new file, its name in that folder.
  std::string name;
  /// The path the finished file is renamed onto: an existing file's real
  /// path, so that an output reached through a symlink replaces the file the
  /// link points to, as writing through the link did.
  std::string destination;
  std::string folder;
  /// An existing file's permission bits, which its replacement keeps.
  mode_t mode = 0;
};

/// Resolves `path` for writing into `target`; returns why it cannot be
/// written there ("cannot write '<path>': ..."), or an empty string.
std::string resolveOutputTarget(const std::string &path, OutputTarget &target);

/// A file being written. A destination that exists but is not a regular
/// file (/dev/null, a pipe) is written directly: there is nothing to keep.
class AtomicFile {
public:
  /// Creates the temporary file for `path` and sets `file`; an error names
  /// `path` and the reason.
  static Status create(const std::string &path,
                       std::unique_ptr<AtomicFile> &file);
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;
  /// Discards the file unless it was committed.
  ~AtomicFile();

  /// The path as the caller gave it, for messages.
  const std::string &path() const { return path_; }
  /// The path the bytes go to: the temporary file, or the destination itself
  /// when that is not a regular file.
  const std::string &writePath() const { return writePath_; }
  /// Whether writePath() is a temporary file that commit() renames.
  bool isTemporary() const { return temporary_; }
  /// The open file, for a writer that streams into it.
  int fd() const { return fd_; }

  /// Appends `size` bytes at `data`.
  Status write(const void *data, size_t size);
  /// "cannot write '<path>': <reason>".
  Status failed(const std::string &reason) const;
  /// Flushes the file to the disk, renames it over the destination and
  /// flushes the folder. On an error before the rename the temporary file is
  /// removed and the destination is as it was.
  Status commit();
  /// Closes and removes the temporary file; the destination stays as it was.
  void discard();

private:
  AtomicFile() = default;

  std::string path_;
  std::string destination_;
  std::string folder_;
  std::string writePath_;
  int fd_ = -1;
  bool temporary_ = false;
  bool done_ = false;
};

/// Writes `size` bytes at `data` to `path` through an AtomicFile.
Status writeFileAtomically(const std::string &path, const void *data,
                           size_t size);

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_ATOMICFILE_H
