//===- OpTable.cpp - the ATen targets duet imports ------------------------===//
//
// Both IR flavours torch.export writes land here: the TRAINING IR straight
// from `export` (conv2d, batch_norm, linear, in-place activations, ...) and the
// ATEN IR after `run_decompositions()` (convolution,
// _native_batch_norm_legit_no_training, permute + addmm, ...). Argument names
// and defaults follow the ATen schema (native_functions.yaml).
//
// Result types are the ones torch.export recorded for each output; the aten
// verifiers recompute them from the operands and attributes, so a builder
// that maps an op wrongly fails at import instead of computing wrong numbers.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/OpTable.h"

#include "compiler/import/Compose.h"
#include "compiler/import/CompositeTargets.h"
#include "compiler/import/DecomposedTargets.h"
#include "compiler/import/OrderingAndSampling.h"
#include "compiler/import/QuantizedTargets.h"
#include "compiler/import/ScatterTargets.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

using namespace duet::import;
using namespace duet::aten;
using namespace mlir;
using duet::import::compose::operandAs;
using duet::import::compose::unaryOperand;

namespace {

//===----------------------------------------------------------------------===//
// Schema defaults, written as the Argument unions they stand for
//===----------------------------------------------------------------------===//

nlohmann::json none() { return {{"as_none", true}}; }
nlohmann::json integer(int64_t v) { return {{"as_int", v}}; }
nlohmann::json ints(std::vector<int64_t> v) { return {{"as_ints", v}}; }
nlohmann::json real(double v) { return {{"as_float", v}}; }
nlohmann::json boolean(bool v) { return {{"as_bool", v}}; }
nlohmann::json str(const char *v) { return {{"as_string", v}}; }

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

DenseI64ArrayAttr i64s(NodeContext &ctx, ArrayRef<int64_t> v) {
  return ctx.builder.getDenseI64ArrayAttr(v);
}
IntegerAttr i64(NodeContext &ctx, int64_t v) {
  return ctx.builder.getI64IntegerAttr(v);
}
FloatAttr f64(NodeContext &ctx, double v) {
  return ctx.builder.getF64FloatAttr(v);
}
FloatAttr optF64(NodeContext &ctx, std::optional<double> v) {
  return v ? f64(ctx, *v) : FloatAttr();
}

/// An `int[N]` argument: one entry per spatial dim, a single value repeated.
SmallVector<int64_t> perDim(NodeContext &ctx, StringRef name,
                            SmallVector<int64_t> values, size_t n) {
  if (values.size() == 1 && n > 1)
    values.assign(n, values.front());
  if (ctx.ok() && values.size() != n)
    ctx.fail("argument '" + name + "' has " + Twine(values.size()) +
             " entries; expected " + Twine(n));
  return values;
}

/// The number of spatial dims of a convolution or pooling input.
size_t spatialDims(NodeContext &ctx, Value input, size_t minRank = 3,
                   size_t maxRank = 4) {
  int64_t rank = NodeContext::typeOf(input).getRank();
  if (rank < static_cast<int64_t>(minRank) ||
      rank > static_cast<int64_t>(maxRank)) {
    ctx.fail("input has rank " + Twine(rank) + "; expected " + Twine(minRank) +
             " to " + Twine(maxRank));
    return 0;
  }
  return rank - 2;
}

/// Normalizes every dim of a list against `rank`. A 0-d tensor takes dims 0
/// and -1 as PyTorch does, and has no dim to name: the list is empty, which
/// a reduction reads as "every dim", the same nothing.
SmallVector<int64_t> normalizeDims(NodeContext &ctx, ArrayRef<int64_t> dims,
                                   int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t d : dims)
    out.push_back(ctx.normalizeDim(d, rank));
  if (rank == 0)
    out.clear();
  return out;
}

void identity(NodeContext &ctx, StringRef name = "self") {
  Value self = ctx.tensor(name);
  if (ctx.ok())
    ctx.setResult(self);
}

/// A view of `self` with the recorded result shape; the input itself when the
/// shape does not change.
void reshapeTo(NodeContext &ctx, Value self, RankedTensorType type) {
  if (NodeContext::typeOf(self) == type)
    ctx.setResult(self);
  else
    ctx.setResult(ctx.create<ViewOp>(type, self));
}

//===----------------------------------------------------------------------===//
// Convolution and matrix products
//===----------------------------------------------------------------------===//

void emitConvolution(NodeContext &ctx, Value input, Value weight, Value bias,
                     SmallVector<int64_t> stride, SmallVector<int64_t> padding,
                     SmallVector<int64_t> dilation,
                     SmallVector<int64_t> outputPadding, int64_t groups,
                     bool transposed) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  size_t n = spatialDims(ctx, input, 3, transposed ? 4 : 5);
  stride = perDim(ctx, "stride", stride, n);
  padding = perDim(ctx, "padding", padding, n);
  dilation = perDim(ctx, "dilation", dilation, n);
  outputPadding = perDim(ctx, "output_padding", outputPadding, n);
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  ctx.setResult(ctx.create<ConvolutionOp>(
      ctx.castTo(input, element), ctx.castTo(weight, element),
      bias ? ctx.castTo(bias, element) : Value(), i64s(ctx, stride),
      i64s(ctx, padding), i64s(ctx, dilation), i64s(ctx, outputPadding),
      i64(ctx, groups), ctx.builder.getBoolAttr(transposed)));
}

/// conv1d / conv2d.
void buildConv(NodeContext &ctx) {
  Value input = ctx.tensor("input"), weight = ctx.tensor("weight");
  Value bias = ctx.optionalTensor("bias");
  SmallVector<int64_t> stride = ctx.integers("stride"),
                       padding = ctx.integers("padding"),
                       dilation = ctx.integers("dilation");
  int64_t groups = ctx.integer("groups");
  if (ctx.ok())
    emitConvolution(ctx, input, weight, bias, stride, padding, dilation, {0},
                    groups, /*transposed=*/false);
}

/// conv1d.padding / conv2d.padding: padding given as "valid" or "same".
void buildConvPaddingMode(NodeContext &ctx) {
  Value input = ctx.tensor("input"), weight = ctx.tensor("weight");
  Value bias = ctx.optionalTensor("bias");
  SmallVector<int64_t> stride = ctx.integers("stride"),
                       dilation = ctx.integers("dilation");
  int64_t groups = ctx.integer("groups");
  std::optional<std::string> mode = ctx.optionalString("padding");
  if (!ctx.ok())
    return;
  size_t n = spatialDims(ctx, input);
  dilation = perDim(ctx, "dilation", dilation, n);
  if (!ctx.ok())
    return;
  SmallVector<int64_t> padding(n, 0);
  if (mode == "same") {
    auto kernel = NodeContext::typeOf(weight).getShape().take_back(n);
    // PyTorch puts the odd element of the total padding on the high side;
    // the convolution pads symmetrically, so that element is padded first.
    SmallVector<int64_t> extra;
    bool asymmetric = false;
    for (size_t i = n; i-- > 0;) {
      // dilation comes from the file; the convolution's verifier refuses
      // a non-positive one, this product must not overflow before it does.
      std::optional<int64_t> total =
          llvm::checkedMul<int64_t>(dilation[i], kernel[i] - 1);
      if (!total)
        return ctx.fail("dilation " + Twine(dilation[i]) +
                        " times the kernel size " + Twine(kernel[i]) +
                        " minus 1 overflows int64");
      padding[i] = *total / 2;
      int64_t high = *total - 2 * padding[i];
      extra.append({0, high});
      asymmetric |= high != 0;
    }
    if (asymmetric)
      input = compose::pad(ctx, input, extra);
    if (!ctx.ok())
      return;
  } else if (mode != "valid") {
    ctx.fail("argument 'padding' is \"" + mode.value_or("None") +
             "\"; expected \"valid\" or \"same\"");
    return;
  }
  emitConvolution(ctx, input, weight, bias, stride, padding, dilation, {0},
                  groups, /*transposed=*/false);
}

/// conv_transpose1d / conv_transpose2d.input (groups comes before dilation).
void buildConvTranspose(NodeContext &ctx) {
  Value input = ctx.tensor("input"), weight = ctx.tensor("weight");
  Value bias = ctx.optionalTensor("bias");
  SmallVector<int64_t> stride = ctx.integers("stride"),
                       padding = ctx.integers("padding"),
                       outputPadding = ctx.integers("output_padding"),
                       dilation = ctx.integers("dilation");
  int64_t groups = ctx.integer("groups");
  if (ctx.ok())
    emitConvolution(ctx, input, weight, bias, stride, padding, dilation,
                    outputPadding, groups, /*transposed=*/true);
}

void buildConvolution(NodeContext &ctx) {
  Value input = ctx.tensor("input"), weight = ctx.tensor("weight");
  Value bias = ctx.optionalTensor("bias");
  SmallVector<int64_t> stride = ctx.integers("stride"),
                       padding = ctx.integers("padding"),
                       dilation = ctx.integers("dilation"),
                       outputPadding = ctx.integers("output_padding");
  bool transposed = ctx.boolean("transposed");
  int64_t groups = ctx.integer("groups");
  if (ctx.ok())
    emitConvolution(ctx, input, weight, bias, stride, padding, dilation,
                    outputPadding, groups, transposed);
}

void buildLinear(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input"), weight = ctx.tensor("weight");
  Value bias = ctx.optionalTensor("bias");
  if (!ctx.ok())
    return;
  ctx.setResult(ctx.create<LinearOp>(
      operandAs(ctx, input, type), operandAs(ctx, weight, type),
      bias ? operandAs(ctx, bias, type) : Value()));
}

bool isIntegerResult(RankedTensorType type) {
  return isa<IntegerType>(type.getElementType());
}

void buildAddmm(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self"), mat1 = ctx.tensor("mat1"),
        mat2 = ctx.tensor("mat2");
  double beta = ctx.number("beta"), alpha = ctx.number("alpha");
  if (!ctx.ok())
    return;
  if (isIntegerResult(type))
    return emitScaledSum(ctx, type, self,
                         compose::integerMatrixProduct(ctx, mat1, mat2, type),
                         "addmm");
  ctx.setResult(ctx.create<AddmmOp>(
      operandAs(ctx, self, type), operandAs(ctx, mat1, type),
      operandAs(ctx, mat2, type), f64(ctx, beta), f64(ctx, alpha)));
}

/// mm and bmm name their second operand `mat2`, matmul `other`.
template <typename OpT> void buildMatrixProduct(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  Value other = ctx.tensor(std::is_same_v<OpT, MatmulOp> ? "other" : "mat2");
  if (!ctx.ok())
    return;
  if (!std::is_same_v<OpT, MatmulOp> && isIntegerResult(type)) {
    if (Value product = compose::integerMatrixProduct(ctx, self, other, type))
      ctx.setResult(product);
    return;
  }
  ctx.setResult(
      ctx.create<OpT>(operandAs(ctx, self, type), operandAs(ctx, other, type)));
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Outputs past the first of the batch-norm and layer-norm ops are the
/// statistics training uses; duet computes only the normalized tensor.
void emitBatchNorm(NodeContext &ctx, bool training) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input");
  Value weight = ctx.optionalTensor("weight"),
        bias = ctx.optionalTensor("bias");
  Value mean = ctx.optionalTensor("running_mean"),
        var = ctx.optionalTensor("running_var");
  double eps = ctx.number("eps");
  if (!ctx.ok())
    return;
  // Without running statistics, training mode normalizes over the batch
  // and updates nothing (timm's weight standardization, instance norm).
  if (training && !mean && !var)
    return emitBatchStatisticsNorm(ctx, input, weight, bias, eps);
  if (training) {
    ctx.fail("batch norm in training mode (training=True) updates its running "
             "statistics; call model.eval() before torch.export");
    return;
  }
  if (!mean || !var) {
    ctx.fail("batch norm without running statistics normalizes with the "
             "batch's own statistics, which duet does not support; keep "
             "track_running_stats=True");
    return;
  }
  auto as = [&](Value v) { return v ? operandAs(ctx, v, type) : Value(); };
  ctx.setResult(ctx.create<BatchNormOp>(as(input), as(mean), as(var),
                                        as(weight), as(bias), f64(ctx, eps)));
  compose::markStatisticsUnavailable(ctx, "batch norm");
}

/// batch_norm, native_batch_norm and _native_batch_norm_legit carry
/// `training`.
void buildBatchNorm(NodeContext &ctx) {
  bool training = ctx.boolean("training");
  if (ctx.ok())
    emitBatchNorm(ctx, training);
}

/// instance_norm: the input's own statistics per sample and channel, or,
/// without use_input_stats, the running statistics as batch norm in eval.
void buildInstanceNormAny(NodeContext &ctx) {
  bool useInputStats = ctx.boolean("use_input_stats");
  if (!ctx.ok())
    return;
  if (!useInputStats)
    return emitBatchNorm(ctx, /*training=*/false);
  buildInstanceNorm(ctx);
}

void buildBatchNormNoTraining(NodeContext &ctx) {
  emitBatchNorm(ctx, /*training=*/false);
}

