//===- XnnpackRules.cpp - the XNNPACK rule table --------------------------===//
//
// Facts about the XNNPACK duet builds against (Debian's 2022-02 snapshot):
// XNN_MAX_TENSOR_DIMS is 6; datatypes fp32 and fp16 (no bf16), but only
// convert defines with fp16 values, every other node computes fp32; the
// subgraph API has convolution_2d (with depthwise), deconvolution_2d,
// fully_connected, add2/multiply2/subtract/divide/maximum2/minimum2, clamp,
// hardswish, sigmoid, leaky_relu, elu, abs, negate, square, square_root,
// ceiling, floor, bankers_rounding, softmax (last dim), average_pooling_2d,
// max_pooling_2d, global_average_pooling_2d, static_constant_pad,
// static_reshape, static_resize_bilinear_2d and convert, and no transpose,
// concatenate, split or batch matmul.
//
//===----------------------------------------------------------------------===//

#include "partitioners/xnnpack/rules/XnnpackRules.h"

#include "dialects/aten/AtenDialect.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace duet::aten;

namespace duet::partition {

namespace {

//===----------------------------------------------------------------------===//
// Argument predicates
//===----------------------------------------------------------------------===//

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

std::string number(double value) {
  std::string text = std::to_string(value);
  // std::to_string prints six decimals; trim the zeros a person would not.
  while (text.size() > 1 && text.back() == '0')
    text.pop_back();
  if (!text.empty() && text.back() == '.')
    text.pop_back();
  return text;
}

/// The largest depthwise window this XNNPACK has a kernel for (its dwconv
/// microkernels have primary tiles of 9 and 25 taps, no multipass).
constexpr int64_t kMaxDepthwiseTaps = 25;

std::optional<std::string> convolutionArgs(Operation *op) {
  auto conv = cast<ConvolutionOp>(op);
  int64_t rank = conv.getInput().getType().getRank();
  if (rank != 4)
    return std::string(rank == 5 ? "3-D" : "1-D") +
           " convolution (input 0 of rank " + std::to_string(rank) +
           "): this XNNPACK has 2-D convolution nodes only";
  // Depthwise (one input channel per group) windows of more than 25 taps
  // at unit stride and dilation: this XNNPACK's depthwise kernels cover 25
  // at most, and runs a larger window (ConvNeXt's 7x7) as a grouped GEMM of
  // one channel per group, slower than the portable kernels' unit-stride
  // depthwise loop (a strided one would meet the general loop, no faster).
  ArrayRef<int64_t> weight = conv.getWeight().getType().getShape();
  int64_t taps = weight[2] * weight[3];
  auto ones = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v == 1; });
  };
  if (!conv.getTransposed() && conv.getGroups() > 1 && weight[1] == 1 &&
      ones(conv.getStride()) && ones(conv.getDilation()) &&
      taps > kMaxDepthwiseTaps)
    return "depthwise convolution of a " + std::to_string(weight[2]) + "x" +
           std::to_string(weight[3]) + " window (" + std::to_string(taps) +
           " taps > " + std::to_string(kMaxDepthwiseTaps) +
           "): this XNNPACK's depthwise kernels take up to " +
           std::to_string(kMaxDepthwiseTaps) +
           " taps and run larger windows as a grouped GEMM, slower than the "
           "portable kernel";
  if (conv.getTransposed())
    for (int axis = 0; axis < 2; ++axis)
      if (conv.getOutputPadding()[axis] >= conv.getStride()[axis])
        return "transposed convolution output_padding " +
               std::to_string(conv.getOutputPadding()[axis]) + " >= stride " +
               std::to_string(conv.getStride()[axis]) + " (axis " +
               std::to_string(axis) +
               "): XNNPACK's deconvolution_2d adds fewer rows than the stride";
  return std::nullopt;
}

/// Clamp bounds: XNNPACK's clamp (and every bound it fuses) needs
/// min < max; PyTorch gives max everywhere when min >= max.
std::optional<std::string> boundsArgs(Operation *op, std::optional<double> min,
                                      std::optional<double> max) {
  if (min && max && !(*min < *max))
    return op->getName().getStringRef().str() + " min " + number(*min) +
           " >= max " + number(*max) + ": this XNNPACK's clamp needs min < max";
  return std::nullopt;
}

