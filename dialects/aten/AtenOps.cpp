//===- AtenOps.cpp - verifiers of the aten ops ---------------------------===//
//
// Every verifier recomputes the result shape from the operands and attributes
// the way PyTorch does, so an importer bug or a bad rewrite is caught where it
// happens instead of as wrong numbers at run time. Sizes and attributes come
// from the imported file, so all shape arithmetic is checked for overflow
// (llvm::checkedMul and friends): an op whose shape cannot be computed in
// int64 fails to verify instead of wrapping around.
//
//===----------------------------------------------------------------------===//

#include "dialects/aten/AtenDialect.h"
#include "runtime/core/Limits.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

using namespace mlir;
using namespace duet::aten;

namespace {

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Checks that `actual` (the result type's shape) is the shape the op computes.
LogicalResult checkResultShape(Operation *op, ArrayRef<int64_t> expected,
                               Type actual) {
  auto shape = cast<RankedTensorType>(actual).getShape();
  if (shape == expected)
    return success();
  return op->emitOpError() << "result shape " << formatShape(shape)
                           << " does not match the computed shape "
                           << formatShape(expected);
}

LogicalResult checkDim(Operation *op, StringRef name, int64_t dim,
                       int64_t rank) {
  if (dim >= 0 && dim < rank)
    return success();
  return op->emitOpError() << name << " " << dim
                           << " is out of range for rank " << rank
                           << " (dims are normalized to [0, " << rank << "))";
}

LogicalResult checkRank(Operation *op, StringRef what, Value v,
                        ArrayRef<int64_t> ranks) {
  int64_t rank = tensorType(v).getRank();
  if (llvm::is_contained(ranks, rank))
    return success();
  auto diag = op->emitOpError() << what << " must have rank ";
  llvm::interleave(ranks, diag, " or ");
  return diag << ", got " << rank;
}

LogicalResult checkSameElementType(Operation *op, ValueRange values) {
  Type first;
  for (Value v : values) {
    Type t = tensorType(v).getElementType();
    if (first && t != first)
      return op->emitOpError()
             << "operands and results must share one element type, got "
             << first << " and " << t;
    first = t;
  }
  return success();
}

/// Checks that every operand and result of `op` has one element type.
LogicalResult checkOneElementType(Operation *op) {
  SmallVector<Value> all(op->getOperands());
  llvm::append_range(all, op->getResults());
  return checkSameElementType(op, all);
}

/// A per-channel parameter: rank 1 with `size` elements.
LogicalResult checkVector(Operation *op, StringRef what, Value v,
                          int64_t size) {
  if (!v)
    return success();
  auto shape = tensorType(v).getShape();
  if (shape.size() == 1 && shape[0] == size)
    return success();
  return op->emitOpError() << what << " must have shape [" << size
                           << "], got " << formatShape(shape);
}

/// Checks the result type against the shape `rule` computed (the rule
/// reported on `op` when it could not).
LogicalResult checkRuleShape(Operation *op, FailureOr<ResultShape> rule,
                             Type actual) {
  if (failed(rule))
    return failure();
  return checkResultShape(op, *rule, actual);
}

/// The inferred type of an op whose result has the shape `rule` computed and
/// the element type `element`.
LogicalResult inferred(FailureOr<ResultShape> rule, Type element,
                       SmallVectorImpl<Type> &types) {
  if (failed(rule))
    return failure();
  types.push_back(RankedTensorType::get(*rule, element));
  return success();
}

Type elementOf(Value v) { return tensorType(v).getElementType(); }
ArrayRef<int64_t> shapeOf(Value v) { return tensorType(v).getShape(); }

/// Reports on `op` that the shape of `what` does not fit in int64.
LogicalResult overflowError(Operation *op, const Twine &what) {
  return op->emitOpError() << "the size of " << what
                           << " overflows int64; the sizes or attributes are "
                              "out of range";
}

/// The product of `shape`, or nothing when it overflows int64 (a zero dim
/// makes it 0 whatever the others are).
std::optional<int64_t> numElements(ArrayRef<int64_t> shape) {
  if (llvm::is_contained(shape, 0))
    return 0;
  std::optional<int64_t> n = 1;
  for (int64_t d : shape)
    if (!(n = llvm::checkedMul(*n, d)))
      return std::nullopt;
  return n;
}

/// in + 2 * pad - dilation * (kernel - 1) - 1: what a window can slide over
/// in a padded dim, minus one; nothing on overflow.
std::optional<int64_t> windowSpan(int64_t in, int64_t kernel, int64_t pad,
                                  int64_t dilation) {
  std::optional<int64_t> padded = llvm::checkedMul<int64_t>(pad, 2);
  if (padded)
    padded = llvm::checkedAdd(in, *padded);
  std::optional<int64_t> reach = llvm::checkedSub<int64_t>(kernel, 1);
  if (reach)
    reach = llvm::checkedMul(dilation, *reach);
  if (!padded || !reach)
    return std::nullopt;
  std::optional<int64_t> span = llvm::checkedSub(*padded, *reach);
  return span ? llvm::checkedSub<int64_t>(*span, 1) : std::nullopt;
}

/// Output length of a sliding window, as PyTorch computes it for pooling. The
/// division rounds toward -infinity so that a window larger than the padded
/// input gives a length below 1 instead of 1. Nothing on overflow.
std::optional<int64_t> pooledSize(int64_t in, int64_t kernel, int64_t stride,
                                  int64_t pad, int64_t dilation,
                                  bool ceilMode) {
  std::optional<int64_t> span = windowSpan(in, kernel, pad, dilation);
  if (!span)
    return std::nullopt;
  // Both roundings of span / stride (stride >= 1) lie within [span - 1, span].
  int64_t out = (ceilMode ? llvm::divideCeilSigned(*span, stride)
                          : llvm::divideFloorSigned(*span, stride));
  if (out == std::numeric_limits<int64_t>::max())
    return std::nullopt;
  ++out;
  // With ceil_mode the last window must start inside the input or left padding.
  if (ceilMode) {
    std::optional<int64_t> start = llvm::checkedMul(out - 1, stride);
    std::optional<int64_t> limit = llvm::checkedAdd(in, pad);
    if (!start || !limit)
      return std::nullopt;
    if (*start >= *limit)
      --out;
  }
  return out;
}

LogicalResult checkWindowAttrs(Operation *op, ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> stride,
                               ArrayRef<int64_t> padding,
                               ArrayRef<int64_t> dilation) {
  for (auto [name, arr] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"kernel_size", kernel},
        {"stride", stride},
        {"padding", padding},
        {"dilation", dilation}})
    if (arr.size() != 2)
      return op->emitOpError()
             << name << " needs 2 entries, got " << arr.size();
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || stride[i] < 1 || dilation[i] < 1 || padding[i] < 0)
      return op->emitOpError() << "kernel_size, stride and dilation must be "
                                  "positive and padding non-negative";
    if (padding[i] > kernel[i] / 2)
      return op->emitOpError()
             << "padding " << padding[i]
             << " must be at most half the kernel size " << kernel[i];
  }
  return success();
}

