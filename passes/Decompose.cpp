//===- Decompose.cpp - composite aten ops as simpler aten ops -------------===//
//
// One pattern per composite op; each rewrites the op into aten ops that
// compute its definition exactly in real arithmetic. Patterns are added only
// for ops the backend lacks, so a native op is never touched, and what one
// decomposition produces is decomposed further only when it is not native.
//
//===----------------------------------------------------------------------===//

#include "passes/Decompose.h"
#include "dialects/aten/Constants.h"
#include "passes/BatchNormAffine.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace duet {
#define GEN_PASS_DEF_DECOMPOSEPASS
#include "passes/Passes.h.inc"
} // namespace duet

using namespace mlir;
using namespace duet;
using namespace duet::aten;

namespace {

//===----------------------------------------------------------------------===//
// Building aten ops with their result types
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Creates aten ops at the rewriter's insertion point. Their result types
/// come from each op's shape rule (dialects/aten/ShapeRules.h) through the
/// builders ODS generates for InferTypeOpInterface: this runs on verified IR,
/// where a rule cannot fail. Scalars become 0-d constants of the operand's
/// element type.
class AtenBuilder {
public:
  AtenBuilder(PatternRewriter &rewriter, Location loc)
      : rewriter(rewriter), loc(loc) {}

  Value scalarLike(Value like, double value) {
    return createScalarConstant(rewriter, loc,
                                tensorType(like).getElementType(), value);
  }

  template <typename OpTy> Value unary(Value x) {
    return rewriter.create<OpTy>(loc, x.getType(), x);
  }

  Value add(Value a, Value b) {
    return rewriter.create<AddOp>(loc, a, b, rewriter.getF64FloatAttr(1.0));
  }
  Value sub(Value a, Value b) {
    return rewriter.create<SubOp>(loc, a, b, rewriter.getF64FloatAttr(1.0));
  }
  Value mul(Value a, Value b) { return rewriter.create<MulOp>(loc, a, b); }
  Value div(Value a, Value b) { return rewriter.create<DivOp>(loc, a, b); }
  Value maximum(Value a, Value b) {
    return rewriter.create<MaximumOp>(loc, a, b);
  }
  Value minimum(Value a, Value b) {
    return rewriter.create<MinimumOp>(loc, a, b);
  }
  Value add(Value a, double c) { return add(a, scalarLike(a, c)); }
  Value sub(Value a, double c) { return sub(a, scalarLike(a, c)); }
  Value mul(Value a, double c) { return mul(a, scalarLike(a, c)); }
  Value div(Value a, double c) { return div(a, scalarLike(a, c)); }
  Value maximum(Value a, double c) { return maximum(a, scalarLike(a, c)); }
  Value minimum(Value a, double c) { return minimum(a, scalarLike(a, c)); }

  /// `a <= c` elementwise, as a boolean tensor.
  Value lessEqual(Value a, double c) {
    return rewriter.create<LeOp>(loc, a, scalarLike(a, c));
  }

  /// `condition ? a : b` elementwise, all three broadcast together.
  Value where(Value condition, Value a, Value b) {
    return rewriter.create<WhereOp>(loc, condition, a, b);
  }

  Value cast(Value x, Type element) {
    return rewriter.create<CastOp>(
        loc, RankedTensorType::get(tensorType(x).getShape(), element), x);
  }

  Value clamp(Value x, double lower, double upper) {
    return rewriter.create<ClampOp>(loc, x.getType(), x,
                                    rewriter.getF64FloatAttr(lower),
                                    rewriter.getF64FloatAttr(upper));
  }

  /// A reduction over `dims` (all dims when empty).
  template <typename OpTy>
  Value reduce(Value x, ArrayRef<int64_t> dims, bool keepdim) {
    return rewriter.create<OpTy>(loc, x, dims, keepdim);
  }

  Value permute(Value x, ArrayRef<int64_t> dims) {
    return rewriter.create<PermuteOp>(loc, x,
                                      rewriter.getDenseI64ArrayAttr(dims));
  }

