//===- Pipeline.cpp - .pt2 in, .duet out ---------------------------------===//

#include "compiler/pipeline/Pipeline.h"

#include "compiler/import/ImportError.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"

namespace duet {

std::vector<std::string> emittableBackends() {
  std::vector<std::string> names;
  for (const partition::BackendLowering *backend :
       partition::backendLowerings())
    if (backend->emitter())
      names.push_back(backend->name().str());
  return names;
}

namespace {

llvm::Error makeError(CompileErrorKind kind, CompileErrorKind *out,
                      const std::string &message) {
  if (out)
    *out = kind;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Collects diagnostics into one line each, so that a failing pass reports
/// what the op said rather than "pass failed".
struct DiagnosticCollector {
  explicit DiagnosticCollector(mlir::MLIRContext &ctx)
      : handler(&ctx, [this](mlir::Diagnostic &diag) {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error) {
            std::string line;
            llvm::raw_string_ostream os(line);
            if (auto loc = llvm::dyn_cast<mlir::NameLoc>(diag.getLocation()))
              os << "node '" << loc.getName().strref() << "': ";
            os << diag.str();
            messages.push_back(os.str());
          }
          return mlir::success();
        }) {}
  std::string text(llvm::StringRef fallback) const {
    if (messages.empty())
      return fallback.str();
    std::string all;
    for (const std::string &m : messages)
      all += (all.empty() ? "" : "; ") + m;
    return all;
  }
  std::vector<std::string> messages;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace

llvm::Expected<CompileResult> compileModel(llvm::StringRef path,
                                           const CompileOptions &options,
                                           CompileErrorKind *errorKind) {
  CompileResult result;
  std::vector<std::string> available = emittableBackends();
  for (const std::string &backend : options.backends) {
    if (backend == "portable")
      continue;
    if (!partition::findBackendLowering(backend))
      return makeError(CompileErrorKind::badInput, errorKind,
                       "unknown backend '" + backend + "'; choose from " +
                           partition::backendNames(", ", ", ") + ", portable");
    if (!llvm::is_contained(available, backend))
      return makeError(CompileErrorKind::unsupported, errorKind,
                       "backend '" + backend +
                           "' has no program emitter in this build of duet; "
                           "use --backends portable");
    result.backends.push_back(backend);
  }
  if (options.backends.empty())
    result.backends = available;
  if (llvm::Error error =
          partition::checkBackendOptions(options.partition.backendOptions))
    return makeError(CompileErrorKind::badInput, errorKind,
                     llvm::toString(std::move(error)));

  mlir::MLIRContext ctx;
  auto imported = import::importPt2(path, ctx);
  if (!imported) {
    // A model that uses an op duet lacks is well formed, only unsupported.
    CompileErrorKind kind = CompileErrorKind::badInput;
    std::string message;
    llvm::handleAllErrors(
        imported.takeError(), [&](const llvm::ErrorInfoBase &info) {
          if (import::isUnsupported(info.convertToErrorCode()))
            kind = CompileErrorKind::unsupported;
          message = info.message();
        });
    return makeError(kind, errorKind, message);
  }
  result.importStats = imported->stats();
  mlir::ModuleOp module = imported->module();

  DiagnosticCollector diagnostics(ctx);
  mlir::PassManager pm(&ctx);
  mlir::OpPassManager &fn = pm.nest<mlir::func::FuncOp>();
  fn.addPass(createNormalizePass());
  fn.addPass(createRecomposePass());
  fn.addPass(createFoldBatchNormPass());
  fn.addPass(createFoldScalePass());
  fn.addPass(mlir::createCSEPass());
  if (mlir::failed(pm.run(module)))
    return makeError(CompileErrorKind::internal, errorKind,
                     path.str() + ": graph passes failed: " +
                         diagnostics.text("no diagnostic"));

  PartitionOptions partition = options.partition;
  partition.backends = result.backends;
  if (!result.backends.empty()) {
    auto report = partitionModule(module, partition);
    if (mlir::failed(report))
      return makeError(CompileErrorKind::badInput, errorKind,
                       path.str() + ": partitioning failed: " +
                           diagnostics.text("no diagnostic"));
    result.report = std::move(*report);
    // Lowering for the emitters: the decisions they write (each backend's
    // own, such as the XNNPACK layouts and subgraphs, then activation
    // fusion, which compares the layouts) are recorded in the IR here, so
    // that duet-opt shows and tests them.
    mlir::PassManager lowering(&ctx);
    addDelegateLoweringPasses(lowering);
    if (mlir::failed(lowering.run(module)))
      return makeError(CompileErrorKind::internal, errorKind,
                       path.str() + ": lowering the partitions failed: " +
                           diagnostics.text("no diagnostic"));
  } else {
    result.report = portableReport(module);
    llvm::Expected<std::string> costs =
        targetCostsJson(&ctx, partition.backendOptions);
    if (!costs)
      return makeError(CompileErrorKind::badInput, errorKind,
                       path.str() + ": " + llvm::toString(costs.takeError()));
    result.report.targetCostsJson = std::move(*costs);
  }

  auto funcs = module.getOps<mlir::func::FuncOp>();
  if (!llvm::hasSingleElement(funcs))
    return makeError(CompileErrorKind::internal, errorKind,
                     path.str() + ": expected one function after import");
  EmitOptions emit;
  emit.backendOptions = options.partition.backendOptions;
  emit.targetCosts = result.report.targetCostsJson;
  emit.maxWork = options.maxWork;
  if (mlir::failed(
          emitProgram(*funcs.begin(), result.program, result.emitStats, emit)))
    return makeError(CompileErrorKind::unsupported, errorKind,
                     path.str() + ": " + diagnostics.text("emitting failed"));
  return result;
}

} // namespace duet