LogicalResult verifyPool(Operation *op, Value input, Type result,
                         ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                         ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                         bool ceilMode) {
  if (failed(checkRank(op, "input", input, {3, 4})) ||
      failed(checkOneElementType(op)) ||
      failed(checkWindowAttrs(op, kernel, stride, padding, dilation)))
    return failure();
  auto in = tensorType(input).getShape();
  SmallVector<int64_t> expected(in.begin(), in.end());
  size_t h = in.size() - 2;
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> out = pooledSize(in[h + i], kernel[i], stride[i],
                                            padding[i], dilation[i], ceilMode);
    if (!out)
      return overflowError(op, "the pooled dim " + Twine(h + i));
    if (*out < 1)
      return op->emitOpError() << "window does not fit the input "
                               << formatShape(in);
    expected[h + i] = *out;
  }
  return checkResultShape(op, expected, result);
}

} // namespace

//===----------------------------------------------------------------------===//
// Convolution and matrix products
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "input", getInput(), {3, 4, 5})) ||
      failed(checkOneElementType(op)))
    return failure();
  if (getTransposed() && getInput().getType().getRank() == 5)
    return emitOpError() << "a 3-D transposed convolution is not supported";
  auto in = getInput().getType().getShape();
  auto w = getWeight().getType().getShape();
  size_t spatial = in.size() - 2;
  if (w.size() != in.size())
    return emitOpError() << "weight rank " << w.size()
                         << " must equal input rank " << in.size();
  for (auto [name, arr] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"stride", getStride()},
        {"padding", getPadding()},
        {"dilation", getDilation()},
        {"output_padding", getOutputPadding()}})
    if (arr.size() != spatial)
      return emitOpError() << name << " needs " << spatial << " entries, got "
                           << arr.size();
  int64_t groups = getGroups();
  if (groups < 1)
    return emitOpError() << "groups must be positive, got " << groups;
  for (size_t i = 0; i < spatial; ++i)
    if (getStride()[i] < 1 || getDilation()[i] < 1 || getPadding()[i] < 0 ||
        getOutputPadding()[i] < 0)
      return emitOpError() << "stride and dilation must be positive, padding "
                              "and output_padding non-negative";

  int64_t channels = in[1], outChannels;
  SmallVector<int64_t> expected = {in[0], 0};
  if (!getTransposed()) {
    std::optional<int64_t> weightChannels = llvm::checkedMul(w[1], groups);
    if (channels != weightChannels)
      return emitOpError() << "input has " << channels
                           << " channels but weight expects " << w[1] << " x "
                           << groups << " groups";
    outChannels = w[0];
    if (outChannels % groups)
      return emitOpError() << "output channels " << outChannels
                           << " are not divisible by groups " << groups;
    for (size_t i = 0; i < spatial; ++i) {
      std::optional<int64_t> span =
          windowSpan(in[2 + i], w[2 + i], getPadding()[i], getDilation()[i]);
      if (!span)
        return overflowError(op, "output dim " + Twine(2 + i));
      // span / stride + 1 cannot overflow: stride >= 1 and span < INT64_MAX.
      expected.push_back(llvm::divideFloorSigned(*span, getStride()[i]) + 1);
    }
  } else {
    if (channels != w[0] || channels % groups)
      return emitOpError() << "transposed convolution: input has " << channels
                           << " channels but weight has " << w[0]
                           << " (must match and divide by groups " << groups
                           << ")";
    std::optional<int64_t> total = llvm::checkedMul(w[1], groups);
    if (!total)
      return overflowError(op, "output dim 1 (" + Twine(w[1]) + " x " +
                                   Twine(groups) + " groups)");
    outChannels = *total;
    for (size_t i = 0; i < spatial; ++i) {
      if (getOutputPadding()[i] >= std::max(getStride()[i], getDilation()[i]))
        return emitOpError()
               << "output_padding must be smaller than stride or dilation";
      // (in - 1) * stride - 2 * padding + dilation * (kernel - 1) +
      // output_padding + 1, every step checked.
      std::optional<int64_t> size =
          llvm::checkedMul<int64_t>(in[2 + i] - 1, getStride()[i]);
      std::optional<int64_t> pad =
          llvm::checkedMul<int64_t>(getPadding()[i], 2);
      std::optional<int64_t> reach =
          llvm::checkedMul<int64_t>(getDilation()[i], w[2 + i] - 1);
      if (size && pad)
        size = llvm::checkedSub(*size, *pad);
      if (size && reach)
        size = llvm::checkedAdd(*size, *reach);
      if (size)
        size = llvm::checkedAdd<int64_t>(*size, getOutputPadding()[i]);
      if (size)
        size = llvm::checkedAdd<int64_t>(*size, 1);
      if (!size || !pad || !reach)
        return overflowError(op, "output dim " + Twine(2 + i));
      expected.push_back(*size);
    }
  }
  expected[1] = outChannels;
  if (llvm::any_of(ArrayRef(expected).drop_front(2),
                   [](int64_t d) { return d < 1; }))
    return emitOpError() << "output size " << formatShape(expected)
                         << " is empty: the dilated kernel " << formatShape(w)
                         << " does not fit the padded input "
                         << formatShape(in);
  if (failed(checkVector(op, "bias", getBias(), outChannels)))
    return failure();
  return checkResultShape(op, expected, getType());
}

