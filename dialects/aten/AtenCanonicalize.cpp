//===- AtenCanonicalize.cpp - identities and constant evaluation ----------===//
//
// The aten ops' canonicalize(): an identity gives way to its operand (a
// clone, a cast or view to the same type, a one-tensor cat, an identity
// permute, an expand to the same shape; a view of a view reads the first
// view's input), and an op whose operands are all constants gives way to its
// value, computed as PyTorch defines it. Arithmetic runs in double and rounds
// once to the result's type, which for +, −, ×, ÷ and √ equals the correctly
// rounded result in that type.
//
// These are canonicalization patterns, not fold(): a pass runs them when it
// asks for them (duet-normalize, which counts them), where fold() would run
// in every greedy rewrite, the partitioner's too, and could leave a delegate
// yielding a constant or its own input, which it must compute.
//
//===----------------------------------------------------------------------===//

#include "dialects/aten/AtenDialect.h"
#include "dialects/aten/Constants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

using namespace mlir;
using namespace duet;
using namespace duet::aten;

namespace {

//===----------------------------------------------------------------------===//
// Elementwise, reductions, joins and lookups of constants
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
          bytes.insert(bytes.end(), raw.data.begin(), raw.data.begin() + width);
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
    const char *first = table->data.data() + (table->splat ? 0 : index * row);
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

/// Whether `op` is a `permute(W, [1, 0])` that a matrix product reads as its
/// right-hand side: it stays, so that duet-normalize makes the product a
/// `linear(x, W)` on the original weight instead of on a transposed copy.
bool isWeightTranspose(PermuteOp op) {
  if (op.getDims() != ArrayRef<int64_t>{1, 0})
    return false;
  return llvm::any_of(op->getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    unsigned rhs = isa<AddmmOp>(user) ? 2 : 1;
    return isa<AddmmOp, MmOp, MatmulOp>(user) && use.getOperandNumber() == rhs;
  });
}

/// The constants every operand of `op` holds, or nothing.
std::optional<SmallVector<ElementsAttr>> constantOperands(Operation *op) {
  SmallVector<ElementsAttr> out;
  for (Value operand : op->getOperands()) {
    ElementsAttr attr = getConstantElements(operand);
    if (!attr)
      return std::nullopt;
    out.push_back(attr);
  }
  return out;
}

RankedTensorType resultType(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType());
}

/// Replaces `op` by an `arith.constant` of `value`; a failure when no value
/// was computed.
LogicalResult replaceByValue(Operation *op, DenseElementsAttr value,
                             PatternRewriter &rewriter) {
  if (!value)
    return rewriter.notifyMatchFailure(op, "no value for these constants");
  rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
  return success();
}

/// A binary op on two constants: `fn` of their elements, broadcast.
LogicalResult evaluateBinary(Operation *op, PatternRewriter &rewriter,
                             llvm::function_ref<double(double, double)> fn) {
  std::optional<SmallVector<ElementsAttr>> c = constantOperands(op);
  if (!c)
    return rewriter.notifyMatchFailure(op, "operands are not constants");
  return replaceByValue(op, foldBinary(resultType(op), (*c)[0], (*c)[1], fn),
                        rewriter);
}

/// A unary op on a constant: `fn` of its elements.
LogicalResult evaluateUnary(Operation *op, PatternRewriter &rewriter,
                            llvm::function_ref<double(double)> fn) {
  std::optional<SmallVector<ElementsAttr>> c = constantOperands(op);
  if (!c)
    return rewriter.notifyMatchFailure(op, "operand is not a constant");
  return replaceByValue(op, foldUnary(resultType(op), (*c)[0], fn), rewriter);
}

/// Replaces `op` by `source`, of which it is an identity.
LogicalResult replaceByOperand(Operation *op, Value source,
                               PatternRewriter &rewriter) {
  rewriter.replaceOp(op, source);
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Identities and data movement
//===----------------------------------------------------------------------===//

LogicalResult CloneOp::canonicalize(CloneOp op, PatternRewriter &rewriter) {
  return replaceByOperand(op, op.getSelf(), rewriter);
}

LogicalResult CastOp::canonicalize(CastOp op, PatternRewriter &rewriter) {
  if (op.getSelf().getType() == op.getType())
    return replaceByOperand(op, op.getSelf(), rewriter);
  return evaluateUnary(op, rewriter, [](double v) { return v; });
}

LogicalResult ExpandOp::canonicalize(ExpandOp op, PatternRewriter &rewriter) {
  if (op.getSelf().getType() != op.getType())
    return rewriter.notifyMatchFailure(op, "not an identity");
  return replaceByOperand(op, op.getSelf(), rewriter);
}

LogicalResult ViewOp::canonicalize(ViewOp op, PatternRewriter &rewriter) {
  if (op.getSelf().getType() == op.getType())
    return replaceByOperand(op, op.getSelf(), rewriter);
  // view(view(x)) is view(x): only the last shape matters.
  if (auto inner = op.getSelf().getDefiningOp<ViewOp>()) {
    rewriter.modifyOpInPlace(
        op, [&] { op.getSelfMutable().assign(inner.getSelf()); });
    return success();
  }
  ElementsAttr c = getConstantElements(op.getSelf());
  if (!c)
    return rewriter.notifyMatchFailure(op, "operand is not a constant");
  if (auto dense = dyn_cast<DenseElementsAttr>(c))
    return replaceByValue(op, dense.reshape(op.getType()), rewriter);
  std::optional<RawElements> raw = getRawElements(c);
  return replaceByValue(
      op,
      raw ? DenseElementsAttr::getFromRawBuffer(op.getType(), raw->data)
          : DenseElementsAttr(),
      rewriter);
}

LogicalResult PermuteOp::canonicalize(PermuteOp op, PatternRewriter &rewriter) {
  ArrayRef<int64_t> dims = op.getDims();
  if (llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())))
    return replaceByOperand(op, op.getSelf(), rewriter);
  ElementsAttr c = getConstantElements(op.getSelf());
  if (!c)
    return rewriter.notifyMatchFailure(op, "operand is not a constant");
  if (isWeightTranspose(op))
    return rewriter.notifyMatchFailure(op, "kept for the linear rewrite");
  return replaceByValue(op, permuteElements(c, dims, op.getType()), rewriter);
}

