//===- VulkanApi.cpp - the Vulkan entry points, loaded at run time --------===//

#include "runtime/backends/vulkan/VulkanApi.h"

#include "runtime/core/LoadOptions.h"

#include <dlfcn.h>
#include <mutex>

namespace duet::rt::vulkan {

std::atomic<int64_t> &detail::liveObjectCounter() {
  static std::atomic<int64_t> live{0};
  return live;
}

int64_t liveVulkanObjects() {
  return detail::liveObjectCounter().load(std::memory_order_relaxed);
}

Status VulkanApi::loadInstanceFunctions(VkInstance instance) {
#define DUET_LOAD(name)                                                        \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name)); \
  if (!name)                                                                   \
    return Status::error("vulkan: the loader has no {} (is it Vulkan 1.1?)",   \
                         #name);
  DUET_VULKAN_INSTANCE_FUNCTIONS(DUET_LOAD)
#undef DUET_LOAD
  return Status::ok();
}

Status VulkanApi::loadDeviceFunctions(VkDevice device) {
#define DUET_LOAD(name)                                                        \
  name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));     \
  if (!name)                                                                   \
    return Status::error("vulkan: the device driver has no {}", #name);
  DUET_VULKAN_DEVICE_FUNCTIONS(DUET_LOAD)
#undef DUET_LOAD
  return Status::ok();
}

Status loadVulkanApi(const VulkanApi *&api) {
  static VulkanApi loaded;
  static Status status;
  static std::once_flag once;
  std::call_once(once, [] {
    void *library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      status = Status::error(
          "vulkan: cannot open the Vulkan loader libvulkan.so.1 ({}); install "
          "it (Debian/Ubuntu: libvulkan1) with a driver for your GPU, or "
          "Mesa's CPU driver lavapipe (mesa-vulkan-drivers), or compile "
          "without the Vulkan backend (--backends xnnpack or portable)",
          dlerror());
      return;
    }
    loaded.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
        dlsym(library, "vkGetInstanceProcAddr"));
    if (!loaded.vkGetInstanceProcAddr) {
      status = Status::error("vulkan: libvulkan.so.1 has no "
                             "vkGetInstanceProcAddr; is it a Vulkan loader?");
      return;
    }
    loaded.vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(
        loaded.vkGetInstanceProcAddr(nullptr, "vkCreateInstance"));
    loaded.vkEnumerateInstanceVersion =
        reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
            loaded.vkGetInstanceProcAddr(nullptr,
                                         "vkEnumerateInstanceVersion"));
    if (!loaded.vkCreateInstance)
      status = Status::error("vulkan: the loader has no vkCreateInstance");
  });
  api = &loaded;
  return status;
}

const char *resultName(VkResult result) {
  switch (result) {
#define DUET_CASE(name)                                                        \
  case name:                                                                   \
    return #name;
    DUET_CASE(VK_SUCCESS)
    DUET_CASE(VK_NOT_READY)
    DUET_CASE(VK_TIMEOUT)
    DUET_CASE(VK_INCOMPLETE)
    DUET_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    DUET_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    DUET_CASE(VK_ERROR_INITIALIZATION_FAILED)
    DUET_CASE(VK_ERROR_DEVICE_LOST)
    DUET_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    DUET_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    DUET_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    DUET_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    DUET_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    DUET_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    DUET_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    DUET_CASE(VK_ERROR_FRAGMENTED_POOL)
    DUET_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef DUET_CASE
  default:
    return "an unknown VkResult";
  }
}

Status callFailed(const std::string &what, VkResult result,
                  const std::string &note) {
  std::string advice;
  switch (result) {
  case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    advice = fmt::format("the device is out of memory: close other programs "
                         "using it, load fewer programs at once, or run on a "
                         "device with more memory ({}=<index or part of its "
                         "name>)",
                         kVulkanDeviceVariable);
    break;
  case VK_ERROR_OUT_OF_HOST_MEMORY:
  case VK_ERROR_OUT_OF_POOL_MEMORY:
    advice = "the driver ran out of host memory: free memory (load fewer "
             "programs at once) and try again";
    break;
  case VK_ERROR_DEVICE_LOST:
    advice = fmt::format(
        "the device was lost (a driver reset, a GPU fault or hang): what was "
        "loaded on it cannot run again; load the program again, which opens "
        "the device anew, and if it recurs update the driver or pick another "
        "device with {}=<index or part of its name>",
        kVulkanDeviceVariable);
    break;
  default:
    advice = fmt::format("the Vulkan driver failed the call: update the "
                         "driver, pick another device with {}=<index or part "
                         "of its name>, or compile the model without Vulkan "
                         "(--backends xnnpack)",
                         kVulkanDeviceVariable);
  }
  return Status::error("vulkan: {} failed: {}{}{}; {}", what,
                       resultName(result), note.empty() ? "" : " ", note,
                       advice)
      .withCode(ErrorCode::failure);
}

} // namespace duet::rt::vulkan
