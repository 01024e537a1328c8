//===- OrderingAndSampling.cpp - topk, sorts, grid sampling, bicubic ------===//
//
// The targets that map onto the ops aten.topk, aten.grid_sampler_2d,
// aten.upsample_bicubic2d and aten.pow_tensor: every ordering op (topk,
// sort, argsort, argmax, argmin, the indices of max.dim and min.dim) is one
// topk, with k the dim's size for a sort and 1 for an arg-extreme.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/OrderingAndSampling.h"
#include "compiler/import/Compose.h"
#include "compiler/import/DecomposedTargets.h"

#include "dialects/aten/AtenDialect.h"

#include "llvm/ADT/Twine.h"

#include <cmath>

using namespace duet::import;
using namespace duet::import::compose;
using namespace duet::aten;
using namespace mlir;

namespace {

/// `self` as an ordering op compares it: floats and int32/int64 as they
/// are; booleans and narrower integers in float, which holds them exactly.
Value orderedOperand(NodeContext &ctx, Value self) {
  Type element = typeOf(self).getElementType();
  if (isa<FloatType>(element) || element.isInteger(32) || element.isInteger(64))
    return self;
  return ctx.castTo(self, ctx.builder.getF32Type());
}

/// One topk of `x` along `dim`.
TopkOp emitTopk(NodeContext &ctx, Value x, int64_t dim, int64_t k,
                bool largest) {
  // The rule refuses a dim the tensor lacks or a k past its size; the node
  // then fails with its words and the op goes with the node.
  return ctx.create<TopkOp>(x, ctx.builder.getI64IntegerAttr(k),
                            ctx.builder.getI64IntegerAttr(dim),
                            ctx.builder.getBoolAttr(largest));
}

/// The first index of the largest (or smallest) element along `dim`, as
/// argmax, argmin, max.dim and min.dim give it: a NaN is the extreme either
/// way (PyTorch's min and max propagate NaN), where topk's smallest would
/// skip it. So the smallest is the largest of reverseOrder(x).
TopkOp emitExtremeIndex(NodeContext &ctx, Value x, int64_t dim, bool largest) {
  if (!largest)
    x = reverseOrder(ctx, x);
  return emitTopk(ctx, x, dim, 1, /*largest=*/true);
}

/// topk, and sort as topk of every element; values in the result's type.
void emitOrdered(NodeContext &ctx, int64_t dim, std::optional<int64_t> k,
                 bool largest, bool withValues) {
  RankedTensorType type = ctx.resultType(0);
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  int64_t rank = typeOf(self).getRank();
  Value x = self;
  if (rank == 0)
    x = view(ctx, x, {1});
  dim = ctx.normalizeDim(dim, std::max<int64_t>(rank, 1));
  Value input = orderedOperand(ctx, x);
  if (!ctx.ok())
    return;
  int64_t size = typeOf(input).getDimSize(dim);
  int64_t count = k.value_or(size);
  if (count < 0 || count > size)
    return ctx.fail("argument 'k' is " + Twine(count) + "; dim " + Twine(dim) +
                    " has " + Twine(size) + " elements");
  TopkOp top = emitTopk(ctx, input, dim, count, largest);
  ArrayRef<int64_t> shape = type.getShape();
  if (withValues) {
    ctx.setResult(
        0,
        view(ctx, ctx.castTo(top.getValues(), type.getElementType()), shape));
    ctx.setResult(1, view(ctx, top.getIndices(), shape));
  } else {
    ctx.setResult(
        0,
        view(ctx, ctx.castTo(top.getIndices(), type.getElementType()), shape));
  }
}

/// `x` and the dim along which a reduction to one element per line reads
/// it: `dim` itself, or, when it is None, every element as one line (`x`
/// flattened, dim 0); a 0-d `x` is one line of one element.
std::pair<Value, int64_t> lines(NodeContext &ctx, Value x,
                                std::optional<int64_t> dim) {
  if (!x || !ctx.ok())
    return {x, 0};
  if (!dim)
    return {view(ctx, x, {typeOf(x).getNumElements()}), 0};
  if (typeOf(x).getRank() == 0)
    return {view(ctx, x, {1}), 0};
  return {x, ctx.normalizeDim(*dim, typeOf(x).getRank())};
}

/// argmax and argmin: over `dim`, or over every element when it is None.
void emitArgExtreme(NodeContext &ctx, bool largest) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  std::optional<int64_t> dim = ctx.optionalInteger("dim");
  if (!ctx.ok())
    return;
  auto [x, d] = lines(ctx, orderedOperand(ctx, self), dim);
  if (!ctx.ok())
    return;
  if (typeOf(x).getDimSize(d) == 0)
    return ctx.fail("argmax/argmin of an empty dim has no answer");
  TopkOp top = emitExtremeIndex(ctx, x, d, largest);
  // The recorded result shape says whether the dim is kept.
  ctx.setResult(view(ctx, top.getIndices(), type.getShape()));
}

