//===- Normalize.cpp - one canonical form for every IR flavour ------------===//
//
// The rewrites of NormalizePass (see Passes.td): linear from addmm/mm/matmul
// and their view pairs. Identity removal and the evaluation of all-constant
// ops are the aten ops' canonicalize() (dialects/aten/AtenCanonicalize.cpp),
// which the pass runs with them and counts.
//
//===----------------------------------------------------------------------===//

#include "dialects/aten/Constants.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <cstring>

namespace duet {
#define GEN_PASS_DEF_NORMALIZEPASS
#include "passes/Passes.h.inc"
} // namespace duet

using namespace mlir;
using namespace duet;
using namespace duet::aten;

namespace {

/// What the patterns did, added to the pass statistics once they are done.
struct NormalizeCounts {
  int64_t linear = 0;
  int64_t scaled = 0;
  int64_t identities = 0;
  int64_t folded = 0;
};

//===----------------------------------------------------------------------===//
// Linear
//===----------------------------------------------------------------------===//

/// Whether `mat2` (`[in, out]` of a matrix product) is the transpose of a
/// linear weight: `permute(W, [1, 0])`, or a constant no one else reads,
/// which can be replaced by its transpose without keeping two copies.
bool isTransposedWeight(Value mat2) {
  if (cast<RankedTensorType>(mat2.getType()).getRank() != 2)
    return false;
  if (auto permute = mat2.getDefiningOp<PermuteOp>())
    return permute.getDims() == ArrayRef<int64_t>{1, 0};
  ElementsAttr attr = getConstantElements(mat2);
  return attr && mat2.hasOneUse() && getRawElements(attr);
}

/// The `[out, in]` weight of which `mat2` is the transpose; call only when
/// isTransposedWeight(mat2) holds.
Value weightOf(PatternRewriter &rewriter, Value mat2) {
  if (auto permute = mat2.getDefiningOp<PermuteOp>())
    return permute.getSelf();
  auto type = cast<RankedTensorType>(mat2.getType());
  auto weightType = RankedTensorType::get(
      {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  DenseElementsAttr transposed =
      permuteElements(getConstantElements(mat2), {1, 0}, weightType);
  return rewriter.create<arith::ConstantOp>(mat2.getLoc(), transposed);
}

/// `addmm(b, x, permute(W, [1, 0]))` with beta = alpha = 1 and `b` of shape
/// `[out]` → `linear(x, W, b)`.
struct AddmmToLinear : OpRewritePattern<AddmmOp> {
  AddmmToLinear(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern(context), counts(counts) {}

  LogicalResult matchAndRewrite(AddmmOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getBeta().convertToDouble() != 1.0 ||
        op.getAlpha().convertToDouble() != 1.0)
      return rewriter.notifyMatchFailure(op, "beta or alpha is not 1");
    auto bias = op.getSelf().getType();
    if (bias.getRank() != 1 || bias.getDimSize(0) != op.getType().getDimSize(1))
      return rewriter.notifyMatchFailure(op, "self is not a [out] bias");
    if (!isTransposedWeight(op.getMat2()))
      return rewriter.notifyMatchFailure(op, "mat2 is not a transposed weight");
    Value weight = weightOf(rewriter, op.getMat2());
    rewriter.replaceOpWithNewOp<LinearOp>(op, op.getType(), op.getMat1(),
                                          weight, op.getSelf());
    ++counts.linear;
    return success();
  }

  NormalizeCounts &counts;
};

/// `mm(x, permute(W, [1, 0]))` or `matmul(x, permute(W, [1, 0]))` with a 2-D
/// `W` → `linear(x, W)`.
template <typename OpTy> struct ProductToLinear : OpRewritePattern<OpTy> {
  ProductToLinear(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern<OpTy>(context), counts(counts) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!isTransposedWeight(op.getOther()))
      return rewriter.notifyMatchFailure(op, "rhs is not a transposed weight");
    Value weight = weightOf(rewriter, op.getOther());
    rewriter.replaceOpWithNewOp<LinearOp>(op, op.getType(), op.getSelf(),
                                          weight, Value());
    ++counts.linear;
    return success();
  }

  NormalizeCounts &counts;
};

/// `mul(linear(x, W, b), g)` where `g` is a constant over the output features
/// (`[out]`, `[1, ..., out]`, or a scalar), W and b constants and the linear
/// read by the mul only → `linear(x, W·g, b·g)`, each row of W scaled; the
/// same for a convolution (not transposed) and `g` over its output channels
/// (`[1, C, 1, 1]`: ConvNeXt-Atto's 1x1 convolution MLPs, EfficientFormer);
/// also through one permute between them (`mul(permute(linear), g)` with `g`
/// over the dim the features land on, as timm's ConvNeXt scales `[N, C, H, W]`
/// by `gamma.reshape(1, -1, 1, 1)` after permuting its channels-last MLP back).
/// The layer scale of ConvNeXt, BEiT and EfficientFormer blocks is otherwise
/// a pass over the output. The scaled constants are rounded once from
/// double, where the unfolded graph rounds the product, then the scaling.
struct ScaleLinear : OpRewritePattern<MulOp> {
  ScaleLinear(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern(context), counts(counts) {}

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto outType = cast<RankedTensorType>(op.getType());
    int64_t rank = outType.getRank();
    for (int side = 0; side < 2; ++side) {
      Value product = side == 0 ? op.getSelf() : op.getOther();
      Value scale = side == 0 ? op.getOther() : op.getSelf();
      if (product.getType() != op.getType() || !product.hasOneUse())
        continue;
      // The linear or convolution, and the dim of the mul's result its
      // features (output channels) are on.
      auto permute = product.getDefiningOp<PermuteOp>();
      Operation *producer =
          permute ? permute.getSelf().getDefiningOp() : product.getDefiningOp();
      auto conv = dyn_cast_or_null<ConvolutionOp>(producer);
      if (permute || (conv && conv.getTransposed()))
        conv = nullptr;
      auto linear = dyn_cast_or_null<LinearOp>(producer);
      if ((!linear && !conv) || !producer->hasOneUse() || rank < 2)
        continue;
      int64_t featureDim = conv ? 1 : rank - 1;
      if (permute) {
        ArrayRef<int64_t> dims = permute.getDims();
        featureDim = llvm::find(dims, rank - 1) - dims.begin();
      }
      Value weightValue = conv ? conv.getWeight() : linear.getWeight();
      Value biasValue = conv ? conv.getBias() : linear.getBias();
      int64_t features = outType.getDimSize(featureDim);
      // One factor per feature, or one for all: g broadcasts, aligned right,
      // with every dim 1 but the features' one.
      auto scaleType = cast<RankedTensorType>(scale.getType());
      ArrayRef<int64_t> shape = scaleType.getShape();
      int64_t lead = rank - static_cast<int64_t>(shape.size());
      bool fits =
          lead >= 0 && scaleType.getElementType() == outType.getElementType();
      for (int64_t d = 0; fits && d < static_cast<int64_t>(shape.size()); ++d)
        fits =
            shape[d] == 1 || (d + lead == featureDim && shape[d] == features);
      if (!fits)
        continue;
      std::optional<SmallVector<double>> g = readFloatConstant(scale);
      std::optional<SmallVector<double>> w = readFloatConstant(weightValue);
      std::optional<SmallVector<double>> b;
      if (biasValue)
        b = readFloatConstant(biasValue);
      auto weightType = cast<RankedTensorType>(weightValue.getType());
      // A non-finite factor stays a mul: folded, inf·0 in a weight row
      // would turn the mul's inf into NaN. So do f16 and bf16 weights, whose
      // narrow range a scaled weight can leave (a 1e-6 layer scale times
      // 1e-2 weights is 0 in f16) where the unfolded product would not.
      Type element = weightType.getElementType();
      if (!g || !w || (biasValue && !b) || g->empty() ||
          weightType.getDimSize(0) != features ||
          !(element.isF32() || element.isF64()) ||
          !llvm::all_of(*g, [](double v) { return std::isfinite(v); }))
        continue;
      auto factor = [&](int64_t o) { return (*g)[g->size() == 1 ? 0 : o]; };
      // Weight row o (output feature or channel o) is contiguous.
      int64_t row = static_cast<int64_t>(w->size()) / features;
      SmallVector<double> scaled(*w);
      for (int64_t o = 0; o < features; ++o)
        for (int64_t k = 0; k < row; ++k)
          scaled[o * row + k] *= factor(o);
      // Nor where a scaled weight leaves the element type's range.
      if (!llvm::all_of(scaled, [&](double v) {
            return std::isfinite(roundToFloatType(v, element));
          }))
        continue;
      rewriter.setInsertionPoint(producer);
      Location loc = producer->getLoc();
      Value weight = createFloatConstant(rewriter, loc, weightType, scaled);
      Value bias;
      if (b) {
        for (int64_t o = 0; o < features; ++o)
          (*b)[o] *= factor(o);
        bias = createFloatConstant(
            rewriter, loc, cast<RankedTensorType>(biasValue.getType()), *b);
      }
      Value result;
      if (conv)
        result = rewriter.create<ConvolutionOp>(
            loc, conv.getInput(), weight, bias, conv.getStrideAttr(),
            conv.getPaddingAttr(), conv.getDilationAttr(),
            conv.getOutputPaddingAttr(), conv.getGroupsAttr(),
            conv.getTransposedAttr());
      else
        result =
            rewriter.create<LinearOp>(loc, linear.getInput(), weight, bias);
      if (permute) {
        rewriter.setInsertionPoint(permute);
        result = rewriter.create<PermuteOp>(permute.getLoc(), result,
                                            permute.getDimsAttr());
      }
      rewriter.replaceOp(op, result);
      if (permute)
        rewriter.eraseOp(permute);
      rewriter.eraseOp(producer);
      ++counts.scaled;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a linear times a constant "
                                           "per output feature");
  }

  NormalizeCounts &counts;
};

/// `view(linear(view(x)))` where the inner view flattens the leading dims of
/// `x` (`[B, T, D]` → `[B·T, D]`) and the outer one restores them
/// (`[B·T, out]` → `[B, T, out]`) → `linear(x)`, which is N-D already.
struct FuseFlattenedLinear : OpRewritePattern<ViewOp> {
  FuseFlattenedLinear(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern(context), counts(counts) {}

  LogicalResult matchAndRewrite(ViewOp outer,
                                PatternRewriter &rewriter) const override {
    auto linear = outer.getSelf().getDefiningOp<LinearOp>();
    if (!linear || !linear->hasOneUse())
      return rewriter.notifyMatchFailure(outer, "not a single-use linear");
    auto inner = linear.getInput().getDefiningOp<ViewOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(outer, "linear input is not a view");
    Value x = inner.getSelf();
    ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
    ArrayRef<int64_t> flat = inner.getType().getShape();
    if (shape.empty() || flat.size() != 2 || flat[1] != shape.back())
      return rewriter.notifyMatchFailure(outer, "inner view is not a flatten");
    int64_t rows = 1;
    for (int64_t d : shape.drop_back())
      rows *= d;
    SmallVector<int64_t> expected(shape.drop_back());
    expected.push_back(linear.getType().getDimSize(1));
    if (flat[0] != rows || outer.getType().getShape() != ArrayRef(expected))
      return rewriter.notifyMatchFailure(outer, "views do not pair up");
    rewriter.replaceOpWithNewOp<LinearOp>(outer, outer.getType(), x,
                                          linear.getWeight(), linear.getBias());
    ++counts.linear;
    return success();
  }

  NormalizeCounts &counts;
};

/// Whether every operand of the aten op `op` is a readable constant.
bool hasConstantOperands(Operation *op) {
  if (!isa<AtenDialect>(op->getDialect()) || op->getNumOperands() == 0 ||
      op->getNumResults() != 1)
    return false;
  return llvm::all_of(op->getOperands(), [](Value operand) {
    return static_cast<bool>(getConstantElements(operand));
  });
}

/// Counts what the aten ops' canonicalization did (AtenCanonicalize.cpp):
/// an op replaced by a constant (evaluated), by one of its operands, or a
/// view made to read through another (identities).
struct CanonicalizeCounter : RewriterBase::Listener {
  explicit CanonicalizeCounter(NormalizeCounts &counts) : counts(counts) {}

  void notifyOperationReplaced(Operation *op, ValueRange values) override {
    if (!isa<AtenDialect>(op->getDialect()) || values.empty())
      return;
    if (llvm::all_of(values, [](Value v) {
          return v.getDefiningOp<arith::ConstantOp>() != nullptr;
        }))
      ++counts.folded;
    else if (llvm::all_of(values, [&](Value v) {
               return llvm::is_contained(op->getOperands(), v);
             }))
      ++counts.identities;
  }
  void notifyOperationModified(Operation *op) override {
    if (isa<ViewOp>(op))
      ++counts.identities;
  }

  NormalizeCounts &counts;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct NormalizePass : duet::impl::NormalizePassBase<NormalizePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    NormalizeCounts counts;
    RewritePatternSet patterns(context);
    patterns.add<AddmmToLinear, ProductToLinear<MmOp>,
                 ProductToLinear<MatmulOp>, ScaleLinear, FuseFlattenedLinear>(
        context, counts);
    // Identities and all-constant ops: the aten ops' canonicalize().
    for (RegisteredOperationName name : context->getRegisteredOperations())
      if (name.getDialectNamespace() == AtenDialect::getDialectNamespace())
        name.getCanonicalizationPatterns(patterns, context);
    CanonicalizeCounter counter(counts);
    GreedyRewriteConfig config;
    config.listener = &counter;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                            config))) {
      getOperation().emitError()
          << "duet-normalize did not converge; a rewrite undoes another, "
             "which is a bug in passes/Normalize.cpp";
      return signalPassFailure();
    }
    numLinear += counts.linear;
    numScaled += counts.scaled;
    numIdentities += counts.identities;
    numConstantsFolded += counts.folded;
    getOperation().walk([&](Operation *op) {
      if (hasConstantOperands(op))
        ++numConstantsLeft;
    });
  }
};

} // namespace