LogicalResult LinearOp::verify() {
  // The rule checks the ranks too.
  Operation *op = getOperation();
  FailureOr<ResultShape> shape =
      linearShape(shapeOf(getInput()), shapeOf(getWeight()), op);
  if (failed(shape) || failed(checkOneElementType(op)) ||
      failed(checkVector(op, "bias", getBias(), shapeOf(getWeight())[0])))
    return failure();
  return checkResultShape(op, *shape, getType());
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferred(linearShape(shapeOf(adaptor.getInput()),
                              shapeOf(adaptor.getWeight()),
                              {loc, getOperationName()}),
                  elementOf(adaptor.getInput()), types);
}

/// How addmm's errors name its matrices.
const ProductNames kAddmmNames{"mat1", "mat2", "mat1 ", "mat2 "};

LogicalResult AddmmOp::verify() {
  Operation *op = getOperation();
  FailureOr<ResultShape> expected =
      mmShape(shapeOf(getMat1()), shapeOf(getMat2()), op, kAddmmNames);
  if (failed(expected) || failed(checkOneElementType(op)))
    return failure();
  FailureOr<ResultShape> broadcast =
      broadcastShape(shapeOf(getSelf()), *expected, op);
  if (failed(broadcast))
    return failure();
  if (*broadcast != *expected)
    return emitOpError() << "self must broadcast to " << formatShape(*expected);
  return checkResultShape(op, *expected, getType());
}

LogicalResult AddmmOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  return inferred(mmShape(shapeOf(adaptor.getMat1()),
                          shapeOf(adaptor.getMat2()), {loc, getOperationName()},
                          kAddmmNames),
                  elementOf(adaptor.getMat1()), types);
}

LogicalResult MmOp::verify() {
  Operation *op = getOperation();
  FailureOr<ResultShape> shape =
      mmShape(shapeOf(getSelf()), shapeOf(getOther()), op);
  if (failed(shape) || failed(checkOneElementType(op)))
    return failure();
  return checkResultShape(op, *shape, getType());
}

LogicalResult BmmOp::verify() {
  Operation *op = getOperation();
  FailureOr<ResultShape> shape =
      bmmShape(shapeOf(getSelf()), shapeOf(getOther()), op);
  if (failed(shape) || failed(checkOneElementType(op)))
    return failure();
  return checkResultShape(op, *shape, getType());
}

LogicalResult MatmulOp::verify() {
  Operation *op = getOperation();
  if (failed(checkOneElementType(op)))
    return failure();
  return checkRuleShape(
      op, matmulShape(shapeOf(getSelf()), shapeOf(getOther()), op), getType());
}

/// mm, bmm and matmul: the rule of their two operands, `self` and `other`.
#define DUET_INFER_PRODUCT(Op, rule)                                           \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &types) {                                          \
    return inferred(rule(shapeOf(adaptor.getSelf()),                           \
                         shapeOf(adaptor.getOther()),                          \
                         {loc, getOperationName()}),                           \
                    elementOf(adaptor.getSelf()), types);                      \
  }
DUET_INFER_PRODUCT(MmOp, mmShape)
DUET_INFER_PRODUCT(BmmOp, bmmShape)
DUET_INFER_PRODUCT(MatmulOp, matmulShape)
#undef DUET_INFER_PRODUCT

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::verify() {
  Operation *op = getOperation();
  auto in = getInput().getType().getShape();
  if (in.size() < 2)
    return emitOpError() << "input must have rank 2 or more (N, C, ...), got "
                         << in.size();
  if (failed(checkOneElementType(op)))
    return failure();
  int64_t c = in[1];
  if (failed(checkVector(op, "running_mean", getRunningMean(), c)) ||
      failed(checkVector(op, "running_var", getRunningVar(), c)) ||
      failed(checkVector(op, "weight", getWeight(), c)) ||
      failed(checkVector(op, "bias", getBias(), c)))
    return failure();
  if (getEps().convertToDouble() < 0)
    return emitOpError() << "eps must be non-negative";
  return checkResultShape(op, in, getType());
}

LogicalResult LayerNormOp::verify() {
  Operation *op = getOperation();
  if (failed(checkOneElementType(op)))
    return failure();
  auto in = getInput().getType().getShape();
  ArrayRef<int64_t> norm = getNormalizedShape();
  if (norm.empty() || norm.size() > in.size() ||
      in.take_back(norm.size()) != norm)
    return emitOpError() << "normalized_shape " << formatShape(norm)
                         << " must be the trailing dims of the input "
                         << formatShape(in);
  for (Value param : {getWeight(), getBias()})
    if (param && tensorType(param).getShape() != norm)
      return emitOpError() << "weight and bias must have shape "
                           << formatShape(norm);
  if (getEps().convertToDouble() < 0)
    return emitOpError() << "eps must be non-negative";
  return checkResultShape(op, in, getType());
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult HardtanhOp::verify() {
  if (getMinVal().convertToDouble() > getMaxVal().convertToDouble())
    return emitOpError() << "min_val " << getMinVal().convertToDouble()
                         << " is greater than max_val "
                         << getMaxVal().convertToDouble();
  return success();
}

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError() << "needs at least one of min and max";
  return success();
}