/// kthvalue, median and nanmedian: one element of each line sorted
/// ascending (NaN last), and its index. `k` (1-based) picks kthvalue's;
/// median takes the lower middle, or the first NaN when the line has one
/// (PyTorch's median propagates NaN); nanmedian the lower middle of the
/// numbers. Without `dim`, every element is one line and only the value is
/// returned. The recorded result shapes say whether dim is kept.
enum class SortedPick { Kth, Median, NanMedian };

void emitSortedPick(NodeContext &ctx, SortedPick pick,
                    std::optional<int64_t> dim, int64_t k = 0) {
  RankedTensorType type = ctx.resultType(0);
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  auto [input, d] = lines(ctx, orderedOperand(ctx, self), dim);
  if (!ctx.ok())
    return;
  StringRef what = pick == SortedPick::Kth      ? "kthvalue"
                   : pick == SortedPick::Median ? "median"
                                                : "nanmedian";
  int64_t n = typeOf(input).getDimSize(d);
  if (n == 0)
    return ctx.fail(what + " of an empty dim has no answer");
  if (pick == SortedPick::Kth && (k < 1 || k > n))
    return ctx.fail("argument 'k' is " + Twine(k) + "; dim " + Twine(d) +
                    " has " + Twine(n) + " elements");
  TopkOp sorted = emitTopk(ctx, input, d, n, /*largest=*/false);
  Value values = sorted.getValues(), indices = sorted.getIndices();
  Type i64 = ctx.builder.getI64Type();
  RankedTensorType lineType = typeOf(indices);
  SmallVector<int64_t> one(lineType.getShape());
  if (ctx.ok())
    one[d] = 1;
  Value at;
  if (pick == SortedPick::Kth) {
    at = ctx.splat(RankedTensorType::get(one, i64), Scalar{true, k - 1, 0});
  } else if (!isa<FloatType>(typeOf(input).getElementType())) {
    at = ctx.splat(RankedTensorType::get(one, i64),
                   Scalar{true, (n - 1) / 2, 0});
  } else {
    Value nans =
        reduce<SumOp>(ctx, ctx.castTo(isNan(ctx, input), i64), {d}, true);
    Value numbers = sub(ctx, integerOf(ctx, i64, n), nans);
    if (pick == SortedPick::Median) {
      Value any = ctx.create<GtOp>(nans, integerOf(ctx, i64, 0));
      at = ctx.create<WhereOp>(any, numbers, integerOf(ctx, i64, (n - 1) / 2));
    } else {
      // (max(numbers, 1) - 1) / 2: an all-NaN line picks its first NaN.
      Value counted = ctx.create<MaximumOp>(numbers, integerOf(ctx, i64, 1));
      at = ctx.create<DivOp>(
          sub(ctx, counted, integerOf(ctx, i64, 1)), integerOf(ctx, i64, 2),
          DivRoundingAttr::get(ctx.builder.getContext(), DivRounding::floor));
    }
  }
  if (!ctx.ok())
    return;
  Value value =
      ctx.create<GatherOp>(values, at, ctx.builder.getI64IntegerAttr(d));
  ctx.setResult(
      0, view(ctx, ctx.castTo(value, type.getElementType()), type.getShape()));
  if (ctx.numResults() > 1) {
    Value index =
        ctx.create<GatherOp>(indices, at, ctx.builder.getI64IntegerAttr(d));
    RankedTensorType indexType = ctx.resultType(1);
    if (ctx.ok())
      ctx.setResult(1, view(ctx, index, indexType.getShape()));
  }
}

} // namespace

