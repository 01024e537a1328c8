//===- DecomposedData.cpp - windows, padding and einsum as core ops -------===//
//
// Data movement that PyTorch's decompositions write as gathers: each builder
// here computes, at import, the constant index of every element it moves
// and writes one index_select per dim (roll writes two slices and a cat),
// so nothing but the indexing runs at run time.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/Compose.h"
#include "compiler/import/DecomposedTargets.h"
#include "compiler/import/OrderingAndSampling.h"

#include "dialects/aten/AtenDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>

using namespace duet::import;
using namespace duet::import::compose;
using namespace duet::aten;
using namespace mlir;

namespace {

/// Window arguments (sizes, kernel, dilation, padding, stride) beyond 2^31
/// in magnitude are no model's; refusing them keeps the arithmetic on them
/// within int64.
bool checkWindowArguments(NodeContext &ctx,
                          std::initializer_list<ArrayRef<int64_t>> lists) {
  constexpr int64_t kLimit = int64_t(1) << 31;
  for (ArrayRef<int64_t> list : lists)
    for (int64_t v : list)
      if (v > kLimit || v < -kLimit) {
        ctx.fail("a window argument of " + Twine(v) + " is beyond 2^31");
        return false;
      }
  return true;
}

/// Each 2-D window argument as two values (one given stands for both).
bool asPairs(
    NodeContext &ctx,
    std::initializer_list<std::pair<StringRef, SmallVector<int64_t> *>> lists) {
  for (auto [name, list] : lists) {
    if (list->size() == 1)
      list->push_back(list->front());
    if (list->size() != 2) {
      ctx.fail("argument '" + name + "' has " + Twine(list->size()) +
               " entries; expected 2");
      return false;
    }
  }
  return true;
}

/// Where im2col reads, and col2im writes, each kernel tap (ki, kj) of each
/// block (oh, ow) in the padded plane of width `width`, taps outermost.
SmallVector<int64_t> tapPositions(ArrayRef<int64_t> kernel,
                                  ArrayRef<int64_t> dilation,
                                  ArrayRef<int64_t> stride, int64_t outH,
                                  int64_t outW, int64_t width) {
  SmallVector<int64_t> index;
  for (int64_t ki = 0; ki < kernel[0]; ++ki)
    for (int64_t kj = 0; kj < kernel[1]; ++kj)
      for (int64_t oh = 0; oh < outH; ++oh)
        for (int64_t ow = 0; ow < outW; ++ow)
          index.push_back((oh * stride[0] + ki * dilation[0]) * width +
                          ow * stride[1] + kj * dilation[1]);
  return index;
}

/// `v` rolled by `shift` along `dim`: element i comes from (i - shift) mod n.
Value rollDim(NodeContext &ctx, Value v, int64_t dim, int64_t shift) {
  int64_t n = typeOf(v).getDimSize(dim);
  if (n == 0)
    return v;
  shift = ((shift % n) + n) % n;
  if (shift == 0)
    return v;
  Value tail = slice(ctx, v, dim, n - shift, n);
  Value head = slice(ctx, v, dim, 0, n - shift);
  return cat(ctx, ValueRange{tail, head}, dim);
}

/// `v` with a dim of size 1 inserted before its last.
Value withUnitRow(NodeContext &ctx, Value v) {
  SmallVector<int64_t> shape(typeOf(v).getShape());
  shape.insert(shape.end() - 1, 1);
  return view(ctx, v, shape);
}

enum class PadMode { Reflect, Replicate, Circular };

/// Pads the trailing dims of `x` (pairs from the last dim, as torch pads)
/// by gathering each padded dim with the index of its mode.
Value padByIndex(NodeContext &ctx, Value x, ArrayRef<int64_t> pad, PadMode mode,
                 StringRef name) {
  int64_t rank = typeOf(x).getRank();
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) / 2 > rank) {
    ctx.fail("argument '" + name + "' has " + Twine(pad.size()) +
             " entries; expected pairs, at most two per dim");
    return {};
  }
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    int64_t dim = rank - 1 - static_cast<int64_t>(k);
    int64_t n = typeOf(x).getDimSize(dim);
    int64_t left = pad[2 * k], right = pad[2 * k + 1];
    if (left == 0 && right == 0)
      continue;
    // Reflection cannot reach past the far edge, and a circular pad wraps
    // at most once; replication repeats the edge as often as asked.
    int64_t limit = mode == PadMode::Reflect    ? n - 1
                    : mode == PadMode::Circular ? n
                                                : kMaxIndexConstant;
    if (n == 0 || left > limit || right > limit || left + n + right < 1) {
      ctx.fail("padding (" + Twine(left) + ", " + Twine(right) + ") of dim " +
               Twine(dim) + " of size " + Twine(n) + " is out of range for " +
               (mode == PadMode::Reflect     ? "reflect"
                : mode == PadMode::Replicate ? "replicate"
                                             : "circular") +
               " padding");
      return {};
    }
    SmallVector<int64_t> index;
    for (int64_t i = -left; i < n + right; ++i) {
      int64_t j = i;
      switch (mode) {
      case PadMode::Reflect:
        j = j < 0 ? -j : j;
        j = j >= n ? 2 * (n - 1) - j : j;
        break;
      case PadMode::Replicate:
        j = std::clamp<int64_t>(j, 0, n - 1);
        break;
      case PadMode::Circular:
        j = ((j % n) + n) % n;
        break;
      }
      index.push_back(j);
    }
    if (!checkIndexCount(ctx, static_cast<int64_t>(index.size()), "padding"))
      return {};
    x = selectIndices(ctx, x, dim, index);
  }
  return x;
}

void emitPadByIndex(NodeContext &ctx, StringRef padName, PadMode mode) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> pad = ctx.integers(padName);
  if (!ctx.ok())
    return;
  Value padded = padByIndex(ctx, ctx.castTo(self, type.getElementType()), pad,
                            mode, padName);
  if (ctx.ok())
    ctx.setResult(padded);
}

/// A 1-D window argument: one entry (or none, for a stride that defaults to
/// the kernel).
std::optional<int64_t> single(NodeContext &ctx, StringRef name,
                              ArrayRef<int64_t> values,
                              std::optional<int64_t> empty = std::nullopt) {
  if (values.empty() && empty)
    return empty;
  if (values.size() != 1) {
    ctx.fail("argument '" + name + "' has " + Twine(values.size()) +
             " entries; expected 1");
    return std::nullopt;
  }
  return values.front();
}

/// The input of a pooling along the last dim, as the 2-D ops take it:
/// [N, C, L] or [C, L] with a row dim of 1 before L.
Value pooledRows(NodeContext &ctx, RankedTensorType type) {
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return {};
  int64_t rank = typeOf(self).getRank();
  if (rank != 2 && rank != 3) {
    ctx.fail("input has rank " + Twine(rank) +
             "; expected [C, L] or [N, C, L]");
    return {};
  }
  return withUnitRow(ctx, ctx.castTo(self, type.getElementType()));
}

/// The window of a pooling along the last dim, as the 2-D ops' attributes
/// with a row of 1.
struct Window1d {
  DenseI64ArrayAttr kernel, stride, padding, dilation;
};

std::optional<Window1d> readWindow1d(NodeContext &ctx, bool hasDilation) {
  std::optional<int64_t> kernel =
      single(ctx, "kernel_size", ctx.integers("kernel_size"));
  std::optional<int64_t> stride =
      single(ctx, "stride", ctx.integers("stride"), kernel.value_or(1));
  std::optional<int64_t> padding =
      single(ctx, "padding", ctx.integers("padding"));
  std::optional<int64_t> dilation =
      hasDilation ? single(ctx, "dilation", ctx.integers("dilation"))
                  : std::optional<int64_t>(1);
  if (!ctx.ok())
    return std::nullopt;
  auto pair = [&](int64_t row, int64_t v) {
    return ctx.builder.getDenseI64ArrayAttr({row, v});
  };
  return Window1d{pair(1, *kernel), pair(1, *stride), pair(0, *padding),
                  pair(1, *dilation)};
}

