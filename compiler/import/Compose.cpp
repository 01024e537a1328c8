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

std::pair<Value, Value> binaryOperands(NodeContext &ctx, RankedTensorType &type,
                                       StringRef lhs, StringRef rhs) {
  type = ctx.resultType();
  if (!ctx.ok())
    return {};
  Type element = type.getElementType();
  Value a = ctx.tensorOrScalar(lhs, element);
  Value b = ctx.tensorOrScalar(rhs, element);
  if (!ctx.ok())
    return {};
  return {ctx.castTo(a, element), ctx.castTo(b, element)};
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

namespace {
template <typename OpT, typename... Attrs>
Value binary(NodeContext &ctx, Value a, Value b, Attrs... attrs) {
  if (!ctx.ok())
    return {};
  return ctx.create<OpT>(a, ctx.castTo(b, typeOf(a).getElementType()),
                         attrs...);
}
} // namespace

Value add(NodeContext &ctx, Value a, Value b, double alpha) {
  return binary<AddOp>(ctx, a, b, ctx.builder.getF64FloatAttr(alpha));
}
Value isNan(NodeContext &ctx, Value x) { return ctx.create<NeOp>(x, x); }

Value reverseOrder(NodeContext &ctx, Value x) {
  if (!x)
    return {};
  Type element = typeOf(x).getElementType();
  if (isa<FloatType>(element))
    return ctx.create<NegOp>(typeOf(x), x);
  return sub(ctx, integerOf(ctx, element, -1), x);
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

bool checkIndexCount(NodeContext &ctx, int64_t count, StringRef what) {
  if (count > kMaxIndexConstant)
    ctx.fail(what + " moves " + Twine(count) +
             " elements along one dim, more than the " +
             Twine(kMaxIndexConstant) + " duet writes as a constant index");
  return ctx.ok();
}

Value indexConstant(NodeContext &ctx, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    ctx.builder.getI64Type());
  return ctx.create<arith::ConstantOp>(DenseElementsAttr::get(type, values));
}

namespace {

/// The shape `rule` computes for op `opName`; when it cannot, the node fails
/// with the rule's own words ("'aten.slice' op needs 0 <= start <= end ...").
template <typename Rule>
FailureOr<ResultShape> ruleShape(NodeContext &ctx, StringRef opName,
                                 Rule rule) {
  FailureOr<ResultShape> shape = failure();
  (void)ctx.checkRule(
      [&] {
        shape = rule(ShapeReport(ctx.loc, opName));
        return failed(shape) ? failure() : success();
      },
      "", opName + " of shapes its rule refuses");
  return shape;
}

} // namespace

bool checkPooling(NodeContext &ctx, ArrayRef<int64_t> in,
                  const PoolWindow &window, ArrayRef<int64_t> out) {
  if (!ctx.ok())
    return false;
  FailureOr<ResultShape> shape =
      ruleShape(ctx, MaxPool2dOp::getOperationName(),
                [&](const ShapeReport &r) { return poolShape(in, window, r); });
  if (failed(shape))
    return false;
  if (ArrayRef<int64_t>(*shape) != out)
    ctx.fail("pooling " + formatShape(in) + " gives " + formatShape(*shape) +
             ", not the recorded " + formatShape(out));
  return ctx.ok();
}

Value indexSelect(NodeContext &ctx, Value v, Value index, int64_t dim) {
  if (!v || !index || !ctx.ok())
    return {};
  return ctx.create<IndexSelectOp>(v, index,
                                   ctx.builder.getI64IntegerAttr(dim));
}

Value selectIndices(NodeContext &ctx, Value v, int64_t dim,
                    ArrayRef<int64_t> indices) {
  if (!v || !ctx.ok())
    return {};
  return indexSelect(ctx, v, indexConstant(ctx, indices), dim);
}

template <typename OpT>
Value reduce(NodeContext &ctx, Value v, ArrayRef<int64_t> dims, bool keepdim) {
  if (!v)
    return {};
  return ctx.create<OpT>(v, ctx.builder.getDenseI64ArrayAttr(dims),
                         ctx.builder.getBoolAttr(keepdim));
}
template Value reduce<MeanOp>(NodeContext &, Value, ArrayRef<int64_t>, bool);
template Value reduce<SumOp>(NodeContext &, Value, ArrayRef<int64_t>, bool);
template Value reduce<AmaxOp>(NodeContext &, Value, ArrayRef<int64_t>, bool);

/// `a @ b` of integer matrices (`[n, k] @ [k, m]`, or with one batch dim):
/// the products `[..., n, k, 1] * [..., 1, k, m]` summed over k, in int64,
/// which wraps as PyTorch's integer arithmetic does, then converted to the
/// result's type (a wrapped int64 sum converts to the same value as a sum
/// wrapped in the narrower type). The matrix-product ops compute in float,
/// which is not exact past 2^24; integer products are small in models
/// (index arithmetic), so the broadcast form's size is no concern.
Value integerMatrixProduct(NodeContext &ctx, Value a, Value b,
                           RankedTensorType type) {
  auto aType = typeOf(a), bType = typeOf(b);
  if (!aType || !bType)
    return {};
  int64_t rank = aType.getRank();
  if (rank < 2 || rank > 3 || bType.getRank() != rank ||
      aType.getShape().drop_back(2) != bType.getShape().drop_back(2) ||
      aType.getShape().back() != bType.getShape()[rank - 2]) {
    ctx.fail("integer matrix product of shapes that do not multiply");
    return {};
  }
  Type i64 = ctx.builder.getI64Type();
  SmallVector<int64_t> left(aType.getShape()), right(bType.getShape());
  left.push_back(1);
  right.insert(right.end() - 2, 1);
  Value products = mul(ctx, view(ctx, ctx.castTo(a, i64), left),
                       view(ctx, ctx.castTo(b, i64), right));
  Value sum = reduce<SumOp>(ctx, products, {rank - 1}, false);
  return sum ? ctx.castTo(sum, type.getElementType()) : Value();
}

/// `index` with each negative entry counted from the end of a dim of `size`,
/// as advanced indexing does (index_select itself refuses negatives).
Value wrapNegative(NodeContext &ctx, Value index, int64_t size) {
  RankedTensorType type = typeOf(index);
  Type element = type.getElementType();
  Value negative = ctx.create<LtOp>(index, integerOf(ctx, element, 0));
  Value fromEnd = add(ctx, index, integerOf(ctx, element, size));
  return ctx.create<WhereOp>(negative, fromEnd, index);
}

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
  return ctx.create<BmmOp>(a, b);
}