/// Shared by every binary op: the result is the broadcast of both operands,
/// and all three share one element type.
static LogicalResult verifyBinary(Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (failed(checkSameElementType(op, {lhs, rhs, op->getResult(0)})))
    return failure();
  return checkRuleShape(op, broadcastShape(shapeOf(lhs), shapeOf(rhs), op),
                        op->getResult(0).getType());
}

/// Comparisons and logical ops: the result is i1 of the broadcast shape.
/// Comparisons also need operands of one element type.
static LogicalResult verifyPredicate(Operation *op, bool sameOperandTypes) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (sameOperandTypes && failed(checkSameElementType(op, {lhs, rhs})))
    return failure();
  return checkRuleShape(op, broadcastShape(shapeOf(lhs), shapeOf(rhs), op),
                        op->getResult(0).getType());
}

/// The type of a binary op's result: the broadcast shape, of `element` (the
/// first operand's when null).
static LogicalResult inferBroadcast(std::optional<Location> loc, StringRef name,
                                    Value lhs, Value rhs, Type element,
                                    SmallVectorImpl<Type> &types) {
  return inferred(broadcastShape(shapeOf(lhs), shapeOf(rhs), {loc, name}),
                  element ? element : elementOf(lhs), types);
}

#define DUET_INFER_BROADCAST(Op, element)                                      \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,      \
      SmallVectorImpl<Type> &types) {                                          \
    (void)context;                                                             \
    return inferBroadcast(loc, getOperationName(), adaptor.getSelf(),          \
                          adaptor.getOther(), element, types);                 \
  }
#define DUET_INFER_PREDICATE(Op)                                               \
  DUET_INFER_BROADCAST(Op, IntegerType::get(context, 1))
DUET_INFER_PREDICATE(EqOp)
DUET_INFER_PREDICATE(NeOp)
DUET_INFER_PREDICATE(LtOp)
DUET_INFER_PREDICATE(LeOp)
DUET_INFER_PREDICATE(GtOp)
DUET_INFER_PREDICATE(GeOp)
DUET_INFER_PREDICATE(LogicalAndOp)
DUET_INFER_PREDICATE(LogicalOrOp)
DUET_INFER_BROADCAST(AddOp, Type())
DUET_INFER_BROADCAST(SubOp, Type())
DUET_INFER_BROADCAST(MulOp, Type())
DUET_INFER_BROADCAST(DivOp, Type())
DUET_INFER_BROADCAST(MaximumOp, Type())
DUET_INFER_BROADCAST(MinimumOp, Type())
DUET_INFER_BROADCAST(RemainderOp, Type())
DUET_INFER_BROADCAST(PowTensorOp, Type())
DUET_INFER_BROADCAST(Atan2Op, Type())
DUET_INFER_BROADCAST(BitwiseAndOp, Type())
DUET_INFER_BROADCAST(BitwiseOrOp, Type())
DUET_INFER_BROADCAST(BitwiseXorOp, Type())
#undef DUET_INFER_PREDICATE
#undef DUET_INFER_BROADCAST

LogicalResult EqOp::verify() { return verifyPredicate(*this, true); }
LogicalResult NeOp::verify() { return verifyPredicate(*this, true); }
LogicalResult LtOp::verify() { return verifyPredicate(*this, true); }
LogicalResult LeOp::verify() { return verifyPredicate(*this, true); }
LogicalResult GtOp::verify() { return verifyPredicate(*this, true); }
LogicalResult GeOp::verify() { return verifyPredicate(*this, true); }
LogicalResult LogicalAndOp::verify() { return verifyPredicate(*this, false); }
LogicalResult LogicalOrOp::verify() { return verifyPredicate(*this, false); }

/// The condition, self and other broadcast together.
static FailureOr<ResultShape> whereShape(Value condition, Value self,
                                         Value other,
                                         const ShapeReport &report) {
  FailureOr<ResultShape> partial =
      broadcastShape(shapeOf(condition), shapeOf(self), report);
  if (failed(partial))
    return failure();
  return broadcastShape(*partial, shapeOf(other), report);
}

LogicalResult WhereOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getOther(), getResult()})))
    return failure();
  return checkRuleShape(
      *this, whereShape(getCondition(), getSelf(), getOther(), getOperation()),
      getType());
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  return inferred(whereShape(adaptor.getCondition(), adaptor.getSelf(),
                             adaptor.getOther(), {loc, getOperationName()}),
                  elementOf(adaptor.getSelf()), types);
}

LogicalResult AddOp::verify() { return verifyBinary(*this); }
LogicalResult SubOp::verify() { return verifyBinary(*this); }
LogicalResult MulOp::verify() { return verifyBinary(*this); }
LogicalResult DivOp::verify() { return verifyBinary(*this); }
LogicalResult MaximumOp::verify() { return verifyBinary(*this); }
LogicalResult MinimumOp::verify() { return verifyBinary(*this); }
LogicalResult RemainderOp::verify() { return verifyBinary(*this); }
LogicalResult PowTensorOp::verify() { return verifyBinary(*this); }
LogicalResult Atan2Op::verify() { return verifyBinary(*this); }
LogicalResult BitwiseAndOp::verify() { return verifyBinary(*this); }
LogicalResult BitwiseOrOp::verify() { return verifyBinary(*this); }
LogicalResult BitwiseXorOp::verify() { return verifyBinary(*this); }

//===----------------------------------------------------------------------===//
// Reductions, pooling, softmax
//===----------------------------------------------------------------------===//

static LogicalResult verifyReduction(Operation *op, Value input,
                                     ArrayRef<int64_t> dims, bool keepdim) {
  FailureOr<ResultShape> expected =
      reductionShape(shapeOf(input), dims, keepdim, op);
  if (failed(expected) ||
      failed(checkSameElementType(op, {input, op->getResult(0)})))
    return failure();
  return checkResultShape(op, *expected, op->getResult(0).getType());
}

