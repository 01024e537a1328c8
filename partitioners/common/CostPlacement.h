//===- CostPlacement.h - the placement with the least estimated time -*- C++ -*-===//
//
// Given, for each placeable op of a block, the backends that can run it
// (their rule tables claimed it) and a TargetCosts, finds an assignment of
// ops to backends (or to the portable kernels) whose estimated time is
// lowest among those a local search reaches: the ops' costs on their
// backends, plus for every partition one call and a transfer for each tensor
// that enters or leaves it. docs/partitioning.md ("Placement by cost")
// describes the search and its guarantees.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_COSTPLACEMENT_H
#define DUET_PARTITIONERS_COMMON_COSTPLACEMENT_H

#include "partitioners/common/CostModel.h"
#include "partitioners/common/Grouping.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace duet::partition {

/// The backend index that stands for the portable kernels.
constexpr int kPortable = -1;

/// What the search did, for the report.
struct CostSearchStats {
  /// Placements whose time was estimated, and moves taken.
  int64_t evaluations = 0;
  int64_t moves = 0;
  /// Whether it stopped at its evaluation budget rather than at a placement
  /// no single move improves.
  bool budgetReached = false;
};

/// What placing one block by cost needs.
class PlacementCosts {
public:
  /// `ops`: the placeable ops of `block`, in block order; `claims[i][b]`:
  /// whether backend `b` (an index into `backends`) can run `ops[i]`;
  /// `backends[b]` and `portable`: their costs.
  PlacementCosts(mlir::Block &block, llvm::ArrayRef<mlir::Operation *> ops,
                 llvm::ArrayRef<llvm::SmallVector<bool>> claims,
                 llvm::ArrayRef<const BackendCosts *> backends,
                 const BackendCosts &portable);

  /// Estimated microseconds of `op` on backend `b` (kPortable: the portable
  /// kernels); only meaningful where `b` can run it.
  double opUs(mlir::Operation *op, int backend) const;
  /// Whether backend `b` can run `op` (always, for kPortable).
  bool canRun(mlir::Operation *op, int backend) const;

  /// What one partition costs beyond its ops: one call and its transfers.
  struct Boundary {
    double callUs = 0;
    /// Tensors that enter or leave it, their bytes and their time.
    int64_t transfers = 0;
    int64_t transferBytes = 0;
    double transferUs = 0;
  };
  Boundary boundaryOf(const Partition &partition) const;

  /// The estimated time of the block under `assignment` (ops missing or
  /// mapped to kPortable run on the portable kernels), with its partitions
  /// as groupPartitions forms them.
  double planUs(const llvm::DenseMap<mlir::Operation *, int> &assignment) const;

private:
  friend class CostSearch;
  friend llvm::DenseMap<mlir::Operation *, int>
  placeByCost(const PlacementCosts &costs,
              const llvm::DenseMap<mlir::Operation *, int> &start,
              CostSearchStats &stats);
  /// The same, with partitions approximated by the connected components of
  /// same-backend ops (grouping may split a component to stay acyclic, which
  /// only adds calls and transfers): linear in the block, for the search.
  double quickPlanUs(llvm::ArrayRef<int> placement) const;

  mlir::Block &block;
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Operation *, unsigned> indexOf;
  llvm::SmallVector<llvm::SmallVector<bool>> claims;
  llvm::SmallVector<const BackendCosts *> backends;
  const BackendCosts &portable;
  /// opCost[i][b + 1]: ops[i] on backend b (index 0: portable).
  llvm::SmallVector<llvm::SmallVector<double>> opCost;
  /// For each op, the op indices whose results it reads (each once), and
  /// whether any of its results leaves the block's ops (the terminator).
  llvm::SmallVector<llvm::SmallVector<unsigned>> producers;
  llvm::SmallVector<llvm::SmallVector<unsigned>> consumers;
  llvm::SmallVector<bool> feedsTerminator;
  /// Bytes of each op's results together, and of each outer input (block
  /// argument or constant-free value defined outside `ops`) an op reads.
  llvm::SmallVector<int64_t> resultBytes;
  llvm::SmallVector<llvm::SmallVector<std::pair<mlir::Value, int64_t>>>
      outerInputs;
};

/// The assignment (op -> backend index; portable ops absent) with the least
/// estimated time that the search reaches from `start` and from the other
/// starting points it tries (each backend first in priority, the cheapest
/// backend per op).
llvm::DenseMap<mlir::Operation *, int>
placeByCost(const PlacementCosts &costs,
            const llvm::DenseMap<mlir::Operation *, int> &start,
            CostSearchStats &stats);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_COSTPLACEMENT_H
