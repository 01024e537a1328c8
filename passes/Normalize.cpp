//===- Normalize.cpp - one canonical form for every IR flavour ------------===//
//
// The rewrites of NormalizePass (see Passes.td): linear from addmm/mm/matmul
// and their view pairs, identity removal, and evaluation of all-constant ops.
//
//===----------------------------------------------------------------------===//

#include "passes/ConstantUtils.h"
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>

namespace duet {
#define GEN_PASS_DEF_NORMALIZEPASS
#include "passes/Passes.h.inc"
} // namespace duet

using namespace mlir;
using namespace duet;
using namespace duet::aten;

namespace {

/// What the patterns did, added to the pass statistics once they are done.
struct NormalizeCounts {
  int64_t linear = 0;
  int64_t scaled = 0;
  int64_t identities = 0;
  int64_t folded = 0;
};

//===----------------------------------------------------------------------===//
// Index arithmetic on row-major data
//===----------------------------------------------------------------------===//

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Strides that read an operand of shape `in` at every index of the broadcast
/// shape `out`: 0 along the dims it is broadcast over.
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> out) {
  SmallVector<int64_t> strides(out.size(), 0);
  SmallVector<int64_t> own = rowMajorStrides(in);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1)
      strides[lead + i] = own[i];
  return strides;
}

/// Walks the row-major indices of a shape and keeps, for each operand, the
/// element offset that index reads through the operand's strides; this avoids
/// a division per element.
class OffsetWalker {
public:
  OffsetWalker(ArrayRef<int64_t> shape, ArrayRef<SmallVector<int64_t>> strides)
      : shape(shape), strides(strides), index(shape.size(), 0),
        offsets(strides.size(), 0) {}

  int64_t offset(unsigned operand) const { return offsets[operand]; }

  void next() {
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) {
        for (auto [o, s] : llvm::zip(offsets, strides))
          o += s[d];
        return;
      }
      for (auto [o, s] : llvm::zip(offsets, strides))
        o -= (shape[d] - 1) * s[d];
      index[d] = 0;
    }
  }

private:
  ArrayRef<int64_t> shape;
  ArrayRef<SmallVector<int64_t>> strides;
  SmallVector<int64_t> index;
  SmallVector<int64_t> offsets;
};

/// The elements of `attr` that a result of type `resultType` reads: result
/// index i reads the element at `offset + sum(i[d] * strides[d])`, the one
/// re-indexing that permute and slice make.
DenseElementsAttr readElements(ElementsAttr attr, ArrayRef<int64_t> strides,
                               int64_t offset, RankedTensorType resultType) {
  std::optional<RawElements> raw = getRawElements(attr);
  if (!raw)
    return nullptr;
  unsigned width = raw->byteWidth;
  if (raw->splat)
    return DenseElementsAttr::getFromRawBuffer(resultType,
                                               raw->data.take_front(width));
  SmallVector<SmallVector<int64_t>> walked = {SmallVector<int64_t>(strides)};
  OffsetWalker walker(resultType.getShape(), walked);
  int64_t count = resultType.getNumElements();
  std::vector<char> bytes(count * width);
  for (int64_t i = 0; i < count; ++i, walker.next())
    std::memcpy(bytes.data() + i * width,
                raw->data.data() + (offset + walker.offset(0)) * width, width);
  return DenseElementsAttr::getFromRawBuffer(resultType, bytes);
}

/// The elements of `attr` reordered so that result dim `i` is input dim
/// `dims[i]`, as the attribute of type `resultType`.
DenseElementsAttr permuteElements(ElementsAttr attr, ArrayRef<int64_t> dims,
                                  RankedTensorType resultType) {
  auto inShape = cast<ShapedType>(attr.getType()).getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape), source;
  for (int64_t d : dims)
    source.push_back(inStrides[d]);
  return readElements(attr, source, 0, resultType);
}

//===----------------------------------------------------------------------===//
// Linear
//===----------------------------------------------------------------------===//

/// Whether `mat2` (`[in, out]` of a matrix product) is the transpose of a
/// linear weight: `permute(W, [1, 0])`, or a constant no one else reads,
/// which can be replaced by its transpose without keeping two copies.
bool isTransposedWeight(Value mat2) {
  if (cast<RankedTensorType>(mat2.getType()).getRank() != 2)
    return false;
  if (auto permute = mat2.getDefiningOp<PermuteOp>())
    return permute.getDims() == ArrayRef<int64_t>{1, 0};
  ElementsAttr attr = getConstantElements(mat2);
  return attr && mat2.hasOneUse() && getRawElements(attr);
}

