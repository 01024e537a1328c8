//===- TensorData.cpp - a tensor's bytes inside its storage file ----------===//

#include "compiler/import/TensorData.h"

#include "compiler/import/ImportError.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cstring>

using namespace duet::import;
using llvm::Expected;

namespace {

size_t addressAlignment(const char *p) {
  auto address = reinterpret_cast<uintptr_t>(p);
  if (address == 0)
    return 64;
  return std::min<size_t>(address & (~address + 1), 64);
}

/// Whether the view is row-major with no gaps (size-1 dims may have any
/// stride).
bool isContiguous(const TensorMeta &meta) {
  int64_t expected = 1;
  for (size_t i = meta.sizes.size(); i-- > 0;) {
    if (meta.sizes[i] != 1 && meta.strides[i] != expected)
      return false;
    expected *= meta.sizes[i];
  }
  return true;
}

/// Copies the strided view element by element, last dimension fastest.
void gather(const char *storage, const TensorMeta &meta, int64_t numel,
            char *out) {
  size_t rank = meta.sizes.size();
  unsigned bytes = meta.elementBytes;
  llvm::SmallVector<int64_t> index(rank, 0);
  int64_t source = meta.storageOffset;
  for (int64_t n = 0; n < numel; ++n) {
    std::memcpy(out + n * bytes, storage + source * bytes, bytes);
    for (size_t d = rank; d-- > 0;) {
      // A size-1 dim never moves; its stride, which the file may set to
      // anything (the bounds check multiplies it by 0), is never added.
      if (meta.sizes[d] == 1)
        continue;
      source += meta.strides[d];
      if (++index[d] < meta.sizes[d])
        break;
      source -= meta.strides[d] * meta.sizes[d];
      index[d] = 0;
    }
  }
}

} // namespace

Expected<TensorBytes> duet::import::tensorBytes(
    const EntryBytes &storage, const TensorMeta &meta,
    std::vector<std::unique_ptr<llvm::WritableMemoryBuffer>> &owned) {
  // readTensorMeta bounded the byte count, so the element count fits; it is
  // checked all the same, being the product of sizes from the file.
  std::optional<int64_t> count = 1;
  for (int64_t size : meta.sizes)
    if (count)
      count = llvm::checkedMul(*count, size);
  if (!count)
    return importError("its element count overflows 64 bits");
  int64_t numel = *count;
  TensorBytes out;
  if (numel == 0)
    return out;

  // The last element the view reads, in elements from the storage start; the
  // offset and the strides come from the file.
  std::optional<int64_t> last;
  if (meta.storageOffset >= 0)
    last = meta.storageOffset;
  for (auto [size, stride] : llvm::zip(meta.sizes, meta.strides)) {
    std::optional<int64_t> extent;
    if (stride >= 0)
      extent = llvm::checkedMul<int64_t>(size - 1, stride);
    last = last && extent ? llvm::checkedAdd(*last, *extent) : std::nullopt;
  }
  std::optional<int64_t> needed =
      last ? llvm::checkedAdd<int64_t>(*last, 1) : std::nullopt;
  if (needed)
    needed = llvm::checkedMul<int64_t>(*needed, meta.elementBytes);
  bool overflow = !needed;
  if (overflow || static_cast<uint64_t>(*needed) > storage.bytes.size()) {
    std::string view =
        "offset " + std::to_string(meta.storageOffset) + ", strides [";
    for (auto [i, stride] : llvm::enumerate(meta.strides))
      view += (i ? ", " : "") + std::to_string(stride);
    view += "]";
    return importError(
        "its view (" + view + ") " +
        (overflow ? llvm::Twine("is invalid")
                  : "needs " + llvm::Twine(*needed) + " bytes") +
        " but its storage holds " + llvm::Twine(storage.bytes.size()) +
        " bytes; the archive is truncated or corrupt, re-export it");
  }

  uint64_t size = static_cast<uint64_t>(numel) * meta.elementBytes;
  if (isContiguous(meta)) {
    const char *start =
        storage.bytes.data() + meta.storageOffset * meta.elementBytes;
    size_t alignment = addressAlignment(start);
    // Consumers read the blob as an array of its element type.
    if (alignment >= meta.elementBytes) {
      out.bytes = llvm::ArrayRef<char>(start, size);
      out.alignment = alignment;
      out.copied = !storage.mapped;
      return out;
    }
  }
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(size, "",
                                                        llvm::Align(64));
  if (!buffer)
    return importError("cannot allocate " + llvm::Twine(size) + " bytes");
  gather(storage.bytes.data(), meta, numel, buffer->getBufferStart());
  out.bytes = llvm::ArrayRef<char>(buffer->getBufferStart(), size);
  out.alignment = 64;
  out.copied = true;
  owned.push_back(std::move(buffer));
  return out;
}