  /// `x` with its last two dims swapped.
  Value transposeLastTwo(Value x) {
    int64_t rank = tensorType(x).getRank();
    SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(dims[rank - 1], dims[rank - 2]);
    return permute(x, dims);
  }

  /// `matmul` with NumPy semantics (1-D operands, broadcast batch dims).
  Value matmul(Value a, Value b) {
    return rewriter.create<MatmulOp>(loc, a, b);
  }

  Value softmax(Value x, int64_t dim) {
    return rewriter.create<SoftmaxOp>(loc, x.getType(), x,
                                      rewriter.getI64IntegerAttr(dim));
  }

  Value constant(RankedTensorType type, ArrayRef<double> values) {
    return createFloatConstant(rewriter, loc, type, values);
  }

private:
  PatternRewriter &rewriter;
  Location loc;
};

//===----------------------------------------------------------------------===//
// The decompositions
//
// `canDecompose(op)` says whether an exact decomposition exists for this op's
// operands and attributes; it runs before anything is built, so a pattern
// never changes the IR and then fails. `decompose(op, b)` builds it; no call
// has two arguments that build ops, so the IR order does not depend on the
// compiler's order of evaluating arguments.
//===----------------------------------------------------------------------===//

template <typename OpTy> bool canDecompose(OpTy) { return true; }

/// hardswish(x) = x · hardsigmoid(x); the hardsigmoid stays when native.
Value decompose(HardswishOp op, AtenBuilder &b) {
  Value x = op.getSelf();
  return b.mul(x, b.unary<HardsigmoidOp>(x));
}

/// hardsigmoid(x) = clamp(x + 3, 0, 6) / 6. PyTorch's kernel divides by 6,
/// so a division rounds as the reference does where `· (1/6)` would not.
Value decompose(HardsigmoidOp op, AtenBuilder &b) {
  return b.div(b.clamp(b.add(op.getSelf(), 3.0), 0.0, 6.0), 6.0);
}

/// silu(x) = x · sigmoid(x).
Value decompose(SiluOp op, AtenBuilder &b) {
  Value x = op.getSelf();
  return b.mul(x, b.unary<SigmoidOp>(x));
}

/// Only the tanh approximation is arithmetic; exact gelu needs erf.
bool canDecompose(GeluOp op) {
  return op.getApproximate() == GeluApproximate::tanh;
}

/// gelu_tanh(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), with x³ as
/// x·x·x in the order PyTorch's kernel uses.
Value decompose(GeluOp op, AtenBuilder &b) {
  Value x = op.getSelf();
  Value cube = b.mul(b.mul(x, x), x);
  Value inner = b.add(x, b.mul(cube, 0.044715));
  Value t = b.unary<TanhOp>(b.mul(inner, std::sqrt(2.0 / M_PI)));
  Value halfX = b.mul(x, 0.5);
  return b.mul(halfX, b.add(t, 1.0));
}

/// Constant statistics are needed to turn the batch norm into two constants.
bool canDecompose(BatchNormOp op) {
  BatchNormAffine affine;
  return computeBatchNormAffine(op, affine) == BatchNormAffineFailure::None;
}

/// batch_norm(x) = x·scale + shift with per-channel constants shaped
/// `[C, 1, …]` so that they broadcast over `[N, C, …]` (`[C]` for `[N, C]`).
Value decompose(BatchNormOp op, AtenBuilder &b) {
  BatchNormAffine affine;
  computeBatchNormAffine(op, affine);
  auto type = op.getType();
  SmallVector<int64_t> shape(type.getRank() - 1, 1);
  shape[0] = type.getDimSize(1);
  auto paramType = RankedTensorType::get(shape, type.getElementType());
  Value scaled = b.mul(op.getInput(), b.constant(paramType, affine.scale));
  return b.add(scaled, b.constant(paramType, affine.shift));
}

/// layer_norm(x) = (x − mean)·rsqrt(mean((x − mean)²) + eps)·w + b over the
/// trailing `normalized_shape` dims (the biased variance, as PyTorch uses).
Value decompose(LayerNormOp op, AtenBuilder &b) {
  Value x = op.getInput();
  int64_t rank = op.getType().getRank();
  auto dims = llvm::to_vector(llvm::seq<int64_t>(
      rank - static_cast<int64_t>(op.getNormalizedShape().size()), rank));
  Value centered = b.sub(x, b.reduce<MeanOp>(x, dims, true));
  Value var = b.reduce<MeanOp>(b.mul(centered, centered), dims, true);
  Value y = b.mul(centered,
                  b.unary<RsqrtOp>(b.add(var, op.getEps().convertToDouble())));
  if (op.getWeight())
    y = b.mul(y, op.getWeight());
  if (op.getBias())
    y = b.add(y, op.getBias());
  return y;
}

/// linear(x, W, b) = matmul(x, Wᵀ) + b.
Value decompose(LinearOp op, AtenBuilder &b) {
  Value y = b.matmul(op.getInput(), b.permute(op.getWeight(), {1, 0}));
  return op.getBias() ? b.add(y, op.getBias()) : y;
}

/// addmm = beta·self + alpha·(mat1 @ mat2); a zero beta drops self, as
/// PyTorch does (so NaN in self does not propagate).
Value decompose(AddmmOp op, AtenBuilder &b) {
  double alpha = op.getAlpha().convertToDouble();
  double beta = op.getBeta().convertToDouble();
  Value product = b.matmul(op.getMat1(), op.getMat2());
  if (alpha != 1.0)
    product = b.mul(product, alpha);
  if (beta == 0.0)
    return product;
  Value self = beta == 1.0 ? op.getSelf() : b.mul(op.getSelf(), beta);
  return b.add(self, product);
}

/// hardshrink(x) = |x| <= lambd ? 0 : x, written as PyTorch's kernel tests
/// it so that NaN (for which the test is false) passes through.
Value decompose(HardshrinkOp op, AtenBuilder &b) {
  Value x = op.getSelf();
  Value inside =
      b.lessEqual(b.unary<AbsOp>(x), op.getLambd().convertToDouble());
  return b.where(inside, b.scalarLike(x, 0.0), x);
}

/// PyTorch accepts boolean and float masks only.
bool canDecompose(ScaledDotProductAttentionOp op) {
  Value mask = op.getAttnMask();
  if (!mask)
    return true;
  Type element = tensorType(mask).getElementType();
  return element.isInteger(1) || isComputableFloat(element);
}

/// The additive form of the attention mask, in the scores' element type: a
/// float mask as it is (cast if it has another float type); a boolean one as
/// 0 where true and −inf where false, folded into a constant when the mask is
/// one.
Value additiveMask(ScaledDotProductAttentionOp op, AtenBuilder &b) {
  Value mask = op.getAttnMask();
  auto type = tensorType(mask);
  Type element = op.getType().getElementType();
  if (type.getElementType() == element)
    return mask;
  if (!type.getElementType().isInteger(1))
    return b.cast(mask, element);
  auto dense = dyn_cast_or_null<DenseElementsAttr>(getConstantElements(mask));
  if (!dense) {
    Value keep = b.scalarLike(op.getQuery(), 0.0);
    Value drop = b.scalarLike(op.getQuery(), -INFINITY);
    return b.where(mask, keep, drop);
  }
  SmallVector<double> values;
  for (bool keep : dense.getValues<bool>())
    values.push_back(keep ? 0.0 : -INFINITY);
  return b.constant(RankedTensorType::get(type.getShape(), element), values);
}

/// sdpa(q, k, v) = softmax(q·kᵀ·scale + mask)·v, with scale 1/√E by default
/// and, for is_causal, a constant `[L, S]` mask of −inf above the diagonal.
/// The scale multiplies the smaller of q `[L, E]` and the scores `[L, S]`:
/// q when E ≤ S (as PyTorch's math kernel scales q and k before their
/// product), which for long sequences saves a pass over L·S scores.
Value decompose(ScaledDotProductAttentionOp op, AtenBuilder &b) {
  Value q = op.getQuery();
  auto qType = tensorType(q);
  int64_t rank = qType.getRank();
  double scale = op.getScale()
                     ? op.getScale()->convertToDouble()
                     : 1.0 / std::sqrt(double(qType.getShape().back()));
  Value key = op.getKey();
  bool scaleQuery =
      qType.getShape().back() <= tensorType(key).getShape().end()[-2];
  // A scale of 1 (duet-fold-scale moved it into the query's projection)
  // multiplies nothing.
  if (scaleQuery && scale != 1.0)
    q = b.mul(q, scale);
  Value scores = b.matmul(q, b.transposeLastTwo(key));
  if (!scaleQuery && scale != 1.0)
    scores = b.mul(scores, scale);
  if (op.getIsCausal()) {
    ArrayRef<int64_t> shape = tensorType(scores).getShape().take_back(2);
    SmallVector<double> mask(shape[0] * shape[1]);
    for (int64_t i = 0; i < shape[0]; ++i)
      for (int64_t j = 0; j < shape[1]; ++j)
        mask[i * shape[1] + j] = j > i ? -INFINITY : 0.0;
    scores = b.add(
        scores,
        b.constant(RankedTensorType::get(shape, qType.getElementType()), mask));
  }
  if (op.getAttnMask())
    scores = b.add(scores, additiveMask(op, b));
  return b.matmul(b.softmax(scores, rank - 1), op.getValue());
}

/// mean(x) = sum(x) / n, n the number of elements reduced. A division, as
/// PyTorch's kernel does.
Value decompose(MeanOp op, AtenBuilder &b) {
  ArrayRef<int64_t> in = tensorType(op.getSelf()).getShape();
  int64_t count = 1;
  for (auto [i, size] : llvm::enumerate(in))
    if (op.getDim().empty() || llvm::is_contained(op.getDim(), int64_t(i)))
      count *= size;
  Value sum = b.reduce<SumOp>(op.getSelf(), op.getDim(), op.getKeepdim());
  return b.div(sum, double(count));
}

/// log_softmax(x) = s − log(sum(exp(s))) with s = x − amax(x): equal to
/// log(softmax(x)), without the underflow of softmax to 0 that would turn a
/// finite log-probability into −inf.
Value decompose(LogSoftmaxOp op, AtenBuilder &b) {
  int64_t dim = op.getDim();
  Value x = op.getSelf();
  Value shifted = b.sub(x, b.reduce<AmaxOp>(x, {dim}, true));
  Value sum = b.reduce<SumOp>(b.unary<ExpOp>(shifted), {dim}, true);
  return b.sub(shifted, b.unary<LogOp>(sum));
}

/// elu(x) = scale·max(x, 0) + scale·alpha·(exp(input_scale·min(x, 0)) − 1):
/// for x > 0 the second term is exp(0) − 1 = 0, for x ≤ 0 the first is 0.
Value decompose(EluOp op, AtenBuilder &b) {
  Value x = op.getSelf();
  double alpha = op.getAlpha().convertToDouble();
  double scale = op.getScale().convertToDouble();
  double inputScale = op.getInputScale().convertToDouble();
  Value negative = b.minimum(x, 0.0);
  if (inputScale != 1.0)
    negative = b.mul(negative, inputScale);
  Value tail = b.mul(b.sub(b.unary<ExpOp>(negative), 1.0), scale * alpha);
  Value positive = b.maximum(x, 0.0);
  if (scale != 1.0)
    positive = b.mul(positive, scale);
  return b.add(positive, tail);
}

/// leaky_relu(x) = max(x, 0) + negative_slope·min(x, 0), exact for any slope.
Value decompose(LeakyReluOp op, AtenBuilder &b) {
  Value x = op.getSelf();
  Value positive = b.maximum(x, 0.0);
  Value negative =
      b.mul(b.minimum(x, 0.0), op.getNegativeSlope().convertToDouble());
  return b.add(positive, negative);
}

/// hardtanh(x) (and relu6, its [0, 6] case) = clamp(x, min_val, max_val).
Value decompose(HardtanhOp op, AtenBuilder &b) {
  return b.clamp(op.getSelf(), op.getMinVal().convertToDouble(),
                 op.getMaxVal().convertToDouble());
}

/// clamp(x) = minimum(maximum(x, min), max), each bound only when given; like
/// PyTorch's clamp, both propagate NaN.
Value decompose(ClampOp op, AtenBuilder &b) {
  Value y = op.getSelf();
  if (std::optional<APFloat> min = op.getMin())
    y = b.maximum(y, min->convertToDouble());
  if (std::optional<APFloat> max = op.getMax())
    y = b.minimum(y, max->convertToDouble());
  return y;
}

/// Rewrites one composite op through its canDecompose/decompose pair.
template <typename OpTy> struct Decomposition : OpRewritePattern<OpTy> {
  Decomposition(MLIRContext *context, int64_t *counter)
      : OpRewritePattern<OpTy>(context), counter(counter) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!canDecompose(op))
      return rewriter.notifyMatchFailure(
          op, "no exact decomposition for these operands");
    AtenBuilder builder(rewriter, op.getLoc());
    rewriter.replaceOp(op, decompose(op, builder));
    if (counter)
      ++*counter;
    return success();
  }

  int64_t *counter;
};