/// The `[out, in]` weight of which `mat2` is the transpose; call only when
/// isTransposedWeight(mat2) holds.
Value weightOf(PatternRewriter &rewriter, Value mat2) {
  if (auto permute = mat2.getDefiningOp<PermuteOp>())
    return permute.getSelf();
  auto type = cast<RankedTensorType>(mat2.getType());
  auto weightType = RankedTensorType::get(
      {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  DenseElementsAttr transposed =
      permuteElements(getConstantElements(mat2), {1, 0}, weightType);
  return rewriter.create<arith::ConstantOp>(mat2.getLoc(), transposed);
}

/// `addmm(b, x, permute(W, [1, 0]))` with beta = alpha = 1 and `b` of shape
/// `[out]` → `linear(x, W, b)`.
struct AddmmToLinear : OpRewritePattern<AddmmOp> {
  AddmmToLinear(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern(context), counts(counts) {}

  LogicalResult matchAndRewrite(AddmmOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getBeta().convertToDouble() != 1.0 ||
        op.getAlpha().convertToDouble() != 1.0)
      return rewriter.notifyMatchFailure(op, "beta or alpha is not 1");
    auto bias = op.getSelf().getType();
    if (bias.getRank() != 1 || bias.getDimSize(0) != op.getType().getDimSize(1))
      return rewriter.notifyMatchFailure(op, "self is not a [out] bias");
    if (!isTransposedWeight(op.getMat2()))
      return rewriter.notifyMatchFailure(op, "mat2 is not a transposed weight");
    Value weight = weightOf(rewriter, op.getMat2());
    rewriter.replaceOpWithNewOp<LinearOp>(op, op.getType(), op.getMat1(),
                                          weight, op.getSelf());
    ++counts.linear;
    return success();
  }

  NormalizeCounts &counts;
};

/// `mm(x, permute(W, [1, 0]))` or `matmul(x, permute(W, [1, 0]))` with a 2-D
/// `W` → `linear(x, W)`.
template <typename OpTy> struct ProductToLinear : OpRewritePattern<OpTy> {
  ProductToLinear(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern<OpTy>(context), counts(counts) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!isTransposedWeight(op.getOther()))
      return rewriter.notifyMatchFailure(op, "rhs is not a transposed weight");
    Value weight = weightOf(rewriter, op.getOther());
    rewriter.replaceOpWithNewOp<LinearOp>(op, op.getType(), op.getSelf(),
                                          weight, Value());
    ++counts.linear;
    return success();
  }

  NormalizeCounts &counts;
};

/// `mul(linear(x, W, b), g)` where `g` is a constant over the output features
/// (`[out]`, `[1, ..., out]`, or a scalar), W and b constants and the linear
/// read by the mul only → `linear(x, W·g, b·g)`, each row of W scaled; the
/// same for a convolution (not transposed) and `g` over its output channels
/// (`[1, C, 1, 1]`: ConvNeXt-Atto's 1x1 convolution MLPs, EfficientFormer); also
/// through one permute between them (`mul(permute(linear), g)` with `g` over
/// the dim the features land on, as timm's ConvNeXt scales `[N, C, H, W]` by
/// `gamma.reshape(1, -1, 1, 1)` after permuting its channels-last MLP back).
/// The layer scale of ConvNeXt, BEiT and EfficientFormer blocks is otherwise
/// a pass over the output. The scaled constants are rounded once from
/// double, where the unfolded graph rounds the product, then the scaling.
struct ScaleLinear : OpRewritePattern<MulOp> {
  ScaleLinear(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern(context), counts(counts) {}

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto outType = cast<RankedTensorType>(op.getType());
    int64_t rank = outType.getRank();
    for (int side = 0; side < 2; ++side) {
      Value product = side == 0 ? op.getSelf() : op.getOther();
      Value scale = side == 0 ? op.getOther() : op.getSelf();
      if (product.getType() != op.getType() || !product.hasOneUse())
        continue;
      // The linear or convolution, and the dim of the mul's result its
      // features (output channels) are on.
      auto permute = product.getDefiningOp<PermuteOp>();
      Operation *producer =
          permute ? permute.getSelf().getDefiningOp() : product.getDefiningOp();
      auto conv = dyn_cast_or_null<ConvolutionOp>(producer);
      if (permute || (conv && conv.getTransposed()))
        conv = nullptr;
      auto linear = dyn_cast_or_null<LinearOp>(producer);
      if ((!linear && !conv) || !producer->hasOneUse() || rank < 2)
        continue;
      int64_t featureDim = conv ? 1 : rank - 1;
      if (permute) {
        ArrayRef<int64_t> dims = permute.getDims();
        featureDim = llvm::find(dims, rank - 1) - dims.begin();
      }
      Value weightValue = conv ? conv.getWeight() : linear.getWeight();
      Value biasValue = conv ? conv.getBias() : linear.getBias();
      int64_t features = outType.getDimSize(featureDim);
      // One factor per feature, or one for all: g broadcasts, aligned right,
      // with every dim 1 but the features' one.
      auto scaleType = cast<RankedTensorType>(scale.getType());
      ArrayRef<int64_t> shape = scaleType.getShape();
      int64_t lead = rank - static_cast<int64_t>(shape.size());
      bool fits = lead >= 0 &&
                  scaleType.getElementType() == outType.getElementType();
      for (int64_t d = 0; fits && d < static_cast<int64_t>(shape.size()); ++d)
        fits = shape[d] == 1 || (d + lead == featureDim && shape[d] == features);
      if (!fits)
        continue;
      std::optional<SmallVector<double>> g = readFloatConstant(scale);
      std::optional<SmallVector<double>> w = readFloatConstant(weightValue);
      std::optional<SmallVector<double>> b;
      if (biasValue)
        b = readFloatConstant(biasValue);
      auto weightType = cast<RankedTensorType>(weightValue.getType());
      // A non-finite factor stays a mul: folded, inf·0 in a weight row
      // would turn the mul's inf into NaN. So do f16 and bf16 weights, whose
      // narrow range a scaled weight can leave (a 1e-6 layer scale times
      // 1e-2 weights is 0 in f16) where the unfolded product would not.
      Type element = weightType.getElementType();
      if (!g || !w || (biasValue && !b) || g->empty() ||
          weightType.getDimSize(0) != features ||
          !(element.isF32() || element.isF64()) ||
          !llvm::all_of(*g, [](double v) { return std::isfinite(v); }))
        continue;
      auto factor = [&](int64_t o) { return (*g)[g->size() == 1 ? 0 : o]; };
      // Weight row o (output feature or channel o) is contiguous.
      int64_t row = static_cast<int64_t>(w->size()) / features;
      SmallVector<double> scaled(*w);
      for (int64_t o = 0; o < features; ++o)
        for (int64_t k = 0; k < row; ++k)
          scaled[o * row + k] *= factor(o);
      // Nor where a scaled weight leaves the element type's range.
      if (!llvm::all_of(scaled, [&](double v) {
            return std::isfinite(roundToFloatType(v, element));
          }))
        continue;
      rewriter.setInsertionPoint(producer);
      Location loc = producer->getLoc();
      Value weight = createFloatConstant(rewriter, loc, weightType, scaled);
      Value bias;
      if (b) {
        for (int64_t o = 0; o < features; ++o)
          (*b)[o] *= factor(o);
        bias = createFloatConstant(
            rewriter, loc, cast<RankedTensorType>(biasValue.getType()), *b);
      }
      Value result;
      if (conv)
        result = rewriter.create<ConvolutionOp>(
            loc, conv.getType(), conv.getInput(), weight, bias,
            conv.getStrideAttr(), conv.getPaddingAttr(), conv.getDilationAttr(),
            conv.getOutputPaddingAttr(), conv.getGroupsAttr(),
            conv.getTransposedAttr());
      else
        result = rewriter.create<LinearOp>(loc, linear.getType(),
                                           linear.getInput(), weight, bias);
      if (permute) {
        rewriter.setInsertionPoint(permute);
        result = rewriter.create<PermuteOp>(permute.getLoc(), permute.getType(),
                                            result, permute.getDimsAttr());
      }
      rewriter.replaceOp(op, result);
      if (permute)
        rewriter.eraseOp(permute);
      rewriter.eraseOp(producer);
      ++counts.scaled;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a linear times a constant "
                                           "per output feature");
  }

  NormalizeCounts &counts;
};

/// `view(linear(view(x)))` where the inner view flattens the leading dims of
/// `x` (`[B, T, D]` → `[B·T, D]`) and the outer one restores them
/// (`[B·T, out]` → `[B, T, out]`) → `linear(x)`, which is N-D already.
struct FuseFlattenedLinear : OpRewritePattern<ViewOp> {
  FuseFlattenedLinear(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern(context), counts(counts) {}

  LogicalResult matchAndRewrite(ViewOp outer,
                                PatternRewriter &rewriter) const override {
    auto linear = outer.getSelf().getDefiningOp<LinearOp>();
    if (!linear || !linear->hasOneUse())
      return rewriter.notifyMatchFailure(outer, "not a single-use linear");
    auto inner = linear.getInput().getDefiningOp<ViewOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(outer, "linear input is not a view");
    Value x = inner.getSelf();
    ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
    ArrayRef<int64_t> flat = inner.getType().getShape();
    if (shape.empty() || flat.size() != 2 || flat[1] != shape.back())
      return rewriter.notifyMatchFailure(outer, "inner view is not a flatten");
    int64_t rows = 1;
    for (int64_t d : shape.drop_back())
      rows *= d;
    SmallVector<int64_t> expected(shape.drop_back());
    expected.push_back(linear.getType().getDimSize(1));
    if (flat[0] != rows || outer.getType().getShape() != ArrayRef(expected))
      return rewriter.notifyMatchFailure(outer, "views do not pair up");
    rewriter.replaceOpWithNewOp<LinearOp>(outer, outer.getType(), x,
                                          linear.getWeight(), linear.getBias());
    ++counts.linear;
    return success();
  }

  NormalizeCounts &counts;
};

//===----------------------------------------------------------------------===//
// Identities
//===----------------------------------------------------------------------===//

// The value each op is an identity of, or null when it is not one.
Value identitySource(CloneOp op) { return op.getSelf(); }
Value identitySource(CastOp op) {
  return op.getSelf().getType() == op.getType() ? op.getSelf() : Value();
}
Value identitySource(CatOp op) {
  return op.getTensors().size() == 1 ? op.getTensors().front() : Value();
}
Value identitySource(ViewOp op) {
  return op.getSelf().getType() == op.getType() ? op.getSelf() : Value();
}
Value identitySource(ExpandOp op) {
  return op.getSelf().getType() == op.getType() ? op.getSelf() : Value();
}
Value identitySource(PermuteOp op) {
  ArrayRef<int64_t> dims = op.getDims();
  return llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())) ? op.getSelf()
                                                               : Value();
}

