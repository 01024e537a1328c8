//===- Compose.cpp - small op writers the target builders share -----------===//

#include "compiler/import/Compose.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace duet::aten;

namespace duet::import::compose {

Value view(NodeContext &ctx, Value v, ArrayRef<int64_t> shape) {
  if (!v)
    return {};
  if (typeOf(v).getShape() == shape)
    return v;
  return ctx.create<ViewOp>(typeOf(v).clone(shape), v);
}

Value operandAs(NodeContext &ctx, Value value, RankedTensorType result) {
  return ctx.castTo(value, result.getElementType());
}

Value unaryOperand(NodeContext &ctx, RankedTensorType &type, StringRef name) {
  type = ctx.resultType();
  Value self = ctx.tensor(name);
  if (!ctx.ok())
    return {};
  return operandAs(ctx, self, type);
}

Value scalarOf(NodeContext &ctx, Type element, Scalar value) {
  return ctx.splat(RankedTensorType::get({}, element), value);
}
Value integerOf(NodeContext &ctx, Type element, int64_t v) {
  return scalarOf(ctx, element, Scalar{true, v, 0});
}
Value realOf(NodeContext &ctx, Type element, double v) {
  return scalarOf(ctx, element, Scalar{false, 0, v});
}

RankedTensorType broadcastType(NodeContext &ctx, Value a, Value b, Type element,
                               StringRef what) {
  FailureOr<ResultShape> shape = broadcastShape(
      typeOf(a).getShape(), typeOf(b).getShape(), {std::nullopt, what});
  if (failed(shape)) {
    ctx.fail(what + " of shapes that do not broadcast");
    return {};
  }
  return RankedTensorType::get(*shape, element);
}

namespace {
template <typename OpT, typename... Attrs>
Value binary(NodeContext &ctx, Value a, Value b, Attrs... attrs) {
  if (!ctx.ok())
    return {};
  Type element = typeOf(a).getElementType();
  RankedTensorType type = broadcastType(ctx, a, b, element);
  if (!ctx.ok())
    return {};
  return ctx.create<OpT>(type, a, ctx.castTo(b, element), attrs...);
}
} // namespace

Value add(NodeContext &ctx, Value a, Value b, double alpha) {
  return binary<AddOp>(ctx, a, b, ctx.builder.getF64FloatAttr(alpha));
}
Value sub(NodeContext &ctx, Value a, Value b) {
  return binary<SubOp>(ctx, a, b, ctx.builder.getF64FloatAttr(1.0));
}
Value mul(NodeContext &ctx, Value a, Value b) {
  return binary<MulOp>(ctx, a, b);
}
Value div(NodeContext &ctx, Value a, Value b) {
  return binary<DivOp>(
      ctx, a, b,
      DivRoundingAttr::get(ctx.builder.getContext(), DivRounding::none));
}

Value indexConstant(NodeContext &ctx, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    ctx.builder.getI64Type());
  return ctx.create<arith::ConstantOp>(DenseElementsAttr::get(type, values));
}

Value selectIndices(NodeContext &ctx, Value v, int64_t dim,
                    ArrayRef<int64_t> indices) {
  SmallVector<int64_t> shape(typeOf(v).getShape());
  shape[dim] = static_cast<int64_t>(indices.size());
  return ctx.create<IndexSelectOp>(typeOf(v).clone(shape), v,
                                   indexConstant(ctx, indices),
                                   ctx.builder.getI64IntegerAttr(dim));
}

template <typename OpT>
Value reduce(NodeContext &ctx, Value v, ArrayRef<int64_t> dims, bool keepdim) {
  if (!v)
    return {};
  FailureOr<ResultShape> shape =
      reductionShape(typeOf(v).getShape(), dims, keepdim,
                     {std::nullopt, OpT::getOperationName()});
  if (failed(shape)) {
    ctx.fail(OpT::getOperationName() + " over dims that are out of range or "
                                       "repeated");
    return {};
  }
  return ctx.create<OpT>(typeOf(v).clone(*shape), v,
                         ctx.builder.getDenseI64ArrayAttr(dims),
                         ctx.builder.getBoolAttr(keepdim));
}
template Value reduce<MeanOp>(NodeContext &, Value, ArrayRef<int64_t>, bool);
template Value reduce<SumOp>(NodeContext &, Value, ArrayRef<int64_t>, bool);
template Value reduce<AmaxOp>(NodeContext &, Value, ArrayRef<int64_t>, bool);

Value sameShapeOperand(NodeContext &ctx, Value value, RankedTensorType result,
                       StringRef what) {
  if (!value || !ctx.ok())
    return {};
  if (typeOf(value).getShape() != result.getShape()) {
    ctx.fail(what + " keeps its input's shape, but the input is " +
             formatShape(typeOf(value).getShape()) + " and the output " +
             formatShape(result.getShape()));
    return {};
  }
  return operandAs(ctx, value, result);
}

Value bmm(NodeContext &ctx, Value a, Value b) {
  if (!a || !b)
    return {};
  FailureOr<ResultShape> shape =
      bmmShape(typeOf(a).getShape(), typeOf(b).getShape(),
               {std::nullopt, BmmOp::getOperationName()});
  if (failed(shape)) {
    ctx.fail("a batched product of shapes that do not multiply");
    return {};
  }
  return ctx.create<BmmOp>(typeOf(a).clone(*shape), a, b);
}

Value permute(NodeContext &ctx, Value v, ArrayRef<int64_t> dims) {
  if (!v)
    return {};
  if (llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())) &&
      dims.size() == static_cast<size_t>(typeOf(v).getRank()))
    return v;
  FailureOr<ResultShape> shape =
      permuteShape(typeOf(v).getShape(), dims,
                   {std::nullopt, PermuteOp::getOperationName()});
  if (failed(shape)) {
    ctx.fail("permute by dims that are not a permutation of the tensor's");
    return {};
  }
  return ctx.create<PermuteOp>(typeOf(v).clone(*shape), v,
                               ctx.builder.getDenseI64ArrayAttr(dims));
}

void markStatisticsUnavailable(NodeContext &ctx, StringRef op) {
  for (size_t i = 1; i < ctx.numResults(); ++i)
    ctx.setUnavailable(i, "a statistic " + op +
                              " saves for training, which duet does not "
                              "compute; only output 0 is supported");
}

} // namespace duet::import::compose