void buildLayerNorm(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input");
  SmallVector<int64_t> shape = ctx.integers("normalized_shape");
  Value weight = ctx.optionalTensor("weight"),
        bias = ctx.optionalTensor("bias");
  double eps = ctx.number("eps");
  if (!ctx.ok())
    return;
  auto as = [&](Value v) { return v ? operandAs(ctx, v, type) : Value(); };
  ctx.setResult(ctx.create<LayerNormOp>(as(input), as(weight), as(bias),
                                        i64s(ctx, shape), f64(ctx, eps)));
  // native_layer_norm also returns the mean and 1/sqrt(var + eps) over the
  // normalized dims, kept as size 1: computed here (pure ops, dropped when
  // nothing reads them).
  if (ctx.numResults() != 3)
    return;
  int64_t rank = type.getRank(),
          first = rank - static_cast<int64_t>(shape.size());
  if (first < 0)
    return ctx.fail("argument 'normalized_shape' has more dims than the input");
  RankedTensorType statType = ctx.resultType(1);
  if (!ctx.ok())
    return;
  SmallVector<int64_t> dims;
  for (int64_t d = first; d < rank; ++d)
    dims.push_back(d);
  Value x = operandAs(ctx, input, statType);
  Value mean = compose::reduce<MeanOp>(ctx, x, dims, /*keepdim=*/true);
  Value centred = compose::sub(ctx, x, mean);
  Value var = compose::reduce<MeanOp>(ctx, compose::mul(ctx, centred, centred),
                                      dims, /*keepdim=*/true);
  Value shifted = compose::add(
      ctx, var, compose::realOf(ctx, statType.getElementType(), eps));
  Value rstd = ctx.create<RsqrtOp>(NodeContext::typeOf(shifted), shifted);
  if (!ctx.ok())
    return;
  RankedTensorType rstdType = ctx.resultType(2);
  if (!ctx.ok())
    return;
  ctx.setResult(1, compose::view(ctx, mean, statType.getShape()));
  ctx.setResult(2, compose::view(ctx, rstd, rstdType.getShape()));
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// abs and neg keep an integer input's type (T5's relative positions);
/// the unary ops compute in float, so on integers they are written with the
/// binary ops, which take every element type: `0 - x` and `max(x, 0 - x)`
/// (an unsigned tensor is its own abs; its negation wraps, as PyTorch's).
/// The rounding ops keep an integer unchanged, as PyTorch's do, sign is
/// `(x > 0) - (x < 0)` in the integer type and relu `max(x, 0)`.
template <typename OpT>
bool buildIntegerUnary(NodeContext &ctx, RankedTensorType type, Value self) {
  constexpr bool isAbs = std::is_same_v<OpT, AbsOp>;
  Type element = type.getElementType();
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer)
    return false;
  if (integer.getWidth() == 1) { // sign and sgn of a bool are the bool
    if (!std::is_same_v<OpT, SignOp>)
      return false;
    ctx.setResult(self);
    return true;
  }
  if constexpr (std::is_same_v<OpT, CeilOp> || std::is_same_v<OpT, FloorOp> ||
                std::is_same_v<OpT, RoundOp> || std::is_same_v<OpT, TruncOp>) {
    ctx.setResult(self);
    return true;
  }
  if (isAbs && integer.isUnsigned()) {
    ctx.setResult(self);
    return true;
  }
  Value zero =
      ctx.splat(RankedTensorType::get({}, element), Scalar{true, 0, 0});
  if constexpr (std::is_same_v<OpT, ReluOp>) {
    ctx.setResult(ctx.create<MaximumOp>(self, zero));
    return true;
  }
  if constexpr (std::is_same_v<OpT, SignOp>) {
    Value positive = ctx.castTo(ctx.create<GtOp>(self, zero), element);
    Value negative = ctx.castTo(ctx.create<LtOp>(self, zero), element);
    ctx.setResult(ctx.create<SubOp>(positive, negative, f64(ctx, 1.0)));
    return true;
  }
  if (!(isAbs || std::is_same_v<OpT, NegOp>))
    return false;
  Value negated = ctx.create<SubOp>(zero, self, f64(ctx, 1.0));
  ctx.setResult(isAbs ? Value(ctx.create<MaximumOp>(self, negated)) : negated);
  return true;
}

template <typename OpT> void buildUnary(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (ctx.ok() && !buildIntegerUnary<OpT>(ctx, type, self))
    ctx.setResult(ctx.create<OpT>(type, self));
}

void emitClamp(NodeContext &ctx, std::optional<double> low,
               std::optional<double> high);

/// hardtanh of an integer tensor is its clamp (relu6 of int64 indices).
void emitHardtanh(NodeContext &ctx, double low, double high) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (ctx.ok() && isa<IntegerType>(type.getElementType()))
    return emitClamp(ctx, low, high);
  if (ctx.ok())
    ctx.setResult(
        ctx.create<HardtanhOp>(type, self, f64(ctx, low), f64(ctx, high)));
}

void buildHardtanh(NodeContext &ctx) {
  double low = ctx.number("min_val"), high = ctx.number("max_val");
  if (ctx.ok())
    emitHardtanh(ctx, low, high);
}

void buildRelu6(NodeContext &ctx) { emitHardtanh(ctx, 0, 6); }

void emitClamp(NodeContext &ctx, std::optional<double> low,
               std::optional<double> high) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (!ctx.ok())
    return;
  // clamp(x) with neither bound is x.
  if (!low && !high)
    return ctx.setResult(self);
  // The clamp op computes in float; integer bounds of an integer tensor
  // (relative-position indices) are its maximum and minimum.
  Type element = type.getElementType();
  if (isa<IntegerType>(element)) {
    if ((low && std::isnan(*low)) || (high && std::isnan(*high)))
      return ctx.fail("a NaN bound clamps no integer tensor");
    // A bound past the element type's range is that range's end: it clamps
    // nothing (and a cast of it would wrap, or be undefined past int64).
    auto intType = cast<IntegerType>(element);
    unsigned width = intType.getWidth();
    double lowest = intType.isUnsigned() || width == 1
                        ? 0.0
                        : -std::ldexp(1.0, static_cast<int>(width) - 1);
    double highest =
        std::ldexp(1.0, static_cast<int>(width) -
                            (intType.isUnsigned() || width == 1 ? 0 : 1)) -
        1;
    auto bound = [&](double v) {
      if (v >= highest)
        return compose::integerOf(ctx, element,
                                  width == 64
                                      ? std::numeric_limits<int64_t>::max()
                                      : static_cast<int64_t>(highest));
      if (v <= lowest)
        return compose::integerOf(ctx, element, static_cast<int64_t>(lowest));
      return compose::integerOf(ctx, element, static_cast<int64_t>(v));
    };
    Value x = self;
    if (low)
      x = ctx.create<MaximumOp>(x, bound(*low));
    if (high)
      x = ctx.create<MinimumOp>(x, bound(*high));
    return ctx.setResult(x);
  } else
    ctx.setResult(
        ctx.create<ClampOp>(type, self, optF64(ctx, low), optF64(ctx, high)));
}

void buildClamp(NodeContext &ctx) {
  std::optional<double> low = ctx.optionalNumber("min"),
                        high = ctx.optionalNumber("max");
  if (ctx.ok())
    emitClamp(ctx, low, high);
}

void buildClampMin(NodeContext &ctx) {
  double low = ctx.number("min");
  if (ctx.ok())
    emitClamp(ctx, low, std::nullopt);
}

void buildClampMax(NodeContext &ctx) {
  double high = ctx.number("max");
  if (ctx.ok())
    emitClamp(ctx, std::nullopt, high);
}

/// clamp.Tensor: bounds given as tensors become maximum / minimum.
void buildClampTensor(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  Value low = ctx.optionalTensor("min"), high = ctx.optionalTensor("max");
  if (!ctx.ok())
    return;
  Value x = operandAs(ctx, self, type);
  if (low)
    x = ctx.create<MaximumOp>(x, operandAs(ctx, low, type));
  if (high)
    x = ctx.create<MinimumOp>(x, operandAs(ctx, high, type));
  ctx.setResult(x);
}

void buildLeakyRelu(NodeContext &ctx) {
  double slope = ctx.number("negative_slope");
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<LeakyReluOp>(type, self, f64(ctx, slope)));
}

void buildElu(NodeContext &ctx) {
  double alpha = ctx.number("alpha"), scale = ctx.number("scale"),
         inputScale = ctx.number("input_scale");
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<EluOp>(type, self, f64(ctx, alpha),
                                    f64(ctx, scale), f64(ctx, inputScale)));
}

void buildHardshrink(NodeContext &ctx) {
  double lambd = ctx.number("lambd");
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<HardshrinkOp>(type, self, f64(ctx, lambd)));
}

void buildGelu(NodeContext &ctx) {
  std::optional<std::string> approximate = ctx.optionalString("approximate");
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (!ctx.ok())
    return;
  GeluApproximate mode;
  if (approximate == "none")
    mode = GeluApproximate::none;
  else if (approximate == "tanh")
    mode = GeluApproximate::tanh;
  else
    return ctx.fail("argument 'approximate' is \"" +
                    approximate.value_or("None") +
                    "\"; expected \"none\" or \"tanh\"");
  ctx.setResult(ctx.create<GeluOp>(
      type, self, GeluApproximateAttr::get(ctx.builder.getContext(), mode)));
}

/// An integer tensor to a non-negative integer power, by repeated squaring
/// in its own type: exact, and wrapping past its range as PyTorch's does.
void emitIntegerPower(NodeContext &ctx, RankedTensorType type, Value self,
                      double exponent) {
  if (!(exponent >= 0 && exponent < 0x1p63 && exponent == std::trunc(exponent)))
    return ctx.fail("an integer tensor to the power " +
                    llvm::Twine(std::to_string(exponent)) +
                    ": PyTorch takes only non-negative integer exponents here");
  auto power = static_cast<uint64_t>(exponent);
  Value one = ctx.splat(type, Scalar{true, 1, 1});
  if (power == 0)
    return ctx.setResult(one);
  if (type.getElementType().isInteger(1)) // true^n and false^n, n > 0
    return ctx.setResult(self);
  Value result, base = self;
  for (; power; power >>= 1) {
    if (power & 1)
      result = result ? ctx.create<MulOp>(result, base) : base;
    if (power > 1)
      base = ctx.create<MulOp>(base, base);
  }
  ctx.setResult(result);
}

void buildPowScalar(NodeContext &ctx) {
  double exponent = ctx.number("exponent");
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (ctx.ok() && isa<IntegerType>(type.getElementType()))
    return emitIntegerPower(ctx, type, self, exponent);
  if (ctx.ok())
    ctx.setResult(ctx.create<PowOp>(type, self, f64(ctx, exponent)));
}

void buildSquare(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<MulOp>(self, self));
}

/// add and sub: self ± alpha·other.
template <typename OpT> void buildAddSub(NodeContext &ctx) {
  double alpha = ctx.number("alpha");
  RankedTensorType type;
  auto [self, other] = compose::binaryOperands(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<OpT>(self, other, f64(ctx, alpha)));
}

/// rsub(self, other, alpha) = other - alpha·self.
void buildRsub(NodeContext &ctx) {
  double alpha = ctx.number("alpha");
  RankedTensorType type;
  auto [self, other] = compose::binaryOperands(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<SubOp>(other, self, f64(ctx, alpha)));
}

template <typename OpT> void buildBinary(NodeContext &ctx) {
  RankedTensorType type;
  auto [self, other] = compose::binaryOperands(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<OpT>(self, other));
}

void emitDiv(NodeContext &ctx, std::optional<std::string> rounding) {
  RankedTensorType type;
  auto [self, other] = compose::binaryOperands(ctx, type);
  if (!ctx.ok())
    return;
  DivRounding mode;
  if (!rounding)
    mode = DivRounding::none;
  else if (*rounding == "trunc")
    mode = DivRounding::trunc;
  else if (*rounding == "floor")
    mode = DivRounding::floor;
  else
    return ctx.fail("argument 'rounding_mode' is \"" + *rounding +
                    "\"; expected None, \"trunc\" or \"floor\"");
  ctx.setResult(ctx.create<DivOp>(
      self, other, DivRoundingAttr::get(ctx.builder.getContext(), mode)));
}

void buildDiv(NodeContext &ctx) { emitDiv(ctx, std::nullopt); }

void buildDivMode(NodeContext &ctx) {
  std::optional<std::string> rounding = ctx.optionalString("rounding_mode");
  if (ctx.ok())
    emitDiv(ctx, rounding);
}

void buildFloorDivide(NodeContext &ctx) { emitDiv(ctx, "floor"); }

/// reciprocal(x) = 1 / x.
void buildReciprocal(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (!ctx.ok())
    return;
  Scalar one{true, 1, 0};
  Value numerator =
      ctx.splat(RankedTensorType::get({}, type.getElementType()), one);
  ctx.setResult(ctx.create<DivOp>(
      numerator, self,
      DivRoundingAttr::get(ctx.builder.getContext(), DivRounding::none)));
}

//===----------------------------------------------------------------------===//
// Comparisons, logic and selection
//===----------------------------------------------------------------------===//

/// The element type two operands are compared in: float over integer, the
/// wider of two floats or two integers (PyTorch's promotion, for the cases
/// models use).
Type commonElementType(Type a, Type b) {
  if (a == b)
    return a;
  bool aFloat = isa<FloatType>(a), bFloat = isa<FloatType>(b);
  if (aFloat != bFloat)
    return aFloat ? a : b;
  return a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
}

/// eq, ne, lt, le, gt, ge: `.Tensor` or `.Scalar`; the result is i1.
template <typename OpT> void buildCompare(NodeContext &ctx) {
  ctx.resultType(); // fails the node when its output is not a tensor
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  Type element = NodeContext::typeOf(self).getElementType();
  Value other;
  if (ctx.isScalar("other")) {
    Scalar s = ctx.scalar("other");
    // An integer tensor compared with a fractional number compares as float.
    if (!s.isInteger && !isa<FloatType>(element))
      element = ctx.builder.getF32Type();
    other = ctx.splat(RankedTensorType::get({}, element), s);
  } else {
    other = ctx.tensor("other");
    if (ctx.ok())
      element = commonElementType(element,
                                  NodeContext::typeOf(other).getElementType());
  }
  if (ctx.ok())
    ctx.setResult(
        ctx.create<OpT>(ctx.castTo(self, element), ctx.castTo(other, element)));
}

template <typename OpT> void buildLogicalBinary(NodeContext &ctx) {
  Value self = ctx.tensor("self"), other = ctx.tensor("other");
  if (ctx.ok())
    ctx.setResult(ctx.create<OpT>(self, other));
}

void buildLogicalNot(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (ctx.ok())
    ctx.setResult(ctx.create<LogicalNotOp>(type, self));
}

