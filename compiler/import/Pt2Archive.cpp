//===- Pt2Archive.cpp - the zip container of a .pt2 file ------------------===//

#include "compiler/import/Pt2Archive.h"

#include "compiler/import/ImportError.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Alignment.h"

#include <minizip/unzip.h>

#include <algorithm>
#include <cstring>

using namespace duet::import;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace duet::import {

/// The archive's memory as minizip reads it: it sees the same bytes the
/// entries are later viewed in, so the data offsets it reports index them.
struct ZipCursor {
  const char *data = nullptr;
  uint64_t size = 0;
  uint64_t position = 0;
};

} // namespace duet::import

/// Where one entry's record sits in the zip directory, and how it is stored.
struct Pt2Archive::Entry {
  unz64_file_pos position;
  uint64_t compressedSize;
  uint64_t size;
  unsigned long method;
  unsigned long flags;
};

namespace {

voidpf openCursor(voidpf opaque, const void *, int mode) {
  if ((mode & ZLIB_FILEFUNC_MODE_READWRITEFILTER) != ZLIB_FILEFUNC_MODE_READ)
    return nullptr;
  auto *cursor = static_cast<ZipCursor *>(opaque);
  cursor->position = 0;
  return cursor;
}

uLong readCursor(voidpf, voidpf stream, void *buf, uLong size) {
  auto *cursor = static_cast<ZipCursor *>(stream);
  uint64_t left = cursor->size - std::min(cursor->position, cursor->size);
  uint64_t n = std::min<uint64_t>(left, size);
  if (n)
    std::memcpy(buf, cursor->data + cursor->position, n);
  cursor->position += n;
  return static_cast<uLong>(n);
}

uLong writeCursor(voidpf, voidpf, const void *, uLong) { return 0; }

ZPOS64_T tellCursor(voidpf, voidpf stream) {
  return static_cast<ZipCursor *>(stream)->position;
}

long seekCursor(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto *cursor = static_cast<ZipCursor *>(stream);
  uint64_t base;
  switch (origin) {
  case ZLIB_FILEFUNC_SEEK_SET:
    base = 0;
    break;
  case ZLIB_FILEFUNC_SEEK_CUR:
    base = cursor->position;
    break;
  case ZLIB_FILEFUNC_SEEK_END:
    base = cursor->size;
    break;
  default:
    return -1;
  }
  if (base > cursor->size || offset > cursor->size - base)
    return -1;
  cursor->position = base + offset;
  return 0;
}

int closeCursor(voidpf, voidpf) { return 0; }
int errorCursor(voidpf, voidpf) { return 0; }

} // namespace

Pt2Archive::~Pt2Archive() {
  if (zip)
    unzClose(zip);
}

Expected<std::unique_ptr<Pt2Archive>> Pt2Archive::open(StringRef path) {
  Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return importError("cannot open the file: " +
                       llvm::toString(file.takeError()));
  llvm::sys::fs::file_status status;
  std::error_code ec = llvm::sys::fs::status(*file, status);
  // The smallest zip is its 22-byte end-of-directory record.
  if (!ec && status.getSize() < 22)
    ec = std::make_error_code(std::errc::invalid_argument);
  std::unique_ptr<Pt2Archive> archive(new Pt2Archive());
  if (!ec)
    archive->mapping = llvm::sys::fs::mapped_file_region(
        *file, llvm::sys::fs::mapped_file_region::readonly, status.getSize(), 0,
        ec);
  llvm::sys::fs::closeFile(*file);
  if (ec == std::errc::invalid_argument)
    return importError(
        "not a zip archive (the file is too short); expected a .pt2 "
        "file written by torch.export.save");
  if (ec)
    return importError("cannot map the file: " + ec.message());
  archive->data = archive->mapping.const_data();
  archive->size = archive->mapping.size();
  if (Error err = archive->openZip())
    return err;
  return archive;
}

Expected<std::unique_ptr<Pt2Archive>>
Pt2Archive::openBytes(llvm::ArrayRef<char> bytes) {
  if (bytes.size() < 22)
    return importError(
        "not a zip archive (the data is too short); expected a .pt2 "
        "file written by torch.export.save");
  std::unique_ptr<Pt2Archive> archive(new Pt2Archive());
  archive->copy = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
      bytes.size(), "", llvm::Align(64));
  if (!archive->copy)
    return importError("cannot allocate " + llvm::Twine(bytes.size()) +
                       " bytes for the archive");
  std::memcpy(archive->copy->getBufferStart(), bytes.data(), bytes.size());
  archive->data = archive->copy->getBufferStart();
  archive->size = bytes.size();
  if (Error err = archive->openZip())
    return err;
  return archive;
}

Error Pt2Archive::openZip() {
  cursor = std::make_unique<ZipCursor>();
  cursor->data = data;
  cursor->size = size;
  zlib_filefunc64_def io = {};
  io.zopen64_file = openCursor;
  io.zread_file = readCursor;
  io.zwrite_file = writeCursor;
  io.ztell64_file = tellCursor;
  io.zseek64_file = seekCursor;
  io.zclose_file = closeCursor;
  io.zerror_file = errorCursor;
  io.opaque = cursor.get();
  // The name is only handed back to openCursor, which ignores it.
  zip = unzOpen2_64("", &io);
  if (!zip)
    return importError("not a zip archive; expected a .pt2 file written by "
                       "torch.export.save");
  return indexEntries();
}

