//===- FusionDialect.cpp - activations folded into their producer ---------===//

#include "partitioners/common/FusionDialect.h"

#include "partitioners/common/ActivationFusion.h"
#include "partitioners/common/BackendLowering.h"

#include "dialects/aten/AtenDialect.h"
#include "dialects/duet/DuetDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#include "partitioners/common/FusionDialect.cpp.inc"

namespace duet::fusion {

void FusionDialect::initialize() {}

std::optional<Bounds> activationBounds(Operation *op) {
  auto f = [](const APFloat &value) {
    return static_cast<float>(value.convertToDouble());
  };
  return llvm::TypeSwitch<Operation *, std::optional<Bounds>>(op)
      .Case<aten::ReluOp>([](auto) {
        Bounds bounds;
        bounds.lo = 0.0f;
        return bounds;
      })
      .Case<aten::HardtanhOp>([&](aten::HardtanhOp hardtanh) {
        return Bounds{f(hardtanh.getMinVal()), f(hardtanh.getMaxVal())};
      })
      .Case<aten::ClampOp>([&](aten::ClampOp clamp) {
        Bounds bounds;
        if (auto min = clamp.getMin())
          bounds.lo = f(*min);
        if (auto max = clamp.getMax())
          bounds.hi = f(*max);
        return bounds;
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<Bounds> outputBounds(Operation *op) {
  auto attr = op->getAttrOfType<DenseF32ArrayAttr>(
      FusionDialect::kOutputBoundsAttrName);
  if (!attr || attr.size() != 2)
    return std::nullopt;
  return Bounds{attr[0], attr[1]};
}

void setOutputBounds(Operation *op, Bounds bounds) {
  op->setAttr(FusionDialect::kOutputBoundsAttrName,
              DenseF32ArrayAttr::get(op->getContext(), {bounds.lo, bounds.hi}));
}

std::optional<Bounds> nodeBounds(Operation *op) {
  std::optional<Bounds> own = activationBounds(op);
  std::optional<Bounds> folded = outputBounds(op);
  if (!own || !folded)
    return own ? own : folded;
  return Bounds{std::max(own->lo, folded->lo), std::min(own->hi, folded->hi)};
}

bool isFolded(Operation *op) {
  return op->hasAttr(FusionDialect::kFoldedAttrName);
}

void setFolded(Operation *op) {
  op->setAttr(FusionDialect::kFoldedAttrName, UnitAttr::get(op->getContext()));
}

Operation *boundsOwner(Operation *op) {
  while (op && isFolded(op))
    op = op->getOperand(0).getDefiningOp();
  return op;
}

Value foldedResult(Value value) {
  while (value.hasOneUse() && isFolded(*value.user_begin()))
    value = value.user_begin()->getResult(0);
  return value;
}

/// Checks `fusion.output_bounds` on `op` against its partition's rule.
static LogicalResult verifyOutputBounds(Operation *op, Attribute value) {
  auto bounds = dyn_cast<DenseF32ArrayAttr>(value);
  if (!bounds || bounds.size() != 2)
    return op->emitOpError() << FusionDialect::kOutputBoundsAttrName
                             << " must be array<f32: min, max>, got " << value;
  auto delegate = op->getParentOfType<DelegateOp>();
  if (!delegate || op->getNumResults() != 1)
    return op->emitOpError() << FusionDialect::kOutputBoundsAttrName
                             << " belongs on an op of one result inside a "
                                "duet.delegate";
  const partition::FusionTarget *target =
      partition::backendLowering(delegate.getBackend()).fusionTarget();
  if (!target || !target->takesBounds(op))
    return op->emitOpError()
           << "has " << FusionDialect::kOutputBoundsAttrName << ", but its "
           << stringifyDelegateKind(delegate.getBackend())
           << " node takes no output bounds";
  if (target->needsMinBelowMax && !(bounds[0] < bounds[1]))
    return op->emitOpError()
           << FusionDialect::kOutputBoundsAttrName << " [" << bounds[0] << ", "
           << bounds[1] << "]: the backend needs min < max";
  return success();
}

/// Checks `fusion.folded` on `op`: an activation whose operand only it reads,
/// computed by a node that carries the bounds.
static LogicalResult verifyFolded(Operation *op, Attribute value) {
  if (!isa<UnitAttr>(value) || !activationBounds(op))
    return op->emitOpError() << FusionDialect::kFoldedAttrName
                             << " is a unit attribute of a relu, hardtanh or "
                                "clamp";
  auto delegate = op->getParentOfType<DelegateOp>();
  const partition::FusionTarget *target =
      delegate
          ? partition::backendLowering(delegate.getBackend()).fusionTarget()
          : nullptr;
  if (!target)
    return op->emitOpError() << FusionDialect::kFoldedAttrName
                             << " belongs inside a duet.delegate of a backend "
                                "that folds activations";
  Value input = op->getOperand(0);
  Operation *producer = input.getDefiningOp();
  if (!producer || producer->hasTrait<OpTrait::ConstantLike>() ||
      producer->getBlock() != op->getBlock())
    return op->emitOpError() << "is folded, but no node of the partition "
                                "computes its operand";
  if (!input.hasOneUse())
    return op->emitOpError() << "is folded, but other ops read its operand "
                                "and would see the bounds";
  if (isFolded(producer) && !target->chains)
    return op->emitOpError() << "is folded after another folded activation, "
                                "which the backend does not take";
  if (!outputBounds(boundsOwner(producer)))
    return op->emitOpError() << "is folded, but the op computing it has no "
                             << FusionDialect::kOutputBoundsAttrName;
  return success();
}

LogicalResult FusionDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kOutputBoundsAttrName)
    return verifyOutputBounds(op, attr.getValue());
  if (attr.getName() == kFoldedAttrName)
    return verifyFolded(op, attr.getValue());
  return op->emitOpError() << "unknown fusion attribute "
                           << attr.getName().getValue();
}

} // namespace duet::fusion
