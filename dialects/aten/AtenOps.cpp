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

/// The window of a pooling op as its shape rule takes it.
PoolWindow poolWindow(ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                      ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                      bool ceilMode) {
  return PoolWindow{kernel, stride, padding, dilation, ceilMode};
}

} // namespace

//===----------------------------------------------------------------------===//
// Convolution and matrix products
//===----------------------------------------------------------------------===//

namespace {
template <typename AdaptorT> ConvolutionAttrs convolutionAttrs(AdaptorT op) {
  return ConvolutionAttrs{op.getStride(),
                          op.getPadding(),
                          op.getDilation(),
                          op.getOutputPadding(),
                          static_cast<int64_t>(op.getGroups()),
                          op.getTransposed()};
}
} // namespace

LogicalResult ConvolutionOp::verify() {
  Operation *op = getOperation();
  FailureOr<ResultShape> shape = convolutionShape(
      shapeOf(getInput()), shapeOf(getWeight()), convolutionAttrs(*this), op);
  if (failed(shape) || failed(checkOneElementType(op)) ||
      failed(checkVector(op, "bias", getBias(), (*shape)[1])))
    return failure();
  return checkResultShape(op, *shape, getType());
}

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  return inferred(convolutionShape(
                      shapeOf(adaptor.getInput()), shapeOf(adaptor.getWeight()),
                      convolutionAttrs(adaptor), {loc, getOperationName()}),
                  elementOf(adaptor.getInput()), types);
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

/// An optional operand's shape for a rule's error, by name.
static NamedShape named(StringRef name, Value v) {
  return {name,
          v ? std::optional<ArrayRef<int64_t>>(shapeOf(v)) : std::nullopt};
}

template <typename OpOrAdaptor>
static FailureOr<ResultShape> batchNormRule(OpOrAdaptor a,
                                            const ShapeReport &report) {
  return batchNormShape(shapeOf(a.getInput()),
                        {named("running_mean", a.getRunningMean()),
                         named("running_var", a.getRunningVar()),
                         named("weight", a.getWeight()),
                         named("bias", a.getBias())},
                        report);
}

template <typename OpOrAdaptor>
static FailureOr<ResultShape> layerNormRule(OpOrAdaptor a,
                                            const ShapeReport &report) {
  return layerNormShape(
      shapeOf(a.getInput()), a.getNormalizedShape(),
      {named("weight", a.getWeight()), named("bias", a.getBias())}, report);
}

LogicalResult BatchNormOp::verify() {
  FailureOr<ResultShape> shape = batchNormRule(*this, getOperation());
  if (failed(shape) || failed(checkOneElementType(*this)))
    return failure();
  if (getEps().convertToDouble() < 0)
    return emitOpError() << "eps must be non-negative";
  return checkResultShape(*this, *shape, getType());
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferred(batchNormRule(adaptor, {loc, getOperationName()}),
                  elementOf(adaptor.getInput()), types);
}

LogicalResult LayerNormOp::verify() {
  if (failed(checkOneElementType(*this)))
    return failure();
  FailureOr<ResultShape> shape = layerNormRule(*this, getOperation());
  if (failed(shape))
    return failure();
  if (getEps().convertToDouble() < 0)
    return emitOpError() << "eps must be non-negative";
  return checkResultShape(*this, *shape, getType());
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferred(layerNormRule(adaptor, {loc, getOperationName()}),
                  elementOf(adaptor.getInput()), types);
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
  Operation *op = getOperation();
  return failed(checkOneElementType(op))
             ? failure()
             : checkRuleShape(
                   op,
                   poolShape(shapeOf(getSelf()),
                             poolWindow(getKernelSize(), getStride(),
                                        getPadding(), {1, 1}, getCeilMode()),
                             op),
                   getType());
}

LogicalResult AvgPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferred(
      poolShape(shapeOf(adaptor.getSelf()),
                poolWindow(adaptor.getKernelSize(), adaptor.getStride(),
                           adaptor.getPadding(), {1, 1}, adaptor.getCeilMode()),
                {loc, getOperationName()}),
      elementOf(adaptor.getSelf()), types);
}

LogicalResult MaxPool2dOp::verify() {
  Operation *op = getOperation();
  return failed(checkOneElementType(op))
             ? failure()
             : checkRuleShape(op,
                              poolShape(shapeOf(getSelf()),
                                        poolWindow(getKernelSize(), getStride(),
                                                   getPadding(), getDilation(),
                                                   getCeilMode()),
                                        op),
                              getType());
}

