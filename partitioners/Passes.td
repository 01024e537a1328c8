//===- Passes.td - the partitioner's passes -------------------------------===//
//
// `duet-partition` is the partition, legalize and plan steps of the pipeline
// in one pass (they share the placement decisions and the report);
// `duet-vulkan-layout` runs the Vulkan layout planning alone on partitions
// that already exist. docs/partitioning.md describes the rules and the report.
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

#endif // DUET_PARTITIONERS_PASSES_TD