void duet::import::buildKthvalue(NodeContext &ctx) {
  int64_t k = ctx.integer("k"), dim = ctx.integer("dim");
  if (ctx.ok())
    emitSortedPick(ctx, SortedPick::Kth, dim, k);
}

void duet::import::buildMedian(NodeContext &ctx, bool ignoreNan) {
  std::optional<int64_t> dim = ctx.optionalInteger("dim");
  if (ctx.ok())
    emitSortedPick(ctx, ignoreNan ? SortedPick::NanMedian : SortedPick::Median,
                   dim);
}

/// searchsorted and bucketize: for each element of `values`, how many of
/// its line of `sorted` come before it: those not >= it (the first position
/// it could go, PyTorch's lower bound), or with `right` those not > it (the
/// last). The comparisons of every element with its whole line are summed,
/// which gives the binary search's answer on a sorted line.
void emitSearchSorted(NodeContext &ctx, Value sorted, Value values,
                      bool right) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  RankedTensorType seqType = typeOf(sorted), valueType = typeOf(values);
  if (seqType.getRank() == 0)
    return ctx.fail("the sorted sequence must have 1 dim or more");
  ArrayRef<int64_t> seq = seqType.getShape(), at = valueType.getShape();
  if (seq.size() > 1 &&
      (at.size() != seq.size() || at.drop_back() != seq.drop_back()))
    return ctx.fail("a sorted sequence " + formatShape(seq) +
                    " of more than 1 dim needs values of the same leading "
                    "dims, got " +
                    formatShape(at));
  Type element = seqType.getElementType();
  if (element != valueType.getElementType()) {
    Type common = isa<FloatType>(element) ? element
                  : isa<FloatType>(valueType.getElementType())
                      ? valueType.getElementType()
                      : ctx.builder.getI64Type();
    sorted = ctx.castTo(sorted, common);
    values = ctx.castTo(values, common);
  }
  // values [..., N, 1] against sorted [..., 1, S] (or [S] for a 1-D line).
  SmallVector<int64_t> column(at);
  column.push_back(1);
  Value x = view(ctx, values, column);
  Value line = sorted;
  if (seq.size() > 1) {
    SmallVector<int64_t> row(seq.drop_back());
    row.push_back(1);
    row.push_back(seq.back());
    line = view(ctx, sorted, row);
  }
  Value past = right ? Value(ctx.create<GtOp>(line, x))
                     : Value(ctx.create<GeOp>(line, x));
  if (!ctx.ok())
    return;
  Value before = ctx.create<LogicalNotOp>(typeOf(past), past);
  Type i64 = ctx.builder.getI64Type();
  Value count = reduce<SumOp>(ctx, ctx.castTo(before, i64),
                              {typeOf(past).getRank() - 1}, false);
  ctx.setResult(
      view(ctx, ctx.castTo(count, type.getElementType()), type.getShape()));
}

void duet::import::buildSearchSorted(NodeContext &ctx) {
  Value sorted = ctx.tensor("sorted_sequence");
  bool right = ctx.boolean("right");
  std::optional<std::string> side = ctx.optionalString("side");
  Value sorter = ctx.optionalTensor("sorter");
  if (!ctx.ok())
    return;
  Value values = ctx.tensorOrScalar("self", typeOf(sorted).getElementType());
  if (side) {
    if (*side != "left" && *side != "right")
      return ctx.fail("argument 'side' is \"" + *side +
                      "\"; expected left or right");
    if (right && *side == "left")
      return ctx.fail("side=\"left\" contradicts right=True");
    right = *side == "right";
  }
  if (sorter) {
    // The sequence in sorted order: sorter's indices along its last dim.
    int64_t last = typeOf(sorted).getRank() - 1;
    sorted = ctx.create<GatherOp>(sorted,
                                  ctx.castTo(sorter, ctx.builder.getI64Type()),
                                  ctx.builder.getI64IntegerAttr(last));
  }
  emitSearchSorted(ctx, sorted, values, right);
}