/// where.self and its overloads with numbers for `self` and/or `other`.
void buildWhere(NodeContext &ctx) {
  RankedTensorType type;
  Value condition = ctx.tensor("condition");
  auto [self, other] = compose::binaryOperands(ctx, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<WhereOp>(
        ctx.castTo(condition, ctx.builder.getI1Type()), self, other));
}

/// masked_fill(self, mask, value) = where(mask, value, self).
void buildMaskedFill(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self"), mask = ctx.tensor("mask");
  if (!ctx.ok())
    return;
  Value value = ctx.tensorOrScalar("value", type.getElementType());
  if (ctx.ok())
    ctx.setResult(ctx.create<WhereOp>(ctx.castTo(mask, ctx.builder.getI1Type()),
                                      operandAs(ctx, value, type),
                                      operandAs(ctx, self, type)));
}

/// The bitwise ops of boolean tensors (`~mask`, `a & b`) are the logical
/// ops; of integer tensors, the bitwise ops in the result's type (PyTorch's
/// promotion). Float operands are an error, as in PyTorch.
bool checkBitwiseOperands(NodeContext &ctx, ArrayRef<Value> operands) {
  for (Value v : operands)
    if (Type element = NodeContext::typeOf(v).getElementType();
        ctx.ok() && !isa<IntegerType>(element)) {
      std::string name;
      llvm::raw_string_ostream(name) << element;
      ctx.fail("bitwise ops take boolean and integer tensors, not " + name);
    }
  return ctx.ok();
}

/// `~x`: logical_not of a boolean, x ^ -1 of an integer.
void buildBitwiseNot(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok() || !checkBitwiseOperands(ctx, {self}))
    return;
  if (type.getElementType().isInteger(1))
    return ctx.setResult(ctx.create<LogicalNotOp>(type, self));
  Value ones = ctx.splat(RankedTensorType::get({}, type.getElementType()),
                         Scalar{true, -1, 0});
  ctx.setResult(ctx.create<BitwiseXorOp>(operandAs(ctx, self, type), ones));
}

/// `other` of a bitwise op: a tensor, or a Python bool/int of the `.Scalar`
/// overload as a 0-d tensor of the result's type.
Value bitwiseOther(NodeContext &ctx, Type element) {
  if (ctx.isScalar("other"))
    return ctx.tensorOrScalar("other", element);
  return ctx.tensor("other");
}

template <typename LogicalT, typename IntegerT>
void buildBitwiseBinary(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  Value self = ctx.tensor("self"),
        other = bitwiseOther(ctx, type.getElementType());
  if (!ctx.ok() || !checkBitwiseOperands(ctx, {self, other}))
    return;
  if (type.getElementType().isInteger(1))
    return ctx.setResult(ctx.create<LogicalT>(self, other));
  ctx.setResult(ctx.create<IntegerT>(operandAs(ctx, self, type),
                                     operandAs(ctx, other, type)));
}

/// atan2(self, other), float: integers promote to the result's float type.
void buildAtan2(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self"), other = ctx.tensor("other");
  if (!ctx.ok())
    return;
  if (!isa<FloatType>(type.getElementType()))
    return ctx.fail("atan2 of a non-float result type");
  ctx.setResult(ctx.create<Atan2Op>(operandAs(ctx, self, type),
                                    operandAs(ctx, other, type)));
}

/// isnan(x) = x != x; isinf(x) = |x| == inf. Integers are never either.
void buildIsNan(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  if (!isa<FloatType>(NodeContext::typeOf(self).getElementType()))
    return ctx.setResult(ctx.splat(type, Scalar{true, 0, 0}));
  ctx.setResult(ctx.create<NeOp>(self, self));
}

void buildIsInf(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  RankedTensorType in = NodeContext::typeOf(self);
  if (!isa<FloatType>(in.getElementType()))
    return ctx.setResult(ctx.splat(type, Scalar{true, 0, 0}));
  Value magnitude = ctx.create<AbsOp>(in, self);
  ctx.setResult(ctx.create<EqOp>(
      magnitude, compose::realOf(ctx, in.getElementType(),
                                 std::numeric_limits<double>::infinity())));
}

void buildLogicalXor(NodeContext &ctx) {
  ctx.resultType(); // fails the node when its output is not a tensor
  Value self = ctx.tensor("self"), other = ctx.tensor("other");
  if (!ctx.ok())
    return;
  Type i1 = ctx.builder.getI1Type();
  ctx.setResult(ctx.create<NeOp>(ctx.castTo(self, i1), ctx.castTo(other, i1)));
}

void emitAny(NodeContext &ctx, std::optional<SmallVector<int64_t>> dims,
             bool keepdim) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  SmallVector<int64_t> normalized =
      normalizeDims(ctx, dims.value_or(SmallVector<int64_t>()),
                    NodeContext::typeOf(self).getRank());
  if (!ctx.ok())
    return;
  // any and all of a uint8 tensor are uint8 (0 or 1) in PyTorch.
  Type i1 = ctx.builder.getI1Type();
  Value any = ctx.create<AnyOp>(ctx.castTo(self, i1), i64s(ctx, normalized),
                                ctx.builder.getBoolAttr(keepdim));
  ctx.setResult(ctx.castTo(any, type.getElementType()));
}

/// any.dim (one dim) and any.dims (a list, or None for all).
void buildAnyDims(NodeContext &ctx) {
  std::optional<SmallVector<int64_t>> dims = ctx.optionalIntegers("dim");
  bool keepdim = ctx.boolean("keepdim");
  if (ctx.ok())
    emitAny(ctx, dims, keepdim);
}

void buildAnyAll(NodeContext &ctx) { emitAny(ctx, std::nullopt, false); }

//===----------------------------------------------------------------------===//
// Reductions, pooling, softmax
//===----------------------------------------------------------------------===//

/// mean / sum / amax over `dim` (None or empty: every dim). A `dtype`
/// argument shows as the result's element type; the input is converted first.
template <typename OpT>
void emitReduction(NodeContext &ctx, std::optional<SmallVector<int64_t>> dims,
                   bool keepdim) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (!ctx.ok())
    return;
  SmallVector<int64_t> normalized =
      normalizeDims(ctx, dims.value_or(SmallVector<int64_t>()),
                    NodeContext::typeOf(self).getRank());
  if (!ctx.ok())
    return;
  if (std::is_same_v<OpT, AmaxOp> && isa<IntegerType>(type.getElementType()))
    return ctx.setResult(
        extremum(ctx, self, normalized, keepdim, /*largest=*/true));
  // A sum or product asked for in a narrower integer type (dtype=int32)
  // wraps the same as one in int64 converted down: it is computed so.
  if ((std::is_same_v<OpT, SumOp> ||
       std::is_same_v<OpT, ProdOp>)&&isa<IntegerType>(type.getElementType()) &&
      !type.getElementType().isInteger(64)) {
    Type i64 = ctx.builder.getI64Type();
    Value wide = ctx.create<OpT>(ctx.castTo(self, i64), i64s(ctx, normalized),
                                 ctx.builder.getBoolAttr(keepdim));
    return ctx.setResult(ctx.castTo(wide, type.getElementType()));
  }
  ctx.setResult(ctx.create<OpT>(self, i64s(ctx, normalized),
                                ctx.builder.getBoolAttr(keepdim)));
}

template <typename OpT> void buildReductionDims(NodeContext &ctx) {
  std::optional<SmallVector<int64_t>> dims = ctx.optionalIntegers("dim");
  bool keepdim = ctx.boolean("keepdim");
  if (ctx.ok())
    emitReduction<OpT>(ctx, dims, keepdim);
}

template <typename OpT> void buildReductionAll(NodeContext &ctx) {
  emitReduction<OpT>(ctx, std::nullopt, false);
}

/// prod over one dim or every element; an integer or boolean product is
/// int64, as PyTorch computes it.
void emitProd(NodeContext &ctx, std::optional<int64_t> dim, bool keepdim) {
  if (dim)
    emitReduction<ProdOp>(ctx, SmallVector<int64_t>{*dim}, keepdim);
  else
    emitReduction<ProdOp>(ctx, std::nullopt, false);
}

void buildProdDim(NodeContext &ctx) {
  int64_t dim = ctx.integer("dim");
  bool keepdim = ctx.boolean("keepdim");
  if (ctx.ok())
    emitProd(ctx, dim, keepdim);
}

void buildProdAll(NodeContext &ctx) { emitProd(ctx, std::nullopt, false); }

/// max.dim: the values by amax, the indices by topk (dropped when unused).
void buildMaxDim(NodeContext &ctx) {
  int64_t dim = ctx.integer("dim");
  bool keepdim = ctx.boolean("keepdim");
  if (!ctx.ok())
    return;
  emitReduction<AmaxOp>(ctx, SmallVector<int64_t>{dim}, keepdim);
  buildExtremeIndices(ctx, /*largest=*/true);
}

void buildAdaptiveAvgPool2d(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  SmallVector<int64_t> size = ctx.integers("output_size");
  if (!ctx.ok())
    return;
  size = perDim(ctx, "output_size", size, 2);
  if (ctx.ok() && type.getRank() >= 2 &&
      type.getShape().take_back(2) != ArrayRef<int64_t>(size))
    ctx.fail("argument 'output_size' does not match the recorded output "
             "shape");
  if (ctx.ok())
    ctx.setResult(ctx.create<AdaptiveAvgPool2dOp>(type, self));
}

/// The window arguments of a 2-D pooling op; an empty stride is the kernel
/// size.
struct Window {
  SmallVector<int64_t> kernel, stride, padding, dilation;
};

Window readWindow(NodeContext &ctx, bool hasDilation) {
  Window w;
  w.kernel = perDim(ctx, "kernel_size", ctx.integers("kernel_size"), 2);
  SmallVector<int64_t> stride = ctx.integers("stride");
  w.stride = stride.empty() ? w.kernel : perDim(ctx, "stride", stride, 2);
  w.padding = perDim(ctx, "padding", ctx.integers("padding"), 2);
  w.dilation = hasDilation
                   ? perDim(ctx, "dilation", ctx.integers("dilation"), 2)
                   : SmallVector<int64_t>{1, 1};
  return w;
}

void buildAvgPool2d(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  Window w = readWindow(ctx, /*hasDilation=*/false);
  bool ceil = ctx.boolean("ceil_mode");
  bool countPad = ctx.boolean("count_include_pad");
  std::optional<int64_t> divisor = ctx.optionalInteger("divisor_override");
  if (!ctx.ok())
    return;
  ctx.setResult(ctx.create<AvgPool2dOp>(
      self, i64s(ctx, w.kernel), i64s(ctx, w.stride), i64s(ctx, w.padding),
      ctx.builder.getBoolAttr(ceil), ctx.builder.getBoolAttr(countPad),
      divisor ? i64(ctx, *divisor) : IntegerAttr()));
}

/// max_pool2d, and max_pool2d_with_indices whose indices duet does not
/// compute.
/// The most window elements (kH·kW) that max pooling is written for with
/// its windows side by side (integer tensors, the indices): one slice each.
constexpr int64_t kMaxSideBySideWindow = 1024;

/// The windows of 2-D max pooling side by side: the K = kH·kW shifted
/// strided slices of the input, padded with the lowest value of its type (on
/// the bottom and right as far as ceil_mode's last windows reach), stacked on
/// a new last dim ([..., OH, OW, K]); `offsets` gets each slice's offset
/// (kh·dH·W + kw·dW) in the input plane. Null after a failure.
Value maxPoolWindows(NodeContext &ctx, Value self, RankedTensorType type,
                     const Window &w, SmallVector<int64_t> &offsets) {
  RankedTensorType in = NodeContext::typeOf(self);
  int64_t rank = in.getRank();
  if (rank < 3 || type.getRank() != rank) {
    ctx.fail("max pooling of a rank-" + Twine(rank) +
             " input by windows; duet takes [N, C, H, W] and [C, H, W]");
    return {};
  }
  int64_t height = in.getDimSize(rank - 2), width = in.getDimSize(rank - 1);
  int64_t outH = type.getDimSize(rank - 2), outW = type.getDimSize(rank - 1);
  auto reach = [](int64_t out, int64_t k, int64_t s, int64_t d) {
    return (out - 1) * s + (k - 1) * d + 1;
  };
  int64_t extraH = std::max<int64_t>(
      0, reach(outH, w.kernel[0], w.stride[0], w.dilation[0]) - height -
             2 * w.padding[0]);
  int64_t extraW = std::max<int64_t>(
      0, reach(outW, w.kernel[1], w.stride[1], w.dilation[1]) - width -
             2 * w.padding[1]);
  // -inf, or the lowest integer (a power of two, exact as a double).
  double lowest = -std::numeric_limits<double>::infinity();
  if (auto integer = dyn_cast<IntegerType>(in.getElementType()))
    lowest = integer.isUnsigned() || integer.getWidth() == 1
                 ? 0.0
                 : -std::ldexp(1.0, static_cast<int>(integer.getWidth()) - 1);
  Value padded = compose::pad(ctx, self,
                              {w.padding[1], w.padding[1] + extraW,
                               w.padding[0], w.padding[0] + extraH},
                              lowest);
  SmallVector<int64_t> cellShape(type.getShape());
  cellShape.push_back(1);
  SmallVector<Value> shifted;
  for (int64_t kh = 0; kh < w.kernel[0]; ++kh) {
    for (int64_t kw = 0; kw < w.kernel[1]; ++kw) {
      int64_t top = kh * w.dilation[0], left = kw * w.dilation[1];
      Value rows =
          compose::slice(ctx, padded, rank - 2, top,
                         top + (outH - 1) * w.stride[0] + 1, w.stride[0]);
      Value cells =
          compose::slice(ctx, rows, rank - 1, left,
                         left + (outW - 1) * w.stride[1] + 1, w.stride[1]);
      if (!cells)
        return {};
      shifted.push_back(compose::view(ctx, cells, cellShape));
      offsets.push_back(top * width + left);
    }
  }
  return shifted.size() == 1 ? shifted[0] : compose::cat(ctx, shifted, rank);
}

