//===- OutputFiles.cpp - how every duet tool writes its files -------------===//

#include "runtime/cli/OutputFiles.h"

#include "runtime/cli/ExitCodes.h"
#include "runtime/cli/Messages.h"
#include "runtime/cli/RemoveOnSignal.h"

#include <fmt/core.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace duet::cli {
namespace {

/// Where an output path leads.
struct Target {
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

std::string folderOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string nameOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string missingFolder(const std::string &path) {
  // The message ends with the path, which is what scripts match on.
  return fmt::format("cannot write '{}': its folder does not exist; create "
                     "the folder first, or choose another path than '{}'",
                     path, path);
}

/// The file a missing `path` would be created as: the end of its chain of
/// symlinks, since writing through a dangling link creates the file it names
/// rather than replacing the link.
std::string danglingTarget(std::string path) {
  // As many links as Linux follows (MAXSYMLINKS); a loop ends there.
  for (int links = 0; links < 40; ++links) {
    char buffer[PATH_MAX];
    ssize_t length = ::readlink(path.c_str(), buffer, sizeof buffer);
    if (length < 0 || static_cast<size_t>(length) == sizeof buffer)
      return path;
    std::string next(buffer, static_cast<size_t>(length));
    path = next.front() == '/' ? next : folderOf(path) + "/" + next;
  }
  return path;
}

/// Resolves `path` for writing into `target`; returns why it cannot be
/// written there, or an empty string.
std::string resolveOutput(const std::string &path, Target &target) {
  if (path.empty())
    return "cannot write '': the path is empty; give a file path";
  if (path.back() == '/')
    return fmt::format("cannot write '{}': it names a folder; give a file "
                       "path",
                       path);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return fmt::format("cannot write '{}': it is a folder; give a file "
                         "path",
                         path);
    target.device = st.st_dev;
    target.inode = st.st_ino;
    if (!S_ISREG(st.st_mode)) {
      target.kind = Target::special;
      target.destination = path;
      return "";
    }
    char real[PATH_MAX];
    if (!::realpath(path.c_str(), real))
      return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    target.kind = Target::regularFile;
    target.destination = real;
    target.mode = st.st_mode & 07777;
  } else if (errno == ENOENT || errno == ENOTDIR) {
    target.kind = Target::newFile;
    target.destination = danglingTarget(path);
    target.name = nameOf(target.destination);
    struct stat folder;
    if (::stat(folderOf(target.destination).c_str(), &folder) != 0 ||
        !S_ISDIR(folder.st_mode))
      return missingFolder(path);
    target.device = folder.st_dev;
    target.inode = folder.st_ino;
  } else {
    return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  }
  target.folder = folderOf(target.destination);
  if (::access(target.folder.c_str(), W_OK | X_OK) != 0)
    return fmt::format("cannot write '{}': the folder '{}' is not writable "
                       "({}), and duet writes each output there under a "
                       "temporary name first; choose another path",
                       path, target.folder, std::strerror(errno));
  return "";
}

bool sameFile(const Target &a, const Target &b) {
  if (a.kind == Target::special || a.kind != b.kind)
    return false;
  return a.device == b.device && a.inode == b.inode && a.name == b.name;
}

} // namespace

//===----------------------------------------------------------------------===//
// CommandFiles
//===----------------------------------------------------------------------===//

void CommandFiles::addInput(std::string role, std::string path) {
  inputs_.push_back({std::move(role), std::move(path)});
}

void CommandFiles::addOutput(std::string role, std::string path) {
  outputs_.push_back({std::move(role), std::move(path)});
}

