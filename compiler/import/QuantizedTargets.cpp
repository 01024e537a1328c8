//===- QuantizedTargets.cpp - PT2E's quantized_decomposed targets ---------===//
//
// Argument names follow torch/ao/quantization/fx/_decomposed.py, the schema
// the ops are registered with. The `dtype` argument is the result's element
// type (the graph records it), and `quant_min`/`quant_max` must fit in it,
// which the aten verifiers check.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/QuantizedTargets.h"

#include "dialects/aten/AtenDialect.h"
#include "dialects/aten/Constants.h"

#include "llvm/ADT/Twine.h"

#include <array>
#include <type_traits>

using namespace duet::import;
using namespace duet::aten;
using namespace mlir;

namespace {

RankedTensorType typeOf(Value v) { return NodeContext::typeOf(v); }

/// The scale and zero point of a per-tensor node: numbers in `.default`;
/// in `.tensor`, one-element tensors, constants (static) or computed at run
/// time by choose_qparams (dynamic).
struct TensorQparams {
  double scale = 1;
  int64_t zeroPoint = 0;
  Value scaleTensor, zeroPointTensor; // set when dynamic
  bool dynamic() const { return bool(scaleTensor); }
};

std::optional<TensorQparams> qparams(NodeContext &ctx) {
  TensorQparams q;
  if (ctx.isScalar("scale")) {
    q.scale = ctx.number("scale");
    q.zeroPoint = ctx.integer("zero_point");
    if (!ctx.ok())
      return std::nullopt;
    return q;
  }
  Value scale = ctx.tensor("scale"), zeroPoint = ctx.tensor("zero_point");
  if (!ctx.ok())
    return std::nullopt;
  for (auto [name, value] : {std::pair<const char *, Value>{"scale", scale},
                             {"zero_point", zeroPoint}})
    if (typeOf(value).getNumElements() != 1) {
      ctx.fail(Twine(name) + " has " + Twine(typeOf(value).getNumElements()) +
               " elements; PyTorch takes one");
      return std::nullopt;
    }
  std::optional<double> s = duet::getScalarConstant(scale);
  std::optional<SmallVector<int64_t>> z =
      duet::readIntegerElements(duet::getConstantElements(zeroPoint));
  if (s && z && z->size() == 1) {
    q.scale = *s;
    q.zeroPoint = z->front();
    return q;
  }
  if (!isa<FloatType>(typeOf(scale).getElementType()) ||
      !isa<IntegerType>(typeOf(zeroPoint).getElementType())) {
    ctx.fail("the scale is not a float tensor or the zero_point not an "
             "integer tensor");
    return std::nullopt;
  }
  q.scaleTensor = ctx.castTo(scale, ctx.builder.getF64Type());
  q.zeroPointTensor = zeroPoint;
  return q;
}

/// `input` as float32, which quantize computes in (PyTorch converts float16
/// and bfloat16 inputs first).
Value asF32(NodeContext &ctx, Value input) {
  return ctx.castTo(input, ctx.builder.getF32Type());
}

} // namespace

namespace {

/// A per-tensor quantize (its input converted to float32 first) or
/// dequantize; `DynamicT` when its qparams are computed at run time.
template <typename OpT, typename DynamicT>
void buildPerTensor(NodeContext &ctx) {
  constexpr bool quantize = std::is_same_v<OpT, QuantizePerTensorOp>;
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input");
  std::optional<TensorQparams> q = qparams(ctx);
  int64_t min = ctx.integer("quant_min"), max = ctx.integer("quant_max");
  if (!ctx.ok() || !q)
    return;
  if (quantize) {
    if (!isa<FloatType>(typeOf(input).getElementType()))
      return ctx.fail("quantize_per_tensor input is not a float tensor");
    input = asF32(ctx, input);
  }
  IntegerAttr minAttr = ctx.builder.getI64IntegerAttr(min),
              maxAttr = ctx.builder.getI64IntegerAttr(max);
  if (q->dynamic())
    return ctx.setResult(ctx.create<DynamicT>(
        type, input, q->scaleTensor, q->zeroPointTensor, minAttr, maxAttr));
  ctx.setResult(ctx.create<OpT>(
      type, input, ctx.builder.getF64FloatAttr(q->scale),
      ctx.builder.getI64IntegerAttr(q->zeroPoint), minAttr, maxAttr));
}

} // namespace

