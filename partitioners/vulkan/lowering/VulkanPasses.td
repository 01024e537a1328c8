//===- VulkanPasses.td - the Vulkan backend's passes ----------------------===//
//
// `duet-partition` plans the layouts of the Vulkan partitions it forms;
// `duet-vulkan-layout` runs that planning alone on partitions that already
// exist. Its options are the Vulkan backend's (texture-limits,
// target-profile; VulkanLowering.cpp), added when the pass is made.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_VULKAN_VULKANPASSES_TD
#define DUET_PARTITIONERS_VULKAN_VULKANPASSES_TD

include "mlir/Pass/PassBase.td"

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
  let dependentDialects = ["::duet::DuetDialect"];
}

#endif // DUET_PARTITIONERS_VULKAN_VULKANPASSES_TD
