//===- ActivationFusion.h - one rule for folding activations ----*- C++ -*-===//
//
// A relu, hardtanh or clamp is computed by the node that produces its input,
// as that node's output bounds, when:
//
// - nothing else reads the input (another reader would see the bounds),
// - the producer is a node of the same partition (not a partition input, a
//   constant or an op outside the partition),
// - the backend holds the producer's result and the activation's result the
//   same way, so that the producer's node can write the activation's value,
// - and the backend's node for the producer takes output bounds.
//
// That rule is one for every backend; what a backend's nodes can take is a
// FusionTarget, its BackendLowering's fusionTarget(). The fusion is recorded
// with the `fusion` dialect (FusionDialect.h) and the delegate emitters read
// it.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_ACTIVATIONFUSION_H
#define DUET_PARTITIONERS_COMMON_ACTIVATIONFUSION_H

#include "dialects/duet/DuetDialect.h"

#include "llvm/ADT/StringRef.h"

namespace duet::partition {

/// What one backend can fold: the parameters of the fusion rule.
struct FusionTarget {
  /// Whether the node `op` becomes takes output bounds.
  bool (*takesBounds)(mlir::Operation *op);
  /// Whether an activation may fold into a node that already has one folded
  /// into it (the bounds intersect, which is exact while min < max).
  bool chains;
  /// Whether the folded bounds must keep min < max.
  bool needsMinBelowMax;
  /// The attribute recording how the backend holds an op's result; the
  /// producer and the activation must both have it, equal.
  llvm::StringLiteral layoutAttrName;
};

/// Folds the activations of `delegate` that `target` allows, in program
/// order (so a chain folds from its first activation on); returns how many.
/// Activations already folded stay so: running it again changes nothing.
unsigned fuseActivations(DelegateOp delegate, const FusionTarget &target);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_ACTIVATIONFUSION_H
