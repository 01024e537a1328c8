//===- DType.h - element types and tensor views of the runtime --*- C++ -*-===//

#ifndef DUET_RUNTIME_CORE_DTYPE_H
#define DUET_RUNTIME_CORE_DTYPE_H

#include "runtime/schema/types_generated.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

namespace duet::rt {

// DType, the element types a program can hold, is generated into this
// namespace from runtime/schema/types.fbs, which numbers it for the files.

/// One past the largest DType number; a stored number below it is a DType.
inline constexpr uint8_t kDTypeCount = static_cast<uint8_t>(DType::MAX) + 1;

/// Bytes per element.
size_t dtypeSize(DType dtype);
/// The name used in reports and `duet inspect`: "float32", "bfloat16", ….
std::string_view dtypeName(DType dtype);
bool isFloat(DType dtype);

/// Sets `bytes` to numel(sizes) * dtypeSize(dtype). False when a size is
/// negative or the product does not fit in 63 bits, which a file or a caller
/// can ask for and no memory can hold.
bool tensorBytes(DType dtype, const std::vector<int64_t> &sizes,
                 uint64_t &bytes);

/// The index of the first byte of `bytes` that is neither 0 nor 1, which a
/// bool element cannot hold (C++ reads such a byte as bool with undefined
/// behaviour); nothing when every byte is a valid bool. Bool data from a file
/// or a caller is checked with this before any kernel reads it.
std::optional<uint64_t> firstInvalidBool(const void *bytes, uint64_t count);

/// IEEE half and bfloat16 conversions (round to nearest even).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
inline float bf16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
uint16_t floatToBf16(float f);

/// A dense, row-major (C order) tensor in memory the view does not own.
/// An absent optional operand is a view with `data == nullptr`.
struct TensorView {
  DType dtype = DType::f32;
  std::vector<int64_t> sizes;
  void *data = nullptr;

  bool present() const { return data != nullptr; }
  int64_t rank() const { return static_cast<int64_t>(sizes.size()); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
  size_t bytes() const {
    return static_cast<size_t>(numel()) * dtypeSize(dtype);
  }
  template <typename T> T *as() const { return static_cast<T *>(data); }
};

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_DTYPE_H
