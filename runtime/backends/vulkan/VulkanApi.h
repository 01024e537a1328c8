//===- VulkanApi.h - the Vulkan entry points, loaded at run time -*- C++
//-*-===//
//
// The Vulkan loader (libvulkan.so.1) is opened with dlopen when a program
// first needs it, not linked: a duet binary runs portable and XNNPACK
// programs on a machine without Vulkan, and a Vulkan program there fails to
// load with a message saying what to install, instead of the binary failing
// to start.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_VULKAN_VULKANAPI_H
#define DUET_RUNTIME_BACKENDS_VULKAN_VULKANAPI_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "runtime/core/Status.h"

#include <string>

namespace duet::rt::vulkan {

// Entry points resolved through vkGetInstanceProcAddr once an instance
// exists.
#define DUET_VULKAN_INSTANCE_FUNCTIONS(X)                                      \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkGetPhysicalDeviceFormatProperties)                                       \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkGetPhysicalDeviceExternalBufferProperties)                               \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

// Entry points of a device.
#define DUET_VULKAN_DEVICE_FUNCTIONS(X)                                        \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkCreateImage)                                                             \
  X(vkDestroyImage)                                                            \
  X(vkCreateImageView)                                                         \
  X(vkDestroyImageView)                                                        \
  X(vkCreateSampler)                                                           \
  X(vkDestroySampler)                                                          \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkGetImageMemoryRequirements)                                              \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkBindImageMemory)                                                         \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreatePipelineCache)                                                     \
  X(vkDestroyPipelineCache)                                                    \
  X(vkGetPipelineCacheData)                                                    \
  X(vkMergePipelineCaches)                                                     \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkFreeCommandBuffers)                                                      \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdDispatch)                                                             \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdCopyBuffer)                                                           \
  X(vkQueueSubmit)                                                             \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkWaitForFences)                                                           \
  X(vkResetFences)                                                             \
  X(vkQueueWaitIdle)                                                           \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkGetQueryPoolResults)

/// The loader's entry points. Instance and device functions are filled by
/// loadInstanceFunctions and loadDeviceFunctions.
struct VulkanApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
#define DUET_DECLARE(name) PFN_##name name = nullptr;
  DUET_VULKAN_INSTANCE_FUNCTIONS(DUET_DECLARE)
  DUET_VULKAN_DEVICE_FUNCTIONS(DUET_DECLARE)
#undef DUET_DECLARE

  /// Resolves the instance-level entry points of `instance`.
  Status loadInstanceFunctions(VkInstance instance);
  /// Resolves the device-level entry points of `device`.
  Status loadDeviceFunctions(VkDevice device);
};

/// The process-wide API: the loader opened on first use. An error names the
/// library and what to install.
Status loadVulkanApi(const VulkanApi *&api);

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" for a VkResult.
const char *resultName(VkResult result);

/// The error of a Vulkan call `what` that returned `result`: "vulkan: WHAT
/// failed: RESULT NOTE; " and what to do about that result. It is the
/// device failing, not the program (ErrorCode::failure). `note` (may be
/// empty) says more about the failure.
Status callFailed(const std::string &what, VkResult result,
                  const std::string &note = {});

} // namespace duet::rt::vulkan

/// Returns callFailed's error when the call failed.
#define DUET_VK_CHECK(call, what)                                              \
  do {                                                                         \
    VkResult duetResult_ = (call);                                             \
    if (duetResult_ != VK_SUCCESS)                                             \
      return ::duet::rt::vulkan::callFailed(what, duetResult_);                \
  } while (0)

#endif // DUET_RUNTIME_BACKENDS_VULKAN_VULKANAPI_H
