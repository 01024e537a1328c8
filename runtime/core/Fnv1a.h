//===- Fnv1a.h - the 64-bit FNV-1a hash of bytes ----------------*- C++ -*-===//
//
// How `duet-run replay` tells outputs apart and the Vulkan pipeline cache
// checks its file: FNV-1a with the 64-bit offset basis and prime of the
// reference (http://www.isthe.com/chongo/tech/comp/fnv/), fed byte by byte,
// so that hashing two buffers in turn is hashing their concatenation.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_FNV1A_H
#define DUET_RUNTIME_CORE_FNV1A_H

#include <cstddef>
#include <cstdint>

namespace duet::rt {

inline constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnv1aPrime = 0x100000001b3ull;

/// `hash` continued over `size` bytes at `data`; start from
/// kFnv1aOffsetBasis.
inline uint64_t fnv1a(const void *data, size_t size,
                      uint64_t hash = kFnv1aOffsetBasis) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= kFnv1aPrime;
  }
  return hash;
}

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_FNV1A_H
