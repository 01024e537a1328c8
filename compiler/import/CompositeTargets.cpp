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
#include "compiler/import/DecomposedTargets.h"
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

void duet::import::emitGroupNorm(NodeContext &ctx, Value input, Value weight,
                                 Value bias, int64_t groups, double eps) {
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
  Value normalized = ctx.create<LayerNormOp>(
      grouped, Value(), Value(), ctx.builder.getDenseI64ArrayAttr({perGroup}),
      ctx.builder.getF64FloatAttr(eps));
  Value result = view(ctx, normalized, type.getShape());
  // The affine terms are per channel: [C, 1, ...] against [N, C, ...].
  SmallVector<int64_t> perChannel(shape.size() - 1, 1);
  perChannel[0] = channels;
  if (weight)
    result = ctx.create<MulOp>(
        result, view(ctx, ctx.castTo(weight, element), perChannel));
  if (bias)
    result = ctx.create<AddOp>(result,
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
  if (std::isnan(ord))
    return ctx.fail("argument 'ord' is NaN");
  Value norm = vectorNorm(ctx, x, ord, reduced, keepdim);
  if (ctx.ok())
    ctx.setResult(view(ctx, norm, type.getShape()));
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
  Value scaled = ctx.create<MulOp>(ctx.castTo(exponent, element),
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
      self, other,
      DivRoundingAttr::get(ctx.builder.getContext(), DivRounding::trunc));
  Value multiple = ctx.create<MulOp>(quotient, other);
  ctx.setResult(
      ctx.create<SubOp>(self, multiple, ctx.builder.getF64FloatAttr(1.0)));
}

namespace {

/// Whether `v`'s storage is its own elements in order from offset 0, as
/// as_strided reads it: a graph input, a constant, a computed tensor, or a
/// reshaping or conversion of one. A slice, select, permute or expand (and a
/// gather, which stands for PyTorch's strided views) reads a storage laid out
/// otherwise, which duet does not keep.
bool ownsStorage(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return true;
  if (isa<ViewOp, CastOp, CloneOp>(def))
    return ownsStorage(def->getOperand(0));
  return !isa<SliceOp, SelectOp, PermuteOp, ExpandOp, IndexSelectOp, GatherOp>(
      def);
}

/// The storage positions, from the start of `self`'s elements, that
/// as_strided's sizes, strides and offset name, in the view's element order;
/// nothing after a failure.
std::optional<SmallVector<int64_t>> stridedPositions(NodeContext &ctx,
                                                     Value self) {
  SmallVector<int64_t> size = ctx.integers("size");
  SmallVector<int64_t> stride = ctx.integers("stride");
  int64_t offset = ctx.optionalInteger("storage_offset").value_or(0);
  if (!ctx.ok())
    return std::nullopt;
  if (size.size() != stride.size()) {
    ctx.fail("as_strided has " + Twine(size.size()) + " sizes and " +
             Twine(stride.size()) + " strides; it needs one stride per size");
    return std::nullopt;
  }
  if (!ownsStorage(self)) {
    ctx.fail("as_strided of a view (a slice, select, permute, expand or "
             "strided gather) reads the storage under the view, which duet "
             "does not keep; call .contiguous() on the tensor first");
    return std::nullopt;
  }
  // Every position lies in [offset, offset + sum((size-1)·stride)], which
  // must fall inside self's elements; the sizes are bounded by the count.
  int64_t count = 1, last = offset;
  bool empty = false, outside = false;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0 || stride[d] < 0) {
      ctx.fail("as_strided's size " + Twine(size[d]) + " or stride " +
               Twine(stride[d]) + " of dim " + Twine(d) + " is negative");
      return std::nullopt;
    }
    if (size[d] == 0)
      empty = true;
    count = size[d] > 0 && count > kMaxIndexConstant / size[d]
                ? kMaxIndexConstant + 1
                : count * size[d];
    int64_t reach = 0;
    if (size[d] > 0 &&
        (__builtin_mul_overflow(size[d] - 1, stride[d], &reach) ||
         __builtin_add_overflow(last, reach, &last)))
      outside = true;
  }
  if (!checkIndexCount(ctx, empty ? 0 : count, "as_strided"))
    return std::nullopt;
  int64_t elements = typeOf(self).getNumElements();
  if (!empty && (outside || offset < 0 || last >= elements)) {
    ctx.fail("as_strided reaches past the storage of a tensor of " +
             Twine(elements) + " elements (offset " + Twine(offset) +
             ", furthest position " +
             (outside ? Twine("beyond int64") : Twine(last)) + ")");
    return std::nullopt;
  }
  SmallVector<int64_t> positions;
  if (empty)
    return positions;
  positions.reserve(count);
  SmallVector<int64_t> at(size.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t p = offset;
    for (size_t d = 0; d < size.size(); ++d)
      p += at[d] * stride[d];
    positions.push_back(p);
    for (size_t d = size.size(); d-- > 0;) {
      if (++at[d] < size[d])
        break;
      at[d] = 0;
    }
  }
  return positions;
}

} // namespace

/// as_strided: the view's elements picked from `self`'s storage, which is
/// its elements in order (ownsStorage), by constant positions.
void duet::import::buildAsStrided(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  std::optional<SmallVector<int64_t>> positions = stridedPositions(ctx, self);
  if (!positions)
    return;
  int64_t elements = typeOf(self).getNumElements();
  bool identity = type.getNumElements() == elements;
  for (int64_t i = 0; identity && i < elements; ++i)
    identity = (*positions)[i] == i;
  if (identity)
    return ctx.setResult(view(ctx, self, type.getShape()));
  if (positions->empty())
    return ctx.setResult(ctx.splat(
        RankedTensorType::get(type.getShape(), typeOf(self).getElementType()),
        Scalar{true, 0, 0}));
  Value flat = view(ctx, self, {elements});
  ctx.setResult(
      view(ctx, selectIndices(ctx, flat, 0, *positions), type.getShape()));
}

/// as_strided_scatter: `self` with the elements its as_strided view names
/// replaced by `src`'s.
void duet::import::buildAsStridedScatter(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  Value src = ctx.tensor("src");
  if (!ctx.ok())
    return;
  std::optional<SmallVector<int64_t>> positions = stridedPositions(ctx, self);
  if (!positions)
    return;
  Type element = type.getElementType();
  int64_t elements = typeOf(self).getNumElements();
  if (typeOf(src).getNumElements() != static_cast<int64_t>(positions->size()))
    return ctx.fail("as_strided_scatter's src has " +
                    Twine(typeOf(src).getNumElements()) +
                    " elements for a view of " + Twine(positions->size()));
  Value flat = view(ctx, ctx.castTo(self, element), {elements});
  if (positions->empty())
    return ctx.setResult(view(ctx, flat, type.getShape()));
  int64_t n = static_cast<int64_t>(positions->size());
  Value values = view(ctx, ctx.castTo(src, element), {n});
  Value written = ctx.create<ScatterOp>(
      flat, indexConstant(ctx, *positions), values,
      ctx.builder.getI64IntegerAttr(0),
      ScatterReduceAttr::get(ctx.builder.getContext(), ScatterReduce::none),
      ctx.builder.getBoolAttr(true));
  ctx.setResult(view(ctx, written, type.getShape()));
}