std::optional<std::string> hardtanhArgs(Operation *op) {
  auto hardtanh = cast<HardtanhOp>(op);
  return boundsArgs(op, hardtanh.getMinVal().convertToDouble(),
                    hardtanh.getMaxVal().convertToDouble());
}

std::optional<std::string> clampArgs(Operation *op) {
  auto clamp = cast<ClampOp>(op);
  std::optional<double> min, max;
  if (clamp.getMin())
    min = clamp.getMin()->convertToDouble();
  if (clamp.getMax())
    max = clamp.getMax()->convertToDouble();
  return boundsArgs(op, min, max);
}

std::optional<std::string> addmmArgs(Operation *op) {
  auto addmm = cast<AddmmOp>(op);
  double alpha = addmm.getAlpha().convertToDouble();
  double beta = addmm.getBeta().convertToDouble();
  if (alpha != 1.0 || beta != 1.0)
    return "addmm alpha " + number(alpha) + ", beta " + number(beta) +
           ": fully_connected computes mat1 @ mat2 + bias with both 1";
  int64_t columns = addmm.getMat2().getType().getShape()[1];
  ArrayRef<int64_t> bias = addmm.getSelf().getType().getShape();
  bool rowVector = (bias.size() == 1 && bias[0] == columns) ||
                   (bias.size() == 2 && bias[0] == 1 && bias[1] == columns);
  if (!rowVector)
    return "addmm self (input 0) " + formatShape(bias) + " is not a bias of [" +
           std::to_string(columns) +
           "]: fully_connected adds one bias per output column";
  if (!isConstant(addmm.getSelf()) || !isConstant(addmm.getMat2()))
    return std::string("addmm needs a constant mat2 and self (weights and "
                       "bias of fully_connected)");
  return std::nullopt;
}

std::optional<std::string> mmArgs(Operation *op) {
  if (!isConstant(op->getOperand(1)))
    return op->getName().getStringRef().str() +
           " right operand (input 1) is not a constant: fully_connected needs "
           "constant weights, and this XNNPACK's subgraph API has no dynamic "
           "or batch matmul";
  return std::nullopt;
}

std::optional<std::string> matmulArgs(Operation *op) {
  auto matmul = cast<MatmulOp>(op);
  ArrayRef<int64_t> other = matmul.getOther().getType().getShape();
  if (other.size() != 2)
    return "matmul right operand (input 1) " + formatShape(other) +
           (other.size() > 2 ? " has batch dims" : " is a vector") +
           ": batch matmul is not in this XNNPACK's subgraph API, and "
           "fully_connected takes a 2-D weight";
  if (matmul.getSelf().getType().getRank() < 2)
    return std::string("matmul of a vector (input 0): fully_connected takes "
                       "rows of at least 2 dims");
  return mmArgs(op);
}

std::optional<std::string> alphaIsOne(Operation *op) {
  double alpha = op->getAttrOfType<FloatAttr>("alpha").getValueAsDouble();
  if (alpha != 1.0)
    return op->getName().getStringRef().str() + " alpha " + number(alpha) +
           " != 1: this XNNPACK's add2/subtract have no scale";
  return std::nullopt;
}

std::optional<std::string> divArgs(Operation *op) {
  auto div = cast<DivOp>(op);
  if (div.getRoundingMode() != DivRounding::none)
    return "div with rounding_mode " +
           stringifyDivRounding(div.getRoundingMode()).str() +
           ": this XNNPACK's divide does not round";
  return std::nullopt;
}

std::optional<std::string> eluArgs(Operation *op) {
  auto elu = cast<EluOp>(op);
  double scale = elu.getScale().convertToDouble();
  double inputScale = elu.getInputScale().convertToDouble();
  if (scale != 1.0 || inputScale != 1.0)
    return "elu scale " + number(scale) + ", input_scale " +
           number(inputScale) + ": this XNNPACK's elu takes alpha only";
  return std::nullopt;
}