/// The indices max_pool2d_with_indices returns: for each output cell, the
/// flat index (h·W + w) in its input plane of the window's maximum, the first
/// in row-major window order on ties and a NaN over any number, as PyTorch's.
/// Written with core ops, for the models that read them (max_unpool): topk(1)
/// of the windows side by side gives each cell's window offset k, and the
/// index is a constant per cell plus a constant per k.
Value maxPoolIndices(NodeContext &ctx, Value self, RankedTensorType type,
                     const Window &w) {
  SmallVector<int64_t> offsets;
  Value stacked = maxPoolWindows(ctx, self, type, w, offsets);
  if (!stacked)
    return {};
  int64_t rank = type.getRank();
  int64_t width = NodeContext::typeOf(self).getDimSize(rank - 1);
  int64_t outH = type.getDimSize(rank - 2), outW = type.getDimSize(rank - 1);
  Value local = argmaxLastDim(ctx, stacked);
  Value offset = compose::indexSelect(
      ctx, compose::indexConstant(ctx, offsets),
      compose::view(ctx, local, {type.getNumElements()}), 0);
  SmallVector<int64_t> corners;
  for (int64_t oh = 0; oh < outH; ++oh)
    for (int64_t ow = 0; ow < outW; ++ow)
      corners.push_back((oh * w.stride[0] - w.padding[0]) * width +
                        ow * w.stride[1] - w.padding[1]);
  Value corner =
      compose::view(ctx, compose::indexConstant(ctx, corners), {outH, outW});
  return compose::add(ctx, compose::view(ctx, offset, type.getShape()), corner);
}

void buildMaxPool2d(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  Window w = readWindow(ctx, /*hasDilation=*/true);
  bool ceil = ctx.boolean("ceil_mode");
  if (!ctx.ok())
    return;
  // The rule first: the windows side by side below compute with its sizes.
  if (!compose::checkPooling(
          ctx, NodeContext::typeOf(self).getShape(),
          PoolWindow{w.kernel, w.stride, w.padding, w.dilation, ceil},
          type.getShape()))
    return;
  bool sideBySide = w.kernel[0] <= kMaxSideBySideWindow &&
                    w.kernel[1] <= kMaxSideBySideWindow &&
                    w.kernel[0] * w.kernel[1] <= kMaxSideBySideWindow;
  if (isa<IntegerType>(type.getElementType())) {
    // The pooling op computes in float; an integer tensor's maximum over
    // its windows side by side is exact.
    if (!sideBySide)
      return ctx.fail("max pooling of an integer tensor over windows of more "
                      "than " +
                      Twine(kMaxSideBySideWindow) +
                      " elements; convert it to float first");
    SmallVector<int64_t> offsets;
    Value stacked = maxPoolWindows(ctx, self, type, w, offsets);
    if (!stacked)
      return;
    ctx.setResult(extremum(ctx, stacked, {type.getRank()}, false, true));
  } else {
    ctx.setResult(ctx.create<MaxPool2dOp>(
        self, i64s(ctx, w.kernel), i64s(ctx, w.stride), i64s(ctx, w.padding),
        i64s(ctx, w.dilation), ctx.builder.getBoolAttr(ceil)));
  }
  if (ctx.numResults() < 2)
    return;
  if (!sideBySide)
    return ctx.setUnavailable(
        1, "the indices of max pooling over windows of more than " +
               Twine(kMaxSideBySideWindow) +
               " elements, which duet does not "
               "compute");
  // Pure ops: dropped again when nothing reads the indices.
  RankedTensorType indexType = ctx.resultType(1);
  if (!ctx.ok())
    return;
  if (Value indices = maxPoolIndices(ctx, self, type, w))
    ctx.setResult(1, ctx.castTo(indices, indexType.getElementType()));
}

/// An op on one tensor along `dim`: softmax.int / _softmax and the log
/// variants, cumsum. A dtype or half_to_float shows as the result's element
/// type; the input is converted to it first.
template <typename OpT> void buildAlongDim(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  int64_t dim = ctx.integer("dim");
  if (!ctx.ok())
    return;
  dim = ctx.normalizeDim(dim, type.getRank());
  if (ctx.ok())
    ctx.setResult(ctx.create<OpT>(type, self, i64(ctx, dim)));
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

/// view, reshape, _unsafe_view, flatten, squeeze, unsqueeze, view_as: the
/// recorded result type is the new shape.
void buildView(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (ctx.ok())
    reshapeTo(ctx, self, type);
}

void buildExpand(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  if (NodeContext::typeOf(self) == type)
    ctx.setResult(self);
  else
    ctx.setResult(ctx.create<ExpandOp>(type, self));
}

void buildRepeat(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> repeats = ctx.integers("repeats");
  if (!ctx.ok())
    return;
  if (NodeContext::typeOf(self) == type)
    ctx.setResult(self);
  else
    ctx.setResult(ctx.create<RepeatOp>(self, i64s(ctx, repeats)));
}

void emitPermute(NodeContext &ctx, Value self, ArrayRef<int64_t> dims) {
  ctx.resultType(); // fails the node when its output is not a tensor
  if (!ctx.ok())
    return;
  SmallVector<int64_t> normalized =
      normalizeDims(ctx, dims, NodeContext::typeOf(self).getRank());
  if (ctx.ok())
    ctx.setResult(ctx.create<PermuteOp>(self, i64s(ctx, normalized)));
}

void buildPermute(NodeContext &ctx) {
  Value self = ctx.tensor("self");
  SmallVector<int64_t> dims = ctx.integers("dims");
  if (ctx.ok())
    emitPermute(ctx, self, dims);
}

void buildTranspose(NodeContext &ctx) {
  Value self = ctx.tensor("self");
  int64_t dim0 = ctx.integer("dim0"), dim1 = ctx.integer("dim1");
  if (!ctx.ok())
    return;
  int64_t rank = NodeContext::typeOf(self).getRank();
  dim0 = ctx.normalizeDim(dim0, rank, "dim0");
  dim1 = ctx.normalizeDim(dim1, rank, "dim1");
  if (!ctx.ok())
    return;
  if (rank == 0 || dim0 == dim1)
    return ctx.setResult(self);
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(dims[dim0], dims[dim1]);
  emitPermute(ctx, self, dims);
}

/// t: the transpose of a matrix; a vector or scalar is returned as is.
void buildT(NodeContext &ctx) {
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  int64_t rank = NodeContext::typeOf(self).getRank();
  if (rank < 2)
    return ctx.setResult(self);
  if (rank > 2)
    return ctx.fail("t expects a tensor of rank 2 or less, got rank " +
                    Twine(rank));
  emitPermute(ctx, self, {1, 0});
}

void buildSlice(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t dim = ctx.integer("dim");
  std::optional<int64_t> start = ctx.optionalInteger("start"),
                         end = ctx.optionalInteger("end");
  int64_t step = ctx.integer("step");
  if (!ctx.ok())
    return;
  auto in = NodeContext::typeOf(self);
  dim = ctx.normalizeDim(dim, in.getRank());
  if (!ctx.ok() || in.getRank() == 0)
    return ctx.fail("slice needs a tensor of rank 1 or more");
  int64_t size = in.getDimSize(dim);
  // Python slice bounds: negative counts from the end, then clamp to
  // [0, size]; `end` is often INT64_MAX for "to the end".
  auto clampBound = [&](int64_t v) {
    if (v < 0)
      v = v < -size ? 0 : v + size;
    return std::min(v, size);
  };
  int64_t lo = clampBound(start.value_or(0));
  int64_t hi = std::max(lo, clampBound(end.value_or(size)));
  if (step < 1)
    return ctx.fail("slice step must be positive, got " + Twine(step));
  if (lo == 0 && hi == size && step == 1 && in == type)
    return ctx.setResult(self);
  ctx.setResult(ctx.create<SliceOp>(self, i64(ctx, dim), i64(ctx, lo),
                                    i64(ctx, hi), i64(ctx, step)));
}

void buildSelect(NodeContext &ctx) {
  ctx.resultType(); // fails the node when its output is not a tensor
  Value self = ctx.tensor("self");
  int64_t dim = ctx.integer("dim"), index = ctx.integer("index");
  if (!ctx.ok())
    return;
  auto in = NodeContext::typeOf(self);
  dim = ctx.normalizeDim(dim, in.getRank());
  if (!ctx.ok() || in.getRank() == 0)
    return ctx.fail("select needs a tensor of rank 1 or more");
  int64_t size = in.getDimSize(dim);
  if (index < -size || index >= size)
    return ctx.fail("index " + Twine(index) + " is out of range for size " +
                    Twine(size));
  if (index < 0)
    index += size;
  ctx.setResult(ctx.create<SelectOp>(self, i64(ctx, dim), i64(ctx, index)));
}

void emitConstantPad(NodeContext &ctx, ArrayRef<int64_t> pad, double value) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  ctx.setResult(ctx.create<ConstantPadNdOp>(operandAs(ctx, self, type),
                                            i64s(ctx, pad), f64(ctx, value)));
}

void buildConstantPadNd(NodeContext &ctx) {
  SmallVector<int64_t> pad = ctx.integers("pad");
  double value = ctx.number("value");
  if (ctx.ok())
    emitConstantPad(ctx, pad, value);
}

/// cat skips the operands PyTorch calls legacy empty: 1-D of size 0 (GPT-2
/// starts its key/value cache as torch.tensor([])), whatever the others'
/// rank. They still take part in type promotion, which the recorded result
/// type holds; when every operand is one, the result is that empty tensor.
void buildCat(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  SmallVector<Value> tensors = ctx.tensorList("tensors");
  int64_t dim = ctx.integer("dim");
  if (!ctx.ok())
    return;
  if (tensors.empty())
    return ctx.fail("cat needs at least one tensor");
  llvm::erase_if(tensors, [](Value t) {
    return NodeContext::typeOf(t).getShape() == ArrayRef<int64_t>{0};
  });
  if (tensors.empty()) {
    if (type.getNumElements() != 0)
      return ctx.fail("every tensor of the cat is a legacy empty [0] one, "
                      "which gives an empty tensor, but the graph records " +
                      Twine(type.getNumElements()) +
                      " elements; the archive is corrupt, re-export it");
    return ctx.setResult(ctx.create<arith::ConstantOp>(
        DenseElementsAttr::get(type, ArrayRef<Attribute>())));
  }
  dim = ctx.normalizeDim(dim, type.getRank());
  for (Value &t : tensors)
    t = operandAs(ctx, t, type);
  if (ctx.ok())
    ctx.setResult(ctx.create<CatOp>(tensors, i64(ctx, dim)));
}

/// stack: each tensor gains a size-1 dim at `dim`, then they are
/// concatenated there.
void buildStack(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  SmallVector<Value> tensors = ctx.tensorList("tensors");
  int64_t dim = ctx.integer("dim");
  if (!ctx.ok())
    return;
  if (tensors.empty())
    return ctx.fail("stack needs at least one tensor");
  dim = ctx.normalizeDim(dim, type.getRank());
  if (!ctx.ok())
    return;
  for (Value &t : tensors) {
    auto in = NodeContext::typeOf(t);
    SmallVector<int64_t> shape(in.getShape());
    if (dim > static_cast<int64_t>(shape.size()))
      return ctx.fail("stack dim " + Twine(dim) + " is out of range");
    shape.insert(shape.begin() + dim, 1);
    t = ctx.create<ViewOp>(RankedTensorType::get(shape, in.getElementType()),
                           operandAs(ctx, t, type));
  }
  ctx.setResult(ctx.create<CatOp>(tensors, i64(ctx, dim)));
}

/// One split_with_sizes op whose pieces are the node's outputs.
void emitSplit(NodeContext &ctx, Value self, ArrayRef<int64_t> sizes,
               int64_t dim) {
  if (sizes.size() != ctx.numResults())
    return ctx.fail("the split makes " + Twine(sizes.size()) +
                    " pieces but the node has " + Twine(ctx.numResults()) +
                    " outputs");
  auto op = ctx.create<SplitWithSizesOp>(self, i64s(ctx, sizes), i64(ctx, dim));
  for (auto [i, piece] : llvm::enumerate(op.getResults()))
    ctx.setResult(i, piece);
}

/// The split dim and its size, after reading `self` and `dim`.
std::pair<Value, int64_t> splitInput(NodeContext &ctx, int64_t &dim) {
  Value self = ctx.tensor("self");
  dim = ctx.integer("dim");
  if (!ctx.ok())
    return {};
  auto in = NodeContext::typeOf(self);
  dim = ctx.normalizeDim(dim, in.getRank());
  if (!ctx.ok() || in.getRank() == 0) {
    ctx.fail("cannot split a 0-d tensor");
    return {};
  }
  return {self, in.getDimSize(dim)};
}

/// Pieces of `chunk` (positive) elements, the last one smaller when it does
/// not divide; a failure unless there are as many as the node has outputs,
/// checked first so that a huge dim split finely allocates nothing.
SmallVector<int64_t> evenSizes(NodeContext &ctx, int64_t size, int64_t chunk) {
  // ceil(size / chunk), at least 1, without the sum that overflows.
  int64_t pieces = size == 0 ? 1 : (size - 1) / chunk + 1;
  if (static_cast<uint64_t>(pieces) != ctx.numResults()) {
    ctx.fail("the split makes " + Twine(pieces) + " pieces but the node has " +
             Twine(ctx.numResults()) + " outputs");
    return {};
  }
  SmallVector<int64_t> sizes;
  for (int64_t i = 0; i < pieces; ++i)
    sizes.push_back(std::min(chunk, size - i * chunk));
  return sizes;
}

void buildSplitWithSizes(NodeContext &ctx) {
  SmallVector<int64_t> sizes = ctx.integers("split_sizes");
  int64_t dim;
  auto [self, size] = splitInput(ctx, dim);
  if (ctx.ok())
    emitSplit(ctx, self, sizes, dim);
}

