//===- BatchNormAffine.cpp - an inference batch norm as x·scale + shift ---===//

#include "passes/BatchNormAffine.h"
#include "dialects/aten/Constants.h"

#include <cmath>

using namespace mlir;

namespace duet {

/// Reads `value`, or fills `count` copies of `neutral` when it is absent.
static bool readOrFill(Value value, int64_t count, double neutral,
                       SmallVector<double> &out) {
  if (!value) {
    out.assign(count, neutral);
    return true;
  }
  std::optional<SmallVector<double>> values = readFloatConstant(value);
  if (!values)
    return false;
  out = std::move(*values);
  return true;
}

BatchNormAffineFailure computeBatchNormAffine(aten::BatchNormOp norm,
                                              BatchNormAffine &affine) {
  int64_t channels = norm.getType().getDimSize(1);
  std::optional<SmallVector<double>> mean =
      readFloatConstant(norm.getRunningMean());
  std::optional<SmallVector<double>> var =
      readFloatConstant(norm.getRunningVar());
  SmallVector<double> gamma, beta;
  if (!mean || !var || !readOrFill(norm.getWeight(), channels, 1.0, gamma) ||
      !readOrFill(norm.getBias(), channels, 0.0, beta))
    return BatchNormAffineFailure::NotConstant;
  double eps = norm.getEps().convertToDouble();
  affine.scale.resize(channels);
  affine.shift.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    double denominator = (*var)[c] + eps;
    if (!(denominator > 0))
      return BatchNormAffineFailure::NonPositiveVariance;
    affine.scale[c] = gamma[c] / std::sqrt(denominator);
    affine.shift[c] = beta[c] - (*mean)[c] * affine.scale[c];
  }
  return BatchNormAffineFailure::None;
}

} // namespace duet
