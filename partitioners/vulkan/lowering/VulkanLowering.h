//===- VulkanLowering.h - the Vulkan backend, compiler side -----*- C++ -*-===//
//
// The registration of the Vulkan delegate with the compiler: its options
// (texture-limits, target-profile, force-fp16), its rule table under the
// device limits they give (VulkanRules.h), the layout planning of each
// partition (LayoutPlanner.h) and the tensors it records in the report, the
// duet-vulkan-layout pass, the fusion parameters, the blob writer
// (VulkanEmitter.h), the rows of docs/ops.md and the device profiles table
// of docs/profiles.md.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_VULKAN_VULKANLOWERING_H
#define DUET_PARTITIONERS_VULKAN_VULKANLOWERING_H

#include "partitioners/common/BackendLowering.h"
#include "partitioners/vulkan/rules/DeviceProfile.h"

namespace duet::partition {

/// The Vulkan backend.
const BackendLowering &vulkanBackend();

/// The placement of one tensor inside a Vulkan partition.
struct TensorPlacement {
  int64_t partition = 0;
  /// The node that produces it (an outer value's name for a partition
  /// input), with "#<result>" for an op of several results.
  std::string tensor;
  /// The op that produces it inside the partition ("input" for a partition
  /// input, "duet.layout_convert" for a conversion).
  std::string producer;
  std::vector<int64_t> shape;
  std::string dtype;
  /// "texture3d" or "buffer".
  std::string storage;
  /// "width_packed", "height_packed", "channels_packed" or "contiguous".
  std::string packing;
  /// Image extents [x, y, z] in texels; empty for a buffer.
  std::vector<int64_t> extents;
  /// Size in bytes as a buffer (elements times element size).
  int64_t bytes = 0;
};

/// The tensors of the Vulkan partitions of `report`, as its "vulkan_tensors"
/// lists them.
llvm::ArrayRef<TensorPlacement> vulkanTensors(const PartitionReport &report);

/// The limits `options` give: the target-profile's (the built-in "generic"
/// when not given), with the image extents of texture-limits when given.
llvm::Expected<VulkanLimits> vulkanLimits(const BackendOptions &options);

/// Registers duet-vulkan-layout (VulkanPasses.cpp).
void registerVulkanPasses();

} // namespace duet::partition

#endif // DUET_PARTITIONERS_VULKAN_VULKANLOWERING_H