void duet::import::buildQuantizePerTensor(NodeContext &ctx) {
  buildPerTensor<QuantizePerTensorOp, QuantizePerTensorDynamicOp>(ctx);
}

void duet::import::buildDequantizePerTensor(NodeContext &ctx) {
  buildPerTensor<DequantizePerTensorOp, DequantizePerTensorDynamicOp>(ctx);
}

namespace {

/// The attributes of a per-channel node, `axis` normalized against
/// `input`'s rank; nothing when one is bad (the node's error is set).
std::optional<std::array<int64_t, 3>> channelAttrs(NodeContext &ctx,
                                                   Value input) {
  int64_t axis = ctx.integer("axis");
  int64_t min = ctx.integer("quant_min"), max = ctx.integer("quant_max");
  if (ctx.ok())
    axis = ctx.normalizeDim(axis, typeOf(input).getRank(), "axis");
  if (!ctx.ok())
    return std::nullopt;
  return std::array<int64_t, 3>{axis, min, max};
}

} // namespace

void duet::import::buildQuantizePerChannel(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input"), scales = ctx.tensor("scales"),
        zeroPoints = ctx.tensor("zero_points");
  if (!ctx.ok())
    return;
  if (auto attrs = channelAttrs(ctx, input))
    ctx.setResult(ctx.create<QuantizePerChannelOp>(
        type, asF32(ctx, input), scales, zeroPoints,
        ctx.builder.getI64IntegerAttr((*attrs)[0]),
        ctx.builder.getI64IntegerAttr((*attrs)[1]),
        ctx.builder.getI64IntegerAttr((*attrs)[2])));
}

void duet::import::buildDequantizePerChannel(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input"), scales = ctx.tensor("scales");
  Value zeroPoints = ctx.optionalTensor("zero_points");
  if (!ctx.ok())
    return;
  if (auto attrs = channelAttrs(ctx, input))
    ctx.setResult(ctx.create<DequantizePerChannelOp>(
        type, input, scales, zeroPoints,
        ctx.builder.getI64IntegerAttr((*attrs)[0]),
        ctx.builder.getI64IntegerAttr((*attrs)[1]),
        ctx.builder.getI64IntegerAttr((*attrs)[2])));
}

void duet::import::buildChooseQparams(NodeContext &ctx) {
  Value input = ctx.tensor("input");
  int64_t min = ctx.integer("quant_min"), max = ctx.integer("quant_max");
  double eps = ctx.number("eps");
  if (!ctx.ok())
    return;
  if (!isa<FloatType>(typeOf(input).getElementType()))
    return ctx.fail("choose_qparams input is not a float tensor");
  if (ctx.numResults() != 2)
    return ctx.fail("choose_qparams has " + Twine(ctx.numResults()) +
                    " outputs; PyTorch's has two (scale, zero_point)");
  // PyTorch returns [1] float64 and int64 tensors whatever the graph's
  // metadata says (its Meta kernel wrote float32 and int32 in some
  // versions); the results are cast to the node's types.
  RankedTensorType scaleType = ctx.resultType(0),
                   zeroPointType = ctx.resultType(1);
  if (!ctx.ok())
    return;
  const int64_t shape[] = {1};
  auto op = ctx.create<ChooseQparamsOp>(
      TypeRange{RankedTensorType::get(shape, ctx.builder.getF64Type()),
                RankedTensorType::get(shape, ctx.builder.getI64Type())},
      asF32(ctx, input), ctx.builder.getI64IntegerAttr(min),
      ctx.builder.getI64IntegerAttr(max), ctx.builder.getF64FloatAttr(eps));
  ctx.setResult(0, ctx.castTo(op->getResult(0), scaleType.getElementType()));
  ctx.setResult(1,
                ctx.castTo(op->getResult(1), zeroPointType.getElementType()));
}

void duet::import::buildChooseQparamsSymmetric(NodeContext &ctx) {
  ctx.fail("choose_qparams_symmetric (symmetric dynamic quantization) is not "
           "supported; choose_qparams (affine, XNNPACKQuantizer's dynamic "
           "config) is");
}
