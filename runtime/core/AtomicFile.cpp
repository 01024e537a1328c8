//===- AtomicFile.cpp - files that are replaced whole or not at all -------===//

#include "runtime/core/AtomicFile.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace duet::rt {
namespace {

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

/// The process's umask. Linux shows it in /proc/self/status; umask() can
/// only read it by setting it, which races with other threads creating
/// files, so it is the fallback.
mode_t currentUmask() {
  if (std::FILE *status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    unsigned mask = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, status))
      found = std::sscanf(line, "Umask: %o", &mask) == 1;
    std::fclose(status);
    if (found)
      return static_cast<mode_t>(mask);
  }
  mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

/// Flushes the folder `folder`, so that a rename in it survives a power cut.
/// A file system that cannot flush a folder (EINVAL) has nothing to flush.
int syncFolder(const std::string &folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return errno;
  int error = ::fsync(fd) == 0 || errno == EINVAL ? 0 : errno;
  ::close(fd);
  return error;
}

} // namespace

std::string resolveOutputTarget(const std::string &path, OutputTarget &target) {
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
      target.kind = OutputTarget::special;
      target.destination = path;
      return "";
    }
    char real[PATH_MAX];
    if (!::realpath(path.c_str(), real))
      return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    target.kind = OutputTarget::regularFile;
    target.destination = real;
    target.mode = st.st_mode & 07777;
  } else if (errno == ENOENT || errno == ENOTDIR) {
    target.kind = OutputTarget::newFile;
    target.destination = danglingTarget(path);
    target.name = nameOf(target.destination);
    struct stat folder;
    if (::stat(folderOf(target.destination).c_str(), &folder) != 0 ||
        !S_ISDIR(folder.st_mode))
      return missingFolder(path);
    target.device = folder.st_dev;
    target.inode = folder.st_ino;
    target.mode = 0666 & ~currentUmask();
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

Status AtomicFile::create(const std::string &path,
                          std::unique_ptr<AtomicFile> &file) {
  OutputTarget target;
  std::string problem = resolveOutputTarget(path, target);
  if (!problem.empty())
    return Status::error("{}", problem);
  std::unique_ptr<AtomicFile> created(new AtomicFile());
  created->path_ = path;
  created->destination_ = target.destination;
  created->folder_ = target.folder;
  if (target.kind == OutputTarget::special) {
    created->writePath_ = path;
    created->fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (created->fd_ < 0)
      return created->failed(std::strerror(errno));
    file = std::move(created);
    return Status::ok();
  }
  // Hidden, and named after the output, so that a leftover (after SIGKILL)
  // says where it came from.
  std::string name =
      target.folder + "/." + nameOf(target.destination) + ".tmp-XXXXXX";
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0)
    return created->failed(fmt::format("cannot create a file in the folder "
                                       "'{}': {}; choose another path",
                                       target.folder, std::strerror(errno)));
  created->fd_ = fd;
  created->writePath_ = name;
  created->temporary_ = true;
  // mkostemp makes the file 0600; give it the mode the destination has, or
  // the one a newly created file would get.
  if (::fchmod(fd, target.mode) != 0)
    return created->failed(fmt::format("cannot set the mode of '{}': {}", name,
                                       std::strerror(errno)));
  file = std::move(created);
  return Status::ok();
}

AtomicFile::~AtomicFile() {
  if (!done_)
    discard();
}

void AtomicFile::discard() {
  done_ = true;
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  if (temporary_)
    ::unlink(writePath_.c_str());
}

Status AtomicFile::write(const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  while (size) {
    ssize_t written = ::write(fd_, bytes, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return failed(written < 0 ? std::strerror(errno)
                                : "the file takes no more bytes");
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return Status::ok();
}

Status AtomicFile::failed(const std::string &reason) const {
  return Status::error("cannot write '{}': {}", path_, reason);
}

Status AtomicFile::commit() {
  // A device or a pipe has nothing to flush (fsync fails with EINVAL).
  if (temporary_ && ::fsync(fd_) != 0) {
    int error = errno;
    discard();
    return failed(std::strerror(error));
  }
  int closed = ::close(fd_);
  int error = errno;
  fd_ = -1;
  if (closed != 0) {
    discard();
    return failed(std::strerror(error));
  }
  if (!temporary_) {
    done_ = true;
    return Status::ok();
  }
  if (::rename(writePath_.c_str(), destination_.c_str()) != 0) {
    error = errno;
    discard();
    return failed(fmt::format("cannot rename '{}' over it: {}", writePath_,
                              std::strerror(error)));
  }
  done_ = true;
  if (int syncError = syncFolder(folder_))
    return failed(fmt::format("the new file is in place, but its folder '{}' "
                              "could not be flushed to the disk ({}), so a "
                              "power cut may still undo it",
                              folder_, std::strerror(syncError)));
  return Status::ok();
}

Status writeFileAtomically(const std::string &path, const void *data,
                           size_t size) {
  std::unique_ptr<AtomicFile> file;
  DUET_RETURN_IF_ERROR(AtomicFile::create(path, file));
  DUET_RETURN_IF_ERROR(file->write(data, size));
  return file->commit();
}

} // namespace duet::rt