template <typename OpTy> struct RemoveIdentity : OpRewritePattern<OpTy> {
  RemoveIdentity(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern<OpTy>(context), counts(counts) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value source = identitySource(op);
    if (!source)
      return rewriter.notifyMatchFailure(op, "not an identity");
    rewriter.replaceOp(op, source);
    ++counts.identities;
    return success();
  }

  NormalizeCounts &counts;
};

/// `view(view(x))` → `view(x)`: only the last shape matters.
struct CollapseViews : OpRewritePattern<ViewOp> {
  CollapseViews(MLIRContext *context, NormalizeCounts &counts)
      : OpRewritePattern(context), counts(counts) {}

  LogicalResult matchAndRewrite(ViewOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSelf().getDefiningOp<ViewOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a view");
    rewriter.modifyOpInPlace(
        op, [&] { op.getSelfMutable().assign(inner.getSelf()); });
    ++counts.identities;
    return success();
  }

  NormalizeCounts &counts;
};

//===----------------------------------------------------------------------===//
// Constant evaluation
//===----------------------------------------------------------------------===//

/// `fn` applied to the float elements of `a` and `b` broadcast to `type`.
DenseElementsAttr foldBinary(RankedTensorType type, ElementsAttr a,
                             ElementsAttr b,
                             llvm::function_ref<double(double, double)> fn) {
  if (!isComputableFloat(type.getElementType()))
    return nullptr;
  std::optional<SmallVector<double>> lhs = readFloatElements(a),
                                     rhs = readFloatElements(b);
  if (!lhs || !rhs)
    return nullptr;
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<SmallVector<int64_t>> strides = {
      broadcastStrides(cast<ShapedType>(a.getType()).getShape(), shape),
      broadcastStrides(cast<ShapedType>(b.getType()).getShape(), shape)};
  OffsetWalker walker(shape, strides);
  SmallVector<double> result(type.getNumElements());
  for (double &r : result) {
    r = fn((*lhs)[walker.offset(0)], (*rhs)[walker.offset(1)]);
    walker.next();
  }
  return makeFloatElements(type, result);
}

