//===- VulkanDevice.cpp - choosing and opening a Vulkan device ------------===//

#include "runtime/backends/vulkan/VulkanDevice.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

namespace duet::rt::vulkan {
namespace {

/// What to do when no device can be used.
constexpr const char *kInstallHint =
    "install a Vulkan driver for your GPU, or Mesa's CPU driver lavapipe "
    "(Debian/Ubuntu: mesa-vulkan-drivers) and point the loader at it with "
    "VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json; or compile "
    "the model without Vulkan (--backends xnnpack or portable)";

std::string versionText(uint32_t version) {
  return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(version),
                     VK_API_VERSION_MINOR(version),
                     VK_API_VERSION_PATCH(version));
}

const char *typeName(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete GPU";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated GPU";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return "virtual GPU";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "CPU";
  default:
    return "other";
  }
}

/// Lower is preferred: discrete, integrated, virtual, CPU, other.
int typeRank(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return 3;
  default:
    return 4;
  }
}

/// An instance of the newest Vulkan duet uses that the loader has (1.2, else
/// 1.1), which `apiVersion` says.
Status createInstance(const VulkanApi &api, VkInstance &instance,
                      uint32_t &apiVersion) {
  uint32_t version = VK_API_VERSION_1_1;
  if (api.vkEnumerateInstanceVersion) {
    if (api.vkEnumerateInstanceVersion(&version) == VK_SUCCESS &&
        version < VK_API_VERSION_1_1)
      return Status::error("vulkan: the Vulkan loader is version {}; duet "
                           "needs 1.1 or newer",
                           versionText(version));
  } else {
    return Status::error("vulkan: the Vulkan loader is version 1.0; duet "
                         "needs 1.1 or newer");
  }
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "duet";
  app.pEngineName = "duet";
  // Vulkan 1.2 where the loader has it: a device's 1.2 features (the
  // shaderFloat16 of --force-fp16's fp16 arithmetic, Device::open) may be
  // enabled only when the instance asks for 1.2 too.
  apiVersion =
      version >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1;
  app.apiVersion = apiVersion;
  VkInstanceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create.pApplicationInfo = &app;
  VkResult result = api.vkCreateInstance(&create, nullptr, &instance);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    return Status::error("vulkan: the loader found no Vulkan driver; {}",
                         kInstallHint);
  DUET_VK_CHECK(result, "vkCreateInstance");
  return Status::ok();
}

