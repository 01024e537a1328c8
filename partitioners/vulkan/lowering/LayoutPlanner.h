//===- LayoutPlanner.h - storage and packing per Vulkan tensor --*- C++ -*-===//
//
// Inside a Vulkan partition every tensor gets one (storage, packing): the
// layout its producer writes. The planner visits ops from the last to the
// first, so each producer is chosen knowing what its consumers read, and picks
// the kernel variant whose output layouts satisfy the most consumers. Where a
// consumer reads another layout, it inserts a `duet.layout_convert`.
//
// Ties go to textures over buffers, then to fewer texels (less padding), then
// to width-, height-, channels-packed in that order. Layouts are recorded on
// the IR: `duet.vk_layouts` on each op (one per result), and
// `duet.vk_arg_layouts` on the delegate for its inputs.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_VULKAN_LAYOUTPLANNER_H
#define DUET_PARTITIONERS_VULKAN_LAYOUTPLANNER_H

#include "partitioners/vulkan/rules/VulkanRules.h"

namespace duet::partition {

/// The layouts one partition ended up with.
struct LayoutPlan {
  /// Every tensor with a layout: partition inputs first, then op results in
  /// order (conversions included).
  llvm::SmallVector<std::pair<mlir::Value, VkLayoutAttr>> tensors;
  /// How many `duet.layout_convert` ops were inserted.
  unsigned conversions = 0;
};

/// Plans the layouts of `delegate` (a Vulkan partition) under `rules`' limits.
/// Fails, with an error on the op, if an op in it has no layout the rules
/// allow (which placement rules out).
mlir::FailureOr<LayoutPlan> planVulkanLayouts(DelegateOp delegate,
                                              const VulkanRules &rules);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_VULKAN_LAYOUTPLANNER_H
