//===- Grouping.h - claimed ops into acyclic partitions ---------*- C++ -*-===//
//
// Shared by every backend: the ops each backend claimed are grouped into
// partitions, and each partition is wrapped in a `duet.delegate`.
//
// A partition runs as one call, so no path may leave it and come back into
// it, or the call would need its own output before it runs: neither through
// other ops (the partition must be convex) nor through other partitions
// (two convex partitions may each need the other's output). Grouping keeps
// the graph acyclic with every partition contracted to one node. Ops are
// visited in block order; an op joins the partitions of its same-backend
// producers only when the merge keeps that graph acyclic (see canMerge in
// Grouping.cpp for the argument).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_GROUPING_H
#define DUET_PARTITIONERS_COMMON_GROUPING_H

#include "dialects/duet/DuetDialect.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace duet::partition {

/// A partition: ops of one block, in block order, claimed by one backend.
struct Partition {
  /// Index of the backend in the priority list.
  int backend = -1;
  llvm::SmallVector<mlir::Operation *> ops;
};

/// Groups the ops of `block` that `assignment` maps to a backend index (>= 0)
/// into partitions of one backend each, connected by direct data edges, such
/// that the graph stays acyclic with each partition contracted to one node;
/// two partitions of one backend joined by an edge are merged unless that
/// would close a cycle. Ops missing from `assignment` or mapped below 0 stay
/// outside. Returns the partitions in the order of their first op.
llvm::SmallVector<Partition>
groupPartitions(mlir::Block &block,
                const llvm::DenseMap<mlir::Operation *, int> &assignment);

/// Reorders `block` so that each partition's ops are contiguous (possible
/// because the contracted graph is acyclic; the order stays as close to the
/// original as a stable topological sort allows) and wraps each partition in a
/// `duet.delegate` of `backends[partition.backend]`. Constants a partition
/// reads are cloned inside, since the region is isolated from above; those
/// left without a use are erased. Returns the delegates, one per partition;
/// fails, changing nothing, if the contracted graph has a cycle.
mlir::FailureOr<llvm::SmallVector<DelegateOp>>
outlinePartitions(mlir::Block &block, llvm::ArrayRef<Partition> partitions,
                  llvm::ArrayRef<DelegateKind> backends);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_GROUPING_H