std::optional<std::string> powArgs(Operation *op) {
  double exponent = cast<PowOp>(op).getExponent().convertToDouble();
  if (exponent != 2.0 && exponent != 0.5)
    return "pow exponent " + number(exponent) +
           ": this XNNPACK has square (2) and square_root (0.5) only";
  return std::nullopt;
}

std::optional<std::string> softmaxArgs(Operation *op) {
  auto softmax = cast<SoftmaxOp>(op);
  if (softmax.getSafe().value_or(false))
    return std::string("safe softmax (a row of -inf gives 0): this XNNPACK's "
                       "softmax gives NaN there");
  int64_t rank = softmax.getType().getRank();
  int64_t dim = softmax.getDim();
  if (dim != rank - 1)
    return "softmax over dim " + std::to_string(dim) + " of a rank-" +
           std::to_string(rank) +
           " tensor: this XNNPACK's softmax runs over the last dim (" +
           std::to_string(rank - 1) + ") only";
  return std::nullopt;
}

std::optional<std::string> meanArgs(Operation *op) {
  auto mean = cast<MeanOp>(op);
  int64_t rank = mean.getSelf().getType().getRank();
  SmallVector<int64_t> dims(mean.getDim());
  llvm::sort(dims);
  if (rank != 4 || dims != SmallVector<int64_t>{2, 3} || !mean.getKeepdim())
    return "mean over dims " + formatShape(mean.getDim()) + " of a rank-" +
           std::to_string(rank) + " tensor" +
           (mean.getKeepdim() ? "" : " without keepdim") +
           ": this XNNPACK's only mean is global_average_pooling_2d, over "
           "dims [2,3] of [N,C,H,W] with keepdim";
  return std::nullopt;
}

std::optional<std::string> adaptivePoolArgs(Operation *op) {
  auto pool = cast<AdaptiveAvgPool2dOp>(op);
  ArrayRef<int64_t> out = pool.getType().getShape();
  if (out.size() != 4)
    return "adaptive_avg_pool2d of rank " + std::to_string(out.size()) +
           ": XNNPACK pools [N,C,H,W]";
  if (out[2] != 1 || out[3] != 1)
    return "adaptive_avg_pool2d to " + std::to_string(out[2]) + "x" +
           std::to_string(out[3]) + ": only 1x1 is global_average_pooling_2d";
  return std::nullopt;
}

/// Pooling checks both pools share: [N,C,H,W], a window of more than one
/// element, and ceil_mode only where it does not change the output size,
/// unless `ceilByPadding` (max pooling: the emitter pads the bottom and
/// right edges so that XNNPACK's rounding down gives the extra window, and
/// XNNPACK's max pooling never takes a padding element).
std::optional<std::string>
poolWindowArgs(Operation *op, ArrayRef<int64_t> kernel,
               ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
               ArrayRef<int64_t> dilation, bool ceilMode,
               bool ceilByPadding = false) {
  std::string name = op->getName().getStringRef().str();
  ArrayRef<int64_t> in = typeOf(op->getOperand(0)).getShape();
  ArrayRef<int64_t> out = typeOf(op->getResult(0)).getShape();
  if (in.size() != 4)
    return name + " on a rank-" + std::to_string(in.size()) +
           " input: XNNPACK pools [N,C,H,W]";
  if (kernel[0] * kernel[1] == 1)
    return name + " with a 1x1 window: XNNPACK pooling needs a window of "
                  "more than one element";
  if (ceilMode)
    for (int axis = 0; axis < 2; ++axis) {
      int64_t floorSize = (in[2 + axis] + 2 * padding[axis] -
                           dilation[axis] * (kernel[axis] - 1) - 1) /
                              stride[axis] +
                          1;
      if (floorSize != out[2 + axis] &&
          !(ceilByPadding && out[2 + axis] == floorSize + 1))
        return name + " with ceil_mode gives " + std::to_string(out[2 + axis]) +
               " instead of " + std::to_string(floorSize) + " on axis " +
               std::to_string(axis) + ": XNNPACK rounds output sizes down";
    }
  return std::nullopt;
}