Value permute(NodeContext &ctx, Value v, ArrayRef<int64_t> dims) {
  if (!v)
    return {};
  if (llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())) &&
      dims.size() == static_cast<size_t>(typeOf(v).getRank()))
    return v;
  return ctx.create<PermuteOp>(v, ctx.builder.getDenseI64ArrayAttr(dims));
}

Value slice(NodeContext &ctx, Value v, int64_t dim, int64_t start, int64_t end,
            int64_t step) {
  if (!v || !ctx.ok())
    return {};
  auto i64 = [&](int64_t x) { return ctx.builder.getI64IntegerAttr(x); };
  return ctx.create<SliceOp>(v, i64(dim), i64(start), i64(end), i64(step));
}

Value cat(NodeContext &ctx, ValueRange values, int64_t dim) {
  if (!ctx.ok() || llvm::any_of(values, [](Value v) { return !v; }))
    return {};
  return ctx.create<CatOp>(values, ctx.builder.getI64IntegerAttr(dim));
}

Value pad(NodeContext &ctx, Value v, ArrayRef<int64_t> pad, double value) {
  if (!v || !ctx.ok())
    return {};
  return ctx.create<ConstantPadNdOp>(v, ctx.builder.getDenseI64ArrayAttr(pad),
                                     ctx.builder.getF64FloatAttr(value));
}

void markStatisticsUnavailable(NodeContext &ctx, StringRef op) {
  for (size_t i = 1; i < ctx.numResults(); ++i)
    ctx.setUnavailable(i, "a statistic " + op +
                              " saves for training, which duet does not "
                              "compute; only output 0 is supported");
}

} // namespace duet::import::compose