/// The first queue family that runs compute work, or -1.
int computeQueueFamily(const VulkanApi &api, VkPhysicalDevice device) {
  uint32_t count = 0;
  api.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  api.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  for (uint32_t i = 0; i < count; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      return static_cast<int>(i);
  return -1;
}

/// The timestampValidBits of computeQueueFamily's family.
uint32_t computeQueueTimestampBits(const VulkanApi &api,
                                   VkPhysicalDevice device) {
  uint32_t count = 0;
  api.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  api.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  int family = computeQueueFamily(api, device);
  return family < 0 ? 0 : families[family].timestampValidBits;
}

/// Whether `device` offers the device extension `name`.
bool hasExtension(const VulkanApi &api, VkPhysicalDevice device,
                  const char *name) {
  uint32_t count = 0;
  if (api.vkEnumerateDeviceExtensionProperties(device, nullptr, &count,
                                               nullptr) != VK_SUCCESS)
    return false;
  std::vector<VkExtensionProperties> extensions(count);
  if (api.vkEnumerateDeviceExtensionProperties(device, nullptr, &count,
                                               extensions.data()) != VK_SUCCESS)
    return false;
  for (uint32_t i = 0; i < count && i < extensions.size(); ++i)
    if (std::strcmp(extensions[i].extensionName, name) == 0)
      return true;
  return false;
}

PhysicalDeviceInfo describe(const VulkanApi &api, VkPhysicalDevice device,
                            uint32_t index) {
  VkPhysicalDeviceProperties properties;
  api.vkGetPhysicalDeviceProperties(device, &properties);
  PhysicalDeviceInfo info;
  info.index = index;
  info.name = properties.deviceName;
  info.type = typeName(properties.deviceType);
  info.deviceType = properties.deviceType;
  info.apiVersion = versionText(properties.apiVersion);
  info.vendorId = properties.vendorID;
  info.deviceId = properties.deviceID;
  std::copy(std::begin(properties.pipelineCacheUUID),
            std::end(properties.pipelineCacheUUID),
            info.pipelineCacheUuid.begin());
  const VkPhysicalDeviceLimits &limits = properties.limits;
  info.limits.maxImageDimension3D = limits.maxImageDimension3D;
  info.limits.maxStorageBufferRange = limits.maxStorageBufferRange;
  info.limits.maxComputeWorkGroupInvocations =
      limits.maxComputeWorkGroupInvocations;
  info.limits.maxComputeSharedMemorySize = limits.maxComputeSharedMemorySize;
  for (int axis = 0; axis < 3; ++axis)
    info.limits.maxComputeWorkGroupCount[axis] =
        limits.maxComputeWorkGroupCount[axis];
  info.limits.maxUniformBufferRange = limits.maxUniformBufferRange;
  info.limits.minUniformBufferOffsetAlignment =
      limits.minUniformBufferOffsetAlignment;
  info.limits.bufferImageGranularity = limits.bufferImageGranularity;

  if (properties.apiVersion >= VK_API_VERSION_1_1) {
    VkPhysicalDevice16BitStorageFeatures storage16{};
    storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    VkPhysicalDeviceShaderFloat16Int8Features float16{};
    float16.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    // shaderFloat16 is core from Vulkan 1.2 only.
    if (properties.apiVersion >= VK_API_VERSION_1_2)
      storage16.pNext = &float16;
    VkPhysicalDeviceFeatures2 features{};
    features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features.pNext = &storage16;
    api.vkGetPhysicalDeviceFeatures2(device, &features);
    info.storageBuffer16BitAccess = storage16.storageBuffer16BitAccess;
    info.shaderFloat16 = float16.shaderFloat16;
  }

  if (properties.apiVersion >= VK_API_VERSION_1_1 &&
      hasExtension(api, device, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME)) {
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{};
    host.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
    VkPhysicalDeviceProperties2 properties2{};
    properties2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties2.pNext = &host;
    api.vkGetPhysicalDeviceProperties2(device, &properties2);
    // Buffers of host memory the driver imports, several to an import.
    VkPhysicalDeviceExternalBufferInfo buffer{};
    buffer.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO;
    buffer.usage = kHostImportUsage;
    buffer.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkExternalBufferProperties external{};
    external.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES;
    api.vkGetPhysicalDeviceExternalBufferProperties(device, &buffer, &external);
    VkExternalMemoryFeatureFlags features =
        external.externalMemoryProperties.externalMemoryFeatures;
    if ((features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) &&
        !(features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT))
      info.hostImportAlignment = host.minImportedHostPointerAlignment;
  }

  if (properties.apiVersion < VK_API_VERSION_1_1)
    info.unsuitable =
        "supports Vulkan " + info.apiVersion + "; duet needs 1.1 or newer";
  else if (computeQueueFamily(api, device) < 0)
    info.unsuitable = "has no queue that runs compute work";
  else
    info.timestampValidBits = computeQueueTimestampBits(api, device);
  info.timestampPeriod = limits.timestampPeriod;
  return info;
}

Status physicalDevices(const VulkanApi &api, VkInstance instance,
                       std::vector<VkPhysicalDevice> &devices) {
  uint32_t count = 0;
  DUET_VK_CHECK(api.vkEnumeratePhysicalDevices(instance, &count, nullptr),
                "vkEnumeratePhysicalDevices");
  devices.resize(count);
  DUET_VK_CHECK(
      api.vkEnumeratePhysicalDevices(instance, &count, devices.data()),
      "vkEnumeratePhysicalDevices");
  devices.resize(count);
  if (devices.empty())
    return Status::error("vulkan: no Vulkan device found; {}", kInstallHint);
  return Status::ok();
}

std::string lower(std::string text) {
  for (char &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

} // namespace

Status listDevices(std::vector<PhysicalDeviceInfo> &devices) {
  // One instance lists the devices for the whole process and is never
  // destroyed, as the devices' own instances are not (docs/vulkan.md):
  // destroying it would unload the driver, some drivers refuse new
  // instances after repeated create/destroy, and what the driver keeps
  // would be reported as leaked by a module no longer loaded.
  struct Listing {
    VulkanApi api;
    VkInstance instance = VK_NULL_HANDLE;
    Status status;
  };
  static const Listing *listing = [] {
    auto *made = new Listing;
    const VulkanApi *loader = nullptr;
    made->status = loadVulkanApi(loader);
    if (!made->status.isOk())
      return made;
    made->api = *loader;
    uint32_t version = 0;
    made->status = createInstance(made->api, made->instance, version);
    if (made->status.isOk())
      made->status = made->api.loadInstanceFunctions(made->instance);
    return made;
  }();
  DUET_RETURN_IF_ERROR(listing->status);
  std::vector<VkPhysicalDevice> handles;
  DUET_RETURN_IF_ERROR(physicalDevices(listing->api, listing->instance, handles));
  for (uint32_t i = 0; i < handles.size(); ++i)
    devices.push_back(describe(listing->api, handles[i], i));
  return Status::ok();
}

Status selectDevice(const std::vector<PhysicalDeviceInfo> &devices,
                    const std::string &wanted, uint32_t &chosen) {
  if (!wanted.empty()) {
    bool isIndex = std::all_of(wanted.begin(), wanted.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    for (const PhysicalDeviceInfo &info : devices) {
      if (isIndex ? std::to_string(info.index) != wanted
                  : lower(info.name).find(lower(wanted)) == std::string::npos)
        continue;
      if (!info.unsuitable.empty())
        return Status::error("vulkan: device {} ({}) {}", info.index, info.name,
                             info.unsuitable);
      chosen = info.index;
      return Status::ok();
    }
    std::string names;
    for (const PhysicalDeviceInfo &info : devices)
      names += fmt::format("{}{}: {}", names.empty() ? "" : ", ", info.index,
                           info.name);
    return Status::error("vulkan: '{}' names no device; the devices are {} "
                         "(choose one with {}=<index or part of its name>)",
                         wanted, names, kVulkanDeviceVariable);
  }
  int best = -1;
  for (const PhysicalDeviceInfo &info : devices)
    if (info.unsuitable.empty() &&
        (best < 0 ||
         typeRank(info.deviceType) < typeRank(devices[best].deviceType)))
      best = static_cast<int>(info.index);
  if (best < 0) {
    std::string why;
    for (const PhysicalDeviceInfo &info : devices)
      why += fmt::format("; {} {}", info.name, info.unsuitable);
    return Status::error("vulkan: no usable Vulkan device{}; {}", why,
                         kInstallHint);
  }
  chosen = static_cast<uint32_t>(best);
  return Status::ok();
}

Status Device::shared(const std::string &wanted,
                      std::shared_ptr<Device> &device,
                      const LoadPhaseClock::Sink &phases) {
  // Never destroyed (see the declaration).
  static std::mutex mutex;
  static auto *kept = new std::map<std::string, std::shared_ptr<Device>>();
  // Failed opens and lost devices, kept too: destroying an instance would
  // unload the driver, whose kept allocations would then show as leaks of
  // an unknown module (LeakSanitizer), and some drivers refuse new
  // instances after create/destroy cycles. Each costs one instance.
  static auto *retired = new std::vector<std::shared_ptr<Device>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Device> &slot = (*kept)[wanted];
  if (slot && slot->lost())
    retired->push_back(std::move(slot));
  if (!slot) {
    std::shared_ptr<Device> opened(new Device());
    Status status = opened->open(wanted, phases);
    if (!status.isOk()) {
      retired->push_back(std::move(opened));
      return status;
    }
    slot = std::move(opened);
  }
  device = slot;
  return Status::ok();
}

Status Device::open(const std::string &wanted,
                    const LoadPhaseClock::Sink &phases) {
  LoadPhaseClock clock(phases);
  const VulkanApi *loader = nullptr;
  DUET_RETURN_IF_ERROR(loadVulkanApi(loader));
  api_ = *loader;
  clock.mark("the Vulkan loader opened (libvulkan.so.1)");
  uint32_t instanceVersion = VK_API_VERSION_1_1;
  DUET_RETURN_IF_ERROR(createInstance(api_, instance_, instanceVersion));
  DUET_RETURN_IF_ERROR(api_.loadInstanceFunctions(instance_));
  clock.mark("instance created (the drivers loaded)");
  std::vector<VkPhysicalDevice> handles;
  DUET_RETURN_IF_ERROR(physicalDevices(api_, instance_, handles));
  std::vector<PhysicalDeviceInfo> infos;
  for (uint32_t i = 0; i < handles.size(); ++i)
    infos.push_back(describe(api_, handles[i], i));
  clock.mark(fmt::format("physical devices enumerated and described ({})",
                         handles.size()));

  uint32_t chosen = 0;
  Status selected = selectDevice(infos, wanted, chosen);
  if (!selected.isOk())
    return wanted.empty() ? selected
                          : selected.withContext(fmt::format(
                                "{}={}", kVulkanDeviceVariable, wanted));

  physical_ = handles[chosen];
  info_ = infos[chosen];
  api_.vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

  queueFamily_ = static_cast<uint32_t>(computeQueueFamily(api_, physical_));
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{};
  queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queueInfo.queueFamilyIndex = queueFamily_;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{};
  deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  // fp16 arithmetic for --force-fp16 programs (shaders built with
  // -DFP16_MATH), where the device has it; describe() reads it on Vulkan
  // 1.2 and newer only, where the feature struct is core, and the instance
  // asks for 1.2 whenever the loader has it (createInstance). Behind a 1.1
  // loader the device is used as a 1.1 one, without it (a --force-fp16
  // program then computes in fp32, with the delegate's notice).
  if (instanceVersion < VK_API_VERSION_1_2)
    info_.shaderFloat16 = false;
  VkPhysicalDeviceShaderFloat16Int8Features float16{};
  float16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  if (info_.shaderFloat16) {
    float16.shaderFloat16 = VK_TRUE;
    deviceInfo.pNext = &float16;
  }
  // Host memory imported, where the device can (VulkanDelegate reads its
  // inputs and writes its outputs in the model's memory).
  const char *hostImport = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
  if (info_.hostImportAlignment != 0) {
    deviceInfo.enabledExtensionCount = 1;
    deviceInfo.ppEnabledExtensionNames = &hostImport;
  }
  DUET_VK_CHECK(api_.vkCreateDevice(physical_, &deviceInfo, nullptr, &device_),
                "vkCreateDevice on " + info_.name);
  DUET_RETURN_IF_ERROR(api_.loadDeviceFunctions(device_));
  if (info_.hostImportAlignment != 0)
    hostPointerProperties_ =
        reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
            api_.vkGetDeviceProcAddr(device_,
                                     "vkGetMemoryHostPointerPropertiesEXT"));
  if (!hostPointerProperties_)
    info_.hostImportAlignment = 0;
  api_.vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);
  clock.mark(fmt::format("device created ({})", info_.name));

  VkPipelineCacheCreateInfo cacheInfo{};
  cacheInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  DUET_VK_CHECK(
      api_.vkCreatePipelineCache(device_, &cacheInfo, nullptr, &pipelineCache_),
      "vkCreatePipelineCache");
  return Status::ok();
}

Device::~Device() {
  if (device_) {
    if (upload_.buffer)
      api_.vkDestroyBuffer(device_, upload_.buffer, nullptr);
    if (upload_.memory)
      api_.vkFreeMemory(device_, upload_.memory, nullptr);
    if (pipelineCache_)
      api_.vkDestroyPipelineCache(device_, pipelineCache_, nullptr);
    api_.vkDestroyDevice(device_, nullptr);
  }
  if (instance_ && api_.vkDestroyInstance)
    api_.vkDestroyInstance(instance_, nullptr);
}

Status Device::uploadRing(std::unique_lock<std::mutex> &lock,
                          const UploadRing *&ring) {
  lock = std::unique_lock<std::mutex>(uploadMutex_);
  ring = &upload_;
  if (upload_.mapped)
    return Status::ok();
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = kUploadRingBytes;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  UploadRing made;
  made.bytes = info.size;
  auto fail = [&](const std::string &why) {
    if (made.buffer)
      api_.vkDestroyBuffer(device_, made.buffer, nullptr);
    if (made.memory)
      api_.vkFreeMemory(device_, made.memory, nullptr);
    return Status::error("vulkan: cannot make the {} MiB upload buffer of "
                         "device '{}': {}",
                         kUploadRingBytes >> 20, info_.name, why);
  };
  auto failed = [&](const char *call, VkResult result) {
    return fail(fmt::format("{} failed: {}", call, resultName(result)));
  };
  VkResult result = api_.vkCreateBuffer(device_, &info, nullptr, &made.buffer);
  if (result != VK_SUCCESS)
    return failed("vkCreateBuffer", result);
  VkMemoryRequirements requirements;
  api_.vkGetBufferMemoryRequirements(device_, made.buffer, &requirements);
  int type = findMemoryType(requirements.memoryTypeBits,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                            0);
  if (type < 0)
    return fail("it has no host-visible coherent memory type");
  VkMemoryAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = static_cast<uint32_t>(type);
  result = api_.vkAllocateMemory(device_, &allocate, nullptr, &made.memory);
  if (result != VK_SUCCESS)
    return failed("vkAllocateMemory", result);
  result = api_.vkBindBufferMemory(device_, made.buffer, made.memory, 0);
  if (result != VK_SUCCESS)
    return failed("vkBindBufferMemory", result);
  void *mapped = nullptr;
  result = api_.vkMapMemory(device_, made.memory, 0, VK_WHOLE_SIZE, 0, &mapped);
  if (result != VK_SUCCESS)
    return failed("vkMapMemory", result);
  made.mapped = static_cast<uint8_t *>(mapped);
  upload_ = made;
  return Status::ok();
}

DeviceLimits
Device::checkedLimits(const runtime::VulkanOptions &options) const {
  DeviceLimits limits = info_.limits;
  if (options.testMaxImageDimension3D)
    limits.maxImageDimension3D =
        std::min(limits.maxImageDimension3D, options.testMaxImageDimension3D);
  if (options.testMaxStorageBufferRange)
    limits.maxStorageBufferRange = std::min(limits.maxStorageBufferRange,
                                            options.testMaxStorageBufferRange);
  return limits;
}

uint32_t Device::hostMemoryTypes(void *pointer) const {
  if (!hostPointerProperties_)
    return 0;
  VkMemoryHostPointerPropertiesEXT properties{};
  properties.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
  if (hostPointerProperties_(
          device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
          pointer, &properties) != VK_SUCCESS)
    return 0;
  return properties.memoryTypeBits;
}

int Device::findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                           VkMemoryPropertyFlags preferred) const {
  int fallback = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i)))
      continue;
    VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if ((flags & required) != required)
      continue;
    if ((flags & preferred) == preferred)
      return static_cast<int>(i);
    if (fallback < 0)
      fallback = static_cast<int>(i);
  }
  return fallback;
}

} // namespace duet::rt::vulkan
