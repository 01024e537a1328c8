//===- ScatterTargets.cpp - writes at an index, as aten.scatter -----------===//
//
// Every target here is one aten.scatter: index_copy and index_add expand
// their 1-D index over the source's other dims; index_put merges the indexed
// dims into one, as index.Tensor does for reads, and scatters along it.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/ScatterTargets.h"

#include "compiler/import/Compose.h"
#include "compiler/import/CompositeTargets.h"

#include "dialects/aten/AtenDialect.h"

#include "llvm/ADT/Twine.h"

using namespace duet::import;
using namespace duet::import::compose;
using namespace duet::aten;
using namespace mlir;

namespace {

void emitScatter(NodeContext &ctx, Value self, Value index, Value src,
                 int64_t dim, ScatterReduce how, bool includeSelf) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  self = ctx.castTo(self, element);
  src = ctx.castTo(src, element);
  index = ctx.castTo(index, ctx.builder.getI64Type());
  if (typeOf(self).getRank() == 0) {
    // A 0-d self is a 1-element row.
    self = view(ctx, self, {1});
    index = view(ctx, index, {typeOf(index).getNumElements()});
    src = view(ctx, src, {typeOf(src).getNumElements()});
    dim = 0;
  }
  auto scatter = [&](Value into, Value from, ScatterReduce by, bool withSelf) {
    return ctx.create<ScatterOp>(
        into, index, from, ctx.builder.getI64IntegerAttr(dim),
        ScatterReduceAttr::get(ctx.builder.getContext(), by),
        ctx.builder.getBoolAttr(withSelf));
  };
  if (how != ScatterReduce::mean || isa<FloatType>(element))
    return ctx.setResult(
        view(ctx, scatter(self, src, how, includeSelf), type.getShape()));
  // An integer mean, as PyTorch takes it: the sum floor-divided by the
  // count (self counted once with include_self); a position nothing is
  // written to keeps self.
  Value sums = scatter(self, src, ScatterReduce::sum, includeSelf);
  Value ones = ctx.splat(typeOf(src), Scalar{true, 1, 0});
  Value base = ctx.splat(typeOf(self), Scalar{true, includeSelf ? 1 : 0, 0});
  Value counts = scatter(base, ones, ScatterReduce::sum, true);
  if (!ctx.ok())
    return;
  Value written = ctx.create<GtOp>(counts, integerOf(ctx, element, 0));
  Value divisor = ctx.create<MaximumOp>(counts, integerOf(ctx, element, 1));
  Value mean = ctx.create<DivOp>(
      sums, divisor,
      DivRoundingAttr::get(ctx.builder.getContext(), DivRounding::floor));
  ctx.setResult(
      view(ctx, ctx.create<WhereOp>(written, mean, self), type.getShape()));
}

std::optional<ScatterReduce> reduceNamed(NodeContext &ctx, StringRef name) {
  std::optional<ScatterReduce> how =
      name == "add" || name == "sum"         ? ScatterReduce::sum
      : name == "multiply" || name == "prod" ? ScatterReduce::prod
      : name == "mean"                       ? ScatterReduce::mean
      : name == "amax"                       ? ScatterReduce::amax
      : name == "amin"                       ? ScatterReduce::amin
                                             : std::optional<ScatterReduce>();
  if (!how)
    ctx.fail("argument 'reduce' is \"" + name +
             "\"; expected add, multiply, sum, prod, mean, amax or amin");
  return how;
}

/// `index` ([k], or 0-d) along `dim` of a tensor shaped `shape`, repeated
/// over its other dims: the index of scatter for a row index.
Value rowIndex(NodeContext &ctx, Value index, int64_t dim,
               ArrayRef<int64_t> shape) {
  SmallVector<int64_t> unit(shape.size(), 1);
  unit[dim] = typeOf(index).getNumElements();
  Value line = view(ctx, ctx.castTo(index, ctx.builder.getI64Type()), unit);
  RankedTensorType full = typeOf(line).clone(shape);
  return typeOf(line) == full ? line : Value(ctx.create<ExpandOp>(full, line));
}