LogicalResult SliceOp::canonicalize(SliceOp op, PatternRewriter &rewriter) {
  ElementsAttr c = getConstantElements(op.getSelf());
  if (!c)
    return rewriter.notifyMatchFailure(op, "operand is not a constant");
  auto inShape = cast<ShapedType>(c.getType()).getShape();
  SmallVector<int64_t> strides = rowMajorStrides(inShape);
  int64_t dim = op.getDim();
  int64_t offset = op.getStart() * strides[dim];
  // With one element taken the step is never used (and may be huge).
  if (op.getType().getDimSize(dim) > 1)
    strides[dim] *= op.getStep();
  return replaceByValue(op, readElements(c, strides, offset, op.getType()),
                        rewriter);
}

LogicalResult CatOp::canonicalize(CatOp op, PatternRewriter &rewriter) {
  if (op.getTensors().size() == 1)
    return replaceByOperand(op, op.getTensors().front(), rewriter);
  std::optional<SmallVector<ElementsAttr>> c = constantOperands(op);
  if (!c)
    return rewriter.notifyMatchFailure(op, "operands are not constants");
  return replaceByValue(op, concatenateElements(*c, op.getDim(), op.getType()),
                        rewriter);
}

LogicalResult EmbeddingOp::canonicalize(EmbeddingOp op,
                                        PatternRewriter &rewriter) {
  std::optional<SmallVector<ElementsAttr>> c = constantOperands(op);
  if (!c)
    return rewriter.notifyMatchFailure(op, "operands are not constants");
  return replaceByValue(op, embedElements((*c)[0], (*c)[1], op.getType()),
                        rewriter);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

LogicalResult AddOp::canonicalize(AddOp op, PatternRewriter &rewriter) {
  double alpha = op.getAlpha().convertToDouble();
  return evaluateBinary(op, rewriter,
                        [=](double a, double b) { return a + alpha * b; });
}

LogicalResult SubOp::canonicalize(SubOp op, PatternRewriter &rewriter) {
  double alpha = op.getAlpha().convertToDouble();
  return evaluateBinary(op, rewriter,
                        [=](double a, double b) { return a - alpha * b; });
}

LogicalResult MulOp::canonicalize(MulOp op, PatternRewriter &rewriter) {
  return evaluateBinary(op, rewriter, [](double a, double b) { return a * b; });
}

LogicalResult DivOp::canonicalize(DivOp op, PatternRewriter &rewriter) {
  if (op.getRoundingMode() != DivRounding::none)
    return rewriter.notifyMatchFailure(op, "a rounding division");
  return evaluateBinary(op, rewriter, [](double a, double b) { return a / b; });
}

LogicalResult MaximumOp::canonicalize(MaximumOp op, PatternRewriter &rewriter) {
  return evaluateBinary(op, rewriter, nanMax);
}

LogicalResult MinimumOp::canonicalize(MinimumOp op, PatternRewriter &rewriter) {
  return evaluateBinary(op, rewriter, nanMin);
}

LogicalResult MeanOp::canonicalize(MeanOp op, PatternRewriter &rewriter) {
  ElementsAttr c = getConstantElements(op.getSelf());
  if (!c)
    return rewriter.notifyMatchFailure(op, "operand is not a constant");
  return replaceByValue(
      op, foldReduction(op.getType(), c, op.getDim(), /*mean=*/true), rewriter);
}

LogicalResult SumOp::canonicalize(SumOp op, PatternRewriter &rewriter) {
  ElementsAttr c = getConstantElements(op.getSelf());
  if (!c)
    return rewriter.notifyMatchFailure(op, "operand is not a constant");
  return replaceByValue(
      op, foldReduction(op.getType(), c, op.getDim(), /*mean=*/false),
      rewriter);
}

LogicalResult NegOp::canonicalize(NegOp op, PatternRewriter &rewriter) {
  return evaluateUnary(op, rewriter, [](double v) { return -v; });
}

LogicalResult AbsOp::canonicalize(AbsOp op, PatternRewriter &rewriter) {
  return evaluateUnary(op, rewriter, [](double v) { return std::fabs(v); });
}

LogicalResult ReluOp::canonicalize(ReluOp op, PatternRewriter &rewriter) {
  // NaN < 0 is false, so NaN passes through as in PyTorch.
  return evaluateUnary(op, rewriter, [](double v) { return v < 0 ? 0.0 : v; });
}

LogicalResult SqrtOp::canonicalize(SqrtOp op, PatternRewriter &rewriter) {
  return evaluateUnary(op, rewriter, [](double v) { return std::sqrt(v); });
}

LogicalResult RsqrtOp::canonicalize(RsqrtOp op, PatternRewriter &rewriter) {
  return evaluateUnary(op, rewriter,
                       [](double v) { return 1.0 / std::sqrt(v); });
}