void buildSplit(NodeContext &ctx) {
  int64_t chunk = ctx.integer("split_size");
  int64_t dim;
  auto [self, size] = splitInput(ctx, dim);
  if (!ctx.ok())
    return;
  if (chunk < 1)
    return ctx.fail("split_size must be positive, got " + Twine(chunk));
  SmallVector<int64_t> sizes = evenSizes(ctx, size, chunk);
  if (ctx.ok())
    emitSplit(ctx, self, sizes, dim);
}

void buildChunk(NodeContext &ctx) {
  int64_t chunks = ctx.integer("chunks");
  int64_t dim;
  auto [self, size] = splitInput(ctx, dim);
  if (!ctx.ok())
    return;
  if (chunks < 1)
    return ctx.fail("chunks must be positive, got " + Twine(chunks));
  // Pieces of ceil(size / chunks), without the sum that overflows.
  int64_t chunk = size == 0 ? 1 : (size - 1) / chunks + 1;
  SmallVector<int64_t> sizes = evenSizes(ctx, size, chunk);
  if (ctx.ok())
    emitSplit(ctx, self, sizes, dim);
}

/// unbind: size-1 pieces, each viewed without the split dim.
void buildUnbind(NodeContext &ctx) {
  int64_t dim;
  auto [self, size] = splitInput(ctx, dim);
  if (!ctx.ok())
    return;
  if (static_cast<size_t>(size) != ctx.numResults())
    return ctx.fail("unbind makes " + Twine(size) +
                    " pieces but the node has " + Twine(ctx.numResults()) +
                    " outputs");
  auto op = ctx.create<SplitWithSizesOp>(
      self, i64s(ctx, SmallVector<int64_t>(size, 1)), i64(ctx, dim));
  for (auto [i, piece] : llvm::enumerate(op.getResults())) {
    RankedTensorType type = ctx.resultType(i);
    if (!ctx.ok())
      return;
    ctx.setResult(i, ctx.create<ViewOp>(type, piece));
  }
}

/// clone, contiguous, alias, detach, lift_fresh_copy: the same values.
void buildIdentity(NodeContext &ctx) { identity(ctx); }

/// dropout in eval mode passes its input through; in train mode it would
/// drop activations at random, which an inference compiler must not do.
void emitDropout(NodeContext &ctx, StringRef input) {
  bool train = !ctx.isNone("train") && ctx.boolean("train");
  if (!ctx.ok())
    return;
  if (train)
    return ctx.fail("dropout in training mode (train=True) is random; call "
                    "model.eval() before torch.export");
  identity(ctx, input);
  ctx.setUnavailable(1, "the dropout mask, which duet does not compute");
}

void buildDropout(NodeContext &ctx) { emitDropout(ctx, "input"); }
void buildDropoutInPlace(NodeContext &ctx) { emitDropout(ctx, "self"); }

/// _assert_tensor_metadata checks what the recorded types already state.
void buildNothing(NodeContext &) {}

/// _to_copy, to.*, type_as: the recorded result type says which dtype; the
/// device, layout and memory format do not matter to duet.
void buildConvert(NodeContext &ctx, StringRef operand = "self") {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor(operand);
  if (!ctx.ok())
    return;
  if (NodeContext::typeOf(self).getShape() != type.getShape())
    return ctx.fail("a conversion that changes the shape");
  ctx.setResult(ctx.castTo(self, type.getElementType()));
}

//===----------------------------------------------------------------------===//
// Tensors made from nothing: constants of the recorded type
//===----------------------------------------------------------------------===//

void emitFill(NodeContext &ctx, Scalar value) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  if (Value v = ctx.splat(type, value))
    ctx.setResult(v);
}

void buildFull(NodeContext &ctx) {
  Scalar value = ctx.scalar("fill_value");
  if (ctx.ok())
    emitFill(ctx, value);
}

void buildScalarTensor(NodeContext &ctx) {
  Scalar value = ctx.scalar("s");
  if (ctx.ok())
    emitFill(ctx, value);
}

void buildZeros(NodeContext &ctx) { emitFill(ctx, Scalar{true, 0, 0}); }
void buildOnes(NodeContext &ctx) { emitFill(ctx, Scalar{true, 1, 0}); }

/// arange: start, start+step, ... with as many elements as recorded.
void emitArange(NodeContext &ctx, Scalar start, Scalar step) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  if (type.getRank() != 1)
    return ctx.fail("arange must produce a 1-D tensor");
  int64_t n = type.getDimSize(0);
  // The values are written into the IR; a range this long is not a model's
  // index helper but a corrupt shape.
  if (n > (int64_t(1) << 24))
    return ctx.fail("arange of " + Twine(n) +
                    " elements is too long to become a constant");
  Type element = type.getElementType();
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat v(start.toDouble() + static_cast<double>(i) * step.toDouble());
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    attr = DenseElementsAttr::get(type, values);
  } else if (auto intType = dyn_cast<IntegerType>(element)) {
    if (!start.isInteger || !step.isInteger)
      return ctx.fail("integer arange with non-integer start or step");
    SmallVector<APInt> values;
    for (int64_t i = 0; i < n; ++i) {
      std::optional<int64_t> v = llvm::checkedMul(i, step.integer);
      if (v)
        v = llvm::checkedAdd(start.integer, *v);
      if (!v)
        return ctx.fail("arange from " + Twine(start.integer) + " by " +
                        Twine(step.integer) + " overflows int64");
      values.emplace_back(intType.getWidth(), static_cast<uint64_t>(*v),
                          /*isSigned=*/true);
    }
    attr = DenseElementsAttr::get(type, values);
  } else {
    return ctx.fail("arange of an unsupported element type");
  }
  ctx.setResult(ctx.create<arith::ConstantOp>(cast<TypedAttr>(attr)));
}

/// The element count comes from the recorded type, so `end` is not read.
/// linspace(start, end, steps): PyTorch's values, from the start for the
/// first half and from the end for the rest, in float (double for a float64
/// or integer result); one step is `start`; integers truncated.
void buildLinspace(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  double start = ctx.number("start"), end = ctx.number("end");
  int64_t steps = ctx.integer("steps");
  if (!ctx.ok())
    return;
  if (type.getRank() != 1 || type.getDimSize(0) != steps || steps < 0)
    return ctx.fail("linspace of " + Twine(steps) +
                    " steps must produce a 1-D tensor of that many elements");
  if (steps > (int64_t(1) << 24))
    return ctx.fail("linspace of " + Twine(steps) +
                    " elements is too long to become a constant");
  Type element = type.getElementType();
  // An integer result takes start and end in its type first, as PyTorch's
  // kernel converts them, and steps in double.
  if (isa<IntegerType>(element)) {
    start = std::trunc(start);
    end = std::trunc(end);
  }
  auto value = [&](int64_t i) -> double {
    auto at = [&](auto first, auto last) {
      using T = decltype(first);
      if (steps == 1)
        return first;
      T step = (last - first) / static_cast<T>(steps - 1);
      return i < steps / 2 ? first + step * static_cast<T>(i)
                           : last - step * static_cast<T>(steps - i - 1);
    };
    if (element.isF64() || isa<IntegerType>(element))
      return at(start, end);
    return at(static_cast<float>(start), static_cast<float>(end));
  };
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < steps; ++i) {
      APFloat v(value(i));
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    attr = DenseElementsAttr::get(type, values);
  } else if (auto intType = dyn_cast<IntegerType>(element)) {
    SmallVector<APInt> values;
    for (int64_t i = 0; i < steps; ++i) {
      double v = std::trunc(value(i));
      if (!(std::fabs(v) < 9.2e18))
        return ctx.fail("linspace value " + std::to_string(v) +
                        " does not fit int64");
      values.emplace_back(intType.getWidth(),
                          static_cast<uint64_t>(static_cast<int64_t>(v)),
                          /*isSigned=*/true);
    }
    attr = DenseElementsAttr::get(type, values);
  } else {
    return ctx.fail("linspace of an unsupported element type");
  }
  ctx.setResult(
      ctx.create<arith::ConstantOp>(cast<TypedAttr>(attr)).getResult());
}

void buildArange(NodeContext &ctx) {
  emitArange(ctx, Scalar{true, 0, 0}, Scalar{true, 1, 0});
}

void buildArangeStart(NodeContext &ctx) {
  Scalar start = ctx.scalar("start");
  if (ctx.ok())
    emitArange(ctx, start, Scalar{true, 1, 0});
}

void buildArangeStartStep(NodeContext &ctx) {
  Scalar start = ctx.scalar("start"), step = ctx.scalar("step");
  if (ctx.ok())
    emitArange(ctx, start, step);
}

//===----------------------------------------------------------------------===//
// Resampling, lookup, attention
//===----------------------------------------------------------------------===//

/// The `.vec` overloads give one scale per spatial dim, or none.
std::pair<std::optional<double>, std::optional<double>>
readScaleFactors(NodeContext &ctx) {
  std::optional<SmallVector<double>> scales =
      ctx.optionalNumbers("scale_factors");
  if (!scales)
    return {};
  if (scales->size() == 1)
    return {scales->front(), scales->front()};
  if (scales->size() != 2) {
    ctx.fail("argument 'scale_factors' needs 2 entries");
    return {};
  }
  return {(*scales)[0], (*scales)[1]};
}

void buildUpsampleNearestVec(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input");
  auto [h, w] = readScaleFactors(ctx);
  if (ctx.ok())
    ctx.setResult(ctx.create<UpsampleNearest2dOp>(
        type, operandAs(ctx, input, type), optF64(ctx, h), optF64(ctx, w)));
}

void buildUpsampleNearest(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  std::optional<double> h = ctx.optionalNumber("scales_h"),
                        w = ctx.optionalNumber("scales_w");
  if (ctx.ok())
    ctx.setResult(ctx.create<UpsampleNearest2dOp>(
        type, operandAs(ctx, self, type), optF64(ctx, h), optF64(ctx, w)));
}

template <typename OpT> void buildUpsampleInterpolatingVec(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input");
  bool alignCorners = ctx.boolean("align_corners");
  auto [h, w] = readScaleFactors(ctx);
  if (ctx.ok())
    ctx.setResult(ctx.create<OpT>(type, operandAs(ctx, input, type),
                                  optF64(ctx, h), optF64(ctx, w),
                                  ctx.builder.getBoolAttr(alignCorners)));
}

/// upsample_bilinear2d and upsample_bicubic2d, `.vec` and `.default`.
template <typename OpT> void buildUpsampleInterpolating(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  bool alignCorners = ctx.boolean("align_corners");
  std::optional<double> h = ctx.optionalNumber("scales_h"),
                        w = ctx.optionalNumber("scales_w");
  if (ctx.ok())
    ctx.setResult(ctx.create<OpT>(type, operandAs(ctx, self, type),
                                  optF64(ctx, h), optF64(ctx, w),
                                  ctx.builder.getBoolAttr(alignCorners)));
}

void buildEmbedding(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value weight = ctx.tensor("weight"), indices = ctx.tensor("indices");
  if (ctx.ok())
    ctx.setResult(
        ctx.create<EmbeddingOp>(operandAs(ctx, weight, type), indices));
}

/// gather and index_select: elements of `self` picked along `dim` by an
/// integer `index` (gather's `sparse_grad` only concerns gradients).
template <typename OpT> void buildIndexOp(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self"), index = ctx.tensor("index");
  int64_t dim = ctx.integer("dim");
  if (!ctx.ok())
    return;
  dim = ctx.normalizeDim(dim, NodeContext::typeOf(self).getRank());
  if (!ctx.ok())
    return;
  // A 0-d tensor has one element; PyTorch takes only index 0 of it (one
  // index for index_select, a 0-d or one-element index for gather).
  if (NodeContext::typeOf(self).getRank() == 0 && type.getNumElements() == 1)
    return reshapeTo(
        ctx,
        operandAs(ctx, self, RankedTensorType::get({}, type.getElementType())),
        type);
  ctx.setResult(
      ctx.create<OpT>(operandAs(ctx, self, type), index, i64(ctx, dim)));
}

/// `kv` ([..., heads, S, E]) with each head repeated in place so that it has
/// `queryHeads` of them, as enable_gqa's repeat_interleave on dim -3 does:
/// a view to [N·heads, 1, S, E] (N the leading dims), an expand of the size-1
/// dim to the group size, and a view back to [..., queryHeads, S, E]. Those
/// are ops every backend that runs attention runs, so grouped attention
/// needs no kernel of its own, and they stay rank 4 (a Vulkan texture).
Value repeatHeads(NodeContext &ctx, Value kv, int64_t queryHeads,
                  StringRef name) {
  auto type = NodeContext::typeOf(kv);
  SmallVector<int64_t> shape(type.getShape());
  size_t headDim = shape.size() - 3;
  int64_t heads = shape[headDim];
  if (heads == queryHeads)
    return kv;
  if (heads < 1 || queryHeads % heads != 0) {
    ctx.fail("grouped-query attention (enable_gqa=True) needs the query's " +
             Twine(queryHeads) + " heads to be a multiple of the " + name +
             "'s " + Twine(heads));
    return {};
  }
  int64_t rows = heads;
  for (size_t d = 0; d < headDim; ++d)
    rows *= shape[d];
  SmallVector<int64_t> grouped = {rows, 1, shape[headDim + 1],
                                  shape[headDim + 2]};
  Value one = ctx.create<ViewOp>(type.clone(grouped), kv);
  grouped[1] = queryHeads / heads;
  Value repeated = ctx.create<ExpandOp>(type.clone(grouped), one);
  shape[headDim] = queryHeads;
  return ctx.create<ViewOp>(type.clone(shape), repeated);
}