std::optional<std::string> avgPoolArgs(Operation *op) {
  auto pool = cast<AvgPool2dOp>(op);
  int64_t one[] = {1, 1};
  if (auto why = poolWindowArgs(op, pool.getKernelSize(), pool.getStride(),
                                pool.getPadding(), one, pool.getCeilMode()))
    return why;
  if (pool.getDivisorOverride())
    return "avg_pool2d with divisor_override " +
           std::to_string(*pool.getDivisorOverride()) +
           ": XNNPACK divides by the window";
  bool padded = llvm::any_of(pool.getPadding(), [](int64_t p) { return p; });
  if (padded && pool.getCountIncludePad())
    return "avg_pool2d with padding " + formatShape(pool.getPadding()) +
           " and count_include_pad: XNNPACK leaves padding out of the "
           "average";
  return std::nullopt;
}

std::optional<std::string> maxPoolArgs(Operation *op) {
  auto pool = cast<MaxPool2dOp>(op);
  if (auto why = poolWindowArgs(op, pool.getKernelSize(), pool.getStride(),
                                pool.getPadding(), pool.getDilation(),
                                pool.getCeilMode(), /*ceilByPadding=*/true))
    return why;
  for (int axis = 0; axis < 2; ++axis)
    if (pool.getStride()[axis] > pool.getKernelSize()[axis])
      return "max_pool2d stride " + std::to_string(pool.getStride()[axis]) +
             " > kernel " + std::to_string(pool.getKernelSize()[axis]) +
             " (axis " + std::to_string(axis) +
             "): XNNPACK's max_pooling_2d needs stride <= kernel";
  return std::nullopt;
}

std::optional<std::string> padArgs(Operation *op) {
  for (int64_t amount : cast<ConstantPadNdOp>(op).getPad())
    if (amount < 0)
      return "constant_pad_nd with a negative pad " + std::to_string(amount) +
             " (a crop): static_constant_pad only pads";
  return std::nullopt;
}

std::optional<std::string> bilinearArgs(Operation *op) {
  auto resize = cast<UpsampleBilinear2dOp>(op);
  ArrayRef<int64_t> in = resize.getSelf().getType().getShape();
  ArrayRef<int64_t> out = resize.getType().getShape();
  if (in.size() != 4)
    return "upsample_bilinear2d of rank " + std::to_string(in.size()) +
           ": XNNPACK resizes [N,C,H,W]";
  std::optional<double> scales[] = {
      resize.getScalesH()
          ? std::optional(resize.getScalesH()->convertToDouble())
          : std::nullopt,
      resize.getScalesW()
          ? std::optional(resize.getScalesW()->convertToDouble())
          : std::nullopt};
  for (int axis = 0; axis < 2; ++axis) {
    if (!scales[axis])
      continue;
    double fromSizes = double(out[2 + axis]) / double(in[2 + axis]);
    if (std::abs(*scales[axis] - fromSizes) > 1e-9 * fromSizes)
      return "upsample_bilinear2d scale " + number(*scales[axis]) +
             " on axis " + std::to_string(axis) + " where the sizes give " +
             number(fromSizes) +
             ": static_resize_bilinear_2d derives the scale from the sizes";
  }
  return std::nullopt;
}

std::optional<std::string> castArgs(Operation *op) {
  auto cast = llvm::cast<CastOp>(op);
  auto isHalfOrSingle = [](Type type) { return type.isF16() || type.isF32(); };
  Type from = cast.getSelf().getType().getElementType();
  Type to = cast.getType().getElementType();
  if (!isHalfOrSingle(from) || !isHalfOrSingle(to))
    return std::string("cast other than between f32 and f16: this XNNPACK's "
                       "convert only converts those");
  return std::nullopt;
}