/// `fn` applied to every float element of `a`, giving `type` (which may have
/// another float element type, for cast).
DenseElementsAttr foldUnary(RankedTensorType type, ElementsAttr a,
                            llvm::function_ref<double(double)> fn) {
  if (!isComputableFloat(type.getElementType()))
    return nullptr;
  std::optional<SmallVector<double>> values = readFloatElements(a);
  if (!values)
    return nullptr;
  for (double &v : *values)
    v = fn(v);
  return makeFloatElements(type, *values);
}

/// The mean or sum of the float elements of `a` over `dims` (every dim when
/// empty), giving `type`: a reduction of constants, such as the statistics
/// of a standardized weight, is done once here instead of every run.
DenseElementsAttr foldReduction(RankedTensorType type, ElementsAttr a,
                                ArrayRef<int64_t> dims, bool mean) {
  if (!isComputableFloat(type.getElementType()))
    return nullptr;
  std::optional<SmallVector<double>> values = readFloatElements(a);
  if (!values)
    return nullptr;
  ArrayRef<int64_t> in = cast<ShapedType>(a.getType()).getShape();
  // Each input dim's stride in the output; 0 on the reduced dims.
  SmallVector<int64_t> strides(in.size(), 0);
  int64_t stride = 1, count = 1;
  for (int64_t d = static_cast<int64_t>(in.size()) - 1; d >= 0; --d) {
    if (dims.empty() || llvm::is_contained(dims, d)) {
      count *= in[d];
      continue;
    }
    strides[d] = stride;
    stride *= in[d];
  }
  if (stride != type.getNumElements())
    return nullptr;
  SmallVector<double> sums(type.getNumElements(), 0.0);
  // The walker keeps a reference to its strides: they must outlive it.
  SmallVector<SmallVector<int64_t>> walked = {strides};
  OffsetWalker walker(in, walked);
  for (double v : *values) {
    sums[walker.offset(0)] += v;
    walker.next();
  }
  if (mean)
    for (double &v : sums)
      v /= static_cast<double>(count);
  return makeFloatElements(type, sums);
}

