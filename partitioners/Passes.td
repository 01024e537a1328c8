//===- Passes.td - the partitioner's passes -------------------------------===//
//
// `duet-partition` is the partition, legalize and plan steps of the pipeline
// in one pass (they share the placement decisions and the report);
// `duet-vulkan-layout` runs the Vulkan layout planning alone on partitions
// that already exist. docs/partitioning.md describes the rules and the report.
// `duet-xnnpack-layout` and `duet-fuse-activations` lower the partitions for
// their emitters, in that order, after partitioning (docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_PASSES_TD
#define DUET_PARTITIONERS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PartitionPass : Pass<"duet-partition", "::mlir::ModuleOp"> {
  let summary = "Places each op on Vulkan, XNNPACK or portable and wraps each partition in duet.delegate";
  let description = [{
    Asks the backends, in priority order, whether they can run each op (each
    backend's rule table: element types, ranks, argument predicates, Vulkan
    texture limits), groups the claimed ops into maximal partitions that
    create no cycle with the rest of the graph, wraps each in a
    `duet.delegate`, decomposes inside each partition the ops its backend
    does not run natively, and plans the storage and packing of every Vulkan
    tensor. Ops no backend claims stay outside and run on portable kernels.
    With `report`, every decision and every rejection reason is written as
    JSON.

    ```mlir
    // duet-opt --duet-partition="backends=xnnpack"
    // before
    %y = aten.linear %x, %w, %b : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %z = aten.silu %y : tensor<4x8xf32>
    // after
    %z = duet.delegate <xnnpack> (%a = %x : tensor<4x16xf32>) -> (tensor<4x8xf32>) {
      %w2 = arith.constant ...
      %b2 = arith.constant ...
      %y = aten.linear %a, %w2, %b2 : ...
      %s = aten.sigmoid %y : tensor<4x8xf32>
      %m = aten.mul %y, %s : ...
      duet.yield %m : tensor<4x8xf32>
    }
    ```
  }];
  let options = [
    ListOption<"backends", "backends", "std::string",
               "Backends in priority order (default vulkan,xnnpack)">,
    ListOption<"textureLimits", "texture-limits", "int64_t",
               "Vulkan 3-D image limits X,Y,Z in texels (default: the profile's)">,
    Option<"targetProfile", "target-profile", "std::string", "\"generic\"",
           "Vulkan device profile: a built-in name or a .json path">,
    Option<"enableBf16", "enable-bf16", "bool", "false",
           "Let XNNPACK take bf16 ops it computes in fp32 (per op)">,
    Option<"reportPath", "report", "std::string", "\"\"",
           "Write the JSON report to this file ('-' for stdout)">,
    Option<"explain", "explain", "bool", "false",
           "Print the decision table to stderr">,
    Option<"strict", "strict", "bool", "false",
           "Fail when any op falls to portable, listing them">,
  ];
  let statistics = [
    Statistic<"numPartitions", "partitions", "delegate partitions formed">,
    Statistic<"numPortable", "portable-ops", "ops left to portable kernels">,
  ];
  let dependentDialects = ["::duet::DuetDialect", "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def VulkanLayoutPass : Pass<"duet-vulkan-layout", "::mlir::ModuleOp"> {
  let summary = "Plans storage and packing of every tensor in Vulkan partitions";
  let description = [{
    For each `duet.delegate <vulkan>` without `duet.vk_arg_layouts`, picks one
    (storage, packing) per tensor within the texture limits, preferring what
    its consumers read, records it as `duet.vk_layouts` (per result) and
    `duet.vk_arg_layouts` (per input), and inserts `duet.layout_convert`
    where a producer and a consumer disagree. `duet-partition` runs this
    itself; the pass exists to plan hand-written partitions.

    ```mlir
    // after
    %0 = aten.linear %a, %w, %b {duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [2, 4, 1]>]} : ...
    %1 = duet.layout_convert %0 from <texture3d, width_packed, [2, 4, 1]>
        to <texture3d, channels_packed, [8, 4, 1]> : tensor<4x8xf32>
    ```
  }];
  let options = [
    ListOption<"textureLimits", "texture-limits", "int64_t",
               "Vulkan 3-D image limits X,Y,Z in texels (default: the profile's)">,
    Option<"targetProfile", "target-profile", "std::string", "\"generic\"",
           "Vulkan device profile: a built-in name or a .json path">,
  ];
  let dependentDialects = ["::duet::DuetDialect"];
}

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
    partitioners/xnnpack/XnnpackLayout.h gives the rules, docs/xnnpack.md
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

def FuseActivationsPass : Pass<"duet-fuse-activations", "::mlir::ModuleOp"> {
  let summary = "Folds relu, hardtanh and clamp into the output bounds of the node before them";
  let description = [{
    Inside every `duet.delegate`, a relu, hardtanh or clamp whose operand
    nothing else reads, produced by an op of the partition held in the same
    layout, is folded into that op's node when the backend's node takes
    output bounds: the producer gets `fusion.output_bounds`, the activation
    `fusion.folded`, and it stays in the region (the program records the
    partition's aten form). The rule is one; what each backend takes is its
    FusionTarget (partitioners/common/ActivationFusion.cpp): XNNPACK folds
    into every node with output_min/output_max and intersects successive
    activations while min < max, Vulkan folds one activation into a
    convolution. Run it after the layouts are planned (`duet-partition`
    plans Vulkan's, `duet-xnnpack-layout` XNNPACK's): an activation whose
    layouts are not recorded is left alone.

    ```mlir
    // before
    %0 = aten.convolution %a, %w {..., xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : ...
    %1 = aten.relu %0 {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : tensor<1x8x8x8xf32>
    // after
    %0 = aten.convolution %a, %w {..., fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>, ...} : ...
    %1 = aten.relu %0 {fusion.folded, xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : tensor<1x8x8x8xf32>
    ```
  }];
  let options = [
    ListOption<"backends", "backends", "std::string",
               "Backends whose partitions to fuse in (default: all)">,
  ];
  let statistics = [
    Statistic<"numFolded", "folded", "activations folded into their producer">,
  ];
  let dependentDialects = ["::duet::fusion::FusionDialect"];
}

#endif // DUET_PARTITIONERS_PASSES_TD
