//===- VulkanPasses.cpp - the Vulkan backend's passes ---------------------===//

#include "partitioners/common/BackendPassOptions.h"
#include "partitioners/vulkan/lowering/LayoutPlanner.h"
#include "partitioners/vulkan/lowering/VulkanLowering.h"

#include "dialects/duet/DuetDialect.h"

#include "mlir/Pass/Pass.h"

namespace duet::partition {

#define GEN_PASS_DECL
#define GEN_PASS_DEF_VULKANLAYOUTPASS
#define GEN_PASS_REGISTRATION
#include "partitioners/vulkan/VulkanPasses.h.inc"

namespace {

using namespace mlir;

struct VulkanLayoutPass : impl::VulkanLayoutPassBase<VulkanLayoutPass> {
  VulkanLayoutPass() { backendOptions.add(*this, vulkanBackend().options()); }
  VulkanLayoutPass(const VulkanLayoutPass &other)
      : VulkanLayoutPassBase(other) {
    backendOptions.add(*this, vulkanBackend().options());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::Expected<VulkanLimits> limits = vulkanLimits(backendOptions.values());
    if (!limits) {
      module.emitError() << llvm::toString(limits.takeError());
      return signalPassFailure();
    }
    VulkanRules rules(&getContext(), *limits);
    WalkResult result = module.walk([&](DelegateOp delegate) {
      if (delegate.getBackend() != DelegateKind::vulkan ||
          delegate->hasAttr(DuetDialect::kVkArgLayoutsAttrName))
        return WalkResult::advance();
      if (failed(planVulkanLayouts(delegate, rules)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  BackendPassOptions backendOptions;
};

} // namespace

void registerVulkanPasses() { registerDuetVulkanPasses(); }

} // namespace duet::partition