RankedTensorType withUnitRow(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.end() - 1, 1);
  return type.clone(shape);
}

/// The maxima of the adaptive windows along `dim`: window i covers
/// [floor(i·n/out), ceil((i+1)·n/out)).
Value adaptiveMax(NodeContext &ctx, Value x, int64_t dim, int64_t out) {
  int64_t n = typeOf(x).getDimSize(dim);
  if (out == n)
    return x;
  SmallVector<Value> windows;
  for (int64_t i = 0; i < out; ++i) {
    int64_t start = (i * n) / out, end = ((i + 1) * n + out - 1) / out;
    windows.push_back(
        reduce<AmaxOp>(ctx, slice(ctx, x, dim, start, end), {dim}, true));
  }
  if (windows.size() == 1)
    return windows.front();
  return cat(ctx, windows, dim);
}

} // namespace

void duet::import::buildRoll(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> shifts = ctx.integers("shifts");
  SmallVector<int64_t> dims = ctx.integers("dims");
  if (!ctx.ok())
    return;
  if (dims.empty()) {
    if (shifts.size() != 1)
      return ctx.fail("roll without dims takes one shift, got " +
                      Twine(shifts.size()));
    Value flat = view(ctx, self, {typeOf(self).getNumElements()});
    return ctx.setResult(
        view(ctx, rollDim(ctx, flat, 0, shifts[0]), type.getShape()));
  }
  if (shifts.size() != dims.size())
    return ctx.fail("roll has " + Twine(shifts.size()) + " shifts for " +
                    Twine(dims.size()) + " dims");
  Value x = self;
  for (auto [shift, dim] : llvm::zip(shifts, dims)) {
    int64_t d = ctx.existingDim(dim, typeOf(x).getRank());
    if (!ctx.ok())
      return;
    x = rollDim(ctx, x, d, shift);
  }
  ctx.setResult(x);
}

void duet::import::buildFlip(NodeContext &ctx) {
  Value self = ctx.tensor("self");
  SmallVector<int64_t> dims = ctx.integers("dims");
  if (!ctx.ok())
    return;
  Value x = self;
  for (int64_t dim : dims) {
    int64_t d = ctx.existingDim(dim, typeOf(x).getRank());
    if (!ctx.ok())
      return;
    int64_t n = typeOf(x).getDimSize(d);
    if (!checkIndexCount(ctx, n, "flip"))
      return;
    SmallVector<int64_t> index(n);
    for (int64_t i = 0; i < n; ++i)
      index[i] = n - 1 - i;
    if (n > 1)
      x = selectIndices(ctx, x, d, index);
  }
  ctx.setResult(x);
}

void duet::import::buildUnfold(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t dimension = ctx.integer("dimension");
  int64_t size = ctx.integer("size"), step = ctx.integer("step");
  if (!ctx.ok())
    return;
  int64_t rank = typeOf(self).getRank();
  if (rank == 0) {
    // A 0-d tensor unfolds as PyTorch's does: one window of its one element
    // (size 1), or none (size 0).
    ctx.normalizeDim(dimension, rank, "dimension");
    if (ctx.ok() && (size < 0 || size > 1 || step < 1))
      return ctx.fail("unfold of a 0-d tensor takes size 0 or 1 and a "
                      "positive step; got size " +
                      Twine(size) + ", step " + Twine(step));
    if (ctx.ok() && type.getNumElements() != size)
      return ctx.fail("unfold's recorded result type does not match its "
                      "windows");
    if (!ctx.ok())
      return;
    return ctx.setResult(size == 1 ? view(ctx, self, type.getShape())
                                   : ctx.splat(type, Scalar{true, 0, 0}));
  }
  int64_t d = ctx.normalizeDim(dimension, rank, "dimension");
  if (!ctx.ok())
    return;
  int64_t length = typeOf(self).getDimSize(d);
  if (size < 0 || size > length || step < 1)
    return ctx.fail("unfold of size " + Twine(size) + " and step " +
                    Twine(step) + " does not fit dim " + Twine(d) +
                    " of size " + Twine(length));
  int64_t windows = (length - size) / step + 1;
  if (!checkIndexCount(ctx, windows * size, "unfold"))
    return;
  SmallVector<int64_t> index;
  for (int64_t w = 0; w < windows; ++w)
    for (int64_t j = 0; j < size; ++j)
      index.push_back(w * step + j);
  Value picked = selectIndices(ctx, self, d, index);
  SmallVector<int64_t> split(typeOf(self).getShape());
  split[d] = windows;
  split.insert(split.begin() + d + 1, size);
  Value windowed = view(ctx, picked, split);
  // The window's elements become the last dim.
  SmallVector<int64_t> order;
  for (int64_t i = 0; i <= rank; ++i)
    if (i != d + 1)
      order.push_back(i);
  order.push_back(d + 1);
  Value result = permute(ctx, windowed, order);
  if (ctx.ok() && typeOf(result) != type)
    return ctx.fail("unfold's recorded result type does not match its "
                    "windows");
  ctx.setResult(result);
}

void duet::import::buildIm2col(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> kernel = ctx.integers("kernel_size");
  SmallVector<int64_t> dilation = ctx.integers("dilation");
  SmallVector<int64_t> padding = ctx.integers("padding");
  SmallVector<int64_t> stride = ctx.integers("stride");
  if (!ctx.ok())
    return;
  if (!asPairs(ctx, {{"kernel_size", &kernel},
                     {"dilation", &dilation},
                     {"padding", &padding},
                     {"stride", &stride}}))
    return;
  if (!checkWindowArguments(ctx, {kernel, dilation, padding, stride}))
    return;
  int64_t rank = typeOf(self).getRank();
  if (rank != 3 && rank != 4)
    return ctx.fail("input has rank " + Twine(rank) +
                    "; expected [C, H, W] or [N, C, H, W]");
  Type element = type.getElementType();
  Value x = ctx.castTo(self, element);
  ArrayRef<int64_t> in = typeOf(x).getShape();
  int64_t n = rank == 4 ? in[0] : 1, c = in[rank - 3];
  x = view(ctx, x, {n, c, in[rank - 2], in[rank - 1]});
  int64_t height = in[rank - 2] + 2 * padding[0];
  int64_t width = in[rank - 1] + 2 * padding[1];
  if (padding[0] < 0 || padding[1] < 0 || stride[0] < 1 || stride[1] < 1 ||
      dilation[0] < 1 || dilation[1] < 1 || kernel[0] < 1 || kernel[1] < 1)
    return ctx.fail("im2col needs positive kernel, stride and dilation and "
                    "non-negative padding");
  if (padding[0] || padding[1])
    x = pad(ctx, x, {padding[1], padding[1], padding[0], padding[0]});
  if (!ctx.ok())
    return;
  int64_t outH = (height - (dilation[0] * (kernel[0] - 1) + 1)) / stride[0] + 1;
  int64_t outW = (width - (dilation[1] * (kernel[1] - 1) + 1)) / stride[1] + 1;
  if (outH < 1 || outW < 1)
    return ctx.fail("im2col's kernel does not fit the padded input");
  int64_t blocks = outH * outW;
  if (!checkIndexCount(ctx, kernel[0] * kernel[1] * blocks, "im2col"))
    return;
  // Row (ki·kw + kj) of each channel holds, for every block, the element
  // that the kernel's tap (ki, kj) covers there.
  SmallVector<int64_t> index =
      tapPositions(kernel, dilation, stride, outH, outW, width);
  Value flat = view(ctx, x, {n, c, height * width});
  Value picked = selectIndices(ctx, flat, 2, index);
  Value columns = view(ctx, picked, {n, c * kernel[0] * kernel[1], blocks});
  if (ctx.ok() && typeOf(columns).getNumElements() != type.getNumElements())
    return ctx.fail("im2col's recorded result type does not match its "
                    "arguments");
  ctx.setResult(view(ctx, columns, type.getShape()));
}

