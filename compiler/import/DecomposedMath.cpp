//===- DecomposedMath.cpp - arithmetic and statistics as core ops ---------===//
//
// Each builder writes its target with the aten dialect's elementwise ops,
// reductions and products, in the order PyTorch's decomposition evaluates
// it, so that the result matches to within float rounding.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/Compose.h"
#include "compiler/import/CompositeTargets.h"
#include "compiler/import/DecomposedTargets.h"
#include "compiler/import/OrderingAndSampling.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

using namespace duet::import;
using namespace duet::import::compose;
using namespace duet::aten;
using namespace mlir;

bool duet::import::requireFloatResult(NodeContext &ctx, RankedTensorType type,
                                      StringRef what) {
  if (ctx.ok() && !isa<FloatType>(type.getElementType()))
    ctx.fail(what + " of an integer tensor is not supported; convert it to "
                    "float first");
  return ctx.ok();
}

namespace {

/// The dims of `dims` made non-negative, sorted and unique; every dim of a
/// tensor of `rank` when `dims` is empty or absent.
SmallVector<int64_t> reducedDims(NodeContext &ctx,
                                 std::optional<SmallVector<int64_t>> dims,
                                 int64_t rank) {
  SmallVector<int64_t> out;
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < rank; ++d)
      out.push_back(d);
    return out;
  }
  for (int64_t d : *dims)
    out.push_back(ctx.normalizeDim(d, rank));
  if (rank == 0) // dims 0 and -1 of a 0-d tensor name no dim
    out.clear();
  llvm::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// var or std of `self` over `dims` with divisor N - correction.
void emitVariance(NodeContext &ctx, std::optional<SmallVector<int64_t>> dims,
                  double correction, bool keepdim, bool root) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!requireFloatResult(ctx, type, root ? "std" : "var"))
    return;
  Value x = operandAs(ctx, self, type);
  RankedTensorType in = typeOf(x);
  SmallVector<int64_t> reduced = reducedDims(ctx, dims, in.getRank());
  if (!ctx.ok())
    return;
  double n = 1;
  for (int64_t d : reduced)
    n *= static_cast<double>(in.getDimSize(d));
  Type element = type.getElementType();
  Value mean = reduce<MeanOp>(ctx, x, reduced, /*keepdim=*/true);
  Value centred = sub(ctx, x, mean);
  Value squares =
      reduce<SumOp>(ctx, mul(ctx, centred, centred), reduced, keepdim);
  Value var =
      div(ctx, squares, realOf(ctx, element, std::max(0.0, n - correction)));
  if (root)
    var = ctx.create<SqrtOp>(typeOf(var), var);
  ctx.setResult(view(ctx, var, type.getShape()));
  // var_mean and std_mean return the mean as well.
  if (ctx.numResults() == 2) {
    RankedTensorType meanType = ctx.resultType(1);
    if (ctx.ok())
      ctx.setResult(1, view(ctx, mean, meanType.getShape()));
  }
}

void buildVariance(NodeContext &ctx, bool root, bool byCorrection) {
  std::optional<SmallVector<int64_t>> dims = ctx.optionalIntegers("dim");
  bool keepdim = ctx.boolean("keepdim");
  double correction = 1;
  if (byCorrection) {
    std::optional<double> c = ctx.optionalNumber("correction");
    correction = c.value_or(1);
  } else {
    correction = ctx.boolean("unbiased") ? 1 : 0;
  }
  if (ctx.ok())
    emitVariance(ctx, dims, correction, keepdim, root);
}

void buildVarianceAll(NodeContext &ctx, bool root) {
  bool unbiased = ctx.boolean("unbiased");
  if (ctx.ok())
    emitVariance(ctx, std::nullopt, unbiased ? 1 : 0, false, root);
}

/// `v` ([C]) viewed to multiply axis 1 of a tensor of `rank`.
Value perChannel(NodeContext &ctx, Value v, int64_t rank, Type element) {
  SmallVector<int64_t> shape(std::max<int64_t>(rank - 1, 1), 1);
  shape[0] = typeOf(v).getNumElements();
  return view(ctx, ctx.castTo(v, element), shape);
}

/// -amax(-x) over dims.
Value minimum(NodeContext &ctx, Value x, ArrayRef<int64_t> dims, bool keepdim) {
  Value negated = ctx.create<NegOp>(typeOf(x), x);
  Value top = reduce<AmaxOp>(ctx, negated, dims, keepdim);
  return ctx.create<NegOp>(typeOf(top), top);
}

/// log1p(exp(beta·x)) / beta, or x where beta·x exceeds `threshold`.
Value softplus(NodeContext &ctx, Value x, double beta, double threshold) {
  RankedTensorType type = typeOf(x);
  Type element = type.getElementType();
  Value scaled = beta == 1 ? x : mul(ctx, x, realOf(ctx, element, beta));
  Value soft = ctx.create<Log1pOp>(type, ctx.create<ExpOp>(type, scaled));
  if (beta != 1)
    soft = div(ctx, soft, realOf(ctx, element, beta));
  Value linear = ctx.create<GtOp>(scaled, realOf(ctx, element, threshold));
  return ctx.create<WhereOp>(linear, x, soft);
}

