//===- DType.cpp - element types of the runtime ---------------------------===//

#include "runtime/core/DType.h"

namespace duet::rt {

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::f64:
  case DType::i64:
    return 8;
  case DType::f32:
  case DType::i32:
    return 4;
  case DType::f16:
  case DType::bf16:
  case DType::i16:
    return 2;
  case DType::i8:
  case DType::u8:
  case DType::boolean:
    return 1;
  }
  return 0;
}

std::string_view dtypeName(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return "float32";
  case DType::f16:
    return "float16";
  case DType::bf16:
    return "bfloat16";
  case DType::f64:
    return "float64";
  case DType::i64:
    return "int64";
  case DType::i32:
    return "int32";
  case DType::i16:
    return "int16";
  case DType::i8:
    return "int8";
  case DType::u8:
    return "uint8";
  case DType::boolean:
    return "bool";
  }
  return "unknown";
}

bool isFloat(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16 ||
         dtype == DType::f64;
}

std::optional<uint64_t> firstInvalidBool(const void *bytes, uint64_t count) {
  const auto *p = static_cast<const uint8_t *>(bytes);
  for (uint64_t i = 0; i < count; ++i)
    if (p[i] > 1)
      return i;
  return std::nullopt;
}

bool tensorBytes(DType dtype, const std::vector<int64_t> &sizes,
                 uint64_t &bytes) {
  int64_t total = static_cast<int64_t>(dtypeSize(dtype));
  for (int64_t size : sizes) {
    if (size < 0 || __builtin_mul_overflow(total, size, &total))
      return false;
  }
  bytes = static_cast<uint64_t>(total);
  return true;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal half: normalize into a float.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ff;
    bits = sign | ((113 - shift) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t absBits = bits & 0x7fffffff;
  if (absBits >= 0x7f800000) // inf or nan
    return sign | 0x7c00 | (absBits > 0x7f800000 ? 0x200 : 0);
  if (absBits >= 0x477ff000) // rounds to a value above the half range
    return sign | 0x7c00;
  if (absBits < 0x38800000) { // below the smallest normal half
    if (absBits < 0x33000000)
      return sign;
    uint32_t exponent = absBits >> 23;
    uint32_t mantissa = (absBits & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return sign | static_cast<uint16_t>(half);
  }
  uint32_t rounded = absBits + 0xfff + ((absBits >> 13) & 1);
  return sign | static_cast<uint16_t>((rounded - 0x38000000) >> 13);
}

uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffff) > 0x7f800000) // keep NaN a NaN
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

} // namespace duet::rt
