//===- TensorDifference.h - how far apart two tensors are -------*- C++ -*-===//
//
// The element-wise comparison behind `run --expect` and `replay`: both
// tensors are read as doubles, whatever their dtypes.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_TENSORDIFFERENCE_H
#define DUET_RUNTIME_CLI_TENSORDIFFERENCE_H

#include "runtime/core/DType.h"

#include <string>
#include <vector>

namespace duet::cli {

struct Difference {
  /// max |a - b| over the elements where neither is NaN and they differ.
  double maxAbs = 0;
  /// max |b| over the elements, for relative tolerances.
  double maxOfSecond = 0;
  /// Whether one tensor holds a NaN where the other holds a number.
  bool nan = false;
  /// maxAbs, or infinity when `nan`: one figure for "how far apart".
  double worst() const;
};

/// The difference of `a` and `b`, which have the same number of elements.
/// Equal elements (the same infinity, NaN and NaN) differ by 0.
Difference difference(const rt::TensorView &a, const rt::TensorView &b);

/// The documented default tolerance of a dtype (docs/cli.md, `run
/// --expect`): float16 2e-3 and 1e-3, bfloat16 2e-2 and 1e-2, else 1e-4 and
/// 1e-5.
void defaultTolerance(rt::DType dtype, double &rtol, double &atol);

/// The rule `bisect` compares each op's result with its portable twin by,
/// over the whole tensor: no NaN where the reference has a number, and
/// max |a - b| <= rtol * max|b| + atol. An op's result is compared with
/// another run of duet, not with PyTorch, and a sum that cancels leaves
/// elements near 0 whose error scales with its terms, not with the element
/// (docs/debugging.md).
inline double toleranceBound(const Difference &diff, double rtol, double atol) {
  return rtol * diff.maxOfSecond + atol;
}
inline bool withinTolerance(const Difference &diff, double rtol, double atol) {
  return !diff.nan && diff.maxAbs <= toleranceBound(diff, rtol, atol);
}

/// How two tensors compare under the per-element rule of `run --expect` and
/// of bisect's float64 rule (NumPy's allclose): element i is within when
/// |a[i] - b[i]| <= atol + rtol * |b[i]|, where `b` is the reference. Equal
/// values (the same infinity, NaN and NaN) are within; a NaN against a
/// number, or a finite value against an infinity, is outside.
struct Closeness {
  double rtol = 0;
  double atol = 0;
  /// The Difference of the two, from the same pass.
  Difference difference;
  /// The number of elements, and how many are outside the rule.
  int64_t elements = 0;
  int64_t outside = 0;
  /// The element furthest outside (the largest |a - b| - bound, a NaN or
  /// infinite difference first), -1 when none is; its two values and bound.
  int64_t worst = -1;
  double worstGot = 0;
  double worstRef = 0;
  double worstBound = 0;
  bool ok() const { return outside == 0; }
};

/// Whether a reference of dtype `reference` may stand for an output of
/// dtype `output`: the same dtype, or float32 for bfloat16 (NumPy has no
/// bfloat16, and duet writes such outputs as float32).
inline bool referenceDtypeMatches(rt::DType output, rt::DType reference) {
  return reference == output ||
         (output == rt::DType::bf16 && reference == rt::DType::f32);
}

/// `a` (computed) against `b` (the reference), which have the same number
/// of elements.
Closeness closeness(const rt::TensorView &a, const rt::TensorView &b,
                    double rtol, double atol);

/// "all 12 within" or "3 of 12 outside, the worst at [0, 2]: 1.5 for 1
/// (bound 0.0001)": the figures of `c` for a message; `sizes` gives the
/// worst element's index.
std::string describeCloseness(const Closeness &c,
                              const std::vector<int64_t> &sizes);

/// The finite range of a tensor's elements and how many are NaN or
/// infinite; min > max when none is finite.
struct ValueRange {
  double min = 0;
  double max = 0;
  uint64_t nonfinite = 0;
};
ValueRange valueRange(const rt::TensorView &t);

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_TENSORDIFFERENCE_H