void emitElu(NodeContext &ctx, double alpha, double scale, double inputScale) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<EluOp>(type, x, ctx.builder.getF64FloatAttr(alpha),
                                    ctx.builder.getF64FloatAttr(scale),
                                    ctx.builder.getF64FloatAttr(inputScale)));
}

} // namespace

/// The maximum (or minimum) of `x` over `dims`, in every element type. An
/// integer or boolean tensor is reduced in int64, where amax is exact, and
/// converted back; its minimum is ~amax(~x), as ~x = -1 - x reverses the
/// order of int64 without the overflow of -x at its lowest value.
Value duet::import::extremum(NodeContext &ctx, Value x, ArrayRef<int64_t> dims,
                             bool keepdim, bool largest) {
  Type element = typeOf(x).getElementType();
  if (!isa<IntegerType>(element))
    return largest ? reduce<AmaxOp>(ctx, x, dims, keepdim)
                   : minimum(ctx, x, dims, keepdim);
  Value wide = ctx.castTo(x, ctx.builder.getI64Type());
  if (!largest)
    wide = reverseOrder(ctx, wide);
  Value top = reduce<AmaxOp>(ctx, wide, dims, keepdim);
  if (!largest)
    top = reverseOrder(ctx, top);
  return top ? ctx.castTo(top, element) : Value();
}

void duet::import::emitScaledSum(NodeContext &ctx, RankedTensorType type,
                                 Value self, Value product, StringRef what) {
  double beta = ctx.number("beta"), alpha = ctx.number("alpha");
  if (!ctx.ok() || !product)
    return;
  Type element = type.getElementType();
  auto scalar = [&](double v) {
    return isa<FloatType>(element)
               ? realOf(ctx, element, v)
               : integerOf(ctx, element, static_cast<int64_t>(v));
  };
  product = view(ctx, ctx.castTo(product, element), type.getShape());
  if (alpha != 1)
    product = mul(ctx, product, scalar(alpha));
  // As in PyTorch, beta = 0 ignores self (NaN in it included).
  if (beta == 0)
    return ctx.setResult(product);
  Value base = operandAs(ctx, self, type);
  if (beta != 1)
    base = mul(ctx, base, scalar(beta));
  Value sum = add(ctx, base, product);
  if (ctx.ok() && typeOf(sum) != type)
    return ctx.fail("argument 'self' does not broadcast to the shape of " +
                    what + "'s product");
  ctx.setResult(sum);
}

namespace {
/// `a @ b` ([n, k] @ [k, m], or batched), exactly in int64 for an integer
/// result.
Value matrixProduct(NodeContext &ctx, Value a, Value b, RankedTensorType type) {
  if (isa<IntegerType>(type.getElementType()))
    return integerMatrixProduct(ctx, a, b, type);
  a = operandAs(ctx, a, type);
  b = operandAs(ctx, b, type);
  if (!ctx.ok())
    return {};
  if (typeOf(a).getRank() == 3)
    return bmm(ctx, a, b);
  if (typeOf(a).getRank() != 2 || typeOf(b).getRank() != 2 ||
      typeOf(a).getDimSize(1) != typeOf(b).getDimSize(0)) {
    ctx.fail("a matrix product of shapes that do not multiply");
    return {};
  }
  return ctx.create<MmOp>(a, b);
}
} // namespace

void duet::import::buildBaddbmm(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  Value batch1 = ctx.tensor("batch1"), batch2 = ctx.tensor("batch2");
  if (ctx.ok())
    emitScaledSum(ctx, type, self, matrixProduct(ctx, batch1, batch2, type),
                  "baddbmm");
}

/// addbmm: beta·self + alpha·Σ_b batch1[b] @ batch2[b].
void duet::import::buildAddbmm(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  Value batch1 = ctx.tensor("batch1"), batch2 = ctx.tensor("batch2");
  if (!ctx.ok())
    return;
  if (typeOf(batch1).getRank() != 3)
    return ctx.fail("addbmm needs [b, n, k] and [b, k, m] batches");
  // Integer products are summed in int64, which wraps as the narrower type
  // does; half products in float32, rounded once (PyTorch rounds each
  // batch's product and each partial sum to the half type).
  Type element = type.getElementType();
  Type sumType = isa<IntegerType>(element) ? ctx.builder.getI64Type()
                 : element.isF16() || element.isBF16()
                     ? ctx.builder.getF32Type()
                     : element;
  Value products =
      matrixProduct(ctx, batch1, batch2, typeOf(batch1).clone(sumType));
  emitScaledSum(ctx, type, self, reduce<SumOp>(ctx, products, {0}, false),
                "addbmm");
}

/// addmv: beta·self + alpha·(mat @ vec).
void duet::import::buildAddmv(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  Value mat = ctx.tensor("mat"), vec = ctx.tensor("vec");
  if (!ctx.ok())
    return;
  if (typeOf(mat).getRank() != 2 || typeOf(vec).getRank() != 1)
    return ctx.fail("addmv needs a matrix and a vector");
  Value column = view(ctx, vec, {typeOf(vec).getDimSize(0), 1});
  emitScaledSum(
      ctx, type, self,
      matrixProduct(ctx, mat, column, typeOf(mat).clone(type.getElementType())),
      "addmv");
}