#define DUET_INFER_REDUCTION(Op)                                               \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &types) {                                          \
    return inferred(reductionShape(shapeOf(adaptor.getSelf()),                 \
                                   adaptor.getDim(), adaptor.getKeepdim(),     \
                                   {loc, getOperationName()}),                 \
                    elementOf(adaptor.getSelf()), types);                      \
  }
DUET_INFER_REDUCTION(MeanOp)
DUET_INFER_REDUCTION(SumOp)
DUET_INFER_REDUCTION(AmaxOp)
DUET_INFER_REDUCTION(ProdOp)
DUET_INFER_REDUCTION(AnyOp)
#undef DUET_INFER_REDUCTION

LogicalResult MeanOp::verify() {
  return verifyReduction(*this, getSelf(), getDim(), getKeepdim());
}
LogicalResult SumOp::verify() {
  return verifyReduction(*this, getSelf(), getDim(), getKeepdim());
}
LogicalResult AmaxOp::verify() {
  return verifyReduction(*this, getSelf(), getDim(), getKeepdim());
}
LogicalResult ProdOp::verify() {
  return verifyReduction(*this, getSelf(), getDim(), getKeepdim());
}
LogicalResult AnyOp::verify() {
  return verifyReduction(*this, getSelf(), getDim(), getKeepdim());
}

LogicalResult AdaptiveAvgPool2dOp::verify() {
  Operation *op = getOperation();
  if (failed(checkRank(op, "input", getSelf(), {3, 4})) ||
      failed(checkSameElementType(op, {getSelf(), getResult()})))
    return failure();
  auto in = getSelf().getType().getShape(), out = getType().getShape();
  if (out.size() != in.size() || in.drop_back(2) != out.drop_back(2))
    return emitOpError() << "result " << formatShape(out)
                         << " must keep the leading dims of the input "
                         << formatShape(in);
  if (out.take_back(2)[0] < 1 || out.take_back(2)[1] < 1)
    return emitOpError() << "output size must be positive";
  return success();
}

LogicalResult AvgPool2dOp::verify() {
  if (getDivisorOverride() && *getDivisorOverride() == 0)
    return emitOpError() << "divisor_override must not be 0";
  return verifyPool(*this, getSelf(), getType(), getKernelSize(), getStride(),
                    getPadding(), {1, 1}, getCeilMode());
}

LogicalResult MaxPool2dOp::verify() {
  return verifyPool(*this, getSelf(), getType(), getKernelSize(), getStride(),
                    getPadding(), getDilation(), getCeilMode());
}

LogicalResult CumsumOp::verify() {
  return checkDim(*this, "dim", getDim(), getType().getRank());
}

LogicalResult SoftmaxOp::verify() {
  return checkDim(*this, "dim", getDim(), getType().getRank());
}
LogicalResult LogSoftmaxOp::verify() {
  return checkDim(*this, "dim", getDim(), getType().getRank());
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

LogicalResult ViewOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})))
    return failure();
  auto in = getSelf().getType().getShape(), out = getType().getShape();
  std::optional<int64_t> inCount = numElements(in), outCount = numElements(out);
  if (!inCount || !outCount)
    return overflowError(*this, "the element count");
  if (*inCount != *outCount)
    return emitOpError() << "cannot view " << formatShape(in) << " ("
                         << *inCount << " elements) as " << formatShape(out)
                         << " (" << *outCount << " elements)";
  return success();
}

LogicalResult PermuteOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})))
    return failure();
  return checkRuleShape(
      *this, permuteShape(shapeOf(getSelf()), getDims(), getOperation()),
      getType());
}

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferred(permuteShape(shapeOf(adaptor.getSelf()), adaptor.getDims(),
                               {loc, getOperationName()}),
                  elementOf(adaptor.getSelf()), types);
}

LogicalResult ExpandOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})))
    return failure();
  auto in = getSelf().getType().getShape(), out = getType().getShape();
  bool ok = out.size() >= in.size();
  for (size_t i = 0; ok && i < in.size(); ++i) {
    int64_t a = in[in.size() - 1 - i], b = out[out.size() - 1 - i];
    ok = a == b || a == 1;
  }
  if (!ok)
    return emitOpError() << "cannot expand " << formatShape(in) << " to "
                         << formatShape(out);
  return success();
}

LogicalResult RepeatOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})))
    return failure();
  auto in = getSelf().getType().getShape();
  ArrayRef<int64_t> repeats = getRepeats();
  if (repeats.size() < in.size())
    return emitOpError() << "repeats " << formatShape(repeats) << " has fewer "
                         << "entries than self " << formatShape(in)
                         << " has dims";
  size_t lead = repeats.size() - in.size();
  SmallVector<int64_t> expected;
  for (auto [d, times] : llvm::enumerate(repeats)) {
    if (times < 0)
      return emitOpError() << "repeats " << formatShape(repeats)
                           << " has a negative entry";
    std::optional<int64_t> size =
        llvm::checkedMul(times, d < lead ? 1 : in[d - lead]);
    if (!size)
      return overflowError(*this, "dim " + Twine(d) + " of the result");
    expected.push_back(*size);
  }
  return checkResultShape(*this, expected, getType());
}

LogicalResult SliceOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})))
    return failure();
  auto in = getSelf().getType().getShape();
  int64_t dim = getDim(), start = getStart(), end = getEnd(), step = getStep();
  if (failed(checkDim(*this, "dim", dim, in.size())))
    return failure();
  if (step < 1)
    return emitOpError() << "step must be positive, got " << step;
  if (start < 0 || end < start || end > in[dim])
    return emitOpError() << "needs 0 <= start <= end <= " << in[dim]
                         << ", got start " << start << " and end " << end;
  SmallVector<int64_t> expected(in);
  // ceil((end - start) / step), without the sum that overflows for a huge
  // step.
  int64_t length = end - start;
  expected[dim] = length == 0 ? 0 : (length - 1) / step + 1;
  return checkResultShape(*this, expected, getType());
}

