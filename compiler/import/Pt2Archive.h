//===- Pt2Archive.h - the zip container of a .pt2 file ----------*- C++ -*-===//
//
// A `.pt2` file is a zip whose entries sit under one root folder. The whole
// file is memory-mapped once (or, for an archive given as bytes, copied once)
// and the zip directory is read from that memory, so a stored (uncompressed)
// entry is handed out as a view into it and only a compressed entry is
// inflated into memory the archive owns.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_PT2ARCHIVE_H
#define DUET_COMPILER_IMPORT_PT2ARCHIVE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace duet::import {

struct ZipCursor;

/// The bytes of one archive entry.
struct EntryBytes {
  llvm::ArrayRef<char> bytes;
  /// True when `bytes` points into the archive's memory (the file mapping or
  /// the copy of the bytes; the entry is stored uncompressed); false when the
  /// entry was inflated into an owned buffer.
  bool mapped = false;
};

/// A read-only, memory-mapped zip archive with one root folder. Every view it
/// hands out stays valid as long as the archive lives.
class Pt2Archive {
public:
  /// Maps `path` and reads its zip directory. Fails when the file cannot be
  /// read or is not a zip with at least one entry.
  static llvm::Expected<std::unique_ptr<Pt2Archive>> open(llvm::StringRef path);
  /// Reads the zip directory of a copy of `bytes` (aligned to 64, so that
  /// entries are aligned as in a mapped file). Fails as open() does.
  static llvm::Expected<std::unique_ptr<Pt2Archive>>
  openBytes(llvm::ArrayRef<char> bytes);

  ~Pt2Archive();
  Pt2Archive(const Pt2Archive &) = delete;
  Pt2Archive &operator=(const Pt2Archive &) = delete;

  /// The folder every entry sits under (the name of the first entry up to its
  /// first '/').
  llvm::StringRef root() const { return rootFolder; }

  /// Whether `<root>/<relPath>` is in the archive.
  bool contains(llvm::StringRef relPath) const;

  /// The bytes of `<root>/<relPath>`: a view into the mapping for a stored
  /// entry, otherwise the inflated bytes in a buffer the archive keeps.
  llvm::Expected<EntryBytes> read(llvm::StringRef relPath);

private:
  struct Entry;
  Pt2Archive() = default;
  /// Opens the zip directory of the `size` bytes at `data`.
  llvm::Error openZip();
  llvm::Error indexEntries();

  /// The archive's bytes: in `mapping` for a file, in `copy` for bytes.
  const char *data = nullptr;
  size_t size = 0;
  llvm::sys::fs::mapped_file_region mapping;
  std::unique_ptr<llvm::WritableMemoryBuffer> copy;
  /// The read position minizip moves through its I/O callbacks.
  std::unique_ptr<ZipCursor> cursor;
  void *zip = nullptr;
  std::string rootFolder;
  llvm::StringMap<std::unique_ptr<Entry>> entries;
  std::vector<std::unique_ptr<llvm::WritableMemoryBuffer>> inflated;
};

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_PT2ARCHIVE_H