namespace {
template <typename OpT> void emitAddc(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  Value t1 = ctx.tensor("tensor1"), t2 = ctx.tensor("tensor2");
  double value = ctx.number("value");
  if (!ctx.ok())
    return;
  Value a = operandAs(ctx, t1, type), b = operandAs(ctx, t2, type);
  Value combined = std::is_same_v<OpT, MulOp> ? mul(ctx, a, b) : div(ctx, a, b);
  Value sum = add(ctx, operandAs(ctx, self, type), combined, value);
  if (ctx.ok())
    ctx.setResult(view(ctx, sum, type.getShape()));
}
} // namespace

void duet::import::buildAddcmul(NodeContext &ctx) { emitAddc<MulOp>(ctx); }
void duet::import::buildAddcdiv(NodeContext &ctx) { emitAddc<DivOp>(ctx); }

void duet::import::buildVarDim(NodeContext &ctx) {
  buildVariance(ctx, /*root=*/false, /*byCorrection=*/false);
}
void duet::import::buildVarCorrection(NodeContext &ctx) {
  buildVariance(ctx, /*root=*/false, /*byCorrection=*/true);
}
void duet::import::buildVarAll(NodeContext &ctx) {
  buildVarianceAll(ctx, /*root=*/false);
}
void duet::import::buildStdDim(NodeContext &ctx) {
  buildVariance(ctx, /*root=*/true, /*byCorrection=*/false);
}
void duet::import::buildStdCorrection(NodeContext &ctx) {
  buildVariance(ctx, /*root=*/true, /*byCorrection=*/true);
}
void duet::import::buildStdAll(NodeContext &ctx) {
  buildVarianceAll(ctx, /*root=*/true);
}

void duet::import::emitBatchStatisticsNorm(NodeContext &ctx, Value input,
                                           Value weight, Value bias,
                                           double eps) {
  RankedTensorType type = ctx.resultType();
  if (!requireFloatResult(ctx, type, "batch norm"))
    return;
  Value x = sameShapeOperand(ctx, input, type, "batch norm");
  if (!x)
    return;
  int64_t rank = type.getRank();
  if (rank < 2)
    return ctx.fail("batch norm needs an input of rank 2 or more, got rank " +
                    Twine(rank));
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 2; d < rank; ++d)
    dims.push_back(d);
  Type element = type.getElementType();
  // The batch's biased variance, as training-mode batch norm uses it.
  Value mean = reduce<MeanOp>(ctx, x, dims, /*keepdim=*/true);
  Value centred = sub(ctx, x, mean);
  Value var = reduce<MeanOp>(ctx, mul(ctx, centred, centred), dims, true);
  Value shifted = add(ctx, var, realOf(ctx, element, eps));
  Value scale = ctx.create<RsqrtOp>(typeOf(shifted), shifted);
  Value result = mul(ctx, centred, scale);
  if (weight)
    result = mul(ctx, result, perChannel(ctx, weight, rank, element));
  if (bias)
    result = add(ctx, result, perChannel(ctx, bias, rank, element));
  if (!ctx.ok())
    return;
  ctx.setResult(result);
  markStatisticsUnavailable(ctx, "batch norm");
}

void duet::import::buildBatchNormNoStats(NodeContext &ctx) {
  Value input = ctx.tensor("input");
  Value weight = ctx.optionalTensor("weight"),
        bias = ctx.optionalTensor("bias");
  double eps = ctx.number("eps");
  if (ctx.ok())
    emitBatchStatisticsNorm(ctx, input, weight, bias, eps);
}

void duet::import::buildInstanceNorm(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input");
  Value weight = ctx.optionalTensor("weight"),
        bias = ctx.optionalTensor("bias");
  double eps = ctx.number("eps");
  if (!ctx.ok())
    return;
  if (type.getRank() < 2)
    return ctx.fail("instance norm needs [N, C, ...], got rank " +
                    Twine(type.getRank()));
  emitGroupNorm(ctx, input, weight, bias, type.getDimSize(1), eps);
}

void duet::import::buildRmsNorm(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input");
  SmallVector<int64_t> normalized = ctx.integers("normalized_shape");
  Value weight = ctx.optionalTensor("weight");
  std::optional<double> eps = ctx.optionalNumber("eps");
  if (!requireFloatResult(ctx, type, "rms norm"))
    return;
  int64_t rank = type.getRank();
  if (normalized.empty() || static_cast<int64_t>(normalized.size()) > rank ||
      ArrayRef<int64_t>(normalized) !=
          type.getShape().take_back(normalized.size()))
    return ctx.fail("argument 'normalized_shape' must be the input's last "
                    "dims");
  Type element = type.getElementType();
  // eps=None is the machine epsilon of the input's type.
  double epsilon =
      eps.value_or(element.isF16()    ? 0.0009765625
                   : element.isBF16() ? 0.0078125
                   : element.isF64()  ? std::numeric_limits<double>::epsilon()
                                      : std::numeric_limits<float>::epsilon());
  Value x = sameShapeOperand(ctx, input, type, "rms norm");
  if (!x)
    return;
  SmallVector<int64_t> dims;
  for (int64_t d = rank - static_cast<int64_t>(normalized.size()); d < rank;
       ++d)
    dims.push_back(d);
  Value meanSquare = reduce<MeanOp>(ctx, mul(ctx, x, x), dims, true);
  Value shifted = add(ctx, meanSquare, realOf(ctx, element, epsilon));
  Value result = mul(ctx, x, ctx.create<RsqrtOp>(typeOf(shifted), shifted));
  if (weight)
    result = mul(ctx, result, operandAs(ctx, weight, type));
  if (ctx.ok())
    ctx.setResult(result);
}