LogicalResult SelectOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})))
    return failure();
  auto in = getSelf().getType().getShape();
  int64_t dim = getDim(), index = getIndex();
  if (failed(checkDim(*this, "dim", dim, in.size())))
    return failure();
  if (index < 0 || index >= in[dim])
    return emitOpError() << "index " << index << " is out of range for size "
                         << in[dim];
  SmallVector<int64_t> expected(in);
  expected.erase(expected.begin() + dim);
  return checkResultShape(*this, expected, getType());
}

LogicalResult ConstantPadNdOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})))
    return failure();
  auto in = getSelf().getType().getShape();
  ArrayRef<int64_t> pad = getPad();
  if (pad.size() % 2 || pad.size() / 2 > in.size())
    return emitOpError() << "pad needs an even number of entries, at most "
                         << 2 * in.size() << ", got " << pad.size();
  SmallVector<int64_t> expected(in);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t &d = expected[in.size() - 1 - i];
    std::optional<int64_t> padded = llvm::checkedAdd(d, pad[2 * i]);
    if (padded)
      padded = llvm::checkedAdd(*padded, pad[2 * i + 1]);
    if (!padded)
      return overflowError(*this, "the padded dim " + Twine(in.size() - 1 - i));
    d = *padded;
    if (d < 0)
      return emitOpError() << "padding makes dim " << in.size() - 1 - i
                           << " negative";
  }
  return checkResultShape(*this, expected, getType());
}

LogicalResult CatOp::verify() {
  if (getTensors().empty())
    return emitOpError() << "needs at least one tensor";
  SmallVector<Value> all(getTensors());
  all.push_back(getResult());
  if (failed(checkSameElementType(*this, all)))
    return failure();
  auto first = tensorType(getTensors().front()).getShape();
  int64_t dim = getDim();
  if (failed(checkDim(*this, "dim", dim, first.size())))
    return failure();
  SmallVector<int64_t> expected(first);
  expected[dim] = 0;
  for (Value t : getTensors()) {
    auto shape = tensorType(t).getShape();
    for (size_t i = 0; i < first.size(); ++i)
      if (shape.size() != first.size() ||
          (i != static_cast<size_t>(dim) && shape[i] != first[i]))
        return emitOpError() << "cannot concatenate " << formatShape(first)
                             << " and " << formatShape(shape) << " along dim "
                             << dim;
    std::optional<int64_t> total = llvm::checkedAdd(expected[dim], shape[dim]);
    if (!total)
      return overflowError(*this, "the concatenated dim " + Twine(dim));
    expected[dim] = *total;
  }
  return checkResultShape(*this, expected, getType());
}

LogicalResult SplitWithSizesOp::verify() {
  auto in = getSelf().getType().getShape();
  int64_t dim = getDim();
  if (failed(checkDim(*this, "dim", dim, in.size())))
    return failure();
  ArrayRef<int64_t> sizes = getSplitSizes();
  if (sizes.size() != getNumResults())
    return emitOpError() << "has " << getNumResults() << " results for "
                         << sizes.size() << " split sizes";
  int64_t total = 0;
  for (auto [size, result] : llvm::zip(sizes, getResults())) {
    if (size < 0)
      return emitOpError() << "split sizes must be non-negative";
    SmallVector<int64_t> expected(in);
    expected[dim] = size;
    if (failed(checkResultShape(*this, expected, result.getType())) ||
        failed(checkSameElementType(*this, {getSelf(), result})))
      return failure();
    std::optional<int64_t> sum = llvm::checkedAdd(total, size);
    if (!sum)
      return overflowError(*this, "the split sizes' sum");
    total = *sum;
  }
  if (total != in[dim])
    return emitOpError() << "split sizes add up to " << total
                         << " but dim " << dim << " has size " << in[dim];
  return success();
}

//===----------------------------------------------------------------------===//
// Resampling, lookup, attention
//===----------------------------------------------------------------------===//

static LogicalResult verifyUpsample(Operation *op, Value input, Type result) {
  if (failed(checkRank(op, "input", input, {4})) ||
      failed(checkSameElementType(op, {input, op->getResult(0)})))
    return failure();
  auto in = tensorType(input).getShape();
  auto out = cast<RankedTensorType>(result).getShape();
  if (out.size() != 4 || out[0] != in[0] || out[1] != in[1] || out[2] < 1 ||
      out[3] < 1)
    return op->emitOpError()
           << "result " << formatShape(out)
           << " must keep N and C of the input " << formatShape(in)
           << " and have positive H and W";
  return success();
}

LogicalResult UpsampleNearest2dOp::verify() {
  return verifyUpsample(*this, getSelf(), getType());
}
LogicalResult UpsampleBilinear2dOp::verify() {
  return verifyUpsample(*this, getSelf(), getType());
}

LogicalResult UpsampleBicubic2dOp::verify() {
  return verifyUpsample(*this, getSelf(), getType());
}

LogicalResult GridSampler2dOp::verify() {
  if (failed(checkRank(*this, "input", getInput(), {4})) ||
      failed(checkRank(*this, "grid", getGrid(), {4})) ||
      failed(checkSameElementType(*this, {getInput(), getGrid(), getResult()})))
    return failure();
  auto in = getInput().getType().getShape(), grid = getGrid().getType().getShape();
  if (grid[0] != in[0] || grid[3] != 2)
    return emitOpError() << "grid " << formatShape(grid)
                         << " must be [N, Ho, Wo, 2] for the input "
                         << formatShape(in);
  if (getInterpolationMode() < 0 || getInterpolationMode() > 1)
    return emitOpError() << "interpolation_mode " << getInterpolationMode()
                         << " is not 0 (bilinear) or 1 (nearest)";
  if (getPaddingMode() < 0 || getPaddingMode() > 2)
    return emitOpError() << "padding_mode " << getPaddingMode()
                         << " is not 0 (zeros), 1 (border) or 2 (reflection)";
  return checkResultShape(*this, {in[0], in[1], grid[1], grid[2]}, getType());
}

