//===- CompositeTargets.cpp - ATen targets built from several ops ---------===//
//
// Each builder here writes aten-dialect ops that compute the target exactly
// as PyTorch defines it (fmod on floats: to within the rounding of one
// division), checking first that the node is a form they cover and naming
// the argument otherwise. Constant operands (a relative-position index, a
// norm over a weight) fold at normalization, so none of these leaves work for
// run time that a constant can do.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/CompositeTargets.h"

#include "compiler/import/Compose.h"
#include "compiler/import/OrderingAndSampling.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace duet::import;
using namespace duet::aten;
using namespace mlir;
using namespace duet::import::compose;

namespace {

/// `index` with each negative entry counted from the end of a dim of `size`,
/// as advanced indexing does (index_select itself refuses negatives).
Value wrapNegative(NodeContext &ctx, Value index, int64_t size) {
  RankedTensorType type = typeOf(index);
  Type element = type.getElementType();
  Value negative = ctx.create<LtOp>(type.clone(ctx.builder.getI1Type()), index,
                                    integerOf(ctx, element, 0));
  Value fromEnd = add(ctx, index, integerOf(ctx, element, size));
  return ctx.create<WhereOp>(type, negative, fromEnd, index);
}


} // namespace

void duet::import::emitGroupNorm(NodeContext &ctx, Value input, Value weight, Value bias,
                   int64_t groups, double eps) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  ArrayRef<int64_t> shape = typeOf(input).getShape();
  if (shape.size() < 2)
    return ctx.fail("input has rank " + Twine(shape.size()) +
                    "; group norm needs [N, C, ...]");
  int64_t channels = shape[1];
  if (groups < 1 || channels % groups != 0)
    return ctx.fail("argument 'group' is " + Twine(groups) +
                    ", which does not divide the " + Twine(channels) +
                    " channels");
  int64_t perGroup = channels / groups;
  for (int64_t d : shape.drop_front(2))
    perGroup *= d;
  Type element = type.getElementType();
  // Each group of channels is one row of [N, groups, C/groups·spatial],
  // normalized over that row: a layer norm without affine terms.
  Value grouped =
      view(ctx, ctx.castTo(input, element), {shape[0], groups, perGroup});
  Value normalized =
      ctx.create<LayerNormOp>(typeOf(grouped), grouped, Value(), Value(),
                              ctx.builder.getDenseI64ArrayAttr({perGroup}),
                              ctx.builder.getF64FloatAttr(eps));
  Value result = view(ctx, normalized, type.getShape());
  // The affine terms are per channel: [C, 1, ...] against [N, C, ...].
  SmallVector<int64_t> perChannel(shape.size() - 1, 1);
  perChannel[0] = channels;
  if (weight)
    result = ctx.create<MulOp>(
        type, result, view(ctx, ctx.castTo(weight, element), perChannel));
  if (bias)
    result = ctx.create<AddOp>(type, result,
                               view(ctx, ctx.castTo(bias, element), perChannel),
                               ctx.builder.getF64FloatAttr(1.0));
  ctx.setResult(result);
  markStatisticsUnavailable(ctx, "group norm");
}

std::optional<AdvancedIndex>
duet::import::advancedIndex(NodeContext &ctx, Value self,
                            ArrayRef<Value> indices) {
  ArrayRef<int64_t> shape = typeOf(self).getShape();
  if (indices.size() > shape.size()) {
    ctx.fail("argument 'indices' has " + Twine(indices.size()) +
             " entries for a tensor of rank " + Twine(shape.size()));
    return std::nullopt;
  }
  AdvancedIndex index;
  size_t first = 0;
  while (first < indices.size() && !indices[first])
    ++first;
  size_t end = first;
  while (end < indices.size() && indices[end])
    ++end;
  for (size_t d = end; d < indices.size(); ++d)
    if (indices[d]) {
      ctx.fail("argument 'indices' indexes dims " + Twine(first) + " and " +
               Twine(d) +
               " with a None between them; PyTorch then moves the indexed "
               "dims first, which duet does not implement");
      return std::nullopt;
    }
  index.first = static_cast<int64_t>(first);
  index.end = static_cast<int64_t>(end);
  if (first == end)
    return index;
  for (size_t d = first; d < end; ++d) {
    Type element = typeOf(indices[d]).getElementType();
    if (element.isInteger(1) || !element.isIntOrIndex()) {
      ctx.fail("argument 'indices' entry " + Twine(d) +
               " is not an integer tensor (a boolean mask picks a "
               "data-dependent number of elements, which a static program "
               "cannot hold)");
      return std::nullopt;
    }
  }
  // The indexed dims [first, end) become one dim of their product, indexed
  // by i_first·size_(first+1)·... + ... + i_(end-1).
  Type i64 = ctx.builder.getI64Type();
  Value flat;
  int64_t merged = 1;
  for (size_t d = first; d < end; ++d) {
    Value one = wrapNegative(ctx, ctx.castTo(indices[d], i64), shape[d]);
    flat = flat ? add(ctx, mul(ctx, flat, integerOf(ctx, i64, shape[d])), one)
                : one;
    merged *= shape[d];
    if (!ctx.ok())
      return std::nullopt;
  }
  index.broadcastShape.assign(typeOf(flat).getShape().begin(),
                              typeOf(flat).getShape().end());
  index.tableShape.assign(shape.begin(), shape.begin() + first);
  index.tableShape.push_back(merged);
  index.tableShape.append(shape.begin() + end, shape.end());
  index.flat = flat;
  return index;
}