void duet::import::buildLogsumexp(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> dims = ctx.integers("dim");
  bool keepdim = ctx.boolean("keepdim");
  if (!requireFloatResult(ctx, type, "logsumexp"))
    return;
  Value x = operandAs(ctx, self, type);
  SmallVector<int64_t> reduced = reducedDims(ctx, dims, typeOf(x).getRank());
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  // The maximum is subtracted first; an infinite one is replaced by 0 so
  // that inf - inf gives no NaN, as in PyTorch.
  Value top = reduce<AmaxOp>(ctx, x, reduced, /*keepdim=*/true);
  RankedTensorType topType = typeOf(top);
  Value infinite = ctx.create<EqOp>(
      ctx.create<AbsOp>(topType, top),
      realOf(ctx, element, std::numeric_limits<double>::infinity()));
  Value shift = ctx.create<WhereOp>(infinite, realOf(ctx, element, 0.0), top);
  Value exps = ctx.create<ExpOp>(typeOf(x), sub(ctx, x, shift));
  Value sum = reduce<SumOp>(ctx, exps, reduced, keepdim);
  Value logs = ctx.create<LogOp>(typeOf(sum), sum);
  Value result = add(ctx, logs, view(ctx, shift, typeOf(sum).getShape()));
  if (ctx.ok())
    ctx.setResult(result);
}

void duet::import::buildAmin(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> dims = ctx.integers("dim");
  bool keepdim = ctx.boolean("keepdim");
  if (!ctx.ok())
    return;
  Value x = operandAs(ctx, self, type);
  SmallVector<int64_t> reduced = reducedDims(ctx, dims, typeOf(x).getRank());
  if (ctx.ok())
    ctx.setResult(extremum(ctx, x, reduced, keepdim, /*largest=*/false));
}

void duet::import::buildMinDim(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t dim = ctx.integer("dim");
  bool keepdim = ctx.boolean("keepdim");
  if (!ctx.ok())
    return;
  Value x = operandAs(ctx, self, type);
  dim = ctx.normalizeDim(dim, typeOf(x).getRank());
  if (!ctx.ok())
    return;
  SmallVector<int64_t> dims;
  if (typeOf(x).getRank() > 0)
    dims.push_back(dim);
  ctx.setResult(extremum(ctx, x, dims, keepdim, /*largest=*/false));
  buildExtremeIndices(ctx, /*largest=*/false);
}

void duet::import::buildMaxAll(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  Value x = operandAs(ctx, self, type);
  ctx.setResult(view(ctx, extremum(ctx, x, {}, false, /*largest=*/true), {}));
}

void duet::import::buildMinAll(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  Value x = operandAs(ctx, self, type);
  ctx.setResult(view(ctx, extremum(ctx, x, {}, false, /*largest=*/false), {}));
}

namespace {
/// The two operands of a binary float op, as the result's type.
bool floatOperands(NodeContext &ctx, StringRef what, RankedTensorType &type,
                   Value &a, Value &b) {
  std::tie(a, b) = binaryOperands(ctx, type);
  return requireFloatResult(ctx, type, what);
}

} // namespace

/// exp2(x) = e^(x·ln 2).
void duet::import::buildExp2(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  if (!requireFloatResult(ctx, type, "exp2"))
    return;
  // In float32 at least: x·ln 2 rounded to float16 is off by up to 2^-11 of
  // itself, which e^(.) turns into a relative error of that times x.
  Type f32 = ctx.builder.getF32Type();
  Type wide = type.getElementType().isF64() ? type.getElementType() : f32;
  Value xs = ctx.castTo(x, wide);
  Value y = ctx.create<ExpOp>(typeOf(xs),
                              mul(ctx, xs, realOf(ctx, wide, std::log(2.0))));
  ctx.setResult(ctx.castTo(y, type.getElementType()));
}

/// erfc(x) = 1 - erf(x); its absolute error, not its relative one, is
/// float's where erfc is tiny (x above 4).
void duet::import::buildErfc(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  if (!requireFloatResult(ctx, type, "erfc"))
    return;
  ctx.setResult(sub(ctx, realOf(ctx, type.getElementType(), 1.0),
                    ctx.create<ErfOp>(type, x)));
}

/// fmax and fmin: the maximum or minimum, a NaN operand giving way to the
/// other (NaN only where both are).
void duet::import::buildFmaxFmin(NodeContext &ctx, bool largest) {
  RankedTensorType type;
  auto [a, b] = binaryOperands(ctx, type);
  if (!ctx.ok())
    return;
  Value extreme = largest ? Value(ctx.create<MaximumOp>(a, b))
                          : Value(ctx.create<MinimumOp>(a, b));
  if (isa<IntegerType>(type.getElementType())) // no NaN to give way
    return ctx.setResult(extreme);
  Value pick = ctx.create<WhereOp>(isNan(ctx, b), a, extreme);
  ctx.setResult(ctx.create<WhereOp>(isNan(ctx, a), b, pick));
}