/// Quantize and dequantize per tensor are convert nodes between fp32 and
/// XNNPACK's qint8, whose range is the whole of int8.
std::optional<std::string> quantizationArgs(Operation *op, Value quantized,
                                            int64_t min, int64_t max,
                                            int64_t zeroPoint, double scale) {
  std::string name = op->getName().getStringRef().str();
  if (!std::isnormal(float(scale)))
    return name + " with scale " + number(scale) +
           ": XNNPACK takes a scale that is a normal float32";
  Type element = typeOf(quantized).getElementType();
  if (!element.isSignlessInteger(8))
    return name + " to " +
           (isa<IntegerType>(element) && cast<IntegerType>(element).isUnsigned()
                ? std::string("uint8")
                : "a type other than int8") +
           ": duet runs XNNPACK's qint8 only";
  if (min != -128 || max != 127)
    return name + " with quant_min " + std::to_string(min) + ", quant_max " +
           std::to_string(max) +
           ": this XNNPACK's convert saturates to the whole int8 range "
           "[-128, 127]";
  if (zeroPoint < -128 || zeroPoint > 127)
    return name + " with zero_point " + std::to_string(zeroPoint) +
           ": a qint8 zero point is in [-128, 127]";
  return std::nullopt;
}

std::optional<std::string> quantizeArgs(Operation *op) {
  auto q = cast<QuantizePerTensorOp>(op);
  return quantizationArgs(op, q.getResult(), int64_t(q.getQuantMin()),
                          int64_t(q.getQuantMax()), int64_t(q.getZeroPoint()),
                          q.getScale().convertToDouble());
}

