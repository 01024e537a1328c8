//===- Passes.h - duet's graph passes ---------------------------*- C++ -*-===//
//
// Declarations and registration of the passes in passes/Passes.td:
// createNormalizePass, createRecomposePass, createFoldBatchNormPass,
// createFoldScalePass, createDecomposePass, and registerDuetPasses for tools.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PASSES_PASSES_H
#define DUET_PASSES_PASSES_H

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace duet {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace duet

#endif // DUET_PASSES_PASSES_H