/// Query, key and value whose batch dims broadcast (one key head for every
/// query head in multi-query attention, a batch of 1 against 2) are
/// expanded to the common batch dims.
bool broadcastBatchDims(NodeContext &ctx, Value &q, Value &k, Value &v) {
  auto batchOf = [](Value x) {
    return NodeContext::typeOf(x).getShape().drop_back(2);
  };
  int64_t rank = NodeContext::typeOf(q).getRank();
  if (rank < 2 || NodeContext::typeOf(k).getRank() != rank ||
      NodeContext::typeOf(v).getRank() != rank) {
    ctx.fail("query, key and value must share one rank of 2 or more");
    return false;
  }
  SmallVector<int64_t> batch, partial;
  if (!OpTrait::util::getBroadcastedShape(batchOf(q), batchOf(k), partial) ||
      !OpTrait::util::getBroadcastedShape(partial, batchOf(v), batch)) {
    ctx.fail("the batch dims of query, key and value do not broadcast");
    return false;
  }
  for (Value *x : {&q, &k, &v}) {
    if (batchOf(*x) == ArrayRef<int64_t>(batch))
      continue;
    RankedTensorType t = NodeContext::typeOf(*x);
    SmallVector<int64_t> shape(batch);
    shape.append(t.getShape().take_back(2).begin(),
                 t.getShape().take_back(2).end());
    *x = ctx.create<ExpandOp>(t.clone(shape), *x);
  }
  return true;
}