std::optional<std::string> dequantizeArgs(Operation *op) {
  auto dq = cast<DequantizePerTensorOp>(op);
  if (isConstant(dq.getSelf()))
    return std::string("dequantize_per_tensor of a constant that is not the "
                       "weight of a convolution or linear: this XNNPACK's "
                       "convert reads computed values");
  if (!dq.getType().getElementType().isF32())
    return std::string("dequantize_per_tensor to a type other than float32: "
                       "this XNNPACK's convert writes fp32");
  if (auto why = quantizationArgs(op, dq.getSelf(), int64_t(dq.getQuantMin()),
                                  int64_t(dq.getQuantMax()),
                                  int64_t(dq.getZeroPoint()),
                                  dq.getScale().convertToDouble()))
    return why;
  // XNNPACK holds one quantization per int8 value: that of the quantize
  // that wrote it, which every dequantize of it must share.
  auto same = [&](auto other) {
    return other.getScale().convertToDouble() ==
               dq.getScale().convertToDouble() &&
           int64_t(other.getZeroPoint()) == int64_t(dq.getZeroPoint());
  };
  Value integers = dq.getSelf();
  if (auto q = integers.getDefiningOp<QuantizePerTensorOp>(); q && !same(q))
    return std::string("dequantize_per_tensor with other qparams than the "
                       "quantize_per_tensor that wrote its integers: XNNPACK "
                       "holds one quantization per qint8 value");
  for (Operation *user : integers.getUsers())
    if (auto other = dyn_cast<DequantizePerTensorOp>(user);
        other && !same(other))
      return std::string("dequantize_per_tensor with other qparams than "
                         "another dequantize of the same integers: XNNPACK "
                         "holds one quantization per qint8 value");
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

constexpr auto &kSiluPieces = kOpNames<SigmoidOp, MulOp>;
constexpr auto &kHardsigmoidPieces = kOpNames<AddOp, ClampOp, DivOp>;
constexpr auto &kBatchNormPieces = kOpNames<MulOp, AddOp>;

/// A native op.
template <typename Op>
constexpr XnnpackRule node(llvm::StringLiteral node, bool bf16,
                           unsigned weights = kNoWeights,
                           Predicate predicate = nullptr) {
  return {{Op::getOperationName(), Lowering::Native, weights, predicate, {}},
          node,
          bf16,
          false};
}

/// An op the decomposition library rewrites into native ops.
template <typename Op>
constexpr XnnpackRule decomposed(bool bf16,
                                 llvm::ArrayRef<llvm::StringLiteral> pieces,
                                 unsigned weights = kNoWeights) {
  return {
      {Op::getOperationName(), Lowering::Decomposed, weights, nullptr, pieces},
      "",
      bf16,
      false};
}

/// A native op that may also be fp16.
constexpr XnnpackRule withFp16(XnnpackRule rule) {
  rule.fp16 = true;
  return rule;
}

const XnnpackRule kRules[] = {
    node<ConvolutionOp>(
        "convolution_2d, depthwise_convolution_2d, deconvolution_2d", false,
        kWeightAndBias, convolutionArgs),
    node<LinearOp>("fully_connected", true, kWeightAndBias),
    node<AddmmOp>("fully_connected", true, kNoWeights, addmmArgs),
    node<MmOp>("fully_connected", true, kNoWeights, mmArgs),
    node<MatmulOp>("fully_connected", true, kNoWeights, matmulArgs),
    node<AddOp>("add2", true, kNoWeights, alphaIsOne),
    node<SubOp>("subtract", true, kNoWeights, alphaIsOne),
    node<DivOp>("divide", true, kNoWeights, divArgs),
// The ops XNNPACK runs as one node of their own (XnnpackNode in the ODS).
#define DUET_XNNPACK_NODE(Class, arity, Node, define) node<Class>(define, true),
#include "dialects/aten/AtenXnnpackNodes.inc"
#undef DUET_XNNPACK_NODE
    node<ReluOp>("clamp", true),
    node<HardtanhOp>("clamp", true, kNoWeights, hardtanhArgs),
    node<ClampOp>("clamp", true, kNoWeights, clampArgs),
    node<LeakyReluOp>("leaky_relu", true),
    node<EluOp>("elu", true, kNoWeights, eluArgs),
    node<PowOp>("square, square_root", true, kNoWeights, powArgs),
    node<SoftmaxOp>("softmax", false, kNoWeights, softmaxArgs),
    node<MeanOp>("global_average_pooling_2d", false, kNoWeights, meanArgs),
    node<AdaptiveAvgPool2dOp>("global_average_pooling_2d", false, kNoWeights,
                              adaptivePoolArgs),
    node<AvgPool2dOp>("average_pooling_2d", false, kNoWeights, avgPoolArgs),
    node<MaxPool2dOp>("max_pooling_2d", false, kNoWeights, maxPoolArgs),
    node<ConstantPadNdOp>("static_constant_pad", true, kNoWeights, padArgs),
    node<ViewOp>("static_reshape", true),
    node<CloneOp>("static_reshape (to the same shape: a copy)", true),
    node<UpsampleBilinear2dOp>("static_resize_bilinear_2d", false, kNoWeights,
                               bilinearArgs),
    withFp16(node<CastOp>("convert", false, kNoWeights, castArgs)),
    node<QuantizePerTensorOp>("convert (fp32 to qint8)", false, kNoWeights,
                              quantizeArgs),
    node<DequantizePerTensorOp>("convert (qint8 to fp32)", false, kNoWeights,
                                dequantizeArgs),
    // Decomposed here; hardswish stays whole (native above).
    decomposed<SiluOp>(true, kSiluPieces),
    decomposed<HardsigmoidOp>(true, kHardsigmoidPieces),
    decomposed<BatchNormOp>(false, kBatchNormPieces, kNormParams),
};

/// Why dynamic quantization (qparams computed at run time) stays on the
/// portable kernels.
constexpr llvm::StringLiteral kDynamicQuantization =
    "dynamic quantization (qparams computed at run time): this XNNPACK "
    "(2022-02) has no dynamically quantized fully connected node, and its "
    "convert nodes take qparams fixed when the subgraph is defined";

/// Ops the subgraph API cannot express, with the reason.
constexpr UnsupportedOp kUnsupported[] = {
    never<PermuteOp>("this XNNPACK's subgraph API has no transpose"),
    never<CatOp>("this XNNPACK's subgraph API has no concatenate"),
    never<SplitWithSizesOp>("this XNNPACK's subgraph API has no split"),
    never<BmmOp>("this XNNPACK's subgraph API has no batch matmul"),
    never<ScaledDotProductAttentionOp>("attention needs batch matmul, which "
                                       "this XNNPACK's subgraph API lacks"),
    never<SliceOp>("this XNNPACK's subgraph API has no slice"),
    never<SelectOp>("this XNNPACK's subgraph API has no slice"),
    never<ExpandOp>(
        "this XNNPACK's subgraph API broadcasts only inside binary nodes"),
    never<LayerNormOp>(
        "this XNNPACK has no reduction over the last dim (its only mean is "
        "global_average_pooling_2d over H and W)"),
    never<GeluOp>("exact gelu needs erf and the tanh form needs tanh; this "
                  "XNNPACK has neither"),
    never<UpsampleNearest2dOp>(
        "this XNNPACK resizes bilinearly only (static_resize_bilinear_2d)"),
    never<RemainderOp>("this XNNPACK's subgraph API has no remainder node"),
    never<GatherOp>("this XNNPACK's subgraph API has no gather"),
    never<RepeatOp>("this XNNPACK's subgraph API has no tile"),
    never<CumsumOp>("this XNNPACK's subgraph API has no cumulative sum"),
    never<IndexSelectOp>("this XNNPACK's subgraph API has no gather"),
    never<QuantizePerChannelOp>(
        "this XNNPACK's convert quantizes with one scale per tensor"),
    never<DequantizePerChannelOp>(
        "per-channel dequantization of a computed tensor: this XNNPACK's "
        "convert takes one scale per tensor (a per-channel weight is read by "
        "its convolution or linear instead)"),
    never<ChooseQparamsOp>(kDynamicQuantization),
    never<QuantizePerTensorDynamicOp>(kDynamicQuantization),
    never<DequantizePerTensorDynamicOp>(kDynamicQuantization),
};

constexpr TableFacts kTable = {kXnnpackMaxRank, "XNNPACK subgraph node",
                               "XNNPACK node",  DecomposedCheck::whole,
                               kUnsupported,    /*quantizedWeights=*/true};

} // namespace

