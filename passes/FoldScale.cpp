//===- FoldScale.cpp - a scalar multiply folded into the layer before it --===//
//
// FoldScalePass (see Passes.td). Attention layers scale the queries (and
// sometimes the keys) by a constant after the projection and the head
// split: `mul(permute(view(linear(x, W, b))), c)`. The multiply moves into
// the projection's constants, `linear(x, c·W, c·b)`, and disappears: one
// element-wise pass over the activations less on every backend. The scale
// of a scaled_dot_product_attention moves into its query's projection the
// same way, leaving the attention a scale of 1, which decomposes without a
// multiply.
//
//===----------------------------------------------------------------------===//

#include "dialects/aten/Constants.h"
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>

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

/// Scales the layer that computes `value` (scaledLayer's, through views and
/// permutes) by `scale`: its weight and bias constants replaced by scaled
/// ones, of `value`'s element type. Returns whether it did; nothing changes
/// when it cannot (no such layer, other element types, constants that are
/// not float ones).
bool scaleLayer(IRRewriter &rewriter, Value value, double scale) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !isComputableFloat(type.getElementType()))
    return false;
  Operation *layer = scaledLayer(value);
  if (!layer)
    return false;
  Value weight = layer->getOperand(1);
  Value bias = layer->getNumOperands() > 2 ? layer->getOperand(2) : nullptr;
  Type element = type.getElementType();
  auto sameElement = [&](Value operand) {
    return !operand ||
           cast<RankedTensorType>(operand.getType()).getElementType() ==
               element;
  };
  if (cast<RankedTensorType>(layer->getResult(0).getType()).getElementType() !=
          element ||
      !sameElement(weight) || !sameElement(bias))
    return false;
  rewriter.setInsertionPoint(layer);
  Value scaledWeight = scaledConstant(rewriter, weight, scale);
  Value scaledBias = bias ? scaledConstant(rewriter, bias, scale) : nullptr;
  if (!scaledWeight || (bias && !scaledBias)) {
    for (Value made : {scaledWeight, scaledBias})
      if (made)
        rewriter.eraseOp(made.getDefiningOp());
    return false;
  }
  // The layer keeps its location: it still computes its own node's result.
  // The old constants stay while another op reads them (a bias shared
  // between layers).
  Operation *oldWeight = weight.getDefiningOp();
  Operation *oldBias = bias ? bias.getDefiningOp() : nullptr;
  rewriter.modifyOpInPlace(layer, [&] {
    layer->setOperand(1, scaledWeight);
    if (bias)
      layer->setOperand(2, scaledBias);
  });
  for (Operation *old : {oldWeight, oldBias})
    if (old && old->use_empty())
      rewriter.eraseOp(old);
  return true;
}

/// Folds `mul` when one operand is a float scalar constant and the other a
/// layer's result as scaledLayer finds it, with the layer's weight and bias
/// constants of the result's element type; returns whether it did.
bool tryFold(IRRewriter &rewriter, MulOp mul) {
  for (int scalar = 0; scalar < 2; ++scalar) {
    Value other = mul->getOperand(1 - scalar);
    std::optional<double> factor = getScalarConstant(mul->getOperand(scalar));
    // The multiply keeps the other operand's type: no broadcast, no
    // promotion. The dialect's multiply has one element type; the scalar is
    // of it.
    if (!factor || other.getType() != mul.getType() ||
        !scaleLayer(rewriter, other, *factor))
      continue;
    // The multiply's result is the last view's now.
    rewriter.replaceOp(mul, other);
    return true;
  }
  return false;
}

/// Folds the scale of `attention` (1/sqrt(E) unless given) into the layer
/// that computes its query, through the head split, and sets it to 1: the
/// decomposed attention then multiplies nothing (Decompose.cpp). Returns
/// whether it did.
bool tryFold(IRRewriter &rewriter, ScaledDotProductAttentionOp attention) {
  auto query = cast<RankedTensorType>(attention.getQuery().getType());
  double scale =
      attention.getScale()
          ? attention.getScale()->convertToDouble()
          : 1.0 / std::sqrt(static_cast<double>(query.getShape().back()));
  if (scale == 1.0 ||
      query.getElementType() != attention.getType().getElementType() ||
      !scaleLayer(rewriter, attention.getQuery(), scale))
    return false;
  rewriter.modifyOpInPlace(attention, [&] {
    attention.setScaleAttr(rewriter.getF64FloatAttr(1.0));
  });
  return true;
}

struct FoldScalePass : duet::impl::FoldScalePassBase<FoldScalePass> {
  using FoldScalePassBase::FoldScalePassBase;

  void runOnOperation() override {
    SmallVector<MulOp> muls;
    SmallVector<ScaledDotProductAttentionOp> attentions;
    getOperation().walk([&](Operation *op) {
      if (auto mul = dyn_cast<MulOp>(op))
        muls.push_back(mul);
      else if (auto attention = dyn_cast<ScaledDotProductAttentionOp>(op))
        attentions.push_back(attention);
    });
    IRRewriter rewriter(&getContext());
    for (MulOp mul : muls)
      if (tryFold(rewriter, mul))
        ++numFolded;
    for (ScaledDotProductAttentionOp attention : attentions)
      if (tryFold(rewriter, attention))
        ++numFolded;
  }
};

} // namespace