void duet::import::buildPad(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> pad = ctx.integers("pad");
  std::optional<std::string> mode = ctx.optionalString("mode");
  std::optional<double> value = ctx.optionalNumber("value");
  if (!ctx.ok())
    return;
  std::string how = mode.value_or("constant");
  Value x = ctx.castTo(self, type.getElementType());
  if (how == "constant")
    return ctx.setResult(ctx.create<ConstantPadNdOp>(
        x, ctx.builder.getDenseI64ArrayAttr(pad),
        ctx.builder.getF64FloatAttr(value.value_or(0))));
  PadMode kind;
  if (how == "reflect")
    kind = PadMode::Reflect;
  else if (how == "replicate")
    kind = PadMode::Replicate;
  else if (how == "circular")
    kind = PadMode::Circular;
  else
    return ctx.fail("padding mode \"" + how +
                    "\" is not one of constant, reflect, replicate, circular");
  Value padded = padByIndex(ctx, x, pad, kind, "pad");
  if (ctx.ok())
    ctx.setResult(padded);
}

void duet::import::buildReflectionPad(NodeContext &ctx) {
  emitPadByIndex(ctx, "padding", PadMode::Reflect);
}
void duet::import::buildReplicationPad(NodeContext &ctx) {
  emitPadByIndex(ctx, "padding", PadMode::Replicate);
}
void duet::import::buildCircularPad(NodeContext &ctx) {
  emitPadByIndex(ctx, "pad", PadMode::Circular);
}

void duet::import::buildAdaptiveAvgPool1d(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value rows = pooledRows(ctx, type);
  std::optional<int64_t> size =
      single(ctx, "output_size", ctx.integers("output_size"));
  if (!ctx.ok())
    return;
  if (*size != type.getShape().back())
    return ctx.fail("argument 'output_size' does not match the recorded "
                    "output shape");
  Value pooled = ctx.create<AdaptiveAvgPool2dOp>(withUnitRow(type), rows);
  ctx.setResult(view(ctx, pooled, type.getShape()));
}

void duet::import::buildAvgPool1d(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value rows = pooledRows(ctx, type);
  std::optional<Window1d> w = readWindow1d(ctx, /*hasDilation=*/false);
  bool ceil = ctx.boolean("ceil_mode");
  bool countPad = ctx.boolean("count_include_pad");
  if (!ctx.ok())
    return;
  Value pooled = ctx.create<AvgPool2dOp>(
      rows, w->kernel, w->stride, w->padding, ctx.builder.getBoolAttr(ceil),
      ctx.builder.getBoolAttr(countPad), IntegerAttr());
  ctx.setResult(view(ctx, pooled, type.getShape()));
}

void duet::import::buildMaxPool1d(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value rows = pooledRows(ctx, type);
  std::optional<Window1d> w = readWindow1d(ctx, /*hasDilation=*/true);
  bool ceil = ctx.boolean("ceil_mode");
  if (!ctx.ok())
    return;
  Value pooled =
      ctx.create<MaxPool2dOp>(rows, w->kernel, w->stride, w->padding,
                              w->dilation, ctx.builder.getBoolAttr(ceil));
  ctx.setResult(view(ctx, pooled, type.getShape()));
  if (ctx.numResults() > 1)
    ctx.setUnavailable(1, "the indices of max pooling, which duet does not "
                          "compute");
}

namespace {

/// A 3-D pooling argument of 1 or 3 values, as 3 (`empty` when absent and
/// allowed: stride defaults to the kernel).
std::optional<std::array<int64_t, 3>>
triple(NodeContext &ctx, StringRef name, ArrayRef<int64_t> values,
       std::optional<std::array<int64_t, 3>> empty = std::nullopt) {
  if (values.empty() && empty)
    return empty;
  if (values.size() == 1)
    return std::array<int64_t, 3>{values[0], values[0], values[0]};
  if (values.size() == 3)
    return std::array<int64_t, 3>{values[0], values[1], values[2]};
  ctx.fail("argument '" + name + "' needs 1 or 3 values, got " +
           Twine(values.size()));
  return std::nullopt;
}

/// The 2-D window sizes of one pass of a separable 3-D pooling: the depth
/// `v[0]` and `one` across the flattened plane, or the height and width.
DenseI64ArrayAttr windowOf(NodeContext &ctx, const std::array<int64_t, 3> &v,
                           int64_t one, bool depth) {
  return ctx.builder.getDenseI64ArrayAttr(
      depth ? ArrayRef<int64_t>{v[0], one} : ArrayRef<int64_t>{v[1], v[2]});
}

/// A 3-D pooling as two 2-D ones, which is exact for a maximum and for an
/// average (its window and divisor are products over the three dims): over
/// (H, W) on [N, C·D, H, W], then over D on [N, C, D, H'·W'] with a window
/// one wide along the flattened plane. `pool(input, type, depth)` makes one
/// 2-D pooling, over depth or over height and width (windowOf picks its
/// sizes); `type` is its result, for the ops that state it.
template <typename PoolFn>
void emitSeparablePool3d(NodeContext &ctx, RankedTensorType type, Value self,
                         PoolFn pool) {
  int64_t rank = typeOf(self).getRank();
  if (rank != 4 && rank != 5)
    return ctx.fail("input has rank " + Twine(rank) +
                    "; expected [C, D, H, W] or [N, C, D, H, W]");
  if (type.getRank() != rank)
    return ctx.fail("the recorded output has rank " + Twine(type.getRank()) +
                    "; expected " + Twine(rank) + " as the input");
  ArrayRef<int64_t> in = typeOf(self).getShape(), out = type.getShape();
  int64_t n = rank == 5 ? in[0] : 1, c = in[rank - 4], d = in[rank - 3],
          h = in[rank - 2], w = in[rank - 1];
  int64_t od = out[rank - 3], oh = out[rank - 2], ow = out[rank - 1];
  Type element = type.getElementType();
  Value planes = view(ctx, ctx.castTo(self, element), {n, c * d, h, w});
  Value first = pool(planes, RankedTensorType::get({n, c * d, oh, ow}, element),
                     /*depth=*/false);
  if (!ctx.ok())
    return;
  Value rows = view(ctx, first, {n, c, d, oh * ow});
  Value second = pool(rows, RankedTensorType::get({n, c, od, oh * ow}, element),
                      /*depth=*/true);
  if (ctx.ok())
    ctx.setResult(view(ctx, second, out));
}

} // namespace

void duet::import::buildAvgPool3d(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  auto kernel = triple(ctx, "kernel_size", ctx.integers("kernel_size"));
  SmallVector<int64_t> strideArg = ctx.integers("stride");
  auto padding = triple(ctx, "padding", ctx.integers("padding"));
  bool ceil = ctx.boolean("ceil_mode");
  bool countPad = ctx.boolean("count_include_pad");
  std::optional<int64_t> divisor = ctx.optionalInteger("divisor_override");
  if (!ctx.ok())
    return;
  auto stride = triple(ctx, "stride", strideArg, kernel);
  if (!ctx.ok())
    return;
  if (divisor)
    return ctx.fail("avg_pool3d with divisor_override is not supported");
  emitSeparablePool3d(
      ctx, type, self, [&](Value x, RankedTensorType, bool depth) -> Value {
        auto pick = [&](const std::array<int64_t, 3> &v, int64_t one) {
          return windowOf(ctx, v, one, depth);
        };
        return ctx.create<AvgPool2dOp>(
            x, pick(*kernel, 1), pick(*stride, 1), pick(*padding, 0),
            ctx.builder.getBoolAttr(ceil), ctx.builder.getBoolAttr(countPad),
            IntegerAttr());
      });
}