/// hypot(a, b) = sqrt(a² + b²).
void duet::import::buildHypot(NodeContext &ctx) {
  RankedTensorType type;
  Value a, b;
  if (!floatOperands(ctx, "hypot", type, a, b))
    return;
  Value sum = add(ctx, mul(ctx, a, a), mul(ctx, b, b));
  ctx.setResult(ctx.create<SqrtOp>(typeOf(sum), sum));
}

/// Whether each element of `x` has its sign bit set: below zero, or -0.0
/// (whose reciprocal is -inf). A NaN reads as positive: duet has no bit view
/// of a float.
namespace {
Value signBit(NodeContext &ctx, Value x) {
  Type element = typeOf(x).getElementType();
  Value negative = ctx.create<LtOp>(x, integerOf(ctx, element, 0));
  if (!isa<FloatType>(element))
    return negative;
  Value zero = ctx.create<EqOp>(x, realOf(ctx, element, 0.0));
  Value inverse = div(ctx, realOf(ctx, element, 1.0), x);
  Value negativeZero = ctx.create<LogicalAndOp>(
      zero, ctx.create<LtOp>(inverse, realOf(ctx, element, 0.0)));
  return ctx.create<LogicalOrOp>(negative, negativeZero);
}
} // namespace

void duet::import::buildSignbit(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  Type element = typeOf(self).getElementType();
  if (element.isInteger(1) ||
      (isa<IntegerType>(element) && cast<IntegerType>(element).isUnsigned()))
    return ctx.setResult(ctx.splat(type, Scalar{true, 0, 0}));
  ctx.setResult(view(ctx, signBit(ctx, self), type.getShape()));
}

/// copysign(a, b): |a| with b's sign.
void duet::import::buildCopysign(NodeContext &ctx) {
  RankedTensorType type;
  Value a, b;
  if (!floatOperands(ctx, "copysign", type, a, b))
    return;
  Value magnitude = ctx.create<AbsOp>(typeOf(a), a);
  Value negated = ctx.create<NegOp>(typeOf(a), magnitude);
  Value flags = signBit(ctx, b);
  ctx.setResult(ctx.create<WhereOp>(flags, negated, magnitude));
}

/// `a << s` (left) or `a >> s` of integer tensors, as PyTorch's shifts:
/// `a · 2^s` wrapping in the type, or `a` floor-divided by `2^s` (an
/// arithmetic shift); a shift below 0 or of the type's width or more gives
/// 0, or for `>>` of a signed type the sign (`a >> (width - 1)`). `2^s` comes
/// from a constant table indexed by the shift, in int64; a right shift goes
/// in two halves, so no power past 2^31 is needed.
void duet::import::buildBitShift(NodeContext &ctx, bool left) {
  RankedTensorType type;
  auto [a, s] = binaryOperands(ctx, type);
  if (!ctx.ok())
    return;
  auto integer = dyn_cast<IntegerType>(type.getElementType());
  if (!integer || integer.getWidth() == 1)
    return ctx.fail(Twine(left ? "<<" : ">>") + " takes integer tensors; got " +
                    Twine(integer ? "booleans" : "floats"));
  int64_t width = integer.getWidth();
  bool isUnsigned = integer.isUnsigned();
  Type i64 = ctx.builder.getI64Type();
  Value a64 = ctx.castTo(a, i64), s64 = ctx.castTo(s, i64);
  Value outside = ctx.create<LogicalOrOp>(
      ctx.create<LtOp>(s64, integerOf(ctx, i64, 0)),
      ctx.create<GeOp>(s64, integerOf(ctx, i64, width)));
  // The power of two of each shift, 0 <= k < width (k = width - 1 where
  // the shift is outside, which the last step settles).
  SmallVector<int64_t> powers;
  for (int64_t k = 0; k < 64; ++k)
    powers.push_back(static_cast<int64_t>(uint64_t(1) << k));
  auto powerOf = [&](Value k) {
    int64_t n = typeOf(k).getNumElements();
    Value flat = view(ctx, k, {n});
    Value picked = indexSelect(ctx, indexConstant(ctx, powers), flat, 0);
    return view(ctx, picked, typeOf(k).getShape());
  };
  Value last = integerOf(ctx, i64, width - 1);
  Value k = ctx.create<WhereOp>(outside, last, s64);
  Value result;
  if (left) {
    result = mul(ctx, a64, powerOf(k));
    result = ctx.create<WhereOp>(outside, integerOf(ctx, i64, 0), result);
  } else {
    auto floorDiv = [&](Value x, Value d) {
      return ctx.create<DivOp>(
          x, d,
          DivRoundingAttr::get(ctx.builder.getContext(), DivRounding::floor));
    };
    Value half = ctx.create<DivOp>(
        k, integerOf(ctx, i64, 2),
        DivRoundingAttr::get(ctx.builder.getContext(), DivRounding::floor));
    Value rest = sub(ctx, k, half);
    result = floorDiv(floorDiv(a64, powerOf(half)), powerOf(rest));
    if (isUnsigned)
      result = ctx.create<WhereOp>(outside, integerOf(ctx, i64, 0), result);
  }
  if (!ctx.ok())
    return;
  ctx.setResult(
      view(ctx, ctx.castTo(result, type.getElementType()), type.getShape()));
}