/// The elements of `parts` joined along `dim` into `type`; null where a
/// part's bytes cannot be read (bit-packed i1) or its rank differs (the
/// verifier allows legacy empty 1-D parts).
DenseElementsAttr concatenateElements(ArrayRef<ElementsAttr> parts, int64_t dim,
                                      RankedTensorType type) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = static_cast<int64_t>(shape.size());
  if (dim < 0 || dim >= rank)
    return nullptr;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (int64_t d = dim + 1; d < rank; ++d)
    inner *= shape[d];
  SmallVector<RawElements> raws;
  SmallVector<int64_t> rows; // per part: elements per outer index
  for (ElementsAttr part : parts) {
    auto partType = cast<ShapedType>(part.getType());
    ArrayRef<int64_t> partShape = partType.getShape();
    std::optional<RawElements> raw = getRawElements(part);
    if (!raw || static_cast<int64_t>(partShape.size()) != rank ||
        partType.getElementType() != type.getElementType())
      return nullptr;
    raws.push_back(*raw);
    rows.push_back(partShape[dim] * inner);
  }
  // Every part has the result's element type, so its byte width.
  unsigned width = raws.empty() ? 0 : raws.front().byteWidth;
  std::vector<char> bytes;
  bytes.reserve(type.getNumElements() * width);
  for (int64_t o = 0; o < outer; ++o)
    for (auto [raw, row] : llvm::zip(raws, rows)) {
      if (raw.splat) {
        for (int64_t i = 0; i < row; ++i)
          bytes.insert(bytes.end(), raw.data.begin(),
                       raw.data.begin() + width);
        continue;
      }
      const char *first = raw.data.data() + o * row * width;
      bytes.insert(bytes.end(), first, first + row * width);
    }
  if (static_cast<int64_t>(bytes.size()) != type.getNumElements() * width)
    return nullptr;
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