LogicalResult MaxPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferred(
      poolShape(shapeOf(adaptor.getSelf()),
                poolWindow(adaptor.getKernelSize(), adaptor.getStride(),
                           adaptor.getPadding(), adaptor.getDilation(),
                           adaptor.getCeilMode()),
                {loc, getOperationName()}),
      elementOf(adaptor.getSelf()), types);
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

/// The verifier and type inference of an op on `self` whose result has
/// self's element type and the shape the rule (the macro's last argument, an
/// expression of `a`, the op or its adaptor, and `report`) computes.
#define DUET_SELF_SHAPE_OP(Op, ...)                                            \
  LogicalResult Op::verify() {                                                 \
    if (failed(checkSameElementType(*this, {getSelf(), getResult()})))         \
      return failure();                                                        \
    auto rule = [](auto a, const ShapeReport &report) { return __VA_ARGS__; }; \
    return checkRuleShape(*this, rule(*this, getOperation()), getType());      \
  }                                                                            \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &types) {                                          \
    auto rule = [](auto a, const ShapeReport &report) { return __VA_ARGS__; }; \
    return inferred(rule(adaptor, {loc, getOperationName()}),                  \
                    elementOf(adaptor.getSelf()), types);                      \
  }
DUET_SELF_SHAPE_OP(PermuteOp,
                   permuteShape(shapeOf(a.getSelf()), a.getDims(), report))
DUET_SELF_SHAPE_OP(RepeatOp,
                   repeatShape(shapeOf(a.getSelf()), a.getRepeats(), report))
DUET_SELF_SHAPE_OP(SliceOp,
                   sliceShape(shapeOf(a.getSelf()), a.getDim(), a.getStart(),
                              a.getEnd(), a.getStep(), report))
DUET_SELF_SHAPE_OP(SelectOp, selectShape(shapeOf(a.getSelf()), a.getDim(),
                                         a.getIndex(), report))
DUET_SELF_SHAPE_OP(ConstantPadNdOp,
                   padShape(shapeOf(a.getSelf()), a.getPad(), report))
DUET_SELF_SHAPE_OP(GatherOp,
                   gatherShape(shapeOf(a.getSelf()), shapeOf(a.getIndex()),
                               a.getDim(), report))
DUET_SELF_SHAPE_OP(IndexSelectOp,
                   indexSelectShape(shapeOf(a.getSelf()), shapeOf(a.getIndex()),
                                    a.getDim(), report))
#undef DUET_SELF_SHAPE_OP

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

namespace {
FailureOr<ResultShape> catRule(ValueRange tensors, int64_t dim,
                               const ShapeReport &report) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value t : tensors)
    shapes.push_back(shapeOf(t));
  return catShape(shapes, dim, report);
}
} // namespace

LogicalResult CatOp::verify() {
  if (getTensors().empty())
    return emitOpError() << "needs at least one tensor";
  SmallVector<Value> all(getTensors());
  all.push_back(getResult());
  if (failed(checkSameElementType(*this, all)))
    return failure();
  return checkRuleShape(*this, catRule(getTensors(), getDim(), getOperation()),
                        getType());
}

LogicalResult CatOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  FailureOr<ResultShape> shape = catRule(adaptor.getTensors(), adaptor.getDim(),
                                         {loc, getOperationName()});
  if (failed(shape))
    return failure();
  return inferred(shape, elementOf(adaptor.getTensors().front()), types);
}

LogicalResult SplitWithSizesOp::verify() {
  FailureOr<SmallVector<ResultShape>> shapes =
      splitShapes(shapeOf(getSelf()), getDim(), getSplitSizes(),
                  getNumResults(), getOperation());
  if (failed(shapes))
    return failure();
  for (auto [expected, result] : llvm::zip(*shapes, getResults()))
    if (failed(checkResultShape(*this, expected, result.getType())) ||
        failed(checkSameElementType(*this, {getSelf(), result})))
      return failure();
  return success();
}

// The result count is the split sizes' (the rule checks the count it is
// given against them).
LogicalResult SplitWithSizesOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  FailureOr<SmallVector<ResultShape>> shapes = splitShapes(
      shapeOf(adaptor.getSelf()), adaptor.getDim(), adaptor.getSplitSizes(),
      adaptor.getSplitSizes().size(), {loc, getOperationName()});
  if (failed(shapes))
    return failure();
  for (const ResultShape &shape : *shapes)
    types.push_back(RankedTensorType::get(shape, elementOf(adaptor.getSelf())));
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

LogicalResult GridSampler2dOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  return inferred(gridSamplerShape(shapeOf(adaptor.getInput()),
                                   shapeOf(adaptor.getGrid()),
                                   {loc, getOperationName()}),
                  elementOf(adaptor.getInput()), types);
}

