//===- CompositeTargets.h - ATen targets built from several ops -*- C++ -*-===//
//
// Targets that the aten dialect has no op of its own for, because a few of
// its ops compute them exactly: advanced indexing, group norm, vector norms,
// a scalar raised to a tensor, fmod, and the as_strided re-stridings
// run_decompositions() leaves behind. Each builder writes those ops, which
// then run wherever their pieces run.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_COMPOSITETARGETS_H
#define DUET_COMPILER_IMPORT_COMPOSITETARGETS_H

#include "compiler/import/NodeContext.h"

#include <optional>

namespace duet::import {

/// Integer index tensors on consecutive dims [first, end) of a tensor (None
/// for the dims before them), as one index into those dims merged.
struct AdvancedIndex {
  int64_t first = 0, end = 0;
  /// The tensor's shape with dims [first, end) merged into one.
  llvm::SmallVector<int64_t> tableShape;
  /// The shape the index tensors broadcast to.
  llvm::SmallVector<int64_t> broadcastShape;
  /// The index into the merged dim (int64, of the broadcast shape); null
  /// when no dim is indexed.
  mlir::Value flat;
};
/// The index of `self[indices]`, or nothing after recording why it is not
/// one duet computes (a None between indexed dims, a boolean mask).
std::optional<AdvancedIndex> advancedIndex(NodeContext &ctx, mlir::Value self,
                                           llvm::ArrayRef<mlir::Value> indices);
/// index.Tensor: `self[i0, i1, ...]` with integer index tensors on
/// consecutive dims (None for the dims before them).
void buildIndexTensor(NodeContext &ctx);
/// Writes group norm of `input` as the node's result (weight and bias
/// optional), and marks the statistics outputs unavailable.
void emitGroupNorm(NodeContext &ctx, mlir::Value input, mlir::Value weight,
                   mlir::Value bias, int64_t groups, double eps);
/// native_group_norm and group_norm (only the normalized output).
void buildNativeGroupNorm(NodeContext &ctx);
void buildGroupNorm(NodeContext &ctx);
/// linalg_vector_norm of any ord: 0 counts the nonzero elements, ±inf takes
/// the largest or smallest magnitude, p sums |x|^p and takes its p-th root.
void buildVectorNorm(NodeContext &ctx);
/// pow.Scalar: a positive Python number raised to a tensor.
void buildPowScalarBase(NodeContext &ctx);
/// fmod.Scalar and fmod.Tensor: `self - trunc(self / other) * other`.
void buildFmod(NodeContext &ctx);
/// as_strided and as_strided_scatter of a tensor that owns its storage (not
/// a view of another): the view's elements picked, or written, by constant
/// positions.
void buildAsStrided(NodeContext &ctx);
void buildAsStridedScatter(NodeContext &ctx);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_COMPOSITETARGETS_H
