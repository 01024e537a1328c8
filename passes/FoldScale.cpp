//===- FoldScale.cpp - a scalar multiply folded into the layer before it --===//
//
// FoldScalePass (see Passes.td). Attention layers scale the queries (and
// sometimes the keys) by a constant after the projection and the head
// split: `mul(permute(view(linear(x, W, b))), c)`. The multiply moves into
// the projection's constants, `linear(x, c·W, c·b)`, and disappears: one
// element-wise pass over the activations less on every backend.
//
//===----------------------------------------------------------------------===//

#include "passes/ConstantUtils.h"
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace duet {
#define GEN_PASS_DEF_FOLDSCALEPASS
#include "passes/Passes.h.inc"
} // namespace duet

using namespace mlir;
using namespace duet;
using namespace duet::aten;

namespace {

/// The linear or convolution whose result `value` is, through views and
/// permutes (which move elements and compute nothing), when every value on
/// the way has one user, so that scaling the layer scales `value` alone.
Operation *scaledLayer(Value value) {
  while (true) {
    if (!value.hasOneUse())
      return nullptr;
    Operation *op = value.getDefiningOp();
    if (!op)
      return nullptr;
    if (isa<ViewOp, PermuteOp>(op)) {
      value = op->getOperand(0);
      continue;
    }
    return isa<LinearOp, ConvolutionOp>(op) ? op : nullptr;
  }
}

/// The layer's constant `operand` times `factor`, each element rounded
/// once to the constant's type; null when it is not a float constant.
Value scaledConstant(IRRewriter &rewriter, Value operand, double factor) {
  std::optional<SmallVector<double>> values = readFloatConstant(operand);
  if (!values)
    return nullptr;
  for (double &value : *values)
    value *= factor;
  return createFloatConstant(rewriter, operand.getLoc(),
                             cast<RankedTensorType>(operand.getType()),
                             *values);
}

/// Folds `mul` when one operand is a float scalar constant and the other a
/// layer's result as scaledLayer finds it, with the layer's weight and bias
/// constants of the result's element type; returns whether it did.
bool tryFold(IRRewriter &rewriter, MulOp mul) {
  for (int scalar = 0; scalar < 2; ++scalar) {
    Value other = mul->getOperand(1 - scalar);
    std::optional<double> factor = getScalarConstant(mul->getOperand(scalar));
    auto type = dyn_cast<RankedTensorType>(other.getType());
    // The multiply keeps the other operand's type: no broadcast, no
    // promotion.
    if (!factor || !type || type != mul.getType() ||
        !isComputableFloat(type.getElementType()))
      continue;
    Operation *layer = scaledLayer(other);
    if (!layer)
      continue;
    Value weight = layer->getOperand(1);
    Value bias = layer->getNumOperands() > 2 ? layer->getOperand(2) : nullptr;
    Type element = type.getElementType();
    auto sameElement = [&](Value value) {
      return !value ||
             cast<RankedTensorType>(value.getType()).getElementType() ==
                 element;
    };
    if (cast<RankedTensorType>(layer->getResult(0).getType())
                .getElementType() != element ||
        !sameElement(weight) || !sameElement(bias))
      continue;
    // The dialect's multiply has one element type; the scalar is of it.
    double scale = *factor;
    rewriter.setInsertionPoint(layer);
    Value scaledWeight = scaledConstant(rewriter, weight, scale);
    Value scaledBias = bias ? scaledConstant(rewriter, bias, scale) : nullptr;
    if (!scaledWeight || (bias && !scaledBias)) {
      for (Value made : {scaledWeight, scaledBias})
        if (made)
          rewriter.eraseOp(made.getDefiningOp());
      continue;
    }
    // The layer keeps its location: it still computes its own node's
    // result (the multiply's is the last view's). The old constants stay
    // while another op reads them (a bias shared between layers).
    Operation *oldWeight = weight.getDefiningOp();
    Operation *oldBias = bias ? bias.getDefiningOp() : nullptr;
    rewriter.modifyOpInPlace(layer, [&] {
      layer->setOperand(1, scaledWeight);
      if (bias)
        layer->setOperand(2, scaledBias);
    });
    rewriter.replaceOp(mul, other);
    for (Operation *old : {oldWeight, oldBias})
      if (old && old->use_empty())
        rewriter.eraseOp(old);
    return true;
  }
  return false;
}

struct FoldScalePass : duet::impl::FoldScalePassBase<FoldScalePass> {
  using FoldScalePassBase::FoldScalePassBase;

  void runOnOperation() override {
    SmallVector<MulOp> muls;
    getOperation().walk([&](MulOp mul) { muls.push_back(mul); });
    IRRewriter rewriter(&getContext());
    for (MulOp mul : muls)
      if (tryFold(rewriter, mul))
        ++numFolded;
  }
};

} // namespace
