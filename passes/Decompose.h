//===- Decompose.h - decompositions of composite aten ops -------*- C++ -*-===//
//
// The rewrite patterns behind --duet-decompose, for the partitioner to apply
// inside each partition with the native set of that partition's backend.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PASSES_DECOMPOSE_H
#define DUET_PASSES_DECOMPOSE_H

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

#include <cstdint>

namespace duet {

/// Adds a decomposition pattern for every composite aten op whose name is not
/// in `nativeOps`; an op in `nativeOps` is never rewritten, also when another
/// decomposition produces it. Applied greedily, the patterns repeat until
/// every composite left is native or has no exact decomposition (exact gelu,
/// which needs erf). Each successful rewrite adds one to `*numDecomposed` when
/// it is given; the counter must outlive the patterns.
void populateDecompositionPatterns(
    mlir::RewritePatternSet &patterns,
    const llvm::DenseSet<mlir::OperationName> &nativeOps,
    int64_t *numDecomposed = nullptr);

} // namespace duet

#endif // DUET_PASSES_DECOMPOSE_H