void duet::import::buildMaxPool3d(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType(0);
  Value self = ctx.tensor("self");
  auto kernel = triple(ctx, "kernel_size", ctx.integers("kernel_size"));
  SmallVector<int64_t> strideArg = ctx.integers("stride");
  auto padding = triple(ctx, "padding", ctx.integers("padding"));
  auto dilation = triple(ctx, "dilation", ctx.integers("dilation"));
  bool ceil = ctx.boolean("ceil_mode");
  if (!ctx.ok())
    return;
  auto stride = triple(ctx, "stride", strideArg, kernel);
  if (!ctx.ok())
    return;
  emitSeparablePool3d(
      ctx, type, self, [&](Value x, RankedTensorType, bool depth) -> Value {
        auto pick = [&](const std::array<int64_t, 3> &v, int64_t one) {
          return windowOf(ctx, v, one, depth);
        };
        return ctx.create<MaxPool2dOp>(x, pick(*kernel, 1), pick(*stride, 1),
                                       pick(*padding, 0), pick(*dilation, 1),
                                       ctx.builder.getBoolAttr(ceil));
      });
  if (ctx.numResults() > 1)
    ctx.setUnavailable(1, "the indices of max pooling, which duet does not "
                          "compute");
}

void duet::import::buildAdaptiveAvgPool3d(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  auto size = triple(ctx, "output_size", ctx.integers("output_size"));
  if (!ctx.ok())
    return;
  ArrayRef<int64_t> out = type.getShape();
  if (out.size() < 3 || ArrayRef<int64_t>(*size) != out.take_back(3))
    return ctx.fail("argument 'output_size' does not match the recorded "
                    "output shape");
  emitSeparablePool3d(ctx, type, self,
                      [&](Value x, RankedTensorType t, bool) -> Value {
                        return ctx.create<AdaptiveAvgPool2dOp>(t, x);
                      });
}

void duet::import::buildAdaptiveMaxPool2d(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> size = ctx.integers("output_size");
  if (!ctx.ok())
    return;
  if (size.size() == 1)
    size.push_back(size.front());
  int64_t rank = typeOf(self).getRank();
  if (size.size() != 2 || (rank != 3 && rank != 4))
    return ctx.fail("adaptive_max_pool2d takes [C, H, W] or [N, C, H, W] "
                    "and two output sizes");
  if (!isa<FloatType>(type.getElementType()))
    return ctx.fail("adaptive_max_pool2d of an integer tensor is not "
                    "supported");
  if (type.getShape().take_back(2) != ArrayRef<int64_t>(size))
    return ctx.fail("argument 'output_size' does not match the recorded "
                    "output shape");
  Value x = ctx.castTo(self, type.getElementType());
  Value pooled = adaptiveMax(ctx, x, rank - 2, size[0]);
  pooled = adaptiveMax(ctx, pooled, rank - 1, size[1]);
  ctx.setResult(pooled);
  if (ctx.numResults() < 2 || !ctx.ok())
    return;
  // The indices (h·W + w in the input plane, the first maximum of each
  // window, a NaN first): the windows, padded to the largest with copies of
  // their first element (which cannot change the first maximum), gathered
  // as [..., cells·K], the argmax of each cell's K, and a constant table
  // from (cell, k) to the flat index. Pure ops, dropped when unread.
  int64_t height = typeOf(x).getDimSize(rank - 2),
          width = typeOf(x).getDimSize(rank - 1);
  auto window = [](int64_t i, int64_t in, int64_t out) {
    return std::pair<int64_t, int64_t>{i * in / out,
                                       ((i + 1) * in + out - 1) / out};
  };
  int64_t rowsMax = 0, colsMax = 0;
  for (int64_t i = 0; i < size[0]; ++i) {
    auto [b, e] = window(i, height, size[0]);
    rowsMax = std::max(rowsMax, e - b);
  }
  for (int64_t j = 0; j < size[1]; ++j) {
    auto [b, e] = window(j, width, size[1]);
    colsMax = std::max(colsMax, e - b);
  }
  int64_t k = rowsMax * colsMax;
  // The table holds K indices per output cell.
  std::optional<int64_t> entries = llvm::checkedMul(k, size[0] * size[1]);
  if (!entries || *entries > (int64_t{1} << 20))
    return ctx.setUnavailable(
        1, "the indices of adaptive max pooling whose windows hold more than "
           "2^20 input positions in all, which duet does not compute");
  SmallVector<int64_t> table;
  for (int64_t i = 0; i < size[0]; ++i) {
    auto [r0, r1] = window(i, height, size[0]);
    for (int64_t j = 0; j < size[1]; ++j) {
      auto [c0, c1] = window(j, width, size[1]);
      for (int64_t r = 0; r < rowsMax; ++r)
        for (int64_t c = 0; c < colsMax; ++c)
          table.push_back(r0 + r < r1 && c0 + c < c1 ? (r0 + r) * width + c0 + c
                                                     : r0 * width + c0);
    }
  }
  SmallVector<int64_t> plane(typeOf(x).getShape().drop_back(2));
  plane.push_back(height * width);
  Value windows = indexSelect(ctx, view(ctx, x, plane),
                              indexConstant(ctx, table), rank - 2);
  SmallVector<int64_t> cells(type.getShape());
  cells.push_back(k);
  Value local = argmaxLastDim(ctx, view(ctx, windows, cells));
  // table[cell·K + k], with cell·K a constant per cell.
  SmallVector<int64_t> firsts;
  for (int64_t cell = 0; cell < size[0] * size[1]; ++cell)
    firsts.push_back(cell * k);
  Value position =
      add(ctx, view(ctx, local, type.getShape()),
          view(ctx, indexConstant(ctx, firsts), {size[0], size[1]}));
  Value flat = indexSelect(ctx, indexConstant(ctx, table),
                           view(ctx, position, {type.getNumElements()}), 0);
  RankedTensorType indexType = ctx.resultType(1);
  if (ctx.ok())
    ctx.setResult(1, ctx.castTo(view(ctx, flat, type.getShape()),
                                indexType.getElementType()));
}

void duet::import::buildRepeatInterleave(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t repeats = ctx.integer("repeats");
  std::optional<int64_t> dim = ctx.optionalInteger("dim");
  if (!ctx.ok())
    return;
  if (repeats < 0)
    return ctx.fail("argument 'repeats' is negative");
  Value x = self;
  int64_t d = 0;
  if (!dim)
    x = view(ctx, x, {typeOf(x).getNumElements()});
  else
    d = ctx.existingDim(*dim, typeOf(x).getRank());
  if (!ctx.ok())
    return;
  SmallVector<int64_t> shape(typeOf(x).getShape());
  shape.insert(shape.begin() + d + 1, 1);
  Value unit = view(ctx, x, shape);
  shape[d + 1] = repeats;
  Value expanded = ctx.create<ExpandOp>(typeOf(x).clone(shape), unit);
  ctx.setResult(view(ctx, expanded, type.getShape()));
}

/// tril and triu: the elements on and below (above) diagonal k of the last
/// two dims, the others 0. The mask compares col - row with k, from two index
/// constants of R and C elements rather than an [R, C] table.
void duet::import::buildTriangle(NodeContext &ctx, bool lower) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t diagonal = ctx.integer("diagonal");
  if (!ctx.ok())
    return;
  int64_t rank = typeOf(self).getRank();
  if (rank < 2)
    return ctx.fail(Twine(lower ? "tril" : "triu") + " of a rank-" +
                    Twine(rank) + " tensor; it needs 2 dims or more");
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  SmallVector<int64_t> rowIndex, colIndex;
  for (int64_t i = 0; i < rows; ++i)
    rowIndex.push_back(i);
  for (int64_t j = 0; j < cols; ++j)
    colIndex.push_back(j);
  Value offset = sub(ctx, view(ctx, indexConstant(ctx, colIndex), {1, cols}),
                     view(ctx, indexConstant(ctx, rowIndex), {rows, 1}));
  Value k = integerOf(ctx, ctx.builder.getI64Type(), diagonal);
  Value keep = lower ? Value(ctx.create<LeOp>(offset, k))
                     : Value(ctx.create<GeOp>(offset, k));
  Type element = type.getElementType();
  Value zero =
      ctx.splat(RankedTensorType::get({}, element), Scalar{true, 0, 0});
  ctx.setResult(ctx.create<WhereOp>(keep, ctx.castTo(self, element), zero));
}

