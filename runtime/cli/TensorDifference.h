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

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_TENSORDIFFERENCE_H
