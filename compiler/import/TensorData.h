//===- TensorData.h - a tensor's bytes inside its storage file --*- C++ -*-===//
//
// torch.export.save writes each storage once, as raw little-endian bytes; a
// weight is a (sizes, strides, storage_offset) view of one. A contiguous view
// whose bytes are suitably aligned is used where it lies (in the file mapping,
// no copy); any other view is gathered into a new contiguous buffer.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_TENSORDATA_H
#define DUET_COMPILER_IMPORT_TENSORDATA_H

#include "compiler/import/Pt2Archive.h"
#include "compiler/import/Pt2Schema.h"

namespace duet::import {

/// The contiguous bytes of one tensor, ready to back a resource blob.
struct TensorBytes {
  llvm::ArrayRef<char> bytes;
  /// The largest power of two (at most 64) the address is a multiple of.
  size_t alignment = 1;
  /// False when `bytes` lies in the file mapping; true when the importer
  /// copied them (a gathered view, a misaligned one, or an inflated entry).
  bool copied = false;
};

/// The bytes of the tensor `meta` describes inside `storage`. Checks that the
/// view lies within the storage before reading it; buffers made by gathering
/// are appended to `owned`.
llvm::Expected<TensorBytes>
tensorBytes(const EntryBytes &storage, const TensorMeta &meta,
            std::vector<std::unique_ptr<llvm::WritableMemoryBuffer>> &owned);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_TENSORDATA_H
