//===- ProgramEmitter.h - aten IR to a .duet program ------------*- C++ -*-===//
//
// Lowers a function of aten ops (after passes and partitioning) into the
// program format: its arguments become inputs, constants go into the 64-byte
// aligned constant segment, every op outside a delegate becomes a KernelCall
// with all its attributes written out (defaults included, so the runtime never
// guesses), and activations get arena offsets from the memory planner.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_EMIT_PROGRAMEMITTER_H
#define DUET_COMPILER_EMIT_PROGRAMEMITTER_H

#include "partitioners/common/BackendLowering.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <vector>

namespace duet {

/// What the emitter wrote, for reports.
struct EmitStats {
  uint64_t arenaBytes = 0;
  uint64_t arenaLowerBoundBytes = 0;
  uint64_t constantBytes = 0;
  size_t kernelCalls = 0;
  size_t delegateCalls = 0;
};

/// Choices the delegate emitters honour.
struct EmitOptions {
  /// The backend options of the compilation; each emitter reads its own
  /// (Vulkan's force-fp16).
  partition::BackendOptions backendOptions;
  /// The target profile's costs as JSON text, kept in the program for
  /// `duet-run tune` (PartitionReport::targetCostsJson); empty: none.
  std::string targetCosts;
  /// The work limit of one run (CompileOptions::maxWork); 0: the default.
  double maxWork = 0;
};

/// Writes `func` as a program into `bytes`. Errors are emitted as diagnostics
/// on the op at fault.
mlir::LogicalResult emitProgram(mlir::func::FuncOp func,
                                std::vector<uint8_t> &bytes, EmitStats &stats,
                                const EmitOptions &options = {});

} // namespace duet

#endif // DUET_COMPILER_EMIT_PROGRAMEMITTER_H