/// pixel_shuffle (r > 0: [*, C·r², H, W] to [*, C, H·r, W·r]) and
/// pixel_unshuffle (the reverse): a view, a permute and a view.
void duet::import::buildPixelShuffle(NodeContext &ctx, bool shuffle) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t r = ctx.integer(shuffle ? "upscale_factor" : "downscale_factor");
  if (!ctx.ok())
    return;
  RankedTensorType in = typeOf(self);
  int64_t rank = in.getRank();
  if (rank < 3 || r <= 0)
    return ctx.fail(Twine(shuffle ? "pixel_shuffle" : "pixel_unshuffle") +
                    " needs a tensor of rank 3 or more and a positive factor");
  ArrayRef<int64_t> lead = in.getShape().drop_back(3);
  int64_t c = in.getDimSize(rank - 3), h = in.getDimSize(rank - 2),
          w = in.getDimSize(rank - 1);
  int64_t n = static_cast<int64_t>(lead.size());
  SmallVector<int64_t> split(lead), order;
  for (int64_t d = 0; d < n; ++d)
    order.push_back(d);
  if (shuffle) {
    if (c % (r * r) != 0)
      return ctx.fail("pixel_shuffle: " + Twine(c) +
                      " channels do not divide by the factor squared");
    split.append({c / (r * r), r, r, h, w});
    // [C, r1, r2, H, W] -> [C, H, r1, W, r2]
    for (int64_t d : {0, 3, 1, 4, 2})
      order.push_back(n + d);
  } else {
    if (h % r != 0 || w % r != 0)
      return ctx.fail("pixel_unshuffle: height and width do not divide by "
                      "the factor");
    split.append({c, h / r, r, w / r, r});
    // [C, H, r1, W, r2] -> [C, r1, r2, H, W]
    for (int64_t d : {0, 2, 4, 1, 3})
      order.push_back(n + d);
  }
  Value moved = permute(ctx, view(ctx, self, split), order);
  if (ctx.ok())
    ctx.setResult(view(ctx, moved, type.getShape()));
}

/// histc: counts of the elements in `bins` equal bins over [min, max] (the
/// data's own range when min == max, widened by 1 each way when that is one
/// value), an element equal to max in the last bin, elements outside and NaN
/// not counted. The bin is PyTorch's: (x - min) · bins / (max - min) in the
/// input's type, truncated. One scatter-add of ones over bins + 1 counters,
/// the last taking the uncounted elements, then that one cut.
void duet::import::buildHistc(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t bins = ctx.integer("bins");
  double low = ctx.number("min"), high = ctx.number("max");
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return ctx.fail("histc of an integer tensor; PyTorch counts floats only");
  if (bins <= 0 || type.getRank() != 1 || type.getDimSize(0) != bins)
    return ctx.fail("argument 'bins' is " + Twine(bins) +
                    "; it must be positive and the result's size");
  if (low > high)
    return ctx.fail("argument 'max' is below argument 'min'");
  int64_t n = typeOf(self).getNumElements();
  if (!checkIndexCount(ctx, n, "histc"))
    return;
  Value x = view(ctx, ctx.castTo(self, element), {n});
  Value lo, hi;
  if (low == high) {
    Value top = extremum(ctx, x, {}, false, /*largest=*/true);
    Value bottom = extremum(ctx, x, {}, false, /*largest=*/false);
    Value same = ctx.create<EqOp>(bottom, top);
    lo = ctx.create<WhereOp>(same, sub(ctx, bottom, realOf(ctx, element, 1.0)),
                             bottom);
    hi = ctx.create<WhereOp>(same, add(ctx, top, realOf(ctx, element, 1.0)),
                             top);
  } else {
    lo = realOf(ctx, element, low);
    hi = realOf(ctx, element, high);
  }
  Value position = div(ctx,
                       mul(ctx, sub(ctx, x, lo),
                           realOf(ctx, element, static_cast<double>(bins))),
                       sub(ctx, hi, lo));
  Type i64 = ctx.builder.getI64Type();
  Value bin = ctx.castTo(ctx.create<TruncOp>(typeOf(position), position), i64);
  bin = ctx.create<MinimumOp>(bin, integerOf(ctx, i64, bins - 1));
  // Below min, above max or NaN: the extra counter.
  Value inside = ctx.create<LogicalAndOp>(ctx.create<GeOp>(x, lo),
                                          ctx.create<LeOp>(x, hi));
  Value index = ctx.create<WhereOp>(inside, bin, integerOf(ctx, i64, bins));
  Value ones =
      ctx.splat(RankedTensorType::get({n}, element), Scalar{true, 1, 1});
  Value zeros =
      ctx.splat(RankedTensorType::get({bins + 1}, element), Scalar{true, 0, 0});
  Value counts = ctx.create<ScatterOp>(
      zeros, index, ones, ctx.builder.getI64IntegerAttr(0),
      ScatterReduceAttr::get(ctx.builder.getContext(), ScatterReduce::sum),
      ctx.builder.getBoolAttr(true));
  ctx.setResult(slice(ctx, counts, 0, 0, bins));
}

/// _embedding_bag (and _embedding_bag_forward_only): the rows of `weight`
/// that 1-D `indices` picks, summed, averaged or maxed per bag, bag i holding
/// positions [offsets[i], offsets[i + 1]). Each position's bag is the number
/// of offsets at or below it, less one, computed from the offsets tensor;
/// positions of padding_idx (and any before offsets[0]) go to an extra bag
/// that is cut at the end, and an empty bag is 0, as in PyTorch. One
/// scatter of the picked rows (times per_sample_weights in sum mode).
void duet::import::buildEmbeddingBag(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value weight = ctx.tensor("weight"), indices = ctx.tensor("indices"),
        offsets = ctx.tensor("offsets");
  int64_t mode = ctx.integer("mode");
  Value perSample = ctx.optionalTensor("per_sample_weights");
  bool includeLast = ctx.boolean("include_last_offset");
  int64_t paddingIdx = ctx.integer("padding_idx");
  if (!ctx.ok())
    return;
  RankedTensorType weightType = typeOf(weight);
  if (weightType.getRank() != 2 || typeOf(indices).getRank() != 1 ||
      typeOf(offsets).getRank() != 1 || type.getRank() != 2)
    return ctx.fail("embedding_bag takes a 2-D weight, 1-D indices and 1-D "
                    "offsets (a 2-D input is flattened by F.embedding_bag)");
  if (mode < 0 || mode > 2)
    return ctx.fail("argument 'mode' is " + Twine(mode) +
                    "; embedding_bag's modes are 0 (sum), 1 (mean), 2 (max)");
  if (perSample && mode != 0)
    return ctx.fail("per_sample_weights are taken in sum mode only");
  int64_t n = typeOf(indices).getDimSize(0);
  int64_t given = typeOf(offsets).getDimSize(0);
  int64_t bags = includeLast ? given - 1 : given;
  int64_t width = weightType.getDimSize(1);
  if (bags < 0 || type.getDimSize(0) != bags || type.getDimSize(1) != width)
    return ctx.fail("embedding_bag's result does not have one row per bag");
  if (!checkIndexCount(ctx, n * std::max<int64_t>(bags, 1), "embedding_bag"))
    return;
  // Half types are weighted and combined in float32 and rounded once, as
  // PyTorch's kernel accumulates.
  Type element = type.getElementType();
  if (element.isF16() || element.isBF16())
    element = ctx.builder.getF32Type();
  Type i64 = ctx.builder.getI64Type();
  if (n == 0 || bags == 0)
    return ctx.setResult(ctx.splat(type, Scalar{true, 0, 0}));
  SmallVector<int64_t> positions;
  for (int64_t j = 0; j < n; ++j)
    positions.push_back(j);
  Value firstOffsets = ctx.castTo(offsets, i64);
  if (includeLast)
    firstOffsets = slice(ctx, firstOffsets, 0, 0, bags);
  Value started =
      ctx.create<LeOp>(view(ctx, firstOffsets, {1, bags}),
                       view(ctx, indexConstant(ctx, positions), {n, 1}));
  Value count = reduce<SumOp>(ctx, ctx.castTo(started, i64), {1}, false);
  Value bag = sub(ctx, count, integerOf(ctx, i64, 1));
  Value skipped = ctx.create<LtOp>(bag, integerOf(ctx, i64, 0));
  Value ids = ctx.castTo(indices, i64);
  if (paddingIdx >= 0)
    skipped = ctx.create<LogicalOrOp>(
        skipped, ctx.create<EqOp>(ids, integerOf(ctx, i64, paddingIdx)));
  Value target = ctx.create<WhereOp>(skipped, integerOf(ctx, i64, bags), bag);
  Value rows = ctx.create<EmbeddingOp>(ctx.castTo(weight, element), ids);
  if (perSample)
    rows = mul(ctx, rows, view(ctx, ctx.castTo(perSample, element), {n, 1}));
  Value where = ctx.create<ExpandOp>(RankedTensorType::get({n, width}, i64),
                                     view(ctx, target, {n, 1}));
  Value zeros = ctx.splat(RankedTensorType::get({bags + 1, width}, element),
                          Scalar{true, 0, 0});
  ScatterReduce how = mode == 0   ? ScatterReduce::sum
                      : mode == 1 ? ScatterReduce::mean
                                  : ScatterReduce::amax;
  Value combined = ctx.create<ScatterOp>(
      zeros, where, rows, ctx.builder.getI64IntegerAttr(0),
      ScatterReduceAttr::get(ctx.builder.getContext(), how),
      ctx.builder.getBoolAttr(mode == 0));
  ctx.setResult(
      ctx.castTo(slice(ctx, combined, 0, 0, bags), type.getElementType()));
  for (size_t i = 1; i < ctx.numResults(); ++i)
    ctx.setUnavailable(i, "the bag bookkeeping embedding_bag returns for its "
                          "backward pass, which duet does not compute");
}

