//===- VulkanEmitter.h - writes the blob of a Vulkan partition --*- C++ -*-===//
//
// Turns a planned `duet.delegate <vulkan>` (every tensor with its
// `#duet.vk_layout`) into the delegate blob of runtime/schema/vulkan.fbs: the
// tensors with their storage, packing and extents, and the ops with their
// arguments in the form the shaders read them. Work the runtime would repeat
// at every load is done here: batch norm becomes a per-channel scale and
// shift, data movement becomes one affine gather. Layouts are the planner's
// (`#duet.vk_layout`, `duet.layout_convert`) and a relu/hardtanh/clamp
// folded into a convolution is duet-fuse-activations' (`fusion.folded`):
// the emitter writes them, it does not choose them.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_VULKAN_VULKANEMITTER_H
#define DUET_PARTITIONERS_VULKAN_VULKANEMITTER_H

#include "partitioners/common/DelegateEmitter.h"

namespace duet {

/// The emitter of Vulkan delegate blobs.
DelegateEmitter &vulkanEmitter();

/// The flag that keeps textures in RGBA16F images (fp16 storage; fp16 math
/// in the convolutions and products where the device has shaderFloat16).
constexpr llvm::StringLiteral kForceFp16Option = "force-fp16";

} // namespace duet

#endif // DUET_PARTITIONERS_VULKAN_VULKANEMITTER_H
