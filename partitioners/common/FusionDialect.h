//===- FusionDialect.h - activations folded into their producer -*- C++ -*-===//
//
// The `fusion` dialect (FusionDialect.td) and the accessors the fusion pass
// and the delegate emitters share, so that the bounds of an activation and
// of a node are computed in one place.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_FUSIONDIALECT_H
#define DUET_PARTITIONERS_COMMON_FUSIONDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include <limits>
#include <optional>

#include "partitioners/common/FusionDialect.h.inc"

namespace duet::fusion {

/// The range a node clamps its result to.
struct Bounds {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
};

/// The bounds a relu, hardtanh or clamp keeps its result in (as floats, the
/// precision both backends clamp in); nothing for any other op.
std::optional<Bounds> activationBounds(mlir::Operation *op);

/// The `fusion.output_bounds` of `op`, if it has them.
std::optional<Bounds> outputBounds(mlir::Operation *op);

/// Records that the node of `op` clamps its result to `bounds`.
void setOutputBounds(mlir::Operation *op, Bounds bounds);

/// What the node computing `op`'s result clamps it to: an activation's own
/// bounds and those folded into it; nothing when neither exists.
std::optional<Bounds> nodeBounds(mlir::Operation *op);

/// Whether `op` is an activation folded into its operand's node.
bool isFolded(mlir::Operation *op);

/// Marks activation `op` as computed by its operand's node.
void setFolded(mlir::Operation *op);

/// The op whose node computes `op`'s result: `op` itself unless it is
/// folded, else the first op up its operands that is not.
mlir::Operation *boundsOwner(mlir::Operation *op);

/// The value the node computing `value` writes: `value`, or the result of
/// the last activation folded after it.
mlir::Value foldedResult(mlir::Value value);

} // namespace duet::fusion

#endif // DUET_PARTITIONERS_COMMON_FUSIONDIALECT_H
