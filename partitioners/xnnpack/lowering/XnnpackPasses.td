//===- XnnpackPasses.td - the XNNPACK backend's passes --------------------===//
//
// `duet-xnnpack-layout` lowers the XNNPACK partitions for their emitter; the
// pipeline runs it after partitioning and before `duet-fuse-activations`
// (docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNPACKPASSES_TD
#define DUET_PARTITIONERS_XNNPACK_XNNPACKPASSES_TD

include "mlir/Pass/PassBase.td"

def XnnpackLayoutPass : Pass<"duet-xnnpack-layout", "::mlir::ModuleOp"> {
  let summary = "Chooses NCHW or NHWC for every value of XNNPACK partitions and splits them into subgraphs at host copies";
  let description = [{
    For each `duet.delegate <xnnpack>` not planned yet, visits the ops in
    program order and records the layout of each result as `xnn.layout`:
    NHWC for convolutions, pools and resizing, plain for fully connected,
    softmax and view, the operand's for elementwise ops, and for a binary op
    the layout that costs fewer host copies (ties to NHWC when an operand is
    NHWC already). Where a value is read in the other layout it inserts one
    `xnn.layout_change` before the first such reader: `by reshape` when both
    layouts order the elements the same way, `by host_copy` otherwise, `by
    repack` for a constant; results yielded in NHWC (or bf16) are copied out
    to the plain output. Each node and host copy gets `xnn.subgraph`: the
    partition runs as subgraphs split at its host copies.
    partitioners/xnnpack/lowering/XnnpackLayout.h gives the rules, docs/xnnpack.md
    the reasons.

    ```mlir
    // before
    %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x8x8x8xf32>) {
      %w = arith.constant ... : tensor<8x3x3x3xf32>
      %0 = aten.convolution %a, %w {...} : ... -> tensor<1x8x8x8xf32>
      duet.yield %0 : tensor<1x8x8x8xf32>
    }
    // after
    %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x8x8x8xf32>) {
      %w = arith.constant ... : tensor<8x3x3x3xf32>
      %0 = xnn.layout_change %a from plain to nhwc by host_copy {xnn.subgraph = 0 : i64} : tensor<1x3x8x8xf32>
      %1 = aten.convolution %0, %w {..., xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : ...
      %2 = xnn.layout_change %1 from nhwc to plain by host_copy {xnn.subgraph = 1 : i64} : tensor<1x8x8x8xf32>
      duet.yield %2 : tensor<1x8x8x8xf32>
    }
    ```
  }];
  let statistics = [
    Statistic<"numReshapes", "reshapes", "layout changes by reshape nodes">,
    Statistic<"numHostCopies", "host-copies", "layout changes by host copies">,
    Statistic<"numRepacks", "repacks", "constants repacked to NHWC">,
  ];
  let dependentDialects = ["::duet::xnn::XnnDialect"];
}

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKPASSES_TD