/// The rows of the constant `weight` [N, E] that the constant integer
/// `indices` pick, as `type` (an embedding); null where an index is outside
/// [0, N) (left for the kernel, which reports it when the program runs),
/// where bytes cannot be read, or where the result would hold more than
/// the weight and a million elements besides (a constant is stored in the
/// program: repeating rows is cheaper to compute than to ship).
DenseElementsAttr embedElements(ElementsAttr weight, ElementsAttr indices,
                                RankedTensorType type) {
  ArrayRef<int64_t> shape = cast<ShapedType>(weight.getType()).getShape();
  std::optional<RawElements> table = getRawElements(weight);
  std::optional<SmallVector<int64_t>> picks = readIntegerElements(indices);
  if (shape.size() != 2 || !table || !picks ||
      type.getNumElements() > weight.getNumElements() + (int64_t{1} << 20))
    return nullptr;
  int64_t rows = shape[0];
  size_t row = static_cast<size_t>(shape[1]) * table->byteWidth;
  std::vector<char> bytes;
  bytes.reserve(picks->size() * row);
  for (int64_t index : *picks) {
    if (index < 0 || index >= rows)
      return nullptr;
    const char *first =
        table->data.data() + (table->splat ? 0 : index * row);
    if (table->splat)
      for (size_t b = 0; b < row; b += table->byteWidth)
        bytes.insert(bytes.end(), first, first + table->byteWidth);
    else
      bytes.insert(bytes.end(), first, first + row);
  }
  if (static_cast<int64_t>(bytes.size()) !=
      type.getNumElements() * static_cast<int64_t>(table->byteWidth))
    return nullptr;
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

/// max and min that return NaN when either operand is NaN, as PyTorch's
/// maximum and minimum do.
double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
}
double nanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
}

/// The value of `op` applied to the constant `inputs`, or null when no
/// evaluator covers the op or its element types. Arithmetic runs in double and
/// rounds once to the result type, which for +, −, ×, ÷ and √ equals the
/// correctly rounded result in that type.
DenseElementsAttr evaluate(Operation *op, ArrayRef<ElementsAttr> in) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  return llvm::TypeSwitch<Operation *, DenseElementsAttr>(op)
      .Case([&](ViewOp) -> DenseElementsAttr {
        if (auto dense = dyn_cast<DenseElementsAttr>(in[0]))
          return dense.reshape(type);
        std::optional<RawElements> raw = getRawElements(in[0]);
        return raw ? DenseElementsAttr::getFromRawBuffer(type, raw->data)
                   : nullptr;
      })
      .Case([&](PermuteOp permute) {
        return permuteElements(in[0], permute.getDims(), type);
      })
      .Case([&](SliceOp slice) {
        auto inShape = cast<ShapedType>(in[0].getType()).getShape();
        SmallVector<int64_t> strides = rowMajorStrides(inShape);
        int64_t dim = slice.getDim();
        int64_t offset = slice.getStart() * strides[dim];
        // With one element taken the step is never used (and may be huge).
        if (type.getDimSize(dim) > 1)
          strides[dim] *= slice.getStep();
        return readElements(in[0], strides, offset, type);
      })

      .Case([&](CatOp cat) { return concatenateElements(in, cat.getDim(), type); })
      .Case([&](EmbeddingOp) { return embedElements(in[0], in[1], type); })
      .Case([&](CastOp) {
        return foldUnary(type, in[0], [](double v) { return v; });
      })
      .Case([&](AddOp add) {
        double alpha = add.getAlpha().convertToDouble();
        return foldBinary(type, in[0], in[1],
                          [=](double a, double b) { return a + alpha * b; });
      })
      .Case([&](SubOp sub) {
        double alpha = sub.getAlpha().convertToDouble();
        return foldBinary(type, in[0], in[1],
                          [=](double a, double b) { return a - alpha * b; });
      })
      .Case([&](MulOp) {
        return foldBinary(type, in[0], in[1],
                          [](double a, double b) { return a * b; });
      })
      .Case([&](DivOp div) -> DenseElementsAttr {
        if (div.getRoundingMode() != DivRounding::none)
          return nullptr;
        return foldBinary(type, in[0], in[1],
                          [](double a, double b) { return a / b; });
      })
      .Case([&](MeanOp reduce) {
        return foldReduction(type, in[0], reduce.getDim(), /*mean=*/true);
      })
      .Case([&](SumOp reduce) {
        return foldReduction(type, in[0], reduce.getDim(), /*mean=*/false);
      })
      .Case([&](MaximumOp) { return foldBinary(type, in[0], in[1], nanMax); })
      .Case([&](MinimumOp) { return foldBinary(type, in[0], in[1], nanMin); })
      .Case([&](NegOp) {
        return foldUnary(type, in[0], [](double v) { return -v; });
      })
      .Case([&](AbsOp) {
        return foldUnary(type, in[0], [](double v) { return std::fabs(v); });
      })
      .Case([&](ReluOp) {
        // NaN < 0 is false, so NaN passes through as in PyTorch.
        return foldUnary(type, in[0], [](double v) { return v < 0 ? 0.0 : v; });
      })
      .Case([&](SqrtOp) {
        return foldUnary(type, in[0], [](double v) { return std::sqrt(v); });
      })
      .Case([&](RsqrtOp) {
        return foldUnary(type, in[0],
                         [](double v) { return 1.0 / std::sqrt(v); });
      })
      .Default([](Operation *) { return nullptr; });
}