Error Pt2Archive::indexEntries() {
  int status = unzGoToFirstFile(zip);
  if (status == UNZ_END_OF_LIST_OF_FILE)
    return importError(
        "the zip archive is empty; expected a .pt2 file written by "
        "torch.export.save");
  for (; status == UNZ_OK; status = unzGoToNextFile(zip)) {
    unz_file_info64 info;
    char name[1024];
    if (unzGetCurrentFileInfo64(zip, &info, name, sizeof(name), nullptr, 0,
                                nullptr, 0) != UNZ_OK)
      return importError("the zip directory is corrupt");
    if (info.size_filename >= sizeof(name))
      return importError("the zip directory has an entry name longer than " +
                         llvm::Twine(sizeof(name) - 1) + " bytes");
    StringRef entryName(name, info.size_filename);
    if (rootFolder.empty()) {
      size_t slash = entryName.find('/');
      if (slash == StringRef::npos || slash == 0)
        return importError(
            "the first zip entry '" + entryName +
            "' is not inside a root folder, as torch.export.save "
            "writes it");
      rootFolder = entryName.take_front(slash).str();
    }
    auto entry = std::make_unique<Entry>();
    if (unzGetFilePos64(zip, &entry->position) != UNZ_OK)
      return importError("the zip directory is corrupt");
    entry->compressedSize = info.compressed_size;
    entry->size = info.uncompressed_size;
    entry->method = info.compression_method;
    entry->flags = info.flag;
    entries[entryName] = std::move(entry);
  }
  if (status != UNZ_END_OF_LIST_OF_FILE)
    return importError("the zip directory is corrupt");
  return Error::success();
}

bool Pt2Archive::contains(StringRef relPath) const {
  return entries.count((rootFolder + "/" + relPath).str());
}

Expected<EntryBytes> Pt2Archive::read(StringRef relPath) {
  std::string name = (rootFolder + "/" + relPath).str();
  auto it = entries.find(name);
  if (it == entries.end())
    return importError("the archive has no entry '" + name + "'");
  const Entry &entry = *it->second;
  if (entry.flags & 1)
    return importError("entry '" + name + "' is encrypted");
  if (entry.method != 0 && entry.method != Z_DEFLATED)
    return importError("entry '" + name + "' uses zip compression method " +
                       llvm::Twine(entry.method) +
                       "; only stored and deflated entries can be read");
  if (unzGoToFilePos64(zip, &entry.position) != UNZ_OK ||
      unzOpenCurrentFile(zip) != UNZ_OK)
    return importError("cannot open entry '" + name +
                       "': the zip data is corrupt");

  if (entry.method == 0) {
    uint64_t offset = unzGetCurrentFileZStreamPos64(zip);
    unzCloseCurrentFile(zip);
    if (entry.compressedSize != entry.size || offset > size ||
        entry.size > size - offset)
      return importError("entry '" + name + "' (" + llvm::Twine(entry.size) +
                         " bytes at offset " + llvm::Twine(offset) +
                         ") runs past the end of the " + llvm::Twine(size) +
                         "-byte file");
    return EntryBytes{{data + offset, entry.size}, true};
  }

  // The sizes come from the zip directory, and the inflated size is
  // allocated before anything is inflated: a deflate stream expands its
  // input at most 1032 times (RFC 1951's longest match per 2-bit code), so
  // a larger claim is refused instead of allocated.
  if (entry.compressedSize > size ||
      entry.size > entry.compressedSize * 1032 + 1024) {
    unzCloseCurrentFile(zip);
    return importError("entry '" + name + "' claims " +
                       llvm::Twine(entry.size) + " bytes inflated from " +
                       llvm::Twine(entry.compressedSize) +
                       " compressed bytes, more than deflate can produce; the "
                       "zip directory is corrupt, re-export the model");
  }
  // Weights are read as arrays of their element type, so the inflated copy is
  // aligned as the file mapping would be.
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(entry.size, name,
                                                        llvm::Align(64));
  if (!buffer) {
    unzCloseCurrentFile(zip);
    return importError("cannot allocate " + llvm::Twine(entry.size) +
                       " bytes to inflate entry '" + name + "'");
  }
  char *out = buffer->getBufferStart();
  uint64_t done = 0;
  while (done < entry.size) {
    unsigned chunk =
        static_cast<unsigned>(std::min<uint64_t>(entry.size - done, 1u << 30));
    int n = unzReadCurrentFile(zip, out + done, chunk);
    if (n <= 0)
      break;
    done += static_cast<uint64_t>(n);
  }
  int closed = unzCloseCurrentFile(zip);
  if (done != entry.size || closed != UNZ_OK)
    return importError("cannot inflate entry '" + name + "': " +
                       (closed == UNZ_CRCERROR
                            ? "its CRC does not match"
                            : "the compressed data is corrupt"));
  inflated.push_back(std::move(buffer));
  return EntryBytes{{out, entry.size}, false};
}
