//===- Legalize.h - decomposition per backend, for real and on trial -*- C++
//-*-===//
//
// After placement each partition is legalized: the decomposition library
// (passes/Decompose.h) rewrites the ops its backend does not run natively
// into ops it does. Before placement, a backend that would claim an op only
// through decomposition runs the same rewrite on a copy of the op to see
// what it becomes, and claims the op only if every piece is native there.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_LEGALIZE_H
#define DUET_PARTITIONERS_COMMON_LEGALIZE_H

#include "partitioners/common/Rules.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

#include <memory>

namespace duet::partition {

/// The decomposition patterns of one backend: every composite op outside its
/// native set is rewritten.
class Decomposer {
public:
  Decomposer(mlir::MLIRContext *context, const llvm::StringSet<> &nativeOps);

  /// Rewrites a copy of `op` (with the constants it reads) and calls
  /// `visit` on every op the copy became, constants excluded. Returns the
  /// first reason `visit` gives, or a reason when the library leaves `op`
  /// whole, naming `backend`.
  std::optional<std::string>
  trial(mlir::Operation *op, llvm::StringRef backend,
        llvm::function_ref<std::optional<std::string>(mlir::Operation *)> visit,
        llvm::SmallVectorImpl<std::string> &pieces);

  /// Decomposes, in place, what `delegate`'s backend does not run natively.
  mlir::LogicalResult legalize(DelegateOp delegate);

private:
  mlir::MLIRContext *context;
  mlir::FrozenRewritePatternSet patterns;
  /// Where trials run: a module of one scratch function per trial.
  mlir::OwningOpRef<mlir::ModuleOp> scratch;
  /// Incremented by the patterns on every rewrite.
  std::unique_ptr<int64_t> numDecomposed;
};

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_LEGALIZE_H
