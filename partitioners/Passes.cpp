//===- Passes.cpp - the partitioner's passes ------------------------------===//

#include "partitioners/Partitioner.h"

#include "partitioners/common/ActivationFusion.h"
#include "partitioners/common/BackendPassOptions.h"
#include "partitioners/common/FusionDialect.h"

#include "dialects/duet/DuetDialect.h"
#include "runtime/core/AtomicFile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace duet {

#define GEN_PASS_DECL
#define GEN_PASS_DEF_PARTITIONPASS
#define GEN_PASS_DEF_FUSEACTIVATIONSPASS
#define GEN_PASS_REGISTRATION
#include "partitioners/Passes.h.inc"

namespace {

using namespace mlir;

LogicalResult writeText(ModuleOp module, StringRef path, StringRef text) {
  if (path == "-") {
    llvm::outs() << text;
    return success();
  }
  if (rt::Status status =
          rt::writeFileAtomically(path.str(), text.data(), text.size());
      !status)
    return module.emitError()
           << "cannot write the partition report: " << status.message();
  return success();
}

struct PartitionPass : impl::PartitionPassBase<PartitionPass> {
  PartitionPass() { addBackendOptions(); }
  PartitionPass(const PartitionPassOptions &options)
      : PartitionPassBase(options) {
    addBackendOptions();
  }
  PartitionPass(const PartitionPass &other) : PartitionPassBase(other) {
    addBackendOptions();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    PartitionOptions options;
    options.backends.assign(backends.begin(), backends.end());
    options.backendOptions = backendOptions.values();
    std::optional<PlacementPolicy> mode = parsePlacementPolicy(placement);
    if (!mode) {
      module.emitError() << "placement must be priority or cost, got '"
                         << placement << "'";
      return signalPassFailure();
    }
    options.placement = *mode;
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

  void addBackendOptions() {
    for (const partition::BackendLowering *backend :
         partition::backendLowerings())
      backendOptions.add(*this, backend->options());
  }

  partition::BackendPassOptions backendOptions;
};

struct FuseActivationsPass
    : impl::FuseActivationsPassBase<FuseActivationsPass> {
  using FuseActivationsPassBase::FuseActivationsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (const std::string &name : backends) {
      if (!partition::findBackendLowering(name)) {
        module.emitError() << "unknown backend \"" << name
                           << "\"; backends are "
                           << partition::backendNames(", ", " and ");
        return signalPassFailure();
      }
    }
    module.walk([&](DelegateOp delegate) {
      const partition::BackendLowering &backend =
          partition::backendLowering(delegate.getBackend());
      const partition::FusionTarget *target = backend.fusionTarget();
      if (!target || (!backends.empty() &&
                      !llvm::is_contained(backends, backend.name().str())))
        return;
      numFolded += partition::fuseActivations(delegate, *target);
    });
  }
};

} // namespace

void registerPartitionerPasses() {
  registerDuetPartitionerPasses();
  for (const partition::BackendLowering *backend :
       partition::backendLowerings())
    backend->registerPasses();
}

void registerPartitionerDialects(DialectRegistry &registry) {
  registry.insert<fusion::FusionDialect>();
  for (const partition::BackendLowering *backend :
       partition::backendLowerings())
    backend->registerDialects(registry);
}

void addDelegateLoweringPasses(OpPassManager &pm) {
  for (const partition::BackendLowering *backend :
       partition::backendLowerings())
    backend->addLoweringPasses(pm);
  pm.addPass(createFuseActivationsPass());
}

LogicalResult lowerDelegates(ModuleOp module) {
  PassManager pm(module.getContext());
  addDelegateLoweringPasses(pm);
  return pm.run(module);
}

} // namespace duet
