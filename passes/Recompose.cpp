//===- Recompose.cpp - composite activations from their arithmetic --------===//
//
// RecomposePass (see Passes.td): hardswish, hardsigmoid and silu from the
// arithmetic that `run_decompositions()` and hand-written models spell them
// with. A match must be the activation's exact definition and consume
// intermediates nothing else reads.
//
//===----------------------------------------------------------------------===//

#include "dialects/aten/Constants.h"
#include "passes/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace duet {
#define GEN_PASS_DEF_RECOMPOSEPASS
#include "passes/Passes.h.inc"
} // namespace duet

using namespace mlir;
using namespace duet;
using namespace duet::aten;

namespace {

/// An op that bounds one tensor below, above, or both.
struct Bound {
  Value input;
  std::optional<double> lower, upper;
};

/// `v` as a bound: clamp, hardtanh, relu, or maximum/minimum with a scalar
/// constant (in either operand) that keeps the tensor's type.
std::optional<Bound> matchBound(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  Bound bound;
  if (auto clamp = dyn_cast<ClampOp>(op)) {
    bound.input = clamp.getSelf();
    if (std::optional<APFloat> min = clamp.getMin())
      bound.lower = min->convertToDouble();
    if (std::optional<APFloat> max = clamp.getMax())
      bound.upper = max->convertToDouble();
    return bound;
  }
  if (auto hardtanh = dyn_cast<HardtanhOp>(op)) {
    bound.input = hardtanh.getSelf();
    bound.lower = hardtanh.getMinVal().convertToDouble();
    bound.upper = hardtanh.getMaxVal().convertToDouble();
    return bound;
  }
  if (auto relu = dyn_cast<ReluOp>(op)) {
    bound.input = relu.getSelf();
    bound.lower = 0.0;
    return bound;
  }
  if (!isa<MaximumOp, MinimumOp>(op))
    return std::nullopt;
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  std::optional<double> limit = getScalarConstant(rhs);
  bound.input = lhs;
  if (!limit) {
    limit = getScalarConstant(lhs);
    bound.input = rhs;
  }
  if (!limit || bound.input.getType() != v.getType())
    return std::nullopt;
  (isa<MaximumOp>(op) ? bound.lower : bound.upper) = *limit;
  return bound;
}

/// The `x` of `x + 3` (either operand order, `alpha` folded in) that keeps
/// `x`'s type.
Value matchPlusThree(Value v) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return {};
  double alpha = add.getAlpha().convertToDouble();
  std::optional<double> other = getScalarConstant(add.getOther());
  Value x;
  if (other && *other * alpha == 3.0)
    x = add.getSelf();
  else if (alpha == 1.0 && isScalarConstant(add.getSelf(), 3.0))
    x = add.getOther();
  return x && x.getType() == v.getType() ? x : Value();
}

/// The `x` of `clamp(x + 3, 0, 6)`, whether the clamp is one op with both
/// bounds or a lower and an upper bound chained in either order (the two
/// orders agree because 0 < 6). Every intermediate must have one user.
Value matchClampedPlusThree(Value v) {
  std::optional<Bound> outer = matchBound(v);
  if (!outer)
    return {};
  Value sum;
  if (outer->lower == 0.0 && outer->upper == 6.0) {
    sum = outer->input;
  } else {
    if (!outer->input.hasOneUse())
      return {};
    std::optional<Bound> inner = matchBound(outer->input);
    if (!inner)
      return {};
    bool lowerFirst = !outer->lower && outer->upper == 6.0 &&
                      inner->lower == 0.0 && !inner->upper;
    bool upperFirst = outer->lower == 0.0 && !outer->upper && !inner->lower &&
                      inner->upper == 6.0;
    if (!lowerFirst && !upperFirst)
      return {};
    sum = inner->input;
  }
  return sum.hasOneUse() ? matchPlusThree(sum) : Value();
}

/// The `a` of `a / 6` or `a · (1/6)` (either operand order). 1/6 may be off
/// by one ulp of its element type, so that it matches however it was rounded.
Value matchDivideBySix(Value v) {
  if (auto div = v.getDefiningOp<DivOp>()) {
    if (div.getRoundingMode() == DivRounding::none &&
        isScalarConstant(div.getOther(), 6.0))
      return div.getSelf();
    return {};
  }
  auto mul = v.getDefiningOp<MulOp>();
  if (!mul)
    return {};
  if (isScalarConstantNear(mul.getOther(), 1.0 / 6.0))
    return mul.getSelf();
  if (isScalarConstantNear(mul.getSelf(), 1.0 / 6.0))
    return mul.getOther();
  return {};
}

/// The `x` of `clamp(x + 3, 0, 6) / 6`.
Value matchHardsigmoid(Value v) {
  Value clamped = matchDivideBySix(v);
  if (!clamped || !clamped.hasOneUse())
    return {};
  Value x = matchClampedPlusThree(clamped);
  return x && x.getType() == v.getType() ? x : Value();
}

/// The `x` of `x · hardsigmoid(x)` (the op or its arithmetic) or of
/// `(x · clamp(x + 3, 0, 6)) / 6`.
Value matchHardswish(Value v) {
  if (auto mul = v.getDefiningOp<MulOp>()) {
    for (auto [x, gate] : {std::pair(mul.getSelf(), mul.getOther()),
                           std::pair(mul.getOther(), mul.getSelf())}) {
      if (!gate.hasOneUse() || x.getType() != v.getType())
        continue;
      auto op = gate.getDefiningOp<HardsigmoidOp>();
      if ((op && op.getSelf() == x) || matchHardsigmoid(gate) == x)
        return x;
    }
  }
  Value product = matchDivideBySix(v);
  if (!product || !product.hasOneUse())
    return {};
  auto mul = product.getDefiningOp<MulOp>();
  if (!mul)
    return {};
  for (auto [x, clamped] : {std::pair(mul.getSelf(), mul.getOther()),
                            std::pair(mul.getOther(), mul.getSelf())})
    if (clamped.hasOneUse() && x.getType() == v.getType() &&
        matchClampedPlusThree(clamped) == x)
      return x;
  return {};
}