void buildScaledDotProductAttention(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value q = ctx.tensor("query"), k = ctx.tensor("key"), v = ctx.tensor("value");
  Value mask = ctx.optionalTensor("attn_mask");
  double dropout = ctx.number("dropout_p");
  bool causal = ctx.boolean("is_causal");
  std::optional<double> scale = ctx.optionalNumber("scale");
  bool gqa = ctx.boolean("enable_gqa");
  if (!ctx.ok())
    return;
  if (dropout != 0)
    return ctx.fail(
        "attention dropout (dropout_p=" + Twine(std::to_string(dropout)) +
        ") is random; pass dropout_p=0 for inference");
  if (gqa) {
    int64_t rank = NodeContext::typeOf(q).getRank();
    if (rank < 3 || NodeContext::typeOf(k).getRank() != rank ||
        NodeContext::typeOf(v).getRank() != rank)
      return ctx.fail("grouped-query attention (enable_gqa=True) needs "
                      "query, key and value of one rank, 3 or more (heads "
                      "are dim -3)");
    int64_t heads = NodeContext::typeOf(q).getDimSize(rank - 3);
    // Converted first, so that the repeated tensors need no conversion.
    k = repeatHeads(ctx, operandAs(ctx, k, type), heads, "key");
    if (ctx.ok())
      v = repeatHeads(ctx, operandAs(ctx, v, type), heads, "value");
    if (!ctx.ok())
      return;
  }
  q = operandAs(ctx, q, type);
  k = operandAs(ctx, k, type);
  v = operandAs(ctx, v, type);
  if (!broadcastBatchDims(ctx, q, k, v))
    return;
  ctx.setResult(ctx.create<ScaledDotProductAttentionOp>(
      q, k, v,
      mask && !NodeContext::typeOf(mask).getElementType().isInteger(1)
          ? operandAs(ctx, mask, type)
          : mask,
      ctx.builder.getBoolAttr(causal), optF64(ctx, scale)));
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

class OpTableBuilder {
public:
  /// Registers `torch.ops.aten.<name>`.
  void add(const char *name, OpBuildFn build,
           std::vector<ArgDefault> defaults = {},
           Effect effect = Effect::Functional) {
    entries.push_back(OpEntry{std::string("torch.ops.aten.") + name, build,
                              std::move(defaults), effect});
  }
  /// Registers `torch.ops.quantized_decomposed.<name>`.
  void addQuantized(const char *name, OpBuildFn build,
                    std::vector<ArgDefault> defaults = {}) {
    entries.push_back(
        OpEntry{std::string("torch.ops.quantized_decomposed.") + name, build,
                std::move(defaults), Effect::Functional});
  }
  /// Registers `torch.ops.prims.<name>` (the primitives PyTorch's own
  /// decompositions write, as in a model exported after them).
  void addPrimitive(const char *name, OpBuildFn build) {
    entries.push_back(OpEntry{
        std::string("torch.ops.prims.") + name, build, {}, Effect::Functional});
  }
  /// Registers the functional op `<op>.<overload>` and its in-place variant
  /// `<op>_.<overload>`.
  void addWithInPlace(const char *op, const char *overload, OpBuildFn build,
                      std::vector<ArgDefault> defaults = {}) {
    add((std::string(op) + "." + overload).c_str(), build, defaults);
    add((std::string(op) + "_." + overload).c_str(), build, defaults,
        Effect::InPlace);
  }
  std::vector<OpEntry> entries;
};

void addConvolutions(OpTableBuilder &t) {
  using A = ArgDefault;
  // Convolution. The TRAINING IR keeps conv1d/conv2d/conv_transpose*; the
  // ATEN IR has convolution with every argument present.
  std::vector<A> convDefaults = {{"bias", none()},
                                 {"stride", ints({1})},
                                 {"padding", ints({0})},
                                 {"dilation", ints({1})},
                                 {"groups", integer(1)}};
  t.add("conv1d.default", buildConv, convDefaults);
  t.add("conv2d.default", buildConv, convDefaults);
  t.add("conv3d.default", buildConv, convDefaults);
  std::vector<A> convModeDefaults = {{"bias", none()},
                                     {"stride", ints({1})},
                                     {"padding", str("valid")},
                                     {"dilation", ints({1})},
                                     {"groups", integer(1)}};
  t.add("conv1d.padding", buildConvPaddingMode, convModeDefaults);
  t.add("conv2d.padding", buildConvPaddingMode, convModeDefaults);
  std::vector<A> convTransposeDefaults = {
      {"bias", none()},       {"stride", ints({1})},
      {"padding", ints({0})}, {"output_padding", ints({0})},
      {"groups", integer(1)}, {"dilation", ints({1})}};
  t.add("conv_transpose1d.default", buildConvTranspose, convTransposeDefaults);
  t.add("conv_transpose2d.input", buildConvTranspose, convTransposeDefaults);
  t.add("convolution.default", buildConvolution);
}

void addMatrixProducts(OpTableBuilder &t) {
  // Matrix products.
  t.add("linear.default", buildLinear, {{"bias", none()}});
  t.add("addmm.default", buildAddmm,
        {{"beta", integer(1)}, {"alpha", integer(1)}});
  t.add("mm.default", buildMatrixProduct<MmOp>);
  t.add("bmm.default", buildMatrixProduct<BmmOp>);
  t.add("matmul.default", buildMatrixProduct<MatmulOp>);
}

void addNormalizations(OpTableBuilder &t) {
  // Normalization.
  t.add("batch_norm.default", buildBatchNorm);
  t.add("_native_batch_norm_legit_no_training.default",
        buildBatchNormNoTraining);
  t.add("_native_batch_norm_legit.default", buildBatchNorm);
  t.add("native_batch_norm.default", buildBatchNorm);
  t.add("layer_norm.default", buildLayerNorm,
        {{"weight", none()},
         {"bias", none()},
         {"eps", real(1e-5)},
         {"cudnn_enable", boolean(true)}});
  t.add("native_layer_norm.default", buildLayerNorm);
  t.add("native_group_norm.default", buildNativeGroupNorm,
        {{"weight", none()}, {"bias", none()}});
  t.add("group_norm.default", buildGroupNorm,
        {{"weight", none()},
         {"bias", none()},
         {"eps", real(1e-5)},
         {"cudnn_enabled", boolean(true)}});
  t.add("linalg_vector_norm.default", buildVectorNorm,
        {{"ord", integer(2)},
         {"dim", none()},
         {"keepdim", boolean(false)},
         {"dtype", none()}});
}

void addActivations(OpTableBuilder &t) {
  // Activations and elementwise math, with their in-place variants.
  // Every Aten_UnaryOp of AtenOps.td imports from `<mnemonic>.default` and
  // its in-place variant.
#define DUET_ATEN_UNARY(Class, Fn, mnemonic)                                   \
  t.addWithInPlace(mnemonic, "default", buildUnary<Class>);
#include "dialects/aten/AtenUnaryOps.inc"
#undef DUET_ATEN_UNARY
  t.addWithInPlace("reciprocal", "default", buildReciprocal);
  t.addWithInPlace("square", "default", buildSquare);
  t.add("relu6.default", buildRelu6);
  t.addWithInPlace("hardtanh", "default", buildHardtanh,
                   {{"min_val", integer(-1)}, {"max_val", integer(1)}});
  t.addWithInPlace("clamp", "default", buildClamp,
                   {{"min", none()}, {"max", none()}});
  t.addWithInPlace("clamp", "Tensor", buildClampTensor,
                   {{"min", none()}, {"max", none()}});
  t.addWithInPlace("clamp_min", "default", buildClampMin);
  t.addWithInPlace("clamp_max", "default", buildClampMax);
  t.addWithInPlace("leaky_relu", "default", buildLeakyRelu,
                   {{"negative_slope", real(0.01)}});
  t.addWithInPlace("elu", "default", buildElu,
                   {{"alpha", integer(1)},
                    {"scale", integer(1)},
                    {"input_scale", integer(1)}});
  t.add("hardshrink.default", buildHardshrink, {{"lambd", real(0.5)}});
  t.addWithInPlace("gelu", "default", buildGelu,
                   {{"approximate", str("none")}});
  t.add("pow.Tensor_Scalar", buildPowScalar);
  t.add("pow.Scalar", buildPowScalarBase);
  t.add("pow_.Scalar", buildPowScalar, {}, Effect::InPlace);
  t.addWithInPlace("pow", "Tensor_Tensor", buildPowTensor);
}

void addBinaryOps(OpTableBuilder &t) {
  // Binary ops; `.Scalar` overloads and numbers in Tensor slots become 0-d
  // constants.
  for (const char *overload : {"Tensor", "Scalar"}) {
    t.addWithInPlace("add", overload, buildAddSub<AddOp>,
                     {{"alpha", integer(1)}});
    t.addWithInPlace("sub", overload, buildAddSub<SubOp>,
                     {{"alpha", integer(1)}});
    t.add((std::string("rsub.") + overload).c_str(), buildRsub,
          {{"alpha", integer(1)}});
    t.addWithInPlace("mul", overload, buildBinary<MulOp>);
    t.addWithInPlace("div", overload, buildDiv);
    t.addWithInPlace("div", (std::string(overload) + "_mode").c_str(),
                     buildDivMode, {{"rounding_mode", none()}});
  }
  t.add("floor_divide.default", buildFloorDivide);
  t.add("floor_divide.Scalar", buildFloorDivide);
  t.add("maximum.default", buildBinary<MaximumOp>);
  t.add("minimum.default", buildBinary<MinimumOp>);
  for (const char *overload : {"Tensor", "Scalar"})
    t.addWithInPlace("remainder", overload, buildBinary<RemainderOp>);
  t.add("remainder.Scalar_Tensor", buildBinary<RemainderOp>);
  for (const char *overload : {"Scalar", "Tensor"})
    t.addWithInPlace("fmod", overload, buildFmod);
}

void addComparisons(OpTableBuilder &t) {
  // Comparisons, logic and selection.
  for (const char *overload : {"Tensor", "Scalar"}) {
    auto name = [&](const char *op) {
      return std::string(op) + "." + overload;
    };
    t.add(name("eq").c_str(), buildCompare<EqOp>);
    t.add(name("ne").c_str(), buildCompare<NeOp>);
    t.add(name("lt").c_str(), buildCompare<LtOp>);
    t.add(name("le").c_str(), buildCompare<LeOp>);
    t.add(name("gt").c_str(), buildCompare<GtOp>);
    t.add(name("ge").c_str(), buildCompare<GeOp>);
  }
  t.add("logical_and.default", buildLogicalBinary<LogicalAndOp>);
  t.add("logical_or.default", buildLogicalBinary<LogicalOrOp>);
  t.add("logical_not.default", buildLogicalNot);
  for (const char *where :
       {"where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar"})
    t.add(where, buildWhere);
  t.addWithInPlace("masked_fill", "Scalar", buildMaskedFill);
  t.addWithInPlace("masked_fill", "Tensor", buildMaskedFill);
  t.add("bitwise_not.default", buildBitwiseNot);
}

void addPythonOperators(OpTableBuilder &t) {
  // The Python operators are aliases of the bitwise ops.
  for (const char *spelling : {"bitwise_and.Tensor", "__and__.Tensor",
                               "bitwise_and.Scalar", "__and__.Scalar"})
    t.add(spelling, buildBitwiseBinary<LogicalAndOp, BitwiseAndOp>);
  for (const char *spelling : {"bitwise_or.Tensor", "__or__.Tensor",
                               "bitwise_or.Scalar", "__or__.Scalar"})
    t.add(spelling, buildBitwiseBinary<LogicalOrOp, BitwiseOrOp>);
  for (const char *spelling : {"bitwise_xor.Tensor", "__xor__.Tensor",
                               "bitwise_xor.Scalar", "__xor__.Scalar"})
    t.add(spelling, buildBitwiseBinary<NeOp, BitwiseXorOp>);
  for (const char *spelling :
       {"bitwise_left_shift.Tensor", "bitwise_left_shift.Tensor_Scalar",
        "bitwise_left_shift.Scalar_Tensor", "__lshift__.Tensor",
        "__lshift__.Scalar"})
    t.add(spelling, [](NodeContext &ctx) { buildBitShift(ctx, true); });
  for (const char *spelling :
       {"bitwise_right_shift.Tensor", "bitwise_right_shift.Tensor_Scalar",
        "bitwise_right_shift.Scalar_Tensor", "__rshift__.Tensor",
        "__rshift__.Scalar"})
    t.add(spelling, [](NodeContext &ctx) { buildBitShift(ctx, false); });
  t.addWithInPlace("atan2", "default", buildAtan2);
  t.add("logical_xor.default", buildLogicalXor);
  t.add("any.dim", buildAnyDims, {{"keepdim", boolean(false)}});
  t.add("any.dims", buildAnyDims,
        {{"dim", none()}, {"keepdim", boolean(false)}});
  t.add("any.default", buildAnyAll);
}

void addReductions(OpTableBuilder &t) {
  using A = ArgDefault;
  // Reductions, pooling, softmax.
  std::vector<A> reduceDefaults = {{"keepdim", boolean(false)},
                                   {"dtype", none()}};
  t.add("mean.dim", buildReductionDims<MeanOp>, reduceDefaults);
  t.add("mean.default", buildReductionAll<MeanOp>, {{"dtype", none()}});
  t.add("sum.dim_IntList", buildReductionDims<SumOp>, reduceDefaults);
  t.add("sum.default", buildReductionAll<SumOp>, {{"dtype", none()}});
  t.add("amax.default", buildReductionDims<AmaxOp>,
        {{"dim", ints({})}, {"keepdim", boolean(false)}});
  t.add("max.dim", buildMaxDim, {{"keepdim", boolean(false)}});
  t.add("prod.dim_int", buildProdDim, reduceDefaults);
  t.add("prod.default", buildProdAll, {{"dtype", none()}});
  t.add("adaptive_avg_pool2d.default", buildAdaptiveAvgPool2d);
  t.add("_adaptive_avg_pool2d.default", buildAdaptiveAvgPool2d);
  t.add("avg_pool2d.default", buildAvgPool2d,
        {{"stride", ints({})},
         {"padding", ints({0})},
         {"ceil_mode", boolean(false)},
         {"count_include_pad", boolean(true)},
         {"divisor_override", none()}});
  std::vector<A> maxPoolDefaults = {{"stride", ints({})},
                                    {"padding", ints({0})},
                                    {"dilation", ints({1})},
                                    {"ceil_mode", boolean(false)}};
  t.add("max_pool2d.default", buildMaxPool2d, maxPoolDefaults);
  t.add("max_pool2d_with_indices.default", buildMaxPool2d, maxPoolDefaults);
  t.add("softmax.int", buildAlongDim<SoftmaxOp>, {{"dtype", none()}});
  t.add("_softmax.default", buildAlongDim<SoftmaxOp>);
  t.add("log_softmax.int", buildAlongDim<LogSoftmaxOp>, {{"dtype", none()}});
  t.add("_log_softmax.default", buildAlongDim<LogSoftmaxOp>);
  t.addWithInPlace("cumsum", "default", buildAlongDim<CumsumOp>,
                   {{"dtype", none()}});
  t.addWithInPlace("cumprod", "default", buildCumprod, {{"dtype", none()}});
  t.add("cummax.default", buildCummax);
  t.add("cummin.default", buildCummin);
  t.add("logcumsumexp.default", buildLogcumsumexp);
}

void addShapes(OpTableBuilder &t) {
  // Shapes: views take the recorded result shape.
  for (const char *view :
       {"view.default", "reshape.default", "_unsafe_view.default",
        "flatten.using_ints", "squeeze.default", "squeeze.dim", "squeeze.dims",
        "unsqueeze.default", "unflatten.int", "view_as.default",
        "reshape_as.default"})
    t.add(view, buildView);
  t.add("expand.default", buildExpand, {{"implicit", boolean(false)}});
  t.add("as_strided.default", buildAsStrided, {{"storage_offset", none()}});
  t.add("as_strided_scatter.default", buildAsStridedScatter,
        {{"storage_offset", none()}});
  t.add("expand_as.default", buildExpand);
  t.add("repeat.default", buildRepeat);
  t.add("permute.default", buildPermute);
  t.add("transpose.int", buildTranspose);
  t.add("t.default", buildT);
  t.add("slice.Tensor", buildSlice,
        {{"dim", integer(0)},
         {"start", none()},
         {"end", none()},
         {"step", integer(1)}});
  t.add("select.int", buildSelect);
  t.add("constant_pad_nd.default", buildConstantPadNd, {{"value", integer(0)}});
  t.add("pad.default", buildPad,
        {{"mode", str("constant")}, {"value", none()}});
  for (const char *cat :
       {"cat.default", "concat.default", "concatenate.default"})
    t.add(cat, buildCat, {{"dim", integer(0)}});
  t.add("stack.default", buildStack, {{"dim", integer(0)}});
  t.add("split.Tensor", buildSplit, {{"dim", integer(0)}});
  t.add("split_with_sizes.default", buildSplitWithSizes, {{"dim", integer(0)}});
  t.add("chunk.default", buildChunk, {{"dim", integer(0)}});
  t.add("unbind.int", buildUnbind, {{"dim", integer(0)}});
}

void addIdentities(OpTableBuilder &t) {
  // Identities at inference.
  for (const char *same :
       {"clone.default", "contiguous.default", "alias.default",
        "detach.default", "detach_.default", "lift_fresh_copy.default"})
    t.add(same, buildIdentity);
  t.add("dropout.default", buildDropout);
  t.add("feature_dropout.default", buildDropout);
  t.add("native_dropout.default", buildDropout);
  t.add("dropout_.default", buildDropoutInPlace);
  t.add("_assert_tensor_metadata.default", buildNothing);
  for (const char *convert : {"_to_copy.default", "to.dtype", "to.dtype_layout",
                              "to.device", "to.other", "type_as.default"})
    t.add(convert, [](NodeContext &ctx) { buildConvert(ctx); });
  t.addPrimitive("convert_element_type.default",
                 [](NodeContext &ctx) { buildConvert(ctx, "a"); });
}

void addFactories(OpTableBuilder &t) {
  // Tensors made from nothing.
  t.add("full.default", buildFull);
  t.add("full_like.default", buildFull);
  t.add("new_full.default", buildFull);
  t.add("scalar_tensor.default", buildScalarTensor);
  for (const char *zeros :
       {"zeros.default", "zeros_like.default", "new_zeros.default"})
    t.add(zeros, buildZeros);
  for (const char *ones :
       {"ones.default", "ones_like.default", "new_ones.default"})
    t.add(ones, buildOnes);
  t.add("linspace.default", buildLinspace);
  t.addWithInPlace("masked_scatter", "default", buildMaskedScatter);
  t.add("arange.default", buildArange);
  t.add("arange.start", buildArangeStart);
  t.add("arange.start_step", buildArangeStartStep, {{"step", integer(1)}});
}

void addResamplingLookupAttention(OpTableBuilder &t) {
  // Resampling, lookup, attention.
  t.add("upsample_nearest2d.vec", buildUpsampleNearestVec,
        {{"scale_factors", none()}});
  t.add("upsample_nearest2d.default", buildUpsampleNearest,
        {{"scales_h", none()}, {"scales_w", none()}});
  t.add("upsample_bilinear2d.vec",
        buildUpsampleInterpolatingVec<UpsampleBilinear2dOp>,
        {{"scale_factors", none()}});
  t.add("upsample_bilinear2d.default",
        buildUpsampleInterpolating<UpsampleBilinear2dOp>,
        {{"scales_h", none()}, {"scales_w", none()}});
  t.add("upsample_bicubic2d.vec",
        buildUpsampleInterpolatingVec<UpsampleBicubic2dOp>,
        {{"scale_factors", none()}});
  t.add("upsample_bicubic2d.default",
        buildUpsampleInterpolating<UpsampleBicubic2dOp>,
        {{"scales_h", none()}, {"scales_w", none()}});
  t.add("grid_sampler.default", buildGridSampler);
  t.add("grid_sampler_2d.default", buildGridSampler);
  t.add("embedding.default", buildEmbedding);
  t.add("gather.default", buildIndexOp<GatherOp>,
        {{"sparse_grad", boolean(false)}});
  t.add("index_select.default", buildIndexOp<IndexSelectOp>);
  t.add("index.Tensor", buildIndexTensor);
  t.add("scaled_dot_product_attention.default", buildScaledDotProductAttention,
        {{"attn_mask", none()},
         {"dropout_p", real(0)},
         {"is_causal", boolean(false)},
         {"scale", none()},
         {"enable_gqa", boolean(false)}});
}

void addDecomposedTargets(OpTableBuilder &t) {
  using A = ArgDefault;
  // Targets written as several aten ops, as PyTorch's decomposition table
  // writes them (DecomposedMath.cpp, DecomposedData.cpp).
  t.addWithInPlace("baddbmm", "default", buildBaddbmm,
                   {{"beta", integer(1)}, {"alpha", integer(1)}});
  t.addWithInPlace("addbmm", "default", buildAddbmm,
                   {{"beta", integer(1)}, {"alpha", integer(1)}});
  t.addWithInPlace("addmv", "default", buildAddmv,
                   {{"beta", integer(1)}, {"alpha", integer(1)}});
  t.addWithInPlace("addcmul", "default", buildAddcmul, {{"value", integer(1)}});
  t.addWithInPlace("addcdiv", "default", buildAddcdiv, {{"value", integer(1)}});
  // var_mean and std_mean: the same, with the mean as a second result.
  for (auto [name, dimBuild, correctionBuild, allBuild] :
       {std::tuple{"var", &buildVarDim, &buildVarCorrection, &buildVarAll},
        std::tuple{"std", &buildStdDim, &buildStdCorrection, &buildStdAll},
        std::tuple{"var_mean", &buildVarDim, &buildVarCorrection, &buildVarAll},
        std::tuple{"std_mean", &buildStdDim, &buildStdCorrection,
                   &buildStdAll}}) {
    std::string op(name);
    t.add((op + ".dim").c_str(), dimBuild,
          {{"unbiased", boolean(true)}, {"keepdim", boolean(false)}});
    t.add(
        (op + ".correction").c_str(), correctionBuild,
        {{"dim", none()}, {"correction", none()}, {"keepdim", boolean(false)}});
    t.add((op + ".default").c_str(), allBuild, {{"unbiased", boolean(true)}});
  }
  t.add("_native_batch_norm_legit.no_stats", buildBatchNormNoStats);
  t.add("instance_norm.default", buildInstanceNormAny);
  t.add("rms_norm.default", buildRmsNorm,
        {{"weight", none()}, {"eps", none()}});
  t.add("logsumexp.default", buildLogsumexp, {{"keepdim", boolean(false)}});
  t.add("amin.default", buildAmin,
        {{"dim", ints({})}, {"keepdim", boolean(false)}});
  t.add("min.dim", buildMinDim, {{"keepdim", boolean(false)}});
  t.add("max.default", buildMaxAll);
  t.add("min.default", buildMinAll);
  t.add("max.other", buildBinary<MaximumOp>);
  t.add("min.other", buildBinary<MinimumOp>);
  t.addWithInPlace("exp2", "default", buildExp2);
  t.addWithInPlace("erfc", "default", buildErfc);
  t.add("fmax.default", [](NodeContext &ctx) { buildFmaxFmin(ctx, true); });
  t.add("fmin.default", [](NodeContext &ctx) { buildFmaxFmin(ctx, false); });
  t.addWithInPlace("hypot", "default", buildHypot);
  t.addWithInPlace("copysign", "Tensor", buildCopysign);
  t.addWithInPlace("copysign", "Scalar", buildCopysign);
  t.add("signbit.default", buildSignbit);
  t.addWithInPlace("ldexp", "Tensor", buildLdexp);
  t.addWithInPlace("xlogy", "Tensor", buildXlogy);
  t.add("xlogy.Scalar_Self", buildXlogy);
  t.add("xlogy.Scalar_Other", buildXlogy);
  t.addWithInPlace("logit", "default", buildLogit, {{"eps", none()}});
  t.addWithInPlace("round", "decimals", buildRoundDecimals);
  t.add("softplus.default", buildSoftplus,
        {{"beta", integer(1)}, {"threshold", integer(20)}});
  t.addWithInPlace("mish", "default", buildMish);
  t.add("log_sigmoid.default", buildLogSigmoid);
  t.add("log_sigmoid_forward.default", buildLogSigmoid);
  t.add("prelu.default", buildPrelu);
  t.add("_prelu_kernel.default", buildPrelu);
  t.add("glu.default", buildGlu, {{"dim", integer(-1)}});
  t.addWithInPlace("threshold", "default", buildThreshold);
  t.add("softshrink.default", buildSoftshrink, {{"lambd", real(0.5)}});
  t.addWithInPlace("selu", "default", buildSelu);
  t.addWithInPlace("celu", "default", buildCelu, {{"alpha", real(1.0)}});
  t.add("eye.default", buildEye);
  t.add("eye.m", buildEye);
  for (const char *overload : {"Scalar", "Tensor"})
    t.addWithInPlace("fill", overload, buildFill);
  t.addWithInPlace("zero", "default", buildZeros);
  for (const char *empty :
       {"empty_like.default", "empty.memory_format", "new_empty.default",
        "empty_strided.default", "new_empty_strided.default",
        "empty_permuted.default"})
    t.add(empty, buildZeros);
  t.addWithInPlace("copy", "default", buildCopy,
                   {{"non_blocking", boolean(false)}});
  t.add("roll.default", buildRoll, {{"dims", ints({})}});
  t.add("flip.default", buildFlip);
  t.add("unfold.default", buildUnfold);
  t.add("im2col.default", buildIm2col);
  t.add("col2im.default", buildCol2im);
  t.add("_cdist_forward.default", buildCdist);
  t.add("cdist.default", buildCdist,
        {{"p", real(2)}, {"compute_mode", none()}});
  t.add("dist.default", buildDist, {{"p", integer(2)}});
  t.add("_pdist_forward.default", buildPdist, {{"p", real(2)}});
  t.add("pdist.default", buildPdist, {{"p", real(2)}});
  for (const char *pad :
       {"reflection_pad1d.default", "reflection_pad2d.default",
        "reflection_pad3d.default"})
    t.add(pad, buildReflectionPad);
  for (const char *pad :
       {"replication_pad1d.default", "replication_pad2d.default",
        "replication_pad3d.default"})
    t.add(pad, buildReplicationPad);
  t.add("_pad_circular.default", buildCircularPad);
  t.add("adaptive_avg_pool1d.default", buildAdaptiveAvgPool1d);
  t.add("avg_pool1d.default", buildAvgPool1d,
        {{"stride", ints({})},
         {"padding", ints({0})},
         {"ceil_mode", boolean(false)},
         {"count_include_pad", boolean(true)}});
  std::vector<A> maxPool1dDefaults = {{"stride", ints({})},
                                      {"padding", ints({0})},
                                      {"dilation", ints({1})},
                                      {"ceil_mode", boolean(false)}};
  t.add("max_pool1d.default", buildMaxPool1d, maxPool1dDefaults);
  t.add("max_pool1d_with_indices.default", buildMaxPool1d, maxPool1dDefaults);
  t.add("adaptive_max_pool2d.default", buildAdaptiveMaxPool2d);
  t.add("avg_pool3d.default", buildAvgPool3d,
        {{"stride", ints({})},
         {"padding", ints({0})},
         {"ceil_mode", boolean(false)},
         {"count_include_pad", boolean(true)},
         {"divisor_override", none()}});
  t.add("max_pool3d.default", buildMaxPool3d, maxPool1dDefaults);
  t.add("max_pool3d_with_indices.default", buildMaxPool3d, maxPool1dDefaults);
  t.add("adaptive_avg_pool3d.default", buildAdaptiveAvgPool3d);
  t.add("_adaptive_avg_pool3d.default", buildAdaptiveAvgPool3d);
  t.add("repeat_interleave.self_int", buildRepeatInterleave,
        {{"dim", none()}, {"output_size", none()}});
  t.add("tile.default", buildTile);
  t.addWithInPlace("tril", "default",
                   [](NodeContext &ctx) { buildTriangle(ctx, true); },
                   {{"diagonal", integer(0)}});
  t.addWithInPlace("triu", "default",
                   [](NodeContext &ctx) { buildTriangle(ctx, false); },
                   {{"diagonal", integer(0)}});
  for (const char *bag :
       {"_embedding_bag.default", "_embedding_bag_forward_only.default"})
    t.add(bag, buildEmbeddingBag,
          {{"scale_grad_by_freq", boolean(false)},
           {"mode", integer(0)},
           {"sparse", boolean(false)},
           {"per_sample_weights", none()},
           {"include_last_offset", boolean(false)},
           {"padding_idx", integer(-1)}});
  t.add("histc.default", buildHistc,
        {{"bins", integer(100)}, {"min", integer(0)}, {"max", integer(0)}});
  t.add("pixel_shuffle.default",
        [](NodeContext &ctx) { buildPixelShuffle(ctx, true); });
  t.add("pixel_unshuffle.default",
        [](NodeContext &ctx) { buildPixelShuffle(ctx, false); });
  t.add("narrow.default", buildNarrow);
  t.add("einsum.default", buildEinsum, {{"path", none()}});
  t.add("slice_scatter.default", buildSliceScatter,
        {{"dim", integer(0)},
         {"start", none()},
         {"end", none()},
         {"step", integer(1)}});
  t.add("select_scatter.default", buildSelectScatter);
  t.add("diagonal.default", buildDiagonal,
        {{"offset", integer(0)}, {"dim1", integer(0)}, {"dim2", integer(1)}});
}

void addScatterTargets(OpTableBuilder &t) {
  // Writes at an index: one aten.scatter each (ScatterTargets.cpp).
  for (const char *overload : {"src", "value"})
    t.addWithInPlace("scatter", overload, buildScatter);
  for (const char *overload : {"reduce", "value_reduce"})
    t.addWithInPlace("scatter", overload, buildScatter);
  t.addWithInPlace("scatter_add", "default", buildScatterAdd);
  t.addWithInPlace("scatter_reduce", "two", buildScatterReduce,
                   {{"include_self", boolean(true)}});
  t.addWithInPlace("index_copy", "default", buildIndexCopy);
  t.addWithInPlace("index_reduce", "default", buildIndexReduce,
                   {{"include_self", boolean(true)}});
  t.addWithInPlace("put", "default", buildPut,
                   {{"accumulate", boolean(false)}});
  t.addWithInPlace("index_add", "default", buildIndexAdd,
                   {{"alpha", integer(1)}});
  t.addWithInPlace("index_put", "default", buildIndexPut,
                   {{"accumulate", boolean(false)}});
  t.add("meshgrid.default", buildMeshgrid);
  t.add("meshgrid.indexing", buildMeshgrid);
  t.add("isnan.default", buildIsNan);
  t.add("isinf.default", buildIsInf);
}

void addOrderingTargets(OpTableBuilder &t) {
  // Ordering: one aten.topk each (OrderingAndSampling.cpp).
  t.add("topk.default", buildTopk,
        {{"dim", integer(-1)},
         {"largest", boolean(true)},
         {"sorted", boolean(true)}});
  for (const char *sort : {"sort.default", "sort.stable"})
    t.add(sort, buildSort,
          {{"stable", none()},
           {"dim", integer(-1)},
           {"descending", boolean(false)}});
  std::vector<ArgDefault> searchDefaults = {{"out_int32", boolean(false)},
                                            {"right", boolean(false)},
                                            {"side", none()},
                                            {"sorter", none()}};
  t.add("searchsorted.Tensor", buildSearchSorted, searchDefaults);
  t.add("searchsorted.Scalar", buildSearchSorted, searchDefaults);
  t.add("bucketize.Tensor", buildBucketize,
        {{"out_int32", boolean(false)}, {"right", boolean(false)}});
  t.add("bucketize.Scalar", buildBucketize,
        {{"out_int32", boolean(false)}, {"right", boolean(false)}});
  t.add("kthvalue.default", buildKthvalue,
        {{"dim", integer(-1)}, {"keepdim", boolean(false)}});
  t.add("median.default", [](NodeContext &ctx) { buildMedian(ctx, false); });
  t.add("median.dim", [](NodeContext &ctx) { buildMedian(ctx, false); },
        {{"keepdim", boolean(false)}});
  t.add("nanmedian.default", [](NodeContext &ctx) { buildMedian(ctx, true); });
  t.add("nanmedian.dim", [](NodeContext &ctx) { buildMedian(ctx, true); },
        {{"keepdim", boolean(false)}});
  for (const char *argsort : {"argsort.default", "argsort.stable"})
    t.add(argsort, buildArgsort,
          {{"stable", none()},
           {"dim", integer(-1)},
           {"descending", boolean(false)}});
  t.add("argmax.default", buildArgmax,
        {{"dim", none()}, {"keepdim", boolean(false)}});
  t.add("argmin.default", buildArgmin,
        {{"dim", none()}, {"keepdim", boolean(false)}});
}

void addQuantization(OpTableBuilder &t) {
  // Quantization (PT2E's quantized_decomposed ops).
  t.addQuantized("quantize_per_tensor.default", buildQuantizePerTensor);
  t.addQuantized("quantize_per_tensor.tensor", buildQuantizePerTensor);
  t.addQuantized("dequantize_per_tensor.default", buildDequantizePerTensor,
                 {{"out_dtype", none()}});
  t.addQuantized("dequantize_per_tensor.tensor", buildDequantizePerTensor,
                 {{"out_dtype", none()}});
  t.addQuantized("quantize_per_channel.default", buildQuantizePerChannel);
  t.addQuantized("dequantize_per_channel.default", buildDequantizePerChannel,
                 {{"out_dtype", none()}});
  t.addQuantized("choose_qparams.tensor", buildChooseQparams);
  t.addQuantized("choose_qparams_symmetric.tensor",
                 buildChooseQparamsSymmetric);
}

void addViewCopies(OpTableBuilder &t) {
  // The functional copies of the view ops (`view_copy`, `permute_copy`, ...,
  // as ExecuTorch's edge dialect and functionalization write them) compute
  // what the views do.
  static constexpr StringRef kViews[] = {
      "view",      "permute",   "expand", "slice",
      "select",    "transpose", "t",      "squeeze",
      "unsqueeze", "alias",     "detach", "split_with_sizes",
      "split",     "unbind",    "unfold", "as_strided",
      "clone",     "narrow"};
  std::vector<OpEntry> copies;
  for (const OpEntry &e : t.entries) {
    StringRef target(e.target);
    auto [qualified, overload] = target.rsplit('.');
    auto [ns, op] = qualified.rsplit('.');
    if (ns == "torch.ops.aten" && llvm::is_contained(kViews, op))
      copies.push_back(OpEntry{(ns + "." + op + "_copy." + overload).str(),
                               e.build, e.defaults, Effect::Functional});
  }
  llvm::append_range(t.entries, copies);
}

void addAliases(OpTableBuilder &t) {
  // PyTorch's aliases (native_functions.yaml: `multiply` is `mul`, `clip` is
  // `clamp`, ...) import as the op they name, in every overload and in-place
  // variant the table has for it.
  static constexpr std::pair<StringRef, StringRef> kAliases[] = {
      {"absolute", "abs"},
      {"arccos", "acos"},
      {"arccosh", "acosh"},
      {"arcsin", "asin"},
      {"arcsinh", "asinh"},
      {"arctan", "atan"},
      {"arctanh", "atanh"},
      {"arctan2", "atan2"},
      {"clip", "clamp"},
      {"concat", "cat"},
      {"concatenate", "cat"},
      {"divide", "div"},
      {"true_divide", "div"},
      {"fix", "trunc"},
      {"greater", "gt"},
      {"greater_equal", "ge"},
      {"less", "lt"},
      {"less_equal", "le"},
      {"not_equal", "ne"},
      {"multiply", "mul"},
      {"negative", "neg"},
      {"subtract", "sub"},
      {"special_expit", "sigmoid"},
      {"special_exp2", "exp2"},
      {"special_expm1", "expm1"},
      {"special_log1p", "log1p"},
      {"special_erf", "erf"},
      {"special_erfc", "erfc"},
      {"special_erfinv", "erfinv"},
      {"special_sinc", "sinc"},
      {"special_logit", "logit"},
      {"special_xlogy", "xlogy"},
      {"special_logsumexp", "logsumexp"},
      {"moveaxis", "movedim"},
      {"ger", "outer"},
      {"linalg_matmul", "matmul"},
      {"row_stack", "vstack"}};
  std::vector<OpEntry> aliases;
  for (const OpEntry &e : t.entries) {
    auto [qualified, overload] = StringRef(e.target).rsplit('.');
    auto [ns, op] = qualified.rsplit('.');
    bool inPlace = e.effect == Effect::InPlace && op.ends_with("_");
    StringRef base = inPlace ? op.drop_back() : op;
    for (auto [alias, canonical] : kAliases)
      if (ns == "torch.ops.aten" && base == canonical)
        aliases.push_back(OpEntry{
            (ns + "." + alias + (inPlace ? "_" : "") + "." + overload).str(),
            e.build, e.defaults, e.effect});
  }
  llvm::append_range(t.entries, aliases);
}

/// Every target the importer reads, section by section; the last two add
/// the view copies and aliases of what the others registered.
std::vector<OpEntry> makeTable() {
  OpTableBuilder t;
  addConvolutions(t);
  addMatrixProducts(t);
  addNormalizations(t);
  addActivations(t);
  addBinaryOps(t);
  addComparisons(t);
  addPythonOperators(t);
  addReductions(t);
  addShapes(t);
  addIdentities(t);
  addFactories(t);
  addResamplingLookupAttention(t);
  addDecomposedTargets(t);
  addScatterTargets(t);
  addOrderingTargets(t);
  addQuantization(t);
  addViewCopies(t);
  addAliases(t);
  return std::move(t.entries);
}

/// The ops whose in-place variant changes the shape or strides of `self`
/// (`squeeze_`, `t_`, ...) rather than its values: none is derived.
bool changesLayoutInPlace(StringRef op) {
  static constexpr StringRef kLayouts[] = {
      "view",     "reshape",    "_unsafe_view", "slice",
      "select",   "permute",    "transpose",    "t",
      "expand",   "expand_as",  "squeeze",      "unsqueeze",
      "flatten",  "unflatten",  "view_as",      "reshape_as",
      "alias",    "detach",     "narrow",       "diagonal",
      "unfold",   "as_strided", "split",        "split_with_sizes",
      "chunk",    "unbind",     "movedim",      "swapaxes",
      "swapdims", "resize",     "resize_as",    "set"};
  return llvm::is_contained(kLayouts, op);
}

struct Table {
  std::vector<OpEntry> entries = makeTable();
  /// The in-place variant of each functional op that has none in `entries`
  /// (`floor_divide_.Tensor` of `floor_divide.default`, `logical_not_`, ...):
  /// PyTorch writes the functional op's result into `self`, which keeps its
  /// dtype, so the recorded result type is what the functional op gives.
  /// Found by target, not listed among the supported targets.
  std::vector<OpEntry> inPlace;
  llvm::StringMap<const OpEntry *> byTarget;
  std::vector<std::string> names;

  Table() {
    for (const OpEntry &e : entries) {
      byTarget[e.target] = &e;
      names.push_back(e.target);
    }
    std::sort(names.begin(), names.end());
    llvm::StringSet<> derived;
    for (const OpEntry &e : entries) {
      auto [qualified, overload] = StringRef(e.target).rsplit('.');
      auto [ns, op] = qualified.rsplit('.');
      if (ns != "torch.ops.aten" || e.effect != Effect::Functional ||
          op.ends_with("_") || op.ends_with("_copy") ||
          changesLayoutInPlace(op))
        continue;
      SmallVector<std::string, 2> variants{
          (ns + "." + op + "_." + overload).str()};
      // `floor_divide.default` is written `floor_divide_.Tensor` in place.
      if (overload == "default")
        variants.push_back((ns + "." + op + "_.Tensor").str());
      for (const std::string &variant : variants)
        if (!byTarget.count(variant) && derived.insert(variant).second)
          inPlace.push_back(
              OpEntry{variant, e.build, e.defaults, Effect::InPlace});
    }
    for (const OpEntry &e : inPlace)
      byTarget[e.target] = &e;
  }
};

const Table &table() {
  static const Table instance;
  return instance;
}

} // namespace

const OpEntry *duet::import::lookupOp(llvm::StringRef target) {
  return table().byTarget.lookup(target);
}

const std::vector<std::string> &duet::import::supportedTargets() {
  return table().names;
}