/// ldexp(x, e) = x · 2^e, the power exact (pow of 2 by a whole number).
void duet::import::buildLdexp(NodeContext &ctx) {
  RankedTensorType type;
  Value x, e;
  if (!floatOperands(ctx, "ldexp", type, x, e))
    return;
  Type element = type.getElementType();
  Value scale = ctx.create<PowTensorOp>(realOf(ctx, element, 2.0), e);
  ctx.setResult(view(ctx, mul(ctx, x, scale), type.getShape()));
}

/// round.decimals: round(x·10^d) / 10^d, or round(x / 10^-d) · 10^-d for
/// d < 0, as PyTorch computes it.
void duet::import::buildRoundDecimals(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  int64_t decimals = ctx.integer("decimals");
  if (!requireFloatResult(ctx, type, "round with decimals"))
    return;
  if (decimals < -300 || decimals > 300)
    return ctx.fail("argument 'decimals' is " + Twine(decimals) +
                    "; duet rounds to at most 300 decimals either way");
  Type element = type.getElementType();
  Value scale = realOf(ctx, element, std::pow(10.0, std::abs(decimals)));
  if (decimals >= 0)
    return ctx.setResult(
        div(ctx, ctx.create<RoundOp>(type, mul(ctx, x, scale)), scale));
  ctx.setResult(mul(ctx, ctx.create<RoundOp>(type, div(ctx, x, scale)), scale));
}

/// xlogy(x, y) = x·ln(y), 0 where x is 0, NaN where y is NaN.
void duet::import::buildXlogy(NodeContext &ctx) {
  RankedTensorType type;
  Value x, y;
  if (!floatOperands(ctx, "xlogy", type, x, y))
    return;
  Type element = type.getElementType();
  Value product = mul(ctx, x, ctx.create<LogOp>(typeOf(y), y));
  Value zeroX = ctx.create<EqOp>(x, realOf(ctx, element, 0.0));
  Value result = ctx.create<WhereOp>(zeroX, realOf(ctx, element, 0.0), product);
  ctx.setResult(ctx.create<WhereOp>(isNan(ctx, y), y, result));
}

/// logit(x) = ln(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is
/// given.
void duet::import::buildLogit(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  std::optional<double> eps = ctx.optionalNumber("eps");
  if (!requireFloatResult(ctx, type, "logit"))
    return;
  Type element = type.getElementType();
  if (eps)
    x = ctx.create<ClampOp>(type, x, ctx.builder.getF64FloatAttr(*eps),
                            ctx.builder.getF64FloatAttr(1 - *eps));
  Value ratio = div(ctx, x, sub(ctx, realOf(ctx, element, 1.0), x));
  ctx.setResult(ctx.create<LogOp>(type, ratio));
}

void duet::import::buildSoftplus(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  double beta = ctx.number("beta"), threshold = ctx.number("threshold");
  if (ctx.ok())
    ctx.setResult(softplus(ctx, x, beta, threshold));
}

void duet::import::buildMish(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  if (!ctx.ok())
    return;
  Value soft = softplus(ctx, x, 1, 20);
  ctx.setResult(mul(ctx, x, ctx.create<TanhOp>(type, soft)));
}

/// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), which neither overflows
/// nor loses the small values.
void duet::import::buildLogSigmoid(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  Value low = ctx.create<MinimumOp>(x, realOf(ctx, element, 0.0));
  Value magnitude = ctx.create<AbsOp>(type, x);
  Value tail = ctx.create<Log1pOp>(
      type, ctx.create<ExpOp>(type, ctx.create<NegOp>(type, magnitude)));
  ctx.setResult(sub(ctx, low, tail));
  // log_sigmoid_forward also returns a buffer for the backward pass.
  for (size_t i = 1; i < ctx.numResults(); ++i)
    ctx.setUnavailable(i, "a buffer log_sigmoid_forward keeps for the "
                          "backward pass, which duet does not compute");
}

/// prelu: the weight is per channel (axis 1), or one value.
void duet::import::buildPrelu(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  Value weight = ctx.tensor("weight");
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  Value w = operandAs(ctx, weight, type);
  int64_t count = typeOf(w).getNumElements();
  if (typeOf(w).getRank() <= 1 && count > 1) {
    if (type.getRank() < 2 || type.getDimSize(1) != count)
      return ctx.fail("argument 'weight' has " + Twine(count) +
                      " values for an input whose dim 1 is not that long");
    w = perChannel(ctx, w, type.getRank(), element);
  }
  Value positive = ctx.create<GtOp>(x, realOf(ctx, element, 0.0));
  Value scaled = mul(ctx, x, w);
  if (ctx.ok())
    ctx.setResult(ctx.create<WhereOp>(positive, x, scaled));
}

