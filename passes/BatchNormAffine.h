//===- BatchNormAffine.h - an inference batch norm as x·scale + shift -*- C++
//-*-===//
//
// Folding into a convolution and decomposing into mul/add both need the same
// per-channel numbers; this is the one place that computes them.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PASSES_BATCHNORMAFFINE_H
#define DUET_PASSES_BATCHNORMAFFINE_H

#include "dialects/aten/AtenDialect.h"

#include "llvm/ADT/SmallVector.h"

namespace duet {

/// Per channel c: batch_norm(x)[:, c] = x[:, c]·scale[c] + shift[c], with
/// scale = γ/√(σ² + ε) and shift = β − μ·scale, in double.
struct BatchNormAffine {
  llvm::SmallVector<double> scale, shift;
};

/// Why a batch norm has no constant affine form.
enum class BatchNormAffineFailure {
  None,
  /// The running statistics, weight or bias are not all readable constants.
  NotConstant,
  /// Some channel has σ² + ε ≤ 0 (or NaN): the scale would be inf or NaN.
  NonPositiveVariance,
};

/// Fills `affine` for `norm` (a missing γ is 1, a missing β is 0), or returns
/// why it cannot.
BatchNormAffineFailure computeBatchNormAffine(aten::BatchNormOp norm,
                                              BatchNormAffine &affine);

} // namespace duet

#endif // DUET_PASSES_BATCHNORMAFFINE_H
