//===- FusionDialect.td - activations folded into their producer ----------===//
//
// The record duet-fuse-activations writes and the delegate emitters read.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_FUSIONDIALECT_TD
#define DUET_PARTITIONERS_COMMON_FUSIONDIALECT_TD

include "mlir/IR/DialectBase.td"

def Fusion_Dialect : Dialect {
  let name = "fusion";
  let cppNamespace = "::duet::fusion";
  let summary = "Activations computed by the node of the op before them";
  let description = [{
    Two discardable attributes on ops inside a `duet.delegate`:

    - `fusion.output_bounds = array<f32: lo, hi>` on an op: the backend node
      computing its result clamps it to `[lo, hi]` (for a clamp, its own
      bounds and these are one).
    - `fusion.folded` on a relu, hardtanh or clamp: the backend computes
      nothing for it; its result is the value the node of its operand
      writes (through other folded activations, up to the op carrying the
      bounds), and nothing else reads that operand.

    The activation stays in the region so that the partition's aten form,
    which the program records for `duet run --reference` and `duet inspect`,
    keeps every op. The verifier checks the record against the fusion rule
    of the partition's backend (partitioners/common/ActivationFusion.h).

    ```mlir
    %0 = aten.convolution %a, %w {..., fusion.output_bounds = array<f32: 0.000000e+00, 6.000000e+00>} : ...
    %1 = aten.hardtanh %0 {fusion.folded, max_val = 6.0 : f64, min_val = 0.0 : f64} : tensor<1x8x8x8xf32>
    ```
  }];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// `array<f32: lo, hi>` on the op whose node clamps its result.
    static constexpr ::llvm::StringLiteral kOutputBoundsAttrName = "fusion.output_bounds";
    /// A unit attribute on an activation its operand's node computes.
    static constexpr ::llvm::StringLiteral kFoldedAttrName = "fusion.folded";
  }];
}

#endif // DUET_PARTITIONERS_COMMON_FUSIONDIALECT_TD
