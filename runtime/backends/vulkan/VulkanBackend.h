//===- VulkanBackend.h - the Vulkan delegate backend ------------*- C++ -*-===//
//
// Runs `duet.delegate <vulkan>` partitions on a Vulkan 1.1 device (see
// VulkanDevice.h for which). The device is opened when the first Vulkan
// delegate loads and shared by all of them.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_VULKAN_VULKANBACKEND_H
#define DUET_RUNTIME_BACKENDS_VULKAN_VULKANBACKEND_H

#include "runtime/core/Backend.h"

#include <memory>

namespace duet::rt {

/// A new Vulkan backend, named "vulkan".
std::shared_ptr<Backend> makeVulkanBackend();

} // namespace duet::rt

#endif // DUET_RUNTIME_BACKENDS_VULKAN_VULKANBACKEND_H
