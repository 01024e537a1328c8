//===- VulkanDevice.h - choosing and opening a Vulkan device ----*- C++ -*-===//
//
// The devices the loader offers, with the limits that decide what duet can
// run on them, and the device Vulkan delegates run on: the one
// LoadOptions::vulkan.device names (an index of `duet devices` or a part of
// the device's name; the tools' DUET_VULKAN_DEVICE), else the first discrete
// GPU, else an integrated, virtual or CPU device, in that order.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_VULKAN_VULKANDEVICE_H
#define DUET_RUNTIME_BACKENDS_VULKAN_VULKANDEVICE_H

#include "runtime/backends/vulkan/VulkanApi.h"
#include "runtime/core/LoadOptions.h"
#include "runtime/core/Profile.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace duet::rt::vulkan {

/// The device limits duet's layouts and dispatches depend on.
struct DeviceLimits {
  uint32_t maxImageDimension3D = 0;
  uint64_t maxStorageBufferRange = 0;
  uint32_t maxComputeWorkGroupInvocations = 0;
  uint32_t maxComputeSharedMemorySize = 0;
  std::array<uint32_t, 3> maxComputeWorkGroupCount = {0, 0, 0};
  uint32_t maxUniformBufferRange = 0;
  uint64_t minUniformBufferOffsetAlignment = 1;
  uint64_t bufferImageGranularity = 1;
};

/// The usage of the buffers VulkanDelegate makes on imported host memory
/// (its staging buffers of inputs and outputs), which a device must be able
/// to import for (PhysicalDeviceInfo::hostImportAlignment).
inline constexpr VkBufferUsageFlags kHostImportUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
    VK_BUFFER_USAGE_TRANSFER_DST_BIT;

/// A physical device as `duet devices` lists it.
struct PhysicalDeviceInfo {
  uint32_t index = 0;
  std::string name;
  /// "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other".
  std::string type;
  VkPhysicalDeviceType deviceType = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  /// "1.3.230".
  std::string apiVersion;
  DeviceLimits limits;
  /// Whether shaders may compute in fp16 (shaderFloat16) and buffers hold it
  /// (storageBuffer16BitAccess).
  bool shaderFloat16 = false;
  bool storageBuffer16BitAccess = false;
  /// Why duet cannot use it; empty when it can.
  std::string unsuitable;
  /// What a pipeline cache is valid for: VkPhysicalDeviceProperties'
  /// vendorID, deviceID and pipelineCacheUUID (the driver's build).
  uint32_t vendorId = 0;
  uint32_t deviceId = 0;
  std::array<uint8_t, VK_UUID_SIZE> pipelineCacheUuid{};
  /// Nanoseconds per timestamp tick, and the valid bits of the compute
  /// queue's timestamps (0: it writes none), for profiling dispatches.
  float timestampPeriod = 0;
  uint32_t timestampValidBits = 0;
  /// VK_EXT_external_memory_host's minImportedHostPointerAlignment: the
  /// device can read and write host memory it imports from and to multiples
  /// of it, into buffers of kHostImportUsage, several to an import; 0
  /// without the extension or where the driver cannot import so.
  uint64_t hostImportAlignment = 0;
};

/// Lists every physical device. An error when there is no loader or the
/// loader finds no driver.
Status listDevices(std::vector<PhysicalDeviceInfo> &devices);

/// The device duet runs on among `devices`: the one `wanted` names (an index
/// or a part of the name, case-insensitive) when it is not empty, else the
/// preferred usable one. An error says why none fits.
Status selectDevice(const std::vector<PhysicalDeviceInfo> &devices,
                    const std::string &wanted, uint32_t &chosen);