ArrayRef<XnnpackRule> XnnpackRules::table() { return kRules; }

ArrayRef<UnsupportedOp> XnnpackRules::unsupportedOps() { return kUnsupported; }

bool XnnpackRules::takesOutputBounds(Operation *op) {
  // convolution_2d, depthwise_convolution_2d, deconvolution_2d,
  // fully_connected, add2, subtract, multiply2, divide, clamp and the three
  // poolings; maximum2, minimum2 and the unary nodes other than clamp have
  // no bounds.
  return isa<ConvolutionOp, LinearOp, AddmmOp, MmOp, MatmulOp, AddOp, SubOp,
             MulOp, DivOp, ReluOp, HardtanhOp, ClampOp, MeanOp,
             AdaptiveAvgPool2dOp, AvgPool2dOp, MaxPool2dOp>(op);
}

XnnpackRules::XnnpackRules(MLIRContext *context, bool enableBf16)
    : RuleTable(context, kTable, kRules), enableBf16(enableBf16) {}

std::optional<std::string>
XnnpackRules::checkTensors(Operation *op, const XnnpackRule &rule) const {
  // What the subgraph API cannot express (the predicate, before this) comes
  // before the bf16 gate, so that enable-bf16 is never suggested for an op
  // it would not help.
  StringRef opName = op->getName().getStringRef();
  if (auto why = checkNotEmpty(op, "XNNPACK values have no zero dims"))
    return why;
  DTypeSet allowed = kF32;
  // The integers of a quantize or dequantize (their predicates checked
  // that they are qint8).
  if (isa<QuantizePerTensorOp, DequantizePerTensorOp>(op))
    allowed |= kI8;
  if (rule.fp16)
    allowed |= kF16;
  else if (touchesDTypes(op, kF16))
    return "f16 " + opName.str() +
           ": this XNNPACK computes fp32 only, fp16 only in convert "
           "(aten.cast)";
  if (touchesDTypes(op, kBF16)) {
    if (!rule.bf16)
      return "bf16 " + opName.str() +
             " not supported by this XNNPACK (enable-bf16 is per op)";
    if (!enableBf16)
      return "bf16 " + opName.str() +
             " needs enable-bf16 (this XNNPACK has no bf16; the delegate "
             "would compute it in fp32)";
    allowed |= kBF16;
  }
  if (auto why = checkDTypes(op, allowed))
    return why;
  return std::nullopt;
}

} // namespace duet::partition