/// Whether every operand of the aten op `op` is a readable constant; with
/// `attrs`, collects their elements.
bool hasConstantOperands(Operation *op,
                         SmallVectorImpl<ElementsAttr> *attrs = nullptr) {
  if (!isa<AtenDialect>(op->getDialect()) || op->getNumOperands() == 0 ||
      op->getNumResults() != 1)
    return false;
  for (Value operand : op->getOperands()) {
    ElementsAttr attr = getConstantElements(operand);
    if (!attr)
      return false;
    if (attrs)
      attrs->push_back(attr);
  }
  return true;
}

/// Whether `op` is a `permute(W, [1, 0])` that a matrix product reads as its
/// right-hand side: it stays so that the product can become `linear(x, W)` on
/// the original weight instead of on a transposed copy.
bool isWeightTranspose(Operation *op) {
  auto permute = dyn_cast<PermuteOp>(op);
  if (!permute || permute.getDims() != ArrayRef<int64_t>{1, 0})
    return false;
  return llvm::any_of(permute->getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    unsigned rhs = isa<AddmmOp>(user) ? 2 : 1;
    return isa<AddmmOp, MmOp, MatmulOp>(user) && use.getOperandNumber() == rhs;
  });
}

/// Replaces an aten op whose operands are all constants by its value.
struct FoldConstantOp : RewritePattern {
  FoldConstantOp(MLIRContext *context, NormalizeCounts &counts)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        counts(counts) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    SmallVector<ElementsAttr> inputs;
    if (!hasConstantOperands(op, &inputs))
      return rewriter.notifyMatchFailure(op, "operands are not all constants");
    if (isWeightTranspose(op))
      return rewriter.notifyMatchFailure(op, "kept for the linear rewrite");
    DenseElementsAttr value = evaluate(op, inputs);
    if (!value)
      return rewriter.notifyMatchFailure(op, "no evaluator for this op");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    ++counts.folded;
    return success();
  }

  NormalizeCounts &counts;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct NormalizePass : duet::impl::NormalizePassBase<NormalizePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    NormalizeCounts counts;
    RewritePatternSet patterns(context);
    patterns.add<
        AddmmToLinear, ProductToLinear<MmOp>, ProductToLinear<MatmulOp>,
        ScaleLinear,
        FuseFlattenedLinear, RemoveIdentity<CloneOp>, RemoveIdentity<CastOp>,
        RemoveIdentity<CatOp>, RemoveIdentity<ViewOp>, RemoveIdentity<ExpandOp>,
        RemoveIdentity<PermuteOp>, CollapseViews, FoldConstantOp>(context,
                                                                  counts);
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns)))) {
      getOperation().emitError()
          << "duet-normalize did not converge; a rewrite undoes another, "
             "which is a bug in passes/Normalize.cpp";
      return signalPassFailure();
    }
    numLinear += counts.linear;
    numScaled += counts.scaled;
    numIdentities += counts.identities;
    numConstantsFolded += counts.folded;
    getOperation().walk([&](Operation *op) {
      if (hasConstantOperands(op))
        ++numConstantsLeft;
    });
  }
};

} // namespace
