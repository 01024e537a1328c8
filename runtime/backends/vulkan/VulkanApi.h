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

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

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

/// The Vulkan objects duet has created and not yet destroyed, over the
/// process: buffers, images, views, samplers, memory, shader modules,
/// layouts, pipeline caches, pipelines, descriptor pools, command pools,
/// fences and query pools, of every device (not instances and devices,
/// which duet keeps for the process, nor what pools own). Tests check that
/// none outlives the program that made it; LeakSanitizer cannot, since the
/// driver's frames end its stacks (scripts/lsan.supp).
int64_t liveVulkanObjects();

namespace detail {
std::atomic<int64_t> &liveObjectCounter();

/// How a device entry point changes liveVulkanObjects: 0 not at all, 1 it
/// creates one object, 2 it destroys one, 3 it creates a pipeline per
/// create-info.
constexpr int objectEffect(std::string_view name) {
  if (name == "vkCreateComputePipelines")
    return 3;
  if (name == "vkAllocateMemory" || name.substr(0, 8) == "vkCreate")
    return 1;
  if (name == "vkFreeMemory" ||
      (name.substr(0, 9) == "vkDestroy" && name != "vkDestroyDevice"))
    return 2;
  return 0;
}

/// A device entry point called as the function itself, counting the
/// objects it creates or destroys (objectEffect).
template <typename Pfn, int Effect> struct Entry;
template <typename R, typename... Args, int Effect>
struct Entry<R(VKAPI_PTR *)(Args...), Effect> {
  using Pfn = R(VKAPI_PTR *)(Args...);
  Pfn fn = nullptr;
  Entry &operator=(Pfn f) {
    fn = f;
    return *this;
  }
  explicit operator bool() const { return fn != nullptr; }
  R operator()(Args... args) const {
    if constexpr (Effect == 2) {
      // vkDestroyX(device, handle, allocator): a null handle is no object.
      auto handle = std::get<1>(std::tuple<Args...>(args...));
      if (handle != VK_NULL_HANDLE)
        liveObjectCounter().fetch_sub(1, std::memory_order_relaxed);
      return fn(args...);
    } else if constexpr (Effect == 1) {
      // vkCreateX(device, info, allocator, handle*).
      R result = fn(args...);
      auto *handle = std::get<sizeof...(Args) - 1>(std::tuple<Args...>(args...));
      if (result == VK_SUCCESS && handle && *handle != VK_NULL_HANDLE)
        liveObjectCounter().fetch_add(1, std::memory_order_relaxed);
      return result;
    } else if constexpr (Effect == 3) {
      // vkCreateComputePipelines(device, cache, count, infos, allocator,
      // pipelines*): each handle it filled in, on success or not.
      R result = fn(args...);
      std::tuple<Args...> all(args...);
      uint32_t count = std::get<2>(all);
      VkPipeline *pipelines = std::get<5>(all);
      for (uint32_t i = 0; pipelines && i < count; ++i)
        if (pipelines[i] != VK_NULL_HANDLE)
          liveObjectCounter().fetch_add(1, std::memory_order_relaxed);
      return result;
    } else {
      return fn(args...);
    }
  }
};
} // namespace detail

/// The loader's entry points. Instance and device functions are filled by
/// loadInstanceFunctions and loadDeviceFunctions.
struct VulkanApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
#define DUET_DECLARE(name) PFN_##name name = nullptr;
  DUET_VULKAN_INSTANCE_FUNCTIONS(DUET_DECLARE)
#undef DUET_DECLARE
#define DUET_DECLARE(name)                                                     \
  detail::Entry<PFN_##name, detail::objectEffect(#name)> name;
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