void duet::import::buildTile(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> dims = ctx.integers("dims");
  if (!ctx.ok())
    return;
  int64_t rank = typeOf(self).getRank();
  while (static_cast<int64_t>(dims.size()) < rank)
    dims.insert(dims.begin(), 1);
  if (typeOf(self) == type)
    return ctx.setResult(self);
  ctx.setResult(
      ctx.create<RepeatOp>(self, ctx.builder.getDenseI64ArrayAttr(dims)));
}

void duet::import::buildNarrow(NodeContext &ctx) {
  Value self = ctx.tensor("self");
  int64_t dim = ctx.integer("dim");
  int64_t start = ctx.integer("start"), length = ctx.integer("length");
  if (!ctx.ok())
    return;
  int64_t rank = typeOf(self).getRank();
  dim = ctx.existingDim(dim, rank);
  if (!ctx.ok())
    return;
  int64_t size = typeOf(self).getDimSize(dim);
  if (start < 0)
    start += size;
  // start is within [0, size] before size - start is taken: no overflow.
  if (start < 0 || start > size || length < 0 || length > size - start)
    return ctx.fail("narrow from " + Twine(start) + " of length " +
                    Twine(length) + " leaves dim " + Twine(dim) + " of size " +
                    Twine(size));
  if (start == 0 && length == size)
    return ctx.setResult(self);
  ctx.setResult(slice(ctx, self, dim, start, start + length));
}

void duet::import::emitSliceScatter(NodeContext &ctx, Value self, Value src,
                                    int64_t dim, int64_t start, int64_t step) {
  RankedTensorType type = ctx.resultType();
  if (!ctx.ok())
    return;
  Type element = type.getElementType();
  self = ctx.castTo(self, element);
  src = ctx.castTo(src, element);
  if (!ctx.ok())
    return;
  if (typeOf(src).getRank() != typeOf(self).getRank())
    return ctx.fail("the scattered src has rank " +
                    Twine(typeOf(src).getRank()) + " and self rank " +
                    Twine(typeOf(self).getRank()) + "; they must match");
  int64_t n = typeOf(self).getDimSize(dim);
  int64_t count = typeOf(src).getDimSize(dim);
  if (count == 0)
    return ctx.setResult(self);
  // The last written position, start + (count - 1) * step, checked: step
  // comes from the file.
  std::optional<int64_t> last = llvm::checkedMul<int64_t>(count - 1, step);
  if (last)
    last = llvm::checkedAdd<int64_t>(start, *last);
  if (start < 0 || step < 1 || !last || *last >= n)
    return ctx.fail("the scattered slice from " + Twine(start) + " by " +
                    Twine(step) + " of " + Twine(count) +
                    " elements does not fit dim " + Twine(dim) + " of size " +
                    Twine(n));
  if (!checkIndexCount(ctx, n, "slice_scatter"))
    return;
  Value both = cat(ctx, ValueRange{self, src}, dim);
  SmallVector<int64_t> index(n);
  for (int64_t i = 0; i < n; ++i)
    index[i] = i;
  for (int64_t j = 0; j < count; ++j)
    index[start + j * step] = n + j;
  ctx.setResult(selectIndices(ctx, both, dim, index));
}

void duet::import::buildSliceScatter(NodeContext &ctx) {
  Value self = ctx.tensor("self"), src = ctx.tensor("src");
  int64_t dim = ctx.integer("dim");
  std::optional<int64_t> start = ctx.optionalInteger("start");
  int64_t step = ctx.integer("step");
  if (!ctx.ok())
    return;
  int64_t d = ctx.existingDim(dim, typeOf(self).getRank());
  if (!ctx.ok())
    return;
  int64_t n = typeOf(self).getDimSize(d);
  int64_t first = start.value_or(0);
  if (first < 0)
    first = std::max<int64_t>(first + n, 0);
  emitSliceScatter(ctx, self, src, d, std::min(first, n), step);
}

void duet::import::buildSelectScatter(NodeContext &ctx) {
  Value self = ctx.tensor("self"), src = ctx.tensor("src");
  int64_t dim = ctx.integer("dim"), index = ctx.integer("index");
  if (!ctx.ok())
    return;
  int64_t d = ctx.existingDim(dim, typeOf(self).getRank());
  if (!ctx.ok())
    return;
  int64_t n = typeOf(self).getDimSize(d);
  if (index < -n || index >= n)
    return ctx.fail("index " + Twine(index) + " is out of range for size " +
                    Twine(n));
  SmallVector<int64_t> shape(typeOf(src).getShape());
  shape.insert(shape.begin() + d, 1);
  emitSliceScatter(ctx, self, view(ctx, src, shape), d,
                   index < 0 ? index + n : index, 1);
}