/// glu: the first half along dim times the sigmoid of the second.
void duet::import::buildGlu(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t dim = ctx.integer("dim");
  if (!requireFloatResult(ctx, type, "glu"))
    return;
  Value x = operandAs(ctx, self, type);
  dim = ctx.existingDim(dim, typeOf(x).getRank());
  if (!ctx.ok())
    return;
  int64_t size = typeOf(x).getDimSize(dim);
  if (size % 2 != 0)
    return ctx.fail("glu halves dim " + Twine(dim) + " of odd size " +
                    Twine(size));
  auto half = [&](int64_t start) {
    return slice(ctx, x, dim, start, start + size / 2);
  };
  Value gate = ctx.create<SigmoidOp>(type, half(size / 2));
  ctx.setResult(ctx.create<MulOp>(half(0), gate));
}

void duet::import::buildThreshold(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  double threshold = ctx.number("threshold"), value = ctx.number("value");
  if (!requireFloatResult(ctx, type, "threshold"))
    return;
  Type element = type.getElementType();
  Value above = ctx.create<GtOp>(x, realOf(ctx, element, threshold));
  ctx.setResult(ctx.create<WhereOp>(above, x, realOf(ctx, element, value)));
}

void duet::import::buildSoftshrink(NodeContext &ctx) {
  RankedTensorType type;
  Value x = unaryOperand(ctx, type);
  double lambd = ctx.number("lambd");
  if (!requireFloatResult(ctx, type, "softshrink"))
    return;
  Type element = type.getElementType();
  Value above = ctx.create<GtOp>(x, realOf(ctx, element, lambd));
  Value below = ctx.create<LtOp>(x, realOf(ctx, element, -lambd));
  Value down = sub(ctx, x, realOf(ctx, element, lambd));
  Value up = add(ctx, x, realOf(ctx, element, lambd));
  Value inner = ctx.create<WhereOp>(below, up, realOf(ctx, element, 0.0));
  ctx.setResult(ctx.create<WhereOp>(above, down, inner));
}

void duet::import::buildSelu(NodeContext &ctx) {
  emitElu(ctx, 1.6732632423543772848170429916717,
          1.0507009873554804934193349852946, 1.0);
}

void duet::import::buildCelu(NodeContext &ctx) {
  double alpha = ctx.number("alpha");
  if (!ctx.ok())
    return;
  if (alpha == 0)
    return ctx.fail("argument 'alpha' is 0; celu divides by it");
  emitElu(ctx, alpha, 1.0, 1.0 / alpha);
}

namespace {

/// The p-norm distance of every row of `x1` ([*, P, M]) to every row of `x2`
/// ([*, R, M]), batch dims broadcast: [*, P, R]. Computed from the
/// differences, as PyTorch's cdist does for small inputs (its matrix-product
/// form for p = 2 on larger ones rounds differently, within the fp32 bound).
Value pairwiseDistances(NodeContext &ctx, Value x1, Value x2, double p,
                        Type element) {
  int64_t r1 = typeOf(x1).getRank(), r2 = typeOf(x2).getRank();
  if (r1 < 2 || r2 < 2 ||
      typeOf(x1).getShape().back() != typeOf(x2).getShape().back()) {
    ctx.fail("cdist needs [*, P, M] and [*, R, M] operands");
    return {};
  }
  if (!(p >= 0)) {
    ctx.fail("cdist with p = " + std::to_string(p) + "; p must be 0 or more");
    return {};
  }
  SmallVector<int64_t> s1(typeOf(x1).getShape()), s2(typeOf(x2).getShape());
  s1.insert(s1.end() - 1, 1);
  s2.insert(s2.end() - 2, 1);
  Value a = view(ctx, ctx.castTo(x1, element), s1);
  Value b = view(ctx, ctx.castTo(x2, element), s2);
  Value diff = sub(ctx, a, b);
  if (!ctx.ok())
    return {};
  int64_t last = typeOf(diff).getRank() - 1;
  if (p == 0) {
    // cdist counts min(ceil(|d|), 1): a NaN difference makes the distance
    // NaN, where the vector norm of order 0 would count it.
    Value nan = isNan(ctx, diff);
    Value counted = ctx.create<WhereOp>(
        nan, diff,
        ctx.castTo(ctx.create<NeOp>(diff, realOf(ctx, element, 0.0)), element));
    return reduce<SumOp>(ctx, counted, {last}, false);
  }
  return vectorNorm(ctx, diff, p, {last}, false);
}

} // namespace

Value duet::import::vectorNorm(NodeContext &ctx, Value x, double ord,
                               ArrayRef<int64_t> dims, bool keepdim) {
  RankedTensorType type = typeOf(x);
  if (!type)
    return {};
  Type element = type.getElementType();
  if (element.isF16() || element.isBF16()) {
    // Summed in float32, as PyTorch's norms of half types are: |x|^p
    // overflows float16 long before the norm does.
    Value wide = vectorNorm(ctx, ctx.castTo(x, ctx.builder.getF32Type()), ord,
                            dims, keepdim);
    return wide ? ctx.castTo(wide, element) : Value();
  }
  if (ord == 2) {
    Value squares = reduce<SumOp>(ctx, mul(ctx, x, x), dims, keepdim);
    return ctx.create<SqrtOp>(typeOf(squares), squares);
  }
  if (ord == 0) {
    // The count of nonzero elements (a NaN is not zero).
    Value nonzero = ctx.create<NeOp>(x, realOf(ctx, element, 0.0));
    return reduce<SumOp>(ctx, ctx.castTo(nonzero, element), dims, keepdim);
  }
  Value magnitudes = ctx.create<AbsOp>(type, x);
  if (ord == 1)
    return reduce<SumOp>(ctx, magnitudes, dims, keepdim);
  if (std::isinf(ord))
    return extremum(ctx, magnitudes, dims, keepdim, /*largest=*/ord > 0);
  // (sum |x|^p)^(1/p); a negative p takes 0^p = inf, whose sum's root is 0,
  // as PyTorch's does.
  Value powers =
      ctx.create<PowOp>(type, magnitudes, ctx.builder.getF64FloatAttr(ord));
  Value sum = reduce<SumOp>(ctx, powers, dims, keepdim);
  return ctx.create<PowOp>(typeOf(sum), sum,
                           ctx.builder.getF64FloatAttr(1.0 / ord));
}