void emitIndexRows(NodeContext &ctx, ScatterReduce how, double alpha,
                   bool includeSelf = true) {
  Value self = ctx.tensor("self"), index = ctx.tensor("index");
  Value source = ctx.tensor("source");
  int64_t dim = ctx.integer("dim");
  if (!ctx.ok())
    return;
  int64_t rank = std::max<int64_t>(typeOf(self).getRank(), 1);
  dim = ctx.normalizeDim(dim, rank);
  if (!ctx.ok())
    return;
  if (typeOf(index).getRank() > 1)
    return ctx.fail("argument 'index' must be 0-d or 1-D");
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  Value src = ctx.castTo(source, element);
  if (typeOf(src).getRank() == 0)
    src = view(ctx, src, {1});
  if (alpha != 1)
    src = mul(ctx, src, realOf(ctx, element, alpha));
  if (typeOf(src).getRank() != rank)
    return ctx.fail("argument 'source' has rank " +
                    Twine(typeOf(src).getRank()) + "; expected " + Twine(rank));
  emitScatter(ctx, self, rowIndex(ctx, index, dim, typeOf(src).getShape()), src,
              dim, how, includeSelf);
}

} // namespace

void duet::import::buildScatter(NodeContext &ctx) {
  Value self = ctx.tensor("self"), index = ctx.tensor("index");
  int64_t dim = ctx.integer("dim");
  std::optional<std::string> reduce = ctx.optionalString("reduce");
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  Value src;
  if (ctx.isScalar("value")) {
    Scalar value = ctx.scalar("value");
    if (ctx.ok())
      src = ctx.splat(typeOf(index).clone(element), value);
  } else {
    src = ctx.tensor(ctx.isNone("src") ? "value" : "src");
  }
  if (!ctx.ok())
    return;
  dim = ctx.normalizeDim(dim, std::max<int64_t>(typeOf(self).getRank(), 1));
  ScatterReduce how = ScatterReduce::none;
  if (reduce) {
    std::optional<ScatterReduce> named = reduceNamed(ctx, *reduce);
    if (!named)
      return;
    how = *named;
  }
  if (ctx.ok())
    emitScatter(ctx, self, index, src, dim, how, true);
}

void duet::import::buildScatterAdd(NodeContext &ctx) {
  Value self = ctx.tensor("self"), index = ctx.tensor("index");
  Value src = ctx.tensor("src");
  int64_t dim = ctx.integer("dim");
  if (!ctx.ok())
    return;
  dim = ctx.normalizeDim(dim, std::max<int64_t>(typeOf(self).getRank(), 1));
  if (ctx.ok())
    emitScatter(ctx, self, index, src, dim, ScatterReduce::sum, true);
}

void duet::import::buildScatterReduce(NodeContext &ctx) {
  Value self = ctx.tensor("self"), index = ctx.tensor("index");
  Value src = ctx.tensor("src");
  int64_t dim = ctx.integer("dim");
  std::optional<std::string> reduce = ctx.optionalString("reduce");
  bool includeSelf = ctx.boolean("include_self");
  if (!ctx.ok())
    return;
  dim = ctx.normalizeDim(dim, std::max<int64_t>(typeOf(self).getRank(), 1));
  std::optional<ScatterReduce> how = reduceNamed(ctx, reduce.value_or(""));
  if (ctx.ok())
    emitScatter(ctx, self, index, src, dim, *how, includeSelf);
}

void duet::import::buildIndexCopy(NodeContext &ctx) {
  emitIndexRows(ctx, ScatterReduce::none, 1);
}

void duet::import::buildIndexAdd(NodeContext &ctx) {
  double alpha = ctx.number("alpha");
  if (ctx.ok())
    emitIndexRows(ctx, ScatterReduce::sum, alpha);
}

