//===- FlatVectors.h - reading FlatBuffers vectors from a file -*- C++ -*-===//
//
// The FlatBuffers verifier of the version duet builds against (2.0.8) checks
// only the 4-byte alignment of a vector's length, so a damaged file can put
// a vector of 8-byte scalars ([long], [ulong]) off its alignment, and reading
// its elements in place is then undefined behaviour. Vectors of a file are
// read through these helpers: copied bytewise, or checked first.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_FLATVECTORS_H
#define DUET_RUNTIME_CORE_FLATVECTORS_H

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace duet::rt {

/// Whether the elements of `vector` (when present) sit on their alignment,
/// so they may be read in place.
template <typename T> bool isAligned(const flatbuffers::Vector<T> *vector) {
  return !vector ||
         reinterpret_cast<uintptr_t>(vector->data()) % alignof(T) == 0;
}

/// The elements of `vector` (none when it is absent), copied bytewise, so the
/// copy is valid whatever the vector's alignment. FlatBuffers stores scalars
/// little-endian, as every host duet runs on does.
template <typename T>
std::vector<T> copyVector(const flatbuffers::Vector<T> *vector) {
  static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>,
                "only vectors of scalars are copied bytewise");
  std::vector<T> out;
  if (!vector || vector->size() == 0)
    return out;
  out.resize(vector->size());
  std::memcpy(out.data(), vector->Data(), vector->size() * sizeof(T));
  return out;
}

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_FLATVECTORS_H