/// Adds the decomposition of each of `OpTys` that is not native.
template <typename... OpTys>
void addDecompositions(RewritePatternSet &patterns,
                       const llvm::DenseSet<OperationName> &nativeOps,
                       int64_t *counter) {
  MLIRContext *context = patterns.getContext();
  (
      [&] {
        if (!nativeOps.contains(
                OperationName(OpTys::getOperationName(), context)))
          patterns.add<Decomposition<OpTys>>(context, counter);
      }(),
      ...);
}

} // namespace

void duet::populateDecompositionPatterns(
    RewritePatternSet &patterns, const llvm::DenseSet<OperationName> &nativeOps,
    int64_t *numDecomposed) {
  addDecompositions<HardswishOp, HardsigmoidOp, SiluOp, GeluOp, HardshrinkOp,
                    BatchNormOp, LayerNormOp, LinearOp, AddmmOp,
                    ScaledDotProductAttentionOp, MeanOp, LogSoftmaxOp, EluOp,
                    LeakyReluOp, HardtanhOp, ClampOp>(patterns, nativeOps,
                                                      numDecomposed);
}

namespace {

struct DecomposePass : duet::impl::DecomposePassBase<DecomposePass> {
  using DecomposePassBase::DecomposePassBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    llvm::DenseSet<OperationName> nativeOps;
    for (const std::string &entry : native) {
      StringRef name = StringRef(entry).trim();
      if (name.empty())
        continue;
      if (std::optional<RegisteredOperationName> op =
              RegisteredOperationName::lookup(name, context)) {
        nativeOps.insert(*op);
        continue;
      }
      InFlightDiagnostic diag = getOperation().emitError()
                                << "duet-decompose: unknown op '" << name
                                << "' in the native list";
      std::string qualified = ("aten." + name).str();
      if (RegisteredOperationName::lookup(qualified, context))
        diag << "; did you mean '" << qualified << "'?";
      else
        diag << "; give registered op names, such as aten.hardswish";
      return signalPassFailure();
    }

    int64_t decomposed = 0;
    RewritePatternSet patterns(context);
    populateDecompositionPatterns(patterns, nativeOps, &decomposed);
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns)))) {
      getOperation().emitError()
          << "duet-decompose did not converge; a decomposition produces an "
             "op that decomposes back, which is a bug in passes/Decompose.cpp";
      return signalPassFailure();
    }
    numDecomposed += decomposed;
  }
};

} // namespace