int CommandFiles::check() const {
  std::vector<Target> targets(outputs_.size());
  // An output that cannot be written is reported after the aliases, which
  // are the graver mistake; it can alias nothing.
  std::vector<bool> writable(outputs_.size());
  std::string unwritable;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    std::string problem = resolveOutput(outputs_[i].path, targets[i]);
    writable[i] = problem.empty();
    if (!writable[i] && unwritable.empty())
      unwritable = problem;
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const File &out = outputs_[i];
    if (!writable[i] || targets[i].kind != Target::regularFile)
      continue;
    for (const File &in : inputs_) {
      struct stat st;
      if (::stat(in.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
          st.st_dev != targets[i].device || st.st_ino != targets[i].inode)
        continue;
      printError(fmt::format("{} '{}' is the same file as {} '{}': writing "
                             "it would destroy the input; give {} another "
                             "path",
                             out.role, out.path, in.role, in.path, out.role));
      return kBadInput;
    }
  }
  for (size_t i = 0; i < outputs_.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (writable[i] && writable[j] && sameFile(targets[i], targets[j])) {
        printError(fmt::format("{} '{}' is the same file as {} '{}': give "
                               "each output its own path",
                               outputs_[i].role, outputs_[i].path,
                               outputs_[j].role, outputs_[j].path));
        return kBadInput;
      }
  if (!unwritable.empty()) {
    printError(unwritable);
    return kIoError;
  }
  return kOk;
}

//===----------------------------------------------------------------------===//
// PendingOutput
//===----------------------------------------------------------------------===//

int PendingOutput::create(const std::string &path,
                          std::unique_ptr<PendingOutput> &out) {
  Target target;
  std::string problem = resolveOutput(path, target);
  if (!problem.empty()) {
    printError(problem);
    return kIoError;
  }
  std::unique_ptr<PendingOutput> pending(new PendingOutput());
  pending->path_ = path;
  pending->destination_ = target.destination;
  if (target.kind == Target::special) {
    pending->writePath_ = path;
    pending->fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (pending->fd_ < 0) {
      printError(
          fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
      return kIoError;
    }
    out = std::move(pending);
    return kOk;
  }
  // Hidden, and named after the output, so that a leftover (after SIGKILL)
  // says where it came from.
  std::string name =
      target.folder + "/." + nameOf(target.destination) + ".tmp-XXXXXX";
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    printError(fmt::format("cannot write '{}': cannot create a file in the "
                           "folder '{}': {}; choose another path",
                           path, target.folder, std::strerror(errno)));
    return kIoError;
  }
  pending->fd_ = fd;
  pending->writePath_ = name;
  pending->temporary_ = true;
  removeOnSignal(name);
  // mkostemp makes the file 0600; give it the mode the destination has, or
  // the one a newly created file would get (umask() can only be read by
  // setting it).
  mode_t mode = target.mode;
  if (target.kind == Target::newFile) {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  if (::fchmod(fd, mode) != 0) {
    printError(fmt::format("cannot write '{}': cannot set the mode of '{}': "
                           "{}",
                           path, name, std::strerror(errno)));
    return kIoError;
  }
  out = std::move(pending);
  return kOk;
}

PendingOutput::~PendingOutput() {
  if (!done_)
    discard();
}

void PendingOutput::discard() {
  done_ = true;
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  if (temporary_) {
    ::unlink(writePath_.c_str());
    keepOnSignal(writePath_);
  }
}

int PendingOutput::write(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return failed(written < 0 ? std::strerror(errno)
                                : "the file takes no more bytes");
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return kOk;
}

int PendingOutput::failed(const std::string &reason) const {
  printError(fmt::format("cannot write '{}': {}", path_, reason));
  return kIoError;
}

int PendingOutput::commit() {
  int closed = ::close(fd_);
  int error = errno;
  fd_ = -1;
  if (closed != 0) {
    discard();
    return failed(std::strerror(error));
  }
  if (temporary_ && ::rename(writePath_.c_str(), destination_.c_str()) != 0) {
    error = errno;
    discard();
    return failed(fmt::format("cannot rename '{}' over it: {}", writePath_,
                              std::strerror(error)));
  }
  if (temporary_)
    keepOnSignal(writePath_);
  done_ = true;
  return kOk;
}

//===----------------------------------------------------------------------===//
// Whole files
//===----------------------------------------------------------------------===//

int writeOutputs(const std::vector<OutputBytes> &outputs) {
  std::vector<std::unique_ptr<PendingOutput>> pending(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (int code = PendingOutput::create(outputs[i].path, pending[i]))
      return code;
    if (int code = pending[i]->write(outputs[i].bytes))
      return code;
  }
  for (std::unique_ptr<PendingOutput> &output : pending)
    if (int code = output->commit())
      return code;
  return kOk;
}

} // namespace duet::cli
