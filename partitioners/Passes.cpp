//===- Passes.cpp - the partitioner's passes ------------------------------===//

#include "partitioners/Partitioner.h"

#include "partitioners/common/ActivationFusion.h"
#include "partitioners/common/FusionDialect.h"
#include "partitioners/vulkan/LayoutPlanner.h"
#include "partitioners/xnnpack/XnnDialect.h"
#include "partitioners/xnnpack/XnnpackLayout.h"

#include "dialects/duet/DuetDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace duet {

#define GEN_PASS_DECL
#define GEN_PASS_DEF_PARTITIONPASS
#define GEN_PASS_DEF_VULKANLAYOUTPASS
#define GEN_PASS_DEF_XNNPACKLAYOUTPASS
#define GEN_PASS_DEF_FUSEACTIVATIONSPASS
#define GEN_PASS_REGISTRATION
#include "partitioners/Passes.h.inc"

namespace {

using namespace mlir;

/// The texture-limits option as three limits; an error on `module` unless it
/// is empty or has exactly three entries.
FailureOr<std::optional<std::array<int64_t, 3>>>
textureLimitsOption(ModuleOp module, ArrayRef<int64_t> values) {
  if (values.empty())
    return std::optional<std::array<int64_t, 3>>();
  if (values.size() != 3)
    return module.emitError() << "texture-limits takes three numbers X,Y,Z, "
                                 "got "
                              << values.size();
  return std::optional<std::array<int64_t, 3>>(
      std::array<int64_t, 3>{values[0], values[1], values[2]});
}

LogicalResult writeText(ModuleOp module, StringRef path, StringRef text) {
  if (path == "-") {
    llvm::outs() << text;
    return success();
  }
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_Text);
  if (error)
    return module.emitError() << "cannot write the partition report to " << path
                              << ": " << error.message();
  os << text;
  return success();
}

struct PartitionPass : impl::PartitionPassBase<PartitionPass> {
  using PartitionPassBase::PartitionPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto limits = textureLimitsOption(module, textureLimits);
    if (failed(limits))
      return signalPassFailure();
    PartitionOptions options;
    options.backends.assign(backends.begin(), backends.end());
    options.textureLimits = *limits;
    options.targetProfile = targetProfile;
    options.enableBf16 = enableBf16;
    FailureOr<PartitionReport> report = partitionModule(module, options);
    if (failed(report))
      return signalPassFailure();

    numPartitions = report->partitions.size();
    std::vector<std::string> portable = portableOps(*report);
    numPortable = portable.size();
    if (!reportPath.empty() &&
        failed(writeText(module, reportPath, reportToJson(*report))))
      return signalPassFailure();
    if (explain)
      llvm::errs() << reportToTable(*report);
    if (strict && !portable.empty()) {
      InFlightDiagnostic diag = module.emitError()
                                << "strict: " << portable.size()
                                << " op(s) fell to portable";
      for (const std::string &line : portable)
        diag.attachNote() << line;
      return signalPassFailure();
    }
  }
};

struct VulkanLayoutPass : impl::VulkanLayoutPassBase<VulkanLayoutPass> {
  using VulkanLayoutPassBase::VulkanLayoutPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto textureLimitValues = textureLimitsOption(module, textureLimits);
    if (failed(textureLimitValues))
      return signalPassFailure();
    llvm::Expected<partition::VulkanLimits> limits =
        partition::resolveVulkanLimits(targetProfile, *textureLimitValues);
    if (!limits) {
      module.emitError() << llvm::toString(limits.takeError());
      return signalPassFailure();
    }
    partition::VulkanRules rules(&getContext(), *limits);
    WalkResult result = module.walk([&](DelegateOp delegate) {
      if (delegate.getBackend() != Backend::vulkan ||
          delegate->hasAttr(DuetDialect::kVkArgLayoutsAttrName))
        return WalkResult::advance();
      if (failed(partition::planVulkanLayouts(delegate, rules)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

struct XnnpackLayoutPass : impl::XnnpackLayoutPassBase<XnnpackLayoutPass> {
  using XnnpackLayoutPassBase::XnnpackLayoutPassBase;

  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](DelegateOp delegate) {
      if (delegate.getBackend() != Backend::xnnpack ||
          partition::hasXnnpackLayouts(delegate))
        return WalkResult::advance();
      FailureOr<partition::XnnpackLayoutPlan> plan =
          partition::planXnnpackLayouts(delegate);
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

struct FuseActivationsPass
    : impl::FuseActivationsPassBase<FuseActivationsPass> {
  using FuseActivationsPassBase::FuseActivationsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (const std::string &name : backends) {
      if (!symbolizeBackend(name)) {
        module.emitError() << "unknown backend \"" << name
                           << "\"; backends are vulkan and xnnpack";
        return signalPassFailure();
      }
    }
    module.walk([&](DelegateOp delegate) {
      Backend backend = delegate.getBackend();
      const partition::FusionTarget *target = partition::fusionTarget(backend);
      if (!target ||
          (!backends.empty() &&
           !llvm::is_contained(backends, stringifyBackend(backend).str())))
        return;
      numFolded += partition::fuseActivations(delegate, *target);
    });
  }
};

} // namespace

void registerPartitionerPasses() { registerDuetPartitionerPasses(); }

void addDelegateLoweringPasses(OpPassManager &pm) {
  pm.addPass(createXnnpackLayoutPass());
  pm.addPass(createFuseActivationsPass());
}

LogicalResult lowerDelegates(ModuleOp module) {
  PassManager pm(module.getContext());
  addDelegateLoweringPasses(pm);
  return pm.run(module);
}

} // namespace duet