LogicalResult GridSampler2dOp::verify() {
  FailureOr<ResultShape> shape =
      gridSamplerShape(shapeOf(getInput()), shapeOf(getGrid()), getOperation());
  if (failed(shape) ||
      failed(checkSameElementType(*this, {getInput(), getGrid(), getResult()})))
    return failure();
  if (getInterpolationMode() < 0 || getInterpolationMode() > 1)
    return emitOpError() << "interpolation_mode " << getInterpolationMode()
                         << " is not 0 (bilinear) or 1 (nearest)";
  if (getPaddingMode() < 0 || getPaddingMode() > 2)
    return emitOpError() << "padding_mode " << getPaddingMode()
                         << " is not 0 (zeros), 1 (border) or 2 (reflection)";
  return checkResultShape(*this, *shape, getType());
}

LogicalResult ScatterOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getSrc(), getResult()})))
    return failure();
  FailureOr<ResultShape> shape =
      scatterShape(shapeOf(getSelf()), shapeOf(getIndex()), shapeOf(getSrc()),
                   getDim(), getOperation());
  if (failed(shape))
    return failure();
  if (getReduce() == ScatterReduce::none && !getIncludeSelf())
    return emitOpError() << "include_self = false needs a reduction";
  return checkResultShape(*this, *shape, getType());
}

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferred(scatterShape(shapeOf(adaptor.getSelf()),
                               shapeOf(adaptor.getIndex()),
                               shapeOf(adaptor.getSrc()), adaptor.getDim(),
                               {loc, getOperationName()}),
                  elementOf(adaptor.getSelf()), types);
}

LogicalResult TopkOp::verify() {
  if (failed(checkSameElementType(*this, {getSelf(), getValues()})))
    return failure();
  FailureOr<ResultShape> shape =
      topkShape(shapeOf(getSelf()), getK(), getDim(), getOperation());
  if (failed(shape) ||
      failed(checkResultShape(*this, *shape, getValues().getType())))
    return failure();
  return checkResultShape(*this, *shape, getIndices().getType());
}

LogicalResult TopkOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  FailureOr<ResultShape> shape =
      topkShape(shapeOf(adaptor.getSelf()), adaptor.getK(), adaptor.getDim(),
                {loc, getOperationName()});
  if (failed(inferred(shape, elementOf(adaptor.getSelf()), types)))
    return failure();
  return inferred(shape, IntegerType::get(context, 64), types);
}

LogicalResult EmbeddingOp::verify() {
  if (failed(checkSameElementType(*this, {getWeight(), getResult()})))
    return failure();
  return checkRuleShape(*this,
                        embeddingShape(shapeOf(getWeight()),
                                       shapeOf(getIndices()), getOperation()),
                        getType());
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferred(embeddingShape(shapeOf(adaptor.getWeight()),
                                 shapeOf(adaptor.getIndices()),
                                 {loc, getOperationName()}),
                  elementOf(adaptor.getWeight()), types);
}

template <typename OpOrAdaptor>
static FailureOr<ResultShape> attentionRule(OpOrAdaptor a,
                                            const ShapeReport &report) {
  Value mask = a.getAttnMask();
  return attentionShape(
      shapeOf(a.getQuery()), shapeOf(a.getKey()), shapeOf(a.getValue()),
      mask ? std::optional<ArrayRef<int64_t>>(shapeOf(mask)) : std::nullopt,
      static_cast<int64_t>(duet::rt::kMaxTensorBytes / 4), report);
}

LogicalResult ScaledDotProductAttentionOp::verify() {
  Operation *op = getOperation();
  if (failed(checkSameElementType(op, {getQuery(), getKey(), getValue(),
                                       getResult()})))
    return failure();
  if (getAttnMask()) {
    if (getIsCausal())
      return emitOpError() << "takes either attn_mask or is_causal, not both";
    Type maskElement = tensorType(getAttnMask()).getElementType();
    if (!maskElement.isInteger(1) &&
        maskElement != getQuery().getType().getElementType())
      return emitOpError() << "attn_mask must be boolean or of the query's "
                              "element type, got "
                           << maskElement;
  }
  // The scores bound: the portable kernel's scratch of one batch entry's
  // [L, S] scores, and the decomposition's whole [..., L, S], which the
  // memory planner bounds in turn.
  return checkRuleShape(op, attentionRule(*this, op), getType());
}

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  return inferred(attentionRule(adaptor, {loc, getOperationName()}),
                  elementOf(adaptor.getQuery()), types);
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