LogicalResult ScatterOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getSrc(), getResult()})))
    return failure();
  auto self = getSelf().getType().getShape(), src = getSrc().getType().getShape(),
       index = getIndex().getType().getShape();
  int64_t dim = getDim();
  if (self.empty())
    return emitOpError() << "needs a tensor of rank 1 or more";
  if (failed(checkDim(*this, "dim", dim, self.size())))
    return failure();
  if (index.size() != self.size() || src.size() != self.size())
    return emitOpError() << "index " << formatShape(index) << " and src "
                         << formatShape(src) << " must have the rank of self "
                         << formatShape(self);
  for (size_t d = 0; d < self.size(); ++d)
    if (index[d] > src[d] ||
        (static_cast<int64_t>(d) != dim && index[d] > self[d]))
      return emitOpError() << "index " << formatShape(index)
                           << " is larger than src " << formatShape(src)
                           << " or, outside dim " << dim << ", than self "
                           << formatShape(self);
  if (getReduce() == ScatterReduce::none && !getIncludeSelf())
    return emitOpError() << "include_self = false needs a reduction";
  return checkResultShape(*this, self, getType());
}

LogicalResult TopkOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getValues()})))
    return failure();
  auto in = getSelf().getType().getShape();
  int64_t dim = getDim();
  if (in.empty())
    return emitOpError() << "needs a tensor of rank 1 or more";
  if (failed(checkDim(*this, "dim", dim, in.size())))
    return failure();
  if (getK() < 0 || getK() > in[dim])
    return emitOpError() << "k " << getK() << " is outside [0, " << in[dim]
                         << "], the size of dim " << dim;
  SmallVector<int64_t> shape(in);
  shape[dim] = getK();
  if (failed(checkResultShape(*this, shape, getValues().getType())))
    return failure();
  return checkResultShape(*this, shape, getIndices().getType());
}

LogicalResult EmbeddingOp::verify() {
  if (failed(checkRank(*this, "weight", getWeight(), {2})) ||
      failed(checkSameElementType(*this, {getWeight(), getResult()})))
    return failure();
  SmallVector<int64_t> expected(getIndices().getType().getShape());
  expected.push_back(getWeight().getType().getShape()[1]);
  return checkResultShape(*this, expected, getType());
}

LogicalResult GatherOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})))
    return failure();
  auto in = getSelf().getType().getShape(),
       index = getIndex().getType().getShape();
  int64_t dim = getDim();
  if (failed(checkDim(*this, "dim", dim, in.size())))
    return failure();
  if (index.size() != in.size())
    return emitOpError() << "index " << formatShape(index)
                         << " must have the rank of self " << formatShape(in);
  for (size_t d = 0; d < in.size(); ++d)
    if (static_cast<int64_t>(d) != dim && index[d] > in[d])
      return emitOpError() << "index " << formatShape(index)
                           << " is larger than self " << formatShape(in)
                           << " in dim " << d << ", which is not dim " << dim;
  return checkResultShape(*this, index, getType());
}

LogicalResult IndexSelectOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getResult()})) ||
      failed(checkRank(*this, "index", getIndex(), {0, 1})))
    return failure();
  auto in = getSelf().getType().getShape();
  int64_t dim = getDim();
  if (failed(checkDim(*this, "dim", dim, in.size())))
    return failure();
  SmallVector<int64_t> expected(in);
  expected[dim] = getIndex().getType().getNumElements();
  return checkResultShape(*this, expected, getType());
}

LogicalResult ScaledDotProductAttentionOp::verify() {
  Operation *op = getOperation();
  if (failed(checkSameElementType(op, {getQuery(), getKey(), getValue(),
                                       getResult()})))
    return failure();
  auto q = getQuery().getType().getShape(), k = getKey().getType().getShape(),
       v = getValue().getType().getShape();
  if (q.size() < 2 || k.size() != q.size() || v.size() != q.size())
    return emitOpError() << "query, key and value must share one rank of 2 "
                            "or more";
  if (q.drop_back(2) != k.drop_back(2) || q.drop_back(2) != v.drop_back(2))
    return emitOpError() << "query, key and value must share batch dims";
  if (q.back() != k.back() || k[k.size() - 2] != v[v.size() - 2])
    return emitOpError() << "query " << formatShape(q) << ", key "
                         << formatShape(k) << " and value " << formatShape(v)
                         << " do not match";
  if (getAttnMask()) {
    if (getIsCausal())
      return emitOpError() << "takes either attn_mask or is_causal, not both";
    Type maskElement = tensorType(getAttnMask()).getElementType();
    if (!maskElement.isInteger(1) &&
        maskElement != getQuery().getType().getElementType())
      return emitOpError() << "attn_mask must be boolean or of the query's "
                              "element type, got "
                           << maskElement;
    SmallVector<int64_t> scores(q.drop_back()), shape;
    scores.push_back(k[k.size() - 2]);
    auto mask = tensorType(getAttnMask()).getShape();
    if (!OpTrait::util::getBroadcastedShape(mask, scores, shape) ||
        shape != scores)
      return emitOpError() << "attn_mask " << formatShape(mask)
                           << " must broadcast to the scores "
                           << formatShape(scores);
  }
  // One batch entry's scores [L, S] (the portable kernel's scratch, and a
  // causal mask's constant where attention is decomposed) exist whatever E
  // is: in float32 they must fit one tensor. The decomposition's whole
  // [..., L, S] scores are a tensor the memory planner bounds in turn.
  int64_t length = q[q.size() - 2], keys = k[k.size() - 2];
  std::optional<int64_t> count = llvm::checkedMul(length, keys);
  if (!count || static_cast<uint64_t>(*count) > rt::kMaxTensorBytes / 4)
    return emitOpError() << "its [" << length << ", " << keys
                         << "] scores would take over " << rt::kMaxTensorBytes
                         << " bytes, the most one tensor may hold "
                            "(kMaxTensorBytes, 4 GiB); export the model with "
                            "shorter sequences";
  SmallVector<int64_t> expected(q.drop_back());
  expected.push_back(v.back());
  return checkResultShape(op, expected, getType());
}

