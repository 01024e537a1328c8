//===- ActivationFusion.cpp - one rule for folding activations ------------===//

#include "partitioners/common/ActivationFusion.h"

#include "partitioners/common/FusionDialect.h"
#include "partitioners/xnnpack/XnnDialect.h"
#include "partitioners/xnnpack/XnnpackRules.h"

#include "dialects/aten/AtenDialect.h"

using namespace mlir;

namespace duet::partition {

namespace {

bool isConvolution(Operation *op) { return isa<aten::ConvolutionOp>(op); }

// XNNPACK: every node whose xnn_define_* call takes output_min/output_max
// (the rule table knows which node each op becomes). Successive activations
// intersect into one pair of bounds, exact because XNNPACK needs min < max
// anyway (its clamp and every bound it fuses); a pair that would break that
// stays a clamp node of its own. The layouts are duet-xnnpack-layout's.
const FusionTarget kXnnpack = {&XnnpackRules::takesOutputBounds,
                               /*chains=*/true, /*needsMinBelowMax=*/true,
                               xnn::XnnDialect::kLayoutAttrName};

// Vulkan: the convolution shader's clamp_min/clamp_max, and no other
// shader's. One activation per convolution: the shader clamps as PyTorch
// does for any bounds, min >= max included, where an intersection of two
// clamps would not be exact; a second activation stays a unary dispatch.
// The layouts are the planner's (partitioners/vulkan/LayoutPlanner.h): the
// convolution writes the activation's tensor, so both must be the same.
const FusionTarget kVulkan = {&isConvolution, /*chains=*/false,
                              /*needsMinBelowMax=*/false,
                              DuetDialect::kVkLayoutsAttrName};

} // namespace

const FusionTarget *fusionTarget(Backend backend) {
  switch (backend) {
  case Backend::xnnpack:
    return &kXnnpack;
  case Backend::vulkan:
    return &kVulkan;
  }
  return nullptr;
}

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
