//===- TensorDifference.h - how far apart two tensors are -------*- C++ -*-===//
//
// The element-wise comparison behind `run --expect` and `replay`: both
// tensors are read as doubles, whatever their dtypes.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_TENSORDIFFERENCE_H
#define DUET_RUNTIME_CLI_TENSORDIFFERENCE_H

#include "runtime/core/DType.h"

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

/// The tolerance rule of `run --expect` and `bisect`: no NaN where the
/// reference has a number, and max |a - b| <= rtol * max|b| + atol.
inline double toleranceBound(const Difference &diff, double rtol, double atol) {
  return rtol * diff.maxOfSecond + atol;
}
inline bool withinTolerance(const Difference &diff, double rtol, double atol) {
  return !diff.nan && diff.maxAbs <= toleranceBound(diff, rtol, atol);
}

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
