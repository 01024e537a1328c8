//===- XnnpackPasses.cpp - the XNNPACK backend's passes -------------------===//

#include "partitioners/xnnpack/dialect/XnnDialect.h"
#include "partitioners/xnnpack/lowering/XnnpackLayout.h"
#include "partitioners/xnnpack/lowering/XnnpackLowering.h"

#include "dialects/duet/DuetDialect.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace duet::partition {

#define GEN_PASS_DECL
#define GEN_PASS_DEF_XNNPACKLAYOUTPASS
#define GEN_PASS_REGISTRATION
#include "partitioners/xnnpack/XnnpackPasses.h.inc"

namespace {

using namespace mlir;

struct XnnpackLayoutPass : impl::XnnpackLayoutPassBase<XnnpackLayoutPass> {
  using XnnpackLayoutPassBase::XnnpackLayoutPassBase;

  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](DelegateOp delegate) {
      if (delegate.getBackend() != DelegateKind::xnnpack ||
          hasXnnpackLayouts(delegate))
        return WalkResult::advance();
      FailureOr<XnnpackLayoutPlan> plan = planXnnpackLayouts(delegate);
      if (failed(plan))
        return WalkResult::interrupt();
      numReshapes += plan->reshapes;
      numHostCopies += plan->hostCopies;
      numRepacks += plan->repacks;
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void registerXnnpackPasses() { registerDuetXnnpackPasses(); }

void addXnnpackLayoutPass(OpPassManager &pm) {
  pm.addPass(createXnnpackLayoutPass());
}

} // namespace duet::partition