#define GET_OP_CLASSES
#include "dialects/aten/AtenOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

namespace {

/// The range of the integer element type `type`.
std::pair<int64_t, int64_t> integerRange(Type type) {
  auto integer = cast<IntegerType>(type);
  unsigned bits = integer.getWidth();
  if (integer.isUnsigned())
    return {0, (int64_t{1} << bits) - 1};
  return {-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
}

/// quant_min <= quant_max, both in the range of the quantized element type
/// `quantized`.
LogicalResult checkQuantRange(Operation *op, int64_t min, int64_t max,
                              Type quantized) {
  auto [lo, hi] = integerRange(getElementTypeOrSelf(quantized));
  if (min > max || min < lo || max > hi)
    return op->emitOpError()
           << "quant_min " << min << " and quant_max " << max
           << " must satisfy " << lo << " <= quant_min <= quant_max <= " << hi
           << " for " << getElementTypeOrSelf(quantized);
  return success();
}

/// A scale PyTorch can divide by and multiply with: positive and finite.
LogicalResult checkScale(Operation *op, double scale) {
  if (scale > 0 && std::isfinite(scale))
    return success();
  return op->emitOpError() << "scale " << scale
                           << " must be positive and finite";
}

/// The per-channel operands: `axis` a dim of `self`, `scales` (and
/// `zeroPoints` when given) of one element per index of it.
LogicalResult checkChannels(Operation *op, Value self, Value scales,
                            Value zeroPoints, int64_t axis) {
  int64_t rank = tensorType(self).getRank();
  if (failed(checkDim(op, "axis", axis, rank)))
    return failure();
  int64_t channels = tensorType(self).getDimSize(axis);
  if (failed(checkVector(op, "scales", scales, channels)) ||
      failed(checkVector(op, "zero_points", zeroPoints, channels)))
    return failure();
  return success();
}

} // namespace

/// A zero point the kernels take (runtime/kernels/Quantize.cpp).
static LogicalResult checkZeroPoint(Operation *op, int64_t zeroPoint) {
  if (zeroPoint >= -(int64_t{1} << 40) && zeroPoint <= (int64_t{1} << 40))
    return success();
  return op->emitOpError() << "zero_point " << zeroPoint
                           << " is out of range (at most 2^40 in magnitude)";
}

LogicalResult QuantizePerTensorOp::verify() {
  if (failed(checkScale(*this, getScale().convertToDouble())) ||
      failed(checkZeroPoint(*this, int64_t(getZeroPoint()))))
    return failure();
  return checkQuantRange(*this, getQuantMin(), getQuantMax(), getType());
}

LogicalResult DequantizePerTensorOp::verify() {
  if (failed(checkScale(*this, getScale().convertToDouble())) ||
      failed(checkZeroPoint(*this, int64_t(getZeroPoint()))))
    return failure();
  return checkQuantRange(*this, getQuantMin(), getQuantMax(),
                         getSelf().getType());
}

LogicalResult QuantizePerChannelOp::verify() {
  if (failed(checkChannels(*this, getSelf(), getScales(), getZeroPoints(),
                           getAxis())))
    return failure();
  return checkQuantRange(*this, getQuantMin(), getQuantMax(), getType());
}

LogicalResult DequantizePerChannelOp::verify() {
  if (failed(checkChannels(*this, getSelf(), getScales(), getZeroPoints(),
                           getAxis())) ||
      failed(checkResultShape(*this, getSelf().getType().getShape(),
                              getType())))
    return failure();
  return checkQuantRange(*this, getQuantMin(), getQuantMax(),
                         getSelf().getType());
}

LogicalResult ChooseQparamsOp::verify() {
  int64_t min = getQuantMin(), max = getQuantMax();
  // PyTorch's validate_qmin_qmax.
  if (!(min <= 0 && 0 <= max && min < max))
    return emitOpError() << "quant_min " << min << " and quant_max " << max
                         << " must satisfy quant_min <= 0 <= quant_max and "
                            "quant_min < quant_max";
  double eps = getEps().convertToDouble();
  if (!(eps >= 0) || !std::isfinite(eps))
    return emitOpError() << "eps " << eps << " must be finite and not negative";
  if (failed(checkVector(*this, "scale", getScale(), 1)) ||
      failed(checkVector(*this, "zero_point", getZeroPoint(), 1)))
    return failure();
  return success();
}

namespace {

/// A dynamic quantize or dequantize: `self` and `result` of one shape, the
/// scale and zero point one element each, the range within `quantized`.
template <typename OpT> LogicalResult verifyDynamic(OpT op, Type quantized) {
  for (auto [what, value] :
       {std::pair<StringRef, Value>{"scale", op.getScale()},
        {"zero_point", op.getZeroPoint()}})
    if (tensorType(value).getNumElements() != 1)
      return op.emitOpError() << what << " must have one element, got "
                              << formatShape(tensorType(value).getShape());
  if (failed(checkResultShape(op, op.getSelf().getType().getShape(),
                              op.getType())))
    return failure();
  return checkQuantRange(op, op.getQuantMin(), op.getQuantMax(), quantized);
}

} // namespace

LogicalResult QuantizePerTensorDynamicOp::verify() {
  return verifyDynamic(*this, getType());
}

LogicalResult DequantizePerTensorDynamicOp::verify() {
  return verifyDynamic(*this, getSelf().getType());
}
