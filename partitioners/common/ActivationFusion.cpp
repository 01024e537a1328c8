//===- ActivationFusion.cpp - one rule for folding activations ------------===//

#include "partitioners/common/ActivationFusion.h"

#include "partitioners/common/FusionDialect.h"

using namespace mlir;

namespace duet::partition {

unsigned fuseActivations(DelegateOp delegate, const FusionTarget &target) {
  unsigned folded = 0;
  for (Operation &op : delegate.getBody().front().without_terminator()) {
    std::optional<fusion::Bounds> own = fusion::activationBounds(&op);
    if (!own || fusion::isFolded(&op))
      continue;
    Value input = op.getOperand(0);
    Operation *producer = input.getDefiningOp();
    if (!producer || producer->hasTrait<OpTrait::ConstantLike>() ||
        !input.hasOneUse())
      continue;
    Attribute layout = producer->getAttr(target.layoutAttrName);
    if (!layout || layout != op.getAttr(target.layoutAttrName))
      continue;
    if (fusion::isFolded(producer) && !target.chains)
      continue;
    Operation *owner = fusion::boundsOwner(producer);
    if (!target.takesBounds(owner))
      continue;
    fusion::Bounds merged = *own;
    if (std::optional<fusion::Bounds> current = fusion::nodeBounds(owner))
      merged = {std::max(current->lo, own->lo), std::min(current->hi, own->hi)};
    if (target.needsMinBelowMax && !(merged.lo < merged.hi))
      continue;
    fusion::setOutputBounds(owner, merged);
    fusion::setFolded(&op);
    ++folded;
  }
  return folded;
}

} // namespace duet::partition