void duet::import::buildIndexPut(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<Value> indices = ctx.optionalTensorList("indices");
  Value values = ctx.tensor("values");
  bool accumulate = ctx.boolean("accumulate");
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  values = ctx.castTo(values, element);
  ArrayRef<int64_t> shape = typeOf(self).getShape();
  // One boolean mask over the leading dims with one value: a masked fill.
  if (indices.size() == 1 && indices[0] &&
      typeOf(indices[0]).getElementType().isInteger(1)) {
    ArrayRef<int64_t> maskShape = typeOf(indices[0]).getShape();
    if (accumulate || typeOf(values).getNumElements() != 1 ||
        maskShape != shape.take_front(maskShape.size()))
      return ctx.fail("index_put with a boolean mask writes a data-dependent "
                      "number of values; duet takes a mask over self's "
                      "leading dims with one value (a masked fill)");
    SmallVector<int64_t> full(maskShape);
    full.resize(shape.size(), 1);
    Value mask = view(ctx, indices[0], full);
    return ctx.setResult(ctx.create<WhereOp>(mask, view(ctx, values, {}),
                                             ctx.castTo(self, element)));
  }
  std::optional<AdvancedIndex> index = advancedIndex(ctx, self, indices);
  if (!index)
    return;
  if (!index->flat)
    return ctx.fail("index_put without an index tensor");
  // The values broadcast to what self[indices] would be: the indexed dims
  // replaced by the index's broadcast shape; then those dims merged.
  SmallVector<int64_t> picked(shape.take_front(index->first));
  picked.append(index->broadcastShape.begin(), index->broadcastShape.end());
  picked.append(shape.begin() + index->end, shape.end());
  RankedTensorType pickedType = RankedTensorType::get(picked, element);
  if (typeOf(values).getShape() != ArrayRef<int64_t>(picked))
    values = ctx.create<ExpandOp>(pickedType, values);
  SmallVector<int64_t> rows(index->tableShape);
  rows[index->first] = typeOf(index->flat).getNumElements();
  Value src = view(ctx, values, rows);
  Value table = view(ctx, ctx.castTo(self, element), index->tableShape);
  Value at = rowIndex(ctx, index->flat, index->first, rows);
  Value result = ctx.create<ScatterOp>(
      table, at, src, ctx.builder.getI64IntegerAttr(index->first),
      ScatterReduceAttr::get(ctx.builder.getContext(),
                             accumulate ? ScatterReduce::sum
                                        : ScatterReduce::none),
      ctx.builder.getBoolAttr(true));
  ctx.setResult(view(ctx, result, type.getShape()));
}

void duet::import::buildIndexReduce(NodeContext &ctx) {
  std::optional<std::string> reduce = ctx.optionalString("reduce");
  bool includeSelf = ctx.boolean("include_self");
  if (!ctx.ok())
    return;
  std::optional<ScatterReduce> how = reduceNamed(ctx, reduce.value_or(""));
  if (how)
    emitIndexRows(ctx, *how, 1, includeSelf);
}

/// put: `self` viewed as one row, `source`'s elements written (or added,
/// with accumulate) at `index`, negative entries counted from the end.
void duet::import::buildPut(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self"), index = ctx.tensor("index");
  Value source = ctx.tensor("source");
  bool accumulate = ctx.boolean("accumulate");
  if (!ctx.ok())
    return;
  int64_t elements = typeOf(self).getNumElements();
  int64_t count = typeOf(index).getNumElements();
  if (typeOf(source).getNumElements() != count)
    return ctx.fail("argument 'source' has " +
                    Twine(typeOf(source).getNumElements()) +
                    " elements for an index of " + Twine(count));
  Type element = type.getElementType();
  Value flat = view(ctx, ctx.castTo(self, element), {elements});
  if (count == 0)
    return ctx.setResult(view(ctx, flat, type.getShape()));
  Value where = wrapNegative(
      ctx, view(ctx, ctx.castTo(index, ctx.builder.getI64Type()), {count}),
      elements);
  Value values = view(ctx, ctx.castTo(source, element), {count});
  Value written = ctx.create<ScatterOp>(
      flat, where, values, ctx.builder.getI64IntegerAttr(0),
      ScatterReduceAttr::get(ctx.builder.getContext(),
                             accumulate ? ScatterReduce::sum
                                        : ScatterReduce::none),
      ctx.builder.getBoolAttr(true));
  ctx.setResult(view(ctx, written, type.getShape()));
}