/// The `x` of `x · sigmoid(x)`, either operand order.
Value matchSilu(Value v) {
  auto mul = v.getDefiningOp<MulOp>();
  if (!mul)
    return {};
  for (auto [x, gate] : {std::pair(mul.getSelf(), mul.getOther()),
                         std::pair(mul.getOther(), mul.getSelf())}) {
    auto sigmoid = gate.getDefiningOp<SigmoidOp>();
    if (sigmoid && sigmoid.getSelf() == x && gate.hasOneUse() &&
        x.getType() == v.getType())
      return x;
  }
  return {};
}

/// Replaces a mul or div that ends one of the activations by the activation.
/// hardswish is tried first: its arithmetic contains a hardsigmoid's.
template <typename OpTy> struct RecomposeActivation : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value result = op.getResult();
    if (Value x = matchHardswish(result)) {
      rewriter.replaceOpWithNewOp<HardswishOp>(op, op.getType(), x);
      return success();
    }
    if (Value x = matchHardsigmoid(result)) {
      rewriter.replaceOpWithNewOp<HardsigmoidOp>(op, op.getType(), x);
      return success();
    }
    if (Value x = matchSilu(result)) {
      rewriter.replaceOpWithNewOp<SiluOp>(op, op.getType(), x);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not an activation's arithmetic");
  }
};

/// `_safe_softmax(x, dim)` as run_decompositions() writes it:
///   %s = softmax %x {dim}
///   %e = eq %x, -inf
///   %n = logical_not %e
///   %a = any %n {dim = [dim], keepdim}
///   %m = logical_not %a          (the rows of nothing but -inf)
///   %y = where %m, 0, %s
/// becomes `softmax %x {dim, safe}`; every intermediate must have no other
/// reader.
struct RecomposeSafeSoftmax : OpRewritePattern<WhereOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(WhereOp where,
                                PatternRewriter &rewriter) const override {
    auto softmax = where.getOther().getDefiningOp<SoftmaxOp>();
    auto masked = where.getCondition().getDefiningOp<LogicalNotOp>();
    if (!softmax || softmax.getSafe().value_or(false) || !masked ||
        !matchPattern(where.getSelf(), m_AnyZeroFloat()) ||
        where.getType() != softmax.getType())
      return rewriter.notifyMatchFailure(where, "not a safe softmax's where");
    auto any = masked.getSelf().getDefiningOp<AnyOp>();
    int64_t dim = int64_t(softmax.getDim());
    if (!any || !any.getKeepdim() || any.getDim().size() != 1 ||
        any.getDim()[0] != dim)
      return rewriter.notifyMatchFailure(where, "no any over the softmax dim");
    auto present = any.getSelf().getDefiningOp<LogicalNotOp>();
    auto eq = present ? present.getSelf().getDefiningOp<EqOp>() : EqOp();
    if (!eq || eq.getSelf() != softmax.getSelf() ||
        !isScalarConstant(eq.getOther(),
                          -std::numeric_limits<double>::infinity()))
      return rewriter.notifyMatchFailure(where, "no eq of the input and -inf");
    for (Operation *op : {softmax.getOperation(), masked.getOperation(),
                          any.getOperation(), present.getOperation(),
                          eq.getOperation()})
      if (!op->getResult(0).hasOneUse())
        return rewriter.notifyMatchFailure(where, "an intermediate has "
                                                  "another reader");
    rewriter.replaceOpWithNewOp<SoftmaxOp>(where, where.getType(),
                                           softmax.getSelf(),
                                           softmax.getDimAttr(),
                                           rewriter.getBoolAttr(true));
    return success();
  }
};

/// How many ops of each recomposed kind `root` holds.
struct ActivationCounts {
  int64_t hardswish = 0, hardsigmoid = 0, silu = 0, safeSoftmax = 0;
};

ActivationCounts countActivations(Operation *root) {
  ActivationCounts counts;
  root->walk([&](Operation *op) {
    counts.hardswish += isa<HardswishOp>(op);
    counts.hardsigmoid += isa<HardsigmoidOp>(op);
    counts.silu += isa<SiluOp>(op);
    if (auto softmax = dyn_cast<SoftmaxOp>(op))
      counts.safeSoftmax += softmax.getSafe().value_or(false);
  });
  return counts;
}

struct RecomposePass : duet::impl::RecomposePassBase<RecomposePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // A hardsigmoid recomposed and then absorbed into a hardswish is not
    // counted: the statistics are the net ops gained.
    ActivationCounts before = countActivations(getOperation());
    RewritePatternSet patterns(context);
    patterns.add<RecomposeActivation<MulOp>, RecomposeActivation<DivOp>,
                 RecomposeSafeSoftmax>(context);
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns)))) {
      getOperation().emitError()
          << "duet-recompose did not converge; a rewrite undoes another, "
             "which is a bug in passes/Recompose.cpp";
      return signalPassFailure();
    }
    ActivationCounts after = countActivations(getOperation());
    numHardswish += after.hardswish - before.hardswish;
    numHardsigmoid +=
        std::max<int64_t>(after.hardsigmoid - before.hardsigmoid, 0);
    numSilu += after.silu - before.silu;
    numSafeSoftmax += after.safeSoftmax - before.safeSoftmax;
  }
};

} // namespace