void duet::import::buildBucketize(NodeContext &ctx) {
  Value boundaries = ctx.tensor("boundaries");
  bool right = ctx.boolean("right");
  if (!ctx.ok())
    return;
  Value values =
      ctx.tensorOrScalar("self", typeOf(boundaries).getElementType());
  if (ctx.ok() && typeOf(boundaries).getRank() != 1)
    return ctx.fail("argument 'boundaries' must be 1-D");
  emitSearchSorted(ctx, boundaries, values, right);
}

void duet::import::buildTopk(NodeContext &ctx) {
  int64_t k = ctx.integer("k"), dim = ctx.integer("dim");
  bool largest = ctx.boolean("largest");
  if (ctx.ok())
    emitOrdered(ctx, dim, k, largest, /*withValues=*/true);
}

void duet::import::buildSort(NodeContext &ctx) {
  int64_t dim = ctx.integer("dim");
  bool descending = ctx.boolean("descending");
  if (ctx.ok())
    emitOrdered(ctx, dim, std::nullopt, descending, /*withValues=*/true);
}

void duet::import::buildArgsort(NodeContext &ctx) {
  int64_t dim = ctx.integer("dim");
  bool descending = ctx.boolean("descending");
  if (ctx.ok())
    emitOrdered(ctx, dim, std::nullopt, descending, /*withValues=*/false);
}

Value duet::import::argmaxLastDim(NodeContext &ctx, Value x) {
  if (!x)
    return {};
  Value input = orderedOperand(ctx, x);
  return emitExtremeIndex(ctx, input, typeOf(input).getRank() - 1, true)
      .getIndices();
}

void duet::import::buildArgmax(NodeContext &ctx) { emitArgExtreme(ctx, true); }
void duet::import::buildArgmin(NodeContext &ctx) { emitArgExtreme(ctx, false); }

void duet::import::buildExtremeIndices(NodeContext &ctx, bool largest) {
  RankedTensorType type = ctx.resultType(1);
  Value self = ctx.tensor("self");
  int64_t dim = ctx.integer("dim");
  if (!ctx.ok())
    return;
  Value x = orderedOperand(ctx, self);
  if (!ctx.ok())
    return;
  if (typeOf(x).getRank() == 0)
    x = view(ctx, x, {1});
  int64_t d = ctx.normalizeDim(dim, typeOf(x).getRank());
  if (!ctx.ok())
    return;
  TopkOp top = emitExtremeIndex(ctx, x, d, largest);
  ctx.setResult(1, view(ctx, top.getIndices(), type.getShape()));
}

void duet::import::buildGridSampler(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value input = ctx.tensor("input"), grid = ctx.tensor("grid");
  int64_t mode = ctx.integer("interpolation_mode");
  int64_t padding = ctx.integer("padding_mode");
  bool alignCorners = ctx.boolean("align_corners");
  if (!ctx.ok())
    return;
  if (typeOf(input).getRank() != 4)
    return ctx.fail("grid sampling of a rank-" +
                    Twine(typeOf(input).getRank()) +
                    " input; duet samples 2-D inputs [N, C, H, W]");
  if (mode == 2)
    return ctx.fail("bicubic grid sampling (mode='bicubic') is not "
                    "supported; bilinear and nearest are");
  Type element = type.getElementType();
  ctx.setResult(ctx.create<GridSampler2dOp>(
      ctx.castTo(input, element), ctx.castTo(grid, element),
      ctx.builder.getI64IntegerAttr(mode),
      ctx.builder.getI64IntegerAttr(padding),
      ctx.builder.getBoolAttr(alignCorners)));
}

void duet::import::buildPowTensor(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  Value self = ctx.tensorOrScalar("self", element);
  Value exponent = ctx.tensorOrScalar("exponent", element);
  if (!ctx.ok())
    return;
  ctx.setResult(ctx.create<PowTensorOp>(ctx.castTo(self, element),
                                        ctx.castTo(exponent, element)));
}