/// dist(a, b, p): the p-norm of a - b over every element.
void duet::import::buildDist(NodeContext &ctx) {
  RankedTensorType type;
  auto [a, b] = binaryOperands(ctx, type);
  double p = ctx.number("p");
  if (!requireFloatResult(ctx, type, "dist"))
    return;
  if (std::isnan(p))
    return ctx.fail("argument 'p' is NaN");
  Value norm = vectorNorm(ctx, sub(ctx, a, b), p, {}, false);
  if (ctx.ok())
    ctx.setResult(view(ctx, norm, {}));
}

void duet::import::buildCdist(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value x1 = ctx.tensor("x1"), x2 = ctx.tensor("x2");
  double p = ctx.number("p");
  if (!ctx.ok() || !requireFloatResult(ctx, type, "cdist"))
    return;
  Value d = pairwiseDistances(ctx, x1, x2, p, type.getElementType());
  if (ctx.ok())
    ctx.setResult(view(ctx, d, type.getShape()));
}

void duet::import::buildPdist(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  double p = ctx.number("p");
  if (!ctx.ok() || !requireFloatResult(ctx, type, "pdist"))
    return;
  if (typeOf(self).getRank() != 2)
    return ctx.fail("pdist needs a [N, M] input");
  int64_t n = typeOf(self).getDimSize(0);
  // The pairs become a constant index: a corrupt row count must not make
  // one of billions (the importer's other index constants stop at 2^24).
  if (n > 4096)
    return ctx.fail("pdist of " + Twine(n) +
                    " rows makes more than 2^23 "
                    "pairs, more than duet writes as a constant index");
  // The distances of rows i < j, in row-major order of (i, j).
  SmallVector<int64_t> pairs;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      pairs.push_back(i * n + j);
  if (pairs.empty())
    return ctx.setResult(ctx.splat(type, Scalar{true, 0, 0}));
  Value d = pairwiseDistances(ctx, self, self, p, type.getElementType());
  if (ctx.ok())
    ctx.setResult(selectIndices(ctx, view(ctx, d, {n * n}), 0, pairs));
}

void duet::import::buildEye(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  if (type.getRank() != 2)
    return ctx.fail("eye must produce a matrix");
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  if (rows * cols > (int64_t(1) << 24))
    return ctx.fail("eye of " + Twine(rows) + "x" + Twine(cols) +
                    " is too large to become a constant");
  Type element = type.getElementType();
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values(
        rows * cols, APFloat::getZero(floatType.getFloatSemantics()));
    for (int64_t i = 0; i < std::min(rows, cols); ++i)
      values[i * cols + i] = APFloat::getOne(floatType.getFloatSemantics());
    attr = DenseElementsAttr::get(type, values);
  } else if (auto intType = dyn_cast<IntegerType>(element)) {
    SmallVector<APInt> values(rows * cols, APInt(intType.getWidth(), 0));
    for (int64_t i = 0; i < std::min(rows, cols); ++i)
      values[i * cols + i] = APInt(intType.getWidth(), 1);
    attr = DenseElementsAttr::get(type, values);
  } else {
    return ctx.fail("eye of an unsupported element type");
  }
  ctx.setResult(ctx.create<arith::ConstantOp>(cast<TypedAttr>(attr)));
}

void duet::import::buildFill(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  if (ctx.isScalar("value")) {
    Scalar value = ctx.scalar("value");
    if (ctx.ok())
      ctx.setResult(ctx.splat(type, value));
    return;
  }
  Value value = ctx.tensor("value");
  if (!ctx.ok())
    return;
  if (typeOf(value).getNumElements() != 1)
    return ctx.fail("argument 'value' must hold one element");
  Value one = view(ctx, ctx.castTo(value, type.getElementType()), {});
  ctx.setResult(type.getRank() == 0 ? one
                                    : Value(ctx.create<ExpandOp>(type, one)));
}

void duet::import::buildCopy(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self"), src = ctx.tensor("src");
  if (!ctx.ok())
    return;
  if (typeOf(self).getShape() != type.getShape())
    return ctx.fail("copy's result does not have self's shape");
  Value value = ctx.castTo(src, type.getElementType());
  if (typeOf(value) == type)
    return ctx.setResult(value);
  ctx.setResult(ctx.create<ExpandOp>(type, value));
}
