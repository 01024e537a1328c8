//===- VulkanRules.h - what the Vulkan delegate runs ------------*- C++ -*-===//
//
// The one place that knows which ops the Vulkan delegate runs: per op, the
// element types, argument predicates, whether it is native or decomposed,
// which operands are weights packed at load, and which (storage, packing) its
// kernels read and write. Textures are planned against the device's limits;
// a tensor no texture layout holds falls back to a buffer where the op has a
// buffer kernel.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_VULKAN_VULKANRULES_H
#define DUET_PARTITIONERS_VULKAN_VULKANRULES_H

#include "partitioners/common/RuleTable.h"
#include "partitioners/vulkan/rules/DeviceProfile.h"

namespace duet::partition {

/// A set of packings, bit `1 << packing` for each PackedDim in it: the
/// texture packings an op's kernels read and write (the layout planner also
/// sets the contiguous bit, for a buffer).
using PackingSet = uint8_t;

/// The bit of `packing` in a PackingSet.
constexpr PackingSet packingBit(PackedDim packing) {
  return static_cast<PackingSet>(1u << static_cast<unsigned>(packing));
}

enum PackingBit : PackingSet {
  kWidthPacked = packingBit(PackedDim::width_packed),
  kHeightPacked = packingBit(PackedDim::height_packed),
  kChannelsPacked = packingBit(PackedDim::channels_packed),
  kAnyPacking = kWidthPacked | kHeightPacked | kChannelsPacked,
};

/// The three texture packings, in the order reasons list them and ties are
/// broken: width, height, channels.
llvm::ArrayRef<PackedDim> texturePackings();

/// Textures hold at most four dims (N, C, H, W).
constexpr int64_t kMaxTextureRank = 4;
/// Buffer kernels take sizes and strides of at most eight dims.
constexpr int64_t kMaxBufferRank = 8;

/// The bytes a tensor of `type` takes as a buffer (elements times element
/// size), the number checked against maxStorageBufferRange.
int64_t bufferBytes(mlir::RankedTensorType type);

/// How an op's kernels relate the packings of its tensors.
enum class LayoutKind {
  /// Every tensor (inputs and outputs, weights aside) has one packing.
  Shared,
  /// Each tensor has its own packing (view, permute re-index every element).
  Independent,
};

/// One entry of the Vulkan rule table. Its weights are outside layout
/// planning.
struct VulkanRule : RuleFacts {
  LayoutKind layout;
  /// The texture packings the kernels read and write.
  PackingSet packings;
  /// Whether a buffer kernel exists (used when no texture layout fits).
  bool bufferKernel;
  /// Whether `packings` are the packings of rank-4 [N, C, H, W] tensors and
  /// a rank-3 op reads [N, C, L] height-packed instead: the packing that
  /// puts C in texels either way (convolution's texel kernels).
  bool packsChannels = false;

  /// The packings of `op`'s tensors.
  PackingSet packingsOf(mlir::Operation *op) const;
};

/// The storage one native op's tensors can take under the limits.
struct StorageOptions {
  struct Tensor {
    mlir::Value value;
    bool isResult;
    unsigned index;
    /// The allowed packings whose image extents are within the limits.
    PackingSet fits;
  };
  /// The tensors layout planning covers (weights excluded), inputs first.
  llvm::SmallVector<Tensor> tensors;
  LayoutKind kind = LayoutKind::Shared;
  /// Shared kind: the packings every tensor fits.
  PackingSet shared = 0;
  /// Whether every tensor can be a texture at once.
  bool texture = false;
  /// Whether the buffer kernel can run it (exists, and buffers fit).
  bool buffer = false;
  /// When neither: why, with the numbers.
  std::string whyNeither;
};

/// The Vulkan backend's rules under one set of limits.
class VulkanRules : public RuleTable<VulkanRule> {
public:
  VulkanRules(mlir::MLIRContext *context, VulkanLimits limits);

  DelegateKind kind() const override { return DelegateKind::vulkan; }

  /// The storage options of a native op; std::nullopt for an op without a
  /// native rule.
  std::optional<StorageOptions> storageOptions(mlir::Operation *op) const;

  const VulkanLimits &limits() const { return limitsInUse; }

  /// The whole table, for documentation and tests.
  static llvm::ArrayRef<VulkanRule> table();
  /// Ops the backend never runs, each with the reason, for documentation.
  static llvm::ArrayRef<UnsupportedOp> unsupportedOps();

private:
  /// Element types, then whether the tensors fit a texture or a buffer.
  std::optional<std::string>
  checkTensors(mlir::Operation *op, const VulkanRule &rule) const override;

  VulkanLimits limitsInUse;
};

} // namespace duet::partition

#endif // DUET_PARTITIONERS_VULKAN_VULKANRULES_H
