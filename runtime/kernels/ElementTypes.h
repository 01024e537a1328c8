//===- ElementTypes.h - C++ types behind each DType ------------*- C++ -*-===//
//
// Internal to the portable kernels: one C++ storage type per DType, a visitor
// that calls a generic lambda with the right one, and the element conversion
// aten.cast performs, written once for every pair of types.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_KERNELS_ELEMENTTYPES_H
#define DUET_RUNTIME_KERNELS_ELEMENTTYPES_H

#include "runtime/core/DType.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace duet::rt::portable {

/// IEEE half and bfloat16 storage, distinct from uint16_t so that a visitor
/// can tell them apart from integers.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

template <typename T> struct TypeTag { using type = T; };

/// Calls `f(TypeTag<T>{})` with T the storage type of `dtype`.
template <typename F> decltype(auto) visitDType(DType dtype, F &&f) {
  switch (dtype) {
  case DType::f32:
    return f(TypeTag<float>{});
  case DType::f16:
    return f(TypeTag<Half>{});
  case DType::bf16:
    return f(TypeTag<BFloat16>{});
  case DType::f64:
    return f(TypeTag<double>{});
  case DType::i64:
    return f(TypeTag<int64_t>{});
  case DType::i32:
    return f(TypeTag<int32_t>{});
  case DType::i16:
    return f(TypeTag<int16_t>{});
  case DType::i8:
    return f(TypeTag<int8_t>{});
  case DType::u8:
    return f(TypeTag<uint8_t>{});
  case DType::boolean:
    break;
  }
  return f(TypeTag<bool>{});
}

/// The value of one stored element in its natural C++ arithmetic type:
/// 16-bit floats widen to float, everything else is itself.
inline float widen(Half h) { return halfToFloat(h.bits); }
inline float widen(BFloat16 b) { return bf16ToFloat(b.bits); }
template <typename T> T widen(T v) { return v; }

/// A float truncated toward zero into the signed integer type I the way x86
/// does it (and so PyTorch there): NaN and out-of-range values become the
/// smallest I instead of undefined behaviour.
template <typename I, typename F> I truncateFloat(F v) {
  constexpr F limit =
      static_cast<F>(static_cast<double>(uint64_t{1} << (8 * sizeof(I) - 1)));
  if (!(v > -limit && v < limit))
    return std::numeric_limits<I>::min();
  return static_cast<I>(v);
}

/// Converts one element as aten.cast does: float to integer truncates toward
/// zero (into int64 for int64 and uint8, into int32 for the other types, then
/// wrapping into narrower ones, as PyTorch's conversions compile on x86),
/// anything to bool is `!= 0`, 16-bit floats round to nearest even.
template <typename To, typename From> To convertElement(From stored) {
  auto v = widen(stored);
  using V = decltype(v);
  if constexpr (std::is_same_v<To, bool>) {
    return v != V(0);
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half{floatToHalf(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return BFloat16{floatToBf16(static_cast<float>(v))};
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);
  } else if constexpr (std::is_floating_point_v<V> &&
                       (sizeof(To) == 8 || std::is_same_v<To, uint8_t>)) {
    return static_cast<To>(truncateFloat<int64_t>(v));
  } else if constexpr (std::is_floating_point_v<V>) {
    return static_cast<To>(truncateFloat<int32_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

} // namespace duet::rt::portable

#endif // DUET_RUNTIME_KERNELS_ELEMENTTYPES_H
