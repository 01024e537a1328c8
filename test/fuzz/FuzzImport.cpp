//===- FuzzImport.cpp - libFuzzer target: .pt2 archives to a program -----===//
//
// A .pt2 archive is untrusted input to the compiler. The target imports the
// bytes (importPt2FromMemory), and a module the importer accepts goes the
// rest of the way `duet compile` takes it (compiler/pipeline/Pipeline.cpp):
// the graph passes, partitioning for Vulkan and XNNPACK, and the emitter,
// into a byte buffer that the runtime's loader must then accept. Each stage
// may refuse its input with a diagnostic; what the target reports as a
// finding is a crash or sanitizer error anywhere, and three broken promises:
// a module the importer accepted that does not verify, graph passes that
// fail on a verified module (Pipeline.cpp calls that an internal error), and
// a program the compiler wrote that the loader refuses.
//
// LLVMFuzzerCustomMutator mutates the archive's structure (Pt2Mutator.h)
// most of the time and its raw bytes otherwise.
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/Pt2Mutator.h"

#include "compiler/emit/ProgramEmitter.h"
#include "compiler/import/Pt2Importer.h"
#include "partitioners/Partitioner.h"
#include "passes/Passes.h"
#include "runtime/core/Program.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <random>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

/// Collects the error diagnostics of one input (printing them costs more
/// than the rest of a run), to show in a finding's report.
struct Diagnostics {
  explicit Diagnostics(mlir::MLIRContext &ctx)
      : handler(&ctx, [this](mlir::Diagnostic &diag) {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
            text += diag.str() + "\n";
          return mlir::success();
        }) {}
  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

[[noreturn]] void finding(const char *what, const std::string &detail) {
  llvm::errs() << "fuzz-import: " << what << "\n" << detail << "\n";
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // One context per input, so that no input sees another's types and
  // resources; without threads, since a thread pool per input costs more
  // than the import.
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  Diagnostics diagnostics(ctx);
  llvm::Expected<duet::import::ImportedProgram> imported =
      duet::import::importPt2FromMemory(
          llvm::ArrayRef(reinterpret_cast<const char *>(data), size),
          "fuzz.pt2", ctx);
  if (!imported) {
    llvm::consumeError(imported.takeError());
    return 0;
  }
  mlir::ModuleOp module = imported->module();
  if (mlir::failed(mlir::verify(module)))
    finding("the importer accepted a module that does not verify",
            diagnostics.text);

  // The stages of compileModel (compiler/pipeline/Pipeline.cpp), which
  // takes a path rather than a module.
  mlir::PassManager pm(&ctx);
  mlir::OpPassManager &fn = pm.nest<mlir::func::FuncOp>();
  fn.addPass(duet::createNormalizePass());
  fn.addPass(duet::createRecomposePass());
  fn.addPass(duet::createFoldBatchNormPass());
  fn.addPass(duet::createFoldScalePass());
  fn.addPass(mlir::createCSEPass());
  if (mlir::failed(pm.run(module)))
    finding("the graph passes failed on a verified module", diagnostics.text);

  duet::PartitionOptions partition;
  partition.backends = {"vulkan", "xnnpack"};
  if (mlir::failed(duet::partitionModule(module, partition)))
    return 0;
  auto funcs = module.getOps<mlir::func::FuncOp>();
  if (!llvm::hasSingleElement(funcs))
    return 0;
  std::vector<uint8_t> program;
  duet::EmitStats stats;
  if (mlir::failed(duet::emitProgram(*funcs.begin(), program, stats)))
    return 0;

  // Limits.h: "a program the compiler wrote always loads". Reference mode
  // needs no backend registered; the loader still checks every delegate's
  // recorded ops against the portable kernels.
  duet::rt::LoadOptions options;
  options.reference = true;
  std::unique_ptr<duet::rt::Program> loaded;
  duet::rt::Status status = duet::rt::Program::loadFromBytes(
      program.data(), program.size(), "fuzz.duet", options, loaded);
  if (!status.isOk())
    finding("the loader refuses a program the compiler wrote",
            status.message());
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned int seed) {
  // A quarter of the time, or when the input is no archive the mutator can
  // read, the bytes themselves (the zip reader and the JSON parser are
  // inputs too).
  if (seed % 4 != 0) {
    std::optional<std::string> mutated =
        duet::fuzz::mutatePt2(data, size, seed / 4);
    if (mutated && mutated->size() <= maxSize) {
      std::memcpy(data, mutated->data(), mutated->size());
      return mutated->size();
    }
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}