void duet::import::buildCol2im(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  SmallVector<int64_t> size = ctx.integers("output_size");
  SmallVector<int64_t> kernel = ctx.integers("kernel_size");
  SmallVector<int64_t> dilation = ctx.integers("dilation");
  SmallVector<int64_t> padding = ctx.integers("padding");
  SmallVector<int64_t> stride = ctx.integers("stride");
  if (!ctx.ok())
    return;
  if (!asPairs(ctx, {{"output_size", &size},
                     {"kernel_size", &kernel},
                     {"dilation", &dilation},
                     {"padding", &padding},
                     {"stride", &stride}}))
    return;
  if (!checkWindowArguments(ctx, {size, kernel, dilation, padding, stride}))
    return;
  if (type.getRank() < 2 || type.getShape().take_back(2) != ArrayRef(size))
    return ctx.fail("argument 'output_size' does not match the recorded "
                    "output shape");
  if (padding[0] < 0 || padding[1] < 0 || stride[0] < 1 || stride[1] < 1 ||
      dilation[0] < 1 || dilation[1] < 1 || kernel[0] < 1 || kernel[1] < 1 ||
      size[0] < 1 || size[1] < 1)
    return ctx.fail("col2im needs positive sizes, kernel, stride and "
                    "dilation and non-negative padding");
  int64_t rank = typeOf(self).getRank();
  if (rank != 2 && rank != 3)
    return ctx.fail("input has rank " + Twine(rank) +
                    "; expected [C·kh·kw, L] or [N, C·kh·kw, L]");
  ArrayRef<int64_t> in = typeOf(self).getShape();
  int64_t n = rank == 3 ? in[0] : 1, rows = in[rank - 2], blocks = in[rank - 1];
  int64_t taps = kernel[0] * kernel[1];
  int64_t height = size[0] + 2 * padding[0], width = size[1] + 2 * padding[1];
  int64_t outH = (height - (dilation[0] * (kernel[0] - 1) + 1)) / stride[0] + 1;
  int64_t outW = (width - (dilation[1] * (kernel[1] - 1) + 1)) / stride[1] + 1;
  std::optional<int64_t> planeBlocks = llvm::checkedMul(outH, outW);
  if (rows % taps != 0 || outH < 1 || outW < 1 || planeBlocks != blocks)
    return ctx.fail(
        "col2im's input [" + Twine(rows) + ", " + Twine(blocks) +
        "] does not hold " + Twine(taps) + " kernel taps by " +
        Twine(std::max<int64_t>(outH, 0) * std::max<int64_t>(outW, 0)) +
        " blocks of the padded output");
  int64_t c = rows / taps;
  if (c == 0 || n == 0)
    return ctx.setResult(ctx.splat(type, Scalar{true, 0, 0}));
  // taps <= rows, and rows x blocks elements are the input's.
  if (!checkIndexCount(ctx, taps * blocks, "col2im"))
    return;
  // F.fold sums each column's taps into the padded output where im2col read
  // them: one scatter-add along the flattened plane, then the padding cut.
  SmallVector<int64_t> index =
      tapPositions(kernel, dilation, stride, outH, outW, width);
  Type element = type.getElementType();
  Value columns = view(ctx, ctx.castTo(self, element), {n, c, taps * blocks});
  Value line = view(ctx, indexConstant(ctx, index), {1, 1, taps * blocks});
  Value where =
      ctx.create<ExpandOp>(typeOf(line).clone({n, c, taps * blocks}), line);
  Value zeros =
      ctx.splat(RankedTensorType::get({n, c, height * width}, element),
                Scalar{true, 0, 0});
  Value summed = ctx.create<ScatterOp>(
      zeros, where, columns, ctx.builder.getI64IntegerAttr(2),
      ScatterReduceAttr::get(ctx.builder.getContext(), ScatterReduce::sum),
      ctx.builder.getBoolAttr(true));
  Value plane = view(ctx, summed, {n, c, height, width});
  if (padding[0])
    plane = slice(ctx, plane, 2, padding[0], padding[0] + size[0]);
  if (padding[1])
    plane = slice(ctx, plane, 3, padding[1], padding[1] + size[1]);
  ctx.setResult(view(ctx, plane, type.getShape()));
}

void duet::import::buildMaskedScatter(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self"), mask = ctx.tensor("mask"),
        source = ctx.tensor("source");
  if (!ctx.ok())
    return;
  if (!typeOf(mask).getElementType().isInteger(1))
    return ctx.fail("argument 'mask' must be a boolean tensor");
  int64_t n = type.getNumElements(),
          available = typeOf(source).getNumElements();
  if (n == 0)
    return ctx.setResult(operandAs(ctx, self, type));
  if (available == 0)
    return ctx.fail("argument 'source' is empty; masked_scatter reads one "
                    "element of it per true element of the mask");
  // The k-th true element of the mask (in row-major order) takes source's
  // k-th element: k is the running count of true elements, less one.
  Value full = ctx.create<ExpandOp>(type.clone(ctx.builder.getI1Type()), mask);
  Value flat = view(ctx, full, {n});
  Type i64 = ctx.builder.getI64Type();
  Value counts = ctx.create<CumsumOp>(RankedTensorType::get({n}, i64),
                                      ctx.castTo(flat, i64),
                                      ctx.builder.getI64IntegerAttr(0));
  Value positions = ctx.create<MaximumOp>(
      sub(ctx, counts, integerOf(ctx, i64, 1)), integerOf(ctx, i64, 0));
  Value values =
      ctx.castTo(view(ctx, source, {available}), type.getElementType());
  // A mask with more true elements than source holds reads past its end:
  // the gather's bounds check refuses that run, as PyTorch does.
  Value gathered = indexSelect(ctx, values, positions, 0);
  ctx.setResult(ctx.create<WhereOp>(full, view(ctx, gathered, type.getShape()),
                                    operandAs(ctx, self, type)));
}

void duet::import::buildDiagonal(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  Value self = ctx.tensor("self");
  int64_t offset = ctx.integer("offset");
  int64_t dim1 = ctx.integer("dim1"), dim2 = ctx.integer("dim2");
  if (!ctx.ok())
    return;
  int64_t rank = typeOf(self).getRank();
  int64_t a = ctx.normalizeDim(dim1, rank, "dim1");
  int64_t b = ctx.normalizeDim(dim2, rank, "dim2");
  if (!ctx.ok())
    return;
  if (a == b)
    return ctx.fail("diagonal's dim1 and dim2 are both " + Twine(a));
  // The two dims move last, flattened; the diagonal is a gather of them.
  SmallVector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d)
    if (d != a && d != b)
      order.push_back(d);
  order.push_back(a);
  order.push_back(b);
  Value moved = permute(ctx, self, order);
  SmallVector<int64_t> shape(typeOf(moved).getShape());
  int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  shape.pop_back();
  shape.back() = rows * cols;
  Value flat = view(ctx, moved, shape);
  SmallVector<int64_t> index;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t j = i + offset;
    if (j >= 0 && j < cols)
      index.push_back(i * cols + j);
  }
  if (!checkIndexCount(ctx, static_cast<int64_t>(index.size()), "diagonal"))
    return;
  Value picked = selectIndices(ctx, flat, rank - 2, index);
  if (ctx.ok() && typeOf(picked).getShape() != type.getShape())
    return ctx.fail("diagonal's recorded result type does not match");
  ctx.setResult(picked);
}

void duet::import::buildMeshgrid(NodeContext &ctx) {
  SmallVector<Value> tensors = ctx.tensorList("tensors");
  std::optional<std::string> indexing = ctx.optionalString("indexing");
  if (!ctx.ok())
    return;
  std::string how = indexing.value_or("ij");
  if (how != "ij" && how != "xy")
    return ctx.fail("argument 'indexing' is \"" + how +
                    "\"; expected \"ij\" or \"xy\"");
  if (tensors.size() != ctx.numResults())
    return ctx.fail("meshgrid of " + Twine(tensors.size()) +
                    " tensors records " + Twine(ctx.numResults()) + " outputs");
  // "xy" swaps the first two dims of the grid (Cartesian indexing).
  size_t n = tensors.size();
  SmallVector<int64_t> axis(n);
  for (size_t i = 0; i < n; ++i)
    axis[i] = static_cast<int64_t>(i);
  if (how == "xy" && n >= 2)
    std::swap(axis[0], axis[1]);
  for (size_t i = 0; i < n; ++i) {
    RankedTensorType type = ctx.resultType(i);
    if (!ctx.ok())
      return;
    if (typeOf(tensors[i]).getRank() > 1)
      return ctx.fail("meshgrid takes 0-d or 1-D tensors; operand " + Twine(i) +
                      " has rank " + Twine(typeOf(tensors[i]).getRank()));
    SmallVector<int64_t> shape(type.getRank(), 1);
    if (axis[i] >= type.getRank() ||
        type.getDimSize(axis[i]) != typeOf(tensors[i]).getNumElements())
      return ctx.fail("meshgrid's recorded output " + Twine(i) +
                      " does not match its operands");
    shape[axis[i]] = type.getDimSize(axis[i]);
    Value line =
        view(ctx, ctx.castTo(tensors[i], type.getElementType()), shape);
    ctx.setResult(i, typeOf(line) == type
                         ? line
                         : Value(ctx.create<ExpandOp>(type, line)));
  }
}