void duet::import::buildIndexTensor(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<Value> indices = ctx.optionalTensorList("indices");
  if (!ctx.ok())
    return;
  std::optional<AdvancedIndex> index = advancedIndex(ctx, self, indices);
  if (!index)
    return;
  if (!index->flat)
    return ctx.setResult(self);
  Value table =
      view(ctx, ctx.castTo(self, type.getElementType()), index->tableShape);
  int64_t picked = typeOf(index->flat).getNumElements();
  Value flat = view(ctx, index->flat, {picked});
  Value selected = compose::indexSelect(ctx, table, flat, index->first);
  ctx.setResult(view(ctx, selected, type.getShape()));
}

void duet::import::buildNativeGroupNorm(NodeContext &ctx) {
  Value input = ctx.tensor("input");
  Value weight = ctx.optionalTensor("weight"),
        bias = ctx.optionalTensor("bias");
  int64_t groups = ctx.integer("group");
  double eps = ctx.number("eps");
  if (ctx.ok())
    emitGroupNorm(ctx, input, weight, bias, groups, eps);
}

void duet::import::buildGroupNorm(NodeContext &ctx) {
  Value input = ctx.tensor("input");
  Value weight = ctx.optionalTensor("weight"),
        bias = ctx.optionalTensor("bias");
  int64_t groups = ctx.integer("num_groups");
  double eps = ctx.number("eps");
  if (ctx.ok())
    emitGroupNorm(ctx, input, weight, bias, groups, eps);
}

void duet::import::buildVectorNorm(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  double ord = ctx.number("ord");
  std::optional<SmallVector<int64_t>> dims = ctx.optionalIntegers("dim");
  bool keepdim = ctx.boolean("keepdim");
  if (!ctx.ok())
    return;
  Value x = ctx.castTo(self, type.getElementType());
  RankedTensorType inputType = typeOf(x);
  SmallVector<int64_t> reduced;
  for (int64_t d : dims.value_or(SmallVector<int64_t>()))
    reduced.push_back(ctx.normalizeDim(d, inputType.getRank()));
  if (!ctx.ok())
    return;
  auto dimsAttr = ctx.builder.getDenseI64ArrayAttr(reduced);
  auto keepAttr = ctx.builder.getBoolAttr(keepdim);
  if (ord == 2) {
    Value squares = ctx.create<MulOp>(inputType, x, x);
    Value sum = ctx.create<SumOp>(type, squares, dimsAttr, keepAttr);
    return ctx.setResult(ctx.create<SqrtOp>(type, sum));
  }
  if (ord == 1 || ord == std::numeric_limits<double>::infinity()) {
    Value magnitudes = ctx.create<AbsOp>(inputType, x);
    if (ord == 1)
      return ctx.setResult(
          ctx.create<SumOp>(type, magnitudes, dimsAttr, keepAttr));
    return ctx.setResult(
        ctx.create<AmaxOp>(type, magnitudes, dimsAttr, keepAttr));
  }
  ctx.fail("argument 'ord' is " + llvm::formatv("{0}", ord) +
           "; duet computes the vector norms of ord 1, 2 and inf");
}

void duet::import::buildPowScalarBase(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  double base = ctx.number("self");
  Value exponent = ctx.tensor("exponent");
  if (!ctx.ok())
    return;
  // exp(exponent · ln(base)) runs wherever exp does; other bases take the
  // power op itself.
  if (!(base > 0) || !std::isfinite(base))
    return buildPowTensor(ctx);
  Type element = type.getElementType();
  Value scaled = ctx.create<MulOp>(type, ctx.castTo(exponent, element),
                                   realOf(ctx, element, std::log(base)));
  ctx.setResult(ctx.create<ExpOp>(type, scaled));
}

void duet::import::buildFmod(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  Value self = ctx.tensorOrScalar("self", element);
  Value other = ctx.tensorOrScalar("other", element);
  if (!ctx.ok())
    return;
  self = ctx.castTo(self, element);
  other = ctx.castTo(other, element);
  Value quotient = ctx.create<DivOp>(
      type, self, other,
      DivRoundingAttr::get(ctx.builder.getContext(), DivRounding::trunc));
  Value multiple = ctx.create<MulOp>(type, quotient, other);
  ctx.setResult(ctx.create<SubOp>(type, self, multiple,
                                  ctx.builder.getF64FloatAttr(1.0)));
}

void duet::import::buildAsStrided(NodeContext &ctx) {
  Value self = ctx.tensor("self");
  SmallVector<int64_t> size = ctx.integers("size");
  SmallVector<int64_t> stride = ctx.integers("stride");
  std::optional<int64_t> offset = ctx.optionalInteger("storage_offset");
  if (!ctx.ok())
    return;
  // duet's tensors are contiguous; the view is the tensor itself when it
  // keeps the sizes and every dim longer than 1 keeps its contiguous stride.
  ArrayRef<int64_t> shape = typeOf(self).getShape();
  bool identity = ArrayRef<int64_t>(size) == shape &&
                  stride.size() == shape.size() && offset.value_or(0) == 0;
  int64_t contiguous = 1;
  for (size_t d = shape.size(); identity && d-- > 0;) {
    if (shape[d] > 1 && stride[d] != contiguous)
      identity = false;
    contiguous *= shape[d];
  }
  if (!identity) {
    std::string sizes, strides;
    for (int64_t s : size)
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(s);
    for (int64_t s : stride)
      strides += (strides.empty() ? "" : ", ") + std::to_string(s);
    return ctx.fail("as_strided to sizes [" + sizes + "], strides [" + strides +
                    "], offset " + Twine(offset.value_or(0)) +
                    " reinterprets memory; duet supports only an "
                    "as_strided that keeps the sizes and the contiguous "
                    "strides of every dim longer than 1 (an identity)");
  }
  ctx.setResult(self);
}