/// An open logical device with one compute queue, shared by every Vulkan
/// delegate of the process that asks for it.
class Device {
public:
  /// The device `wanted` names (selectDevice; empty: the preferred one),
  /// opened on first use and kept until the process ends, so delegates
  /// loaded with the same choice share it; a failed open is retried on the
  /// next use. Drivers differ in how well they take repeated instances
  /// (NVIDIA's refused new ones after a few dozen in one process), and
  /// destroying a device during static destruction races the driver's own
  /// exit handlers. A device marked lost is replaced the same way: the next
  /// use opens the device anew. An open reports its steps to `phases` (the
  /// Vulkan loader, the instance, the physical devices, the device), for
  /// `--load-phases`; null: to nobody.
  static Status shared(const std::string &wanted,
                       std::shared_ptr<Device> &device,
                       const LoadPhaseClock::Sink &phases = nullptr);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  const VulkanApi &api() const { return api_; }
  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queueFamily() const { return queueFamily_; }
  VkPipelineCache pipelineCache() const { return pipelineCache_; }
  const VkPhysicalDeviceMemoryProperties &memoryProperties() const {
    return memory_;
  }
  const PhysicalDeviceInfo &info() const { return info_; }
  const DeviceLimits &limits() const { return info_.limits; }
  /// Whether optimally tiled 3-D images of `format` may hold tensors: be
  /// storage images (written) and sampled images (read).
  bool supportsTensorImages(VkFormat format) const {
    VkFormatProperties properties{};
    api_.vkGetPhysicalDeviceFormatProperties(physical_, format, &properties);
    VkFormatFeatureFlags needed =
        VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    return (properties.optimalTilingFeatures & needed) == needed;
  }
  /// The limits a load is checked against: the device's, lowered by the
  /// test hooks of `options` that are set.
  DeviceLimits checkedLimits(const runtime::VulkanOptions &options) const;
  /// The memory types that the host memory at `pointer` (a multiple of
  /// info().hostImportAlignment) may be imported as; 0 when it cannot be.
  uint32_t hostMemoryTypes(void *pointer) const;
  /// Held while submitting to the queue.
  std::mutex &queueMutex() { return queueMutex_; }
  /// Marks the device lost (a call returned VK_ERROR_DEVICE_LOST, for good
  /// on this VkDevice): the delegates on it submit nothing more, and
  /// shared() opens a new device for the next load.
  void markLost() { lost_ = true; }
  bool lost() const { return lost_; }

  /// Merges this device's pipeline cache file in `dir`
  /// (PipelineCache.cpp) into pipelineCache(), once per folder. A file that
  /// is unreadable, corrupt, or written by another device or driver is
  /// ignored, and `notice` (when set) says so; no file is no notice.
  void loadPipelineCache(const std::string &dir,
                         const std::function<void(const std::string &)> &notice);
  /// Saves pipelineCache() as this device's file in `dir` (made when
  /// missing) when it holds more than was read; a failure is a notice, not
  /// an error.
  void savePipelineCache(const std::string &dir,
                         const std::function<void(const std::string &)> &notice);

  /// A memory type among `typeBits` with all of `required`, preferring one
  /// that also has `preferred`; -1 when none has.
  int findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                     VkMemoryPropertyFlags preferred) const;

  /// A host-visible buffer that loads stream their weights and constants
  /// through to the device, a piece at a time: made by the first load that
  /// asks and kept with the device, so later loads neither allocate nor pin
  /// host memory for their weights, and no program keeps a host copy of
  /// them.
  struct UploadRing {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint8_t *mapped = nullptr;
    VkDeviceSize bytes = 0;
  };
  static constexpr VkDeviceSize kUploadRingBytes = VkDeviceSize(16) << 20;
  /// The ring, for one load at a time: `lock` holds it until released.
  Status uploadRing(std::unique_lock<std::mutex> &lock,
                    const UploadRing *&ring);

private:
  Device() = default;
  Status open(const std::string &wanted, const LoadPhaseClock::Sink &phases);

  VulkanApi api_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queueFamily_ = 0;
  VkPipelineCache pipelineCache_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  /// VK_EXT_external_memory_host's, where the device was opened with it.
  PFN_vkGetMemoryHostPointerPropertiesEXT hostPointerProperties_ = nullptr;
  PhysicalDeviceInfo info_;
  std::mutex queueMutex_;
  std::atomic<bool> lost_{false};
  /// Guards pipelineCache_'s merges and reads, and the sizes below.
  std::mutex cacheMutex_;
  /// Per cache folder: the bytes of cache data read or last written.
  std::map<std::string, size_t> cacheBytes_;
  std::mutex uploadMutex_;
  UploadRing upload_;
};

} // namespace duet::rt::vulkan

#endif // DUET_RUNTIME_BACKENDS_VULKAN_VULKANDEVICE_H