//===----------------------------------------------------------------------===//
// einsum
//===----------------------------------------------------------------------===//

namespace {

/// One operand of an einsum: its value and one label per dim.
struct Term {
  Value value;
  std::string labels;
};

/// The labels of `spec` for a tensor of `rank`, its "..." replaced by the
/// last `rank - letters` of `ellipsis` (the broadcast dims, right-aligned).
std::optional<std::string> expandEllipsis(NodeContext &ctx, StringRef spec,
                                          int64_t rank, StringRef ellipsis) {
  size_t at = spec.find("...");
  if (at == StringRef::npos) {
    if (static_cast<int64_t>(spec.size()) != rank) {
      ctx.fail("einsum term '" + spec + "' has " + Twine(spec.size()) +
               " labels for an operand of rank " + Twine(rank));
      return std::nullopt;
    }
    return spec.str();
  }
  int64_t named = static_cast<int64_t>(spec.size()) - 3;
  int64_t broadcast = rank - named;
  if (broadcast < 0 || broadcast > static_cast<int64_t>(ellipsis.size())) {
    ctx.fail("einsum term '" + spec + "' does not fit an operand of rank " +
             Twine(rank));
    return std::nullopt;
  }
  return (spec.take_front(at) + ellipsis.take_back(broadcast) +
          spec.drop_front(at + 3))
      .str();
}

int64_t product(ArrayRef<int64_t> sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// `term` with the dims whose labels are not in `keep` summed away.
Term sumOutside(NodeContext &ctx, Term term, StringRef keep) {
  SmallVector<int64_t> dims;
  std::string kept;
  for (auto [d, label] : llvm::enumerate(term.labels)) {
    if (keep.contains(label))
      kept.push_back(label);
    else
      dims.push_back(static_cast<int64_t>(d));
  }
  if (dims.empty())
    return term;
  return {reduce<SumOp>(ctx, term.value, dims, false), kept};
}

/// `term` permuted to the label order `order` (a permutation of its own).
Value ordered(NodeContext &ctx, const Term &term, StringRef order) {
  SmallVector<int64_t> dims;
  for (char label : order)
    dims.push_back(static_cast<int64_t>(term.labels.find(label)));
  return permute(ctx, term.value, dims);
}

} // namespace

void duet::import::buildEinsum(NodeContext &ctx) {
  RankedTensorType type = ctx.resultType();
  std::optional<std::string> equation = ctx.optionalString("equation");
  SmallVector<Value> operands = ctx.tensorList("tensors");
  if (!ctx.ok())
    return;
  if (!isa<FloatType>(type.getElementType()))
    return ctx.fail("einsum of integer tensors is not supported");
  std::string eq;
  for (char c : equation.value_or(""))
    if (c != ' ')
      eq.push_back(c);
  StringRef text(eq);
  auto [inputs, output] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<StringRef> specs;
  inputs.split(specs, ',');
  if (specs.size() != operands.size() || operands.empty() ||
      operands.size() > 2)
    return ctx.fail("einsum '" + eq + "' with " + Twine(operands.size()) +
                    " operands; duet computes einsum of one or two");
  // Broadcast dims get labels that no equation uses.
  int64_t broadcast = 0;
  for (auto [spec, v] : llvm::zip(specs, operands))
    if (spec.contains("..."))
      broadcast = std::max<int64_t>(
          broadcast,
          typeOf(v).getRank() - (static_cast<int64_t>(spec.size()) - 3));
  std::string ellipsis;
  for (int64_t i = 0; i < broadcast; ++i)
    ellipsis.push_back(static_cast<char>('0' + i));
  if (broadcast > 10)
    return ctx.fail("einsum with more than 10 broadcast dims");

  SmallVector<Term> terms;
  std::map<char, int64_t> sizes, uses;
  for (auto [spec, v] : llvm::zip(specs, operands)) {
    for (char c : spec)
      if (c != '.' && !llvm::isAlpha(c))
        return ctx.fail("einsum '" + eq + "' has label '" + Twine(c) +
                        "'; labels are letters");
    std::optional<std::string> labels =
        expandEllipsis(ctx, spec, typeOf(v).getRank(), ellipsis);
    if (!labels)
      return;
    for (auto [d, label] : llvm::enumerate(*labels)) {
      if (labels->find(label) != d)
        return ctx.fail("einsum '" + eq + "' repeats label '" + Twine(label) +
                        "' in one operand (a diagonal), which duet does not "
                        "compute");
      int64_t size = typeOf(v).getDimSize(d);
      auto [it, fresh] = sizes.try_emplace(label, size);
      if (!fresh && it->second != size && it->second != 1 && size != 1)
        return ctx.fail("einsum '" + eq + "': label '" + Twine(label) +
                        "' has sizes " + Twine(it->second) + " and " +
                        Twine(size));
      it->second = std::max(it->second, size);
      ++uses[label];
    }
    terms.push_back({ctx.castTo(v, type.getElementType()), *labels});
  }
  std::string out;
  if (explicitOutput) {
    std::optional<std::string> labels =
        expandEllipsis(ctx, output,
                       static_cast<int64_t>(output.size()) +
                           (output.contains("...") ? broadcast - 3 : 0),
                       ellipsis);
    if (!labels)
      return;
    out = *labels;
  } else {
    // Implicit output: the broadcast dims, then the labels used once, in
    // alphabetical order.
    out = ellipsis;
    for (auto [label, count] : uses)
      if (count == 1 && !llvm::isDigit(label))
        out.push_back(label);
  }
  for (char label : out)
    if (!sizes.count(label))
      return ctx.fail("einsum '" + eq + "': output label '" + Twine(label) +
                      "' is in no operand");
  // A label of size 1 in one operand and n in another broadcasts.
  for (Term &term : terms) {
    SmallVector<int64_t> shape;
    for (char label : term.labels)
      shape.push_back(sizes[label]);
    if (ArrayRef<int64_t>(shape) != typeOf(term.value).getShape())
      term.value =
          ctx.create<ExpandOp>(typeOf(term.value).clone(shape), term.value);
  }

  std::string outShapeLabels;
  Value result;
  if (terms.size() == 1) {
    Term summed = sumOutside(ctx, terms[0], out);
    result = ordered(ctx, summed, out);
  } else {
    Term a = terms[0], b = terms[1];
    // Labels of one operand only, and not in the output, are summed first.
    a = sumOutside(ctx, a, out + b.labels);
    b = sumOutside(ctx, b, out + a.labels);
    std::string batch, left, right, contracted;
    for (char label : a.labels) {
      bool inB = b.labels.find(label) != std::string::npos;
      bool inOut = out.find(label) != std::string::npos;
      (inB ? (inOut ? batch : contracted) : left).push_back(label);
    }
    for (char label : b.labels)
      if (a.labels.find(label) == std::string::npos)
        right.push_back(label);
    auto sizesOf = [&](StringRef labels) {
      SmallVector<int64_t> s;
      for (char label : labels)
        s.push_back(sizes[label]);
      return s;
    };
    int64_t pb = product(sizesOf(batch)), pl = product(sizesOf(left)),
            pr = product(sizesOf(right)), pc = product(sizesOf(contracted));
    Value lhs =
        view(ctx, ordered(ctx, a, batch + left + contracted), {pb, pl, pc});
    Value rhs =
        view(ctx, ordered(ctx, b, batch + contracted + right), {pb, pc, pr});
    Value product = bmm(ctx, lhs, rhs);
    std::string labels = batch + left + right;
    Value unflat = view(ctx, product, sizesOf(labels));
    result = ordered(ctx, Term{unflat, labels}, out);
  }
  if (ctx.ok() && typeOf(result) != type)
    return ctx.fail("einsum '" + eq +
                    "': the recorded result type does not "
                    "match the equation");
  ctx.setResult(result);
}
