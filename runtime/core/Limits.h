//===- Limits.h - the largest program duet compiles and loads -*- C++ -*-===//
//
// Sizes in a program come from an input file (a .pt2 archive, a .duet
// program), so every size is bounded before memory is allocated for it. The
// compiler refuses a model over these bounds, and the loader refuses a program
// over them, with the same numbers: a program the compiler wrote always loads.
// docs/reliability.md gives the reasons for the values.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_LIMITS_H
#define DUET_RUNTIME_CORE_LIMITS_H

#include <cstdint>
#include <optional>

namespace duet::rt {

/// The most bytes one tensor may hold (4 GiB).
inline constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 32;

/// The most bytes of intermediate memory (the arena) one program may plan
/// (16 GiB).
inline constexpr uint64_t kMaxArenaBytes = uint64_t(1) << 34;

/// The most dimensions a tensor may have.
inline constexpr unsigned kMaxTensorRank = 16;

/// The arena alignment of every planned tensor: the compiler's memory plan
/// starts each at a multiple of it and rounds its bytes up to one, so the
/// arena is exactly as large as its last tensor's end rounded up.
inline constexpr uint64_t kArenaAlignment = 64;

/// The most work one run of a program may take by default, in the steps of
/// OpWork.h's workBound (multiply-adds, or elements visited): 10^15, about
/// a 70B-parameter decoder's prefill of 10k tokens, and minutes of a GPU's
/// time; a hostile or damaged file asks for 10^20 and more (a max-pool
/// window of 2^40 is 10^26). A window, mask or product over it is refused at
/// compile time and at load, naming the op; callers raise it with
/// `--max-work` or LoadOptions::maxWork.
inline constexpr double kDefaultMaxWork = 1e15;

/// a * b, or nothing when the product does not fit in 64 bits.
inline std::optional<uint64_t> checkedMul(uint64_t a, uint64_t b) {
  uint64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

/// a + b, or nothing when the sum does not fit in 64 bits.
inline std::optional<uint64_t> checkedAdd(uint64_t a, uint64_t b) {
  uint64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_LIMITS_H
