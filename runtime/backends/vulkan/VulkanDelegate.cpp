//===- VulkanDelegate.cpp - a Vulkan partition ready to run ---------------===//

#include "runtime/backends/vulkan/VulkanDelegate.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <fmt/ranges.h>

namespace duet::rt::vulkan {
namespace {

/// The largest finite fp16 value.
constexpr float kFp16Max = 65504.0f;

VkDeviceSize alignTo(VkDeviceSize value, VkDeviceSize alignment) {
  return alignment > 1 ? (value + alignment - 1) / alignment * alignment
                       : value;
}

/// Writes elements [first, first + n) of `view` as fp32 into `out`.
void toFloats(const TensorView &view, int64_t first, int64_t n, float *out) {
  switch (view.dtype) {
  case DType::f32:
    std::memcpy(out, view.as<const float>() + first,
                static_cast<size_t>(n) * sizeof(float));
    return;
  case DType::f16:
    for (int64_t i = 0; i < n; ++i)
      out[i] = halfToFloat(view.as<const uint16_t>()[first + i]);
    return;
  case DType::bf16:
    for (int64_t i = 0; i < n; ++i)
      out[i] = bf16ToFloat(view.as<const uint16_t>()[first + i]);
    return;
  case DType::f64:
    for (int64_t i = 0; i < n; ++i)
      out[i] = static_cast<float>(view.as<const double>()[first + i]);
    return;
  default:
    return;
  }
}

/// Writes elements [first, first + n) of weight `view` as the 4-byte words
/// its shader reads: fp32, or int32 for an integer index (whose values the
/// plan checked to be small).
void toWeightWords(const TensorView &view, int64_t first, int64_t n,
                   void *out) {
  auto *words = static_cast<int32_t *>(out);
  switch (view.dtype) {
  case DType::i64:
    for (int64_t i = 0; i < n; ++i)
      words[i] = static_cast<int32_t>(view.as<const int64_t>()[first + i]);
    return;
  case DType::i32:
    std::memcpy(out, view.as<const int32_t>() + first,
                static_cast<size_t>(n) * sizeof(int32_t));
    return;
  default:
    toFloats(view, first, n, static_cast<float *>(out));
  }
}

/// Writes fp32 `in` into `view` in its dtype (f32 or f16).
void fromFloats(const float *in, const TensorView &view) {
  int64_t n = view.numel();
  if (view.dtype == DType::f16) {
    for (int64_t i = 0; i < n; ++i)
      view.as<uint16_t>()[i] = floatToHalf(in[i]);
    return;
  }
  std::memcpy(view.data, in, static_cast<size_t>(n) * sizeof(float));
}

void memoryBarrier(const VulkanApi &vk, VkCommandBuffer commands,
                   VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = srcAccess;
  barrier.dstAccessMask = dstAccess;
  vk.vkCmdPipelineBarrier(commands, srcStage, dstStage, 0, 1, &barrier, 0,
                          nullptr, 0, nullptr);
}

/// Calls `read` with each input and weight of `dispatch` (those of kind
/// none too), then `write` with its output.
template <typename Read, typename Write>
void visitRefs(const Dispatch &dispatch, Read &&read, Write &&write) {
  for (const Ref &ref : dispatch.inputs)
    read(ref);
  for (const Ref &ref : dispatch.weights)
    read(ref);
  write(dispatch.output);
}

/// The barrier that moves `image` from UNDEFINED (its contents dropped) to
/// the GENERAL layout storage images keep, after writes of `written`.
VkImageMemoryBarrier toGeneral(VkImage image, VkAccessFlags written) {
  VkImageMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
  barrier.srcAccessMask = written;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  barrier.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  return barrier;
}

/// " (as the test hook VARIABLE says)" when a test hook stands for the
/// device's lack, for the message that reports it.
std::string hookNote(bool hooked, const char *variable) {
  return hooked ? fmt::format(" (as the test hook {} says)", variable) : "";
}

/// The descriptor type of a dispatch's output and of its tensor inputs: a
/// storage buffer in buffers; in images a storage image, or for inputs read
/// by the sampled builds (`sampled`, tensor.glsl's inputTexel) a combined
/// image sampler.
VkDescriptorType outputDescriptor(bool inBuffer) {
  return inBuffer ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                  : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
}
VkDescriptorType inputDescriptor(bool inBuffers, bool sampled) {
  return inBuffers ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
         : sampled ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                   : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
}

} // namespace

Status VulkanDelegate::create(std::shared_ptr<Device> device,
                              const Program &program, uint32_t index,
                              ByteSpan blob, const DelegateIo &io,
                              std::unique_ptr<VulkanDelegate> &delegate) {
  std::unique_ptr<VulkanDelegate> created(
      new VulkanDelegate(std::move(device), program, index));
  DUET_RETURN_IF_ERROR(created->load(blob, io));
  delegate = std::move(created);
  return Status::ok();
}

VulkanDelegate::~VulkanDelegate() {
  const VulkanApi &vk = device_->api();
  VkDevice device = device_->handle();
  if (fence_)
    vk.vkDestroyFence(device, fence_, nullptr);
  if (timestamps_)
    vk.vkDestroyQueryPool(device, timestamps_, nullptr);
  if (commandPool_)
    vk.vkDestroyCommandPool(device, commandPool_, nullptr);
  if (descriptorPool_)
    vk.vkDestroyDescriptorPool(device, descriptorPool_, nullptr);
  for (auto &[key, pipeline] : pipelines_)
    vk.vkDestroyPipeline(device, pipeline, nullptr);
  for (auto &[key, layouts] : layouts_) {
    if (layouts.pipeline)
      vk.vkDestroyPipelineLayout(device, layouts.pipeline, nullptr);
    if (layouts.set)
      vk.vkDestroyDescriptorSetLayout(device, layouts.set, nullptr);
    if (layouts.module)
      vk.vkDestroyShaderModule(device, layouts.module, nullptr);
  }
  // After the set layouts that hold it.
  if (sampler_)
    vk.vkDestroySampler(device, sampler_, nullptr);
  auto destroy = [&](Resource &resource) {
    if (resource.view)
      vk.vkDestroyImageView(device, resource.view, nullptr);
    if (resource.image)
      vk.vkDestroyImage(device, resource.image, nullptr);
    if (resource.buffer)
      vk.vkDestroyBuffer(device, resource.buffer, nullptr);
  };
  for (std::vector<Resource> *list :
       {&tensors_, &weights_, &staging_, &stagingOnDevice_})
    for (Resource &resource : *list)
      destroy(resource);
  destroy(dummy_);
  destroy(params_);
  for (Arena &arena : arenas_)
    vk.vkFreeMemory(device, arena.memory, nullptr);
  for (VkDeviceMemory memory : imported_)
    vk.vkFreeMemory(device, memory, nullptr);
}

VkDeviceSize VulkanDelegate::stagingBytes(size_t i) const {
  return static_cast<VkDeviceSize>(
             plan_.tensors[plan_.staging[i].tensor].numel) *
         sizeof(float);
}

Status VulkanDelegate::importHostIo(const DelegateIo &io) {
  const VulkanApi &vk = device_->api();
  VkDevice device = device_->handle();
  const uint64_t alignment = device_->info().hostImportAlignment;
  inPlace_.assign(plan_.staging.size(), false);
  if (alignment == 0 || program_.options().vulkan.noHostImport || !io.base ||
      io.extent == 0)
    return Status::ok();
  // Each input and output the model's memory holds in fp32, the size the
  // plan stages: a buffer for it, and the whole pages around the memory the
  // buffer needs, inside the extent.
  const size_t firstOutput = plan_.staging.size() - plan_.outputs.size();
  struct Slot {
    size_t staging;
    Resource buffer;
    uintptr_t begin, end;
    VkMemoryRequirements requirements;
  };
  std::vector<Slot> slots;
  const uintptr_t base = reinterpret_cast<uintptr_t>(io.base);
  for (size_t i = 0; i < plan_.staging.size(); ++i) {
    const TensorView *view = nullptr;
    if (plan_.staging[i].use == StagingBuffer::Use::input &&
        i < io.inputs.size())
      view = &io.inputs[i];
    else if (plan_.staging[i].use == StagingBuffer::Use::output &&
             i >= firstOutput && i - firstOutput < io.outputs.size())
      view = &io.outputs[i - firstOutput];
    const PlannedTensor &tensor = plan_.tensors[plan_.staging[i].tensor];
    if (!view || !view->data || view->dtype != DType::f32 ||
        view->numel() != tensor.numel || tensor.numel <= 0)
      continue;
    uintptr_t data = reinterpret_cast<uintptr_t>(view->data);
    if (data < base || data - base >= io.extent)
      continue;
    VkExternalMemoryBufferCreateInfo external{};
    external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
    external.handleTypes =
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.pNext = &external;
    info.size = stagingBytes(i);
    info.usage = kHostImportUsage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    Slot slot{i, {}, 0, 0, {}};
    slot.buffer.bytes = info.size;
    slot.buffer.mapped = static_cast<uint8_t *>(view->data);
    if (vk.vkCreateBuffer(device, &info, nullptr, &slot.buffer.buffer) !=
        VK_SUCCESS)
      continue;
    vk.vkGetBufferMemoryRequirements(device, slot.buffer.buffer,
                                     &slot.requirements);
    slot.begin = data / alignment * alignment;
    slot.end = alignTo(data + slot.requirements.size, alignment);
    if (slot.requirements.alignment == 0 ||
        (data - slot.begin) % slot.requirements.alignment != 0 ||
        slot.begin < base || slot.end > base + io.extent) {
      vk.vkDestroyBuffer(device, slot.buffer.buffer, nullptr);
      continue;
    }
    slots.push_back(slot);
  }
  std::sort(slots.begin(), slots.end(),
            [](const Slot &a, const Slot &b) { return a.begin < b.begin; });
  // Overlapping ranges (two views on one page) make one import; a range the
  // driver refuses keeps load()'s staging buffers, with the copies on the
  // host.
  for (size_t first = 0; first < slots.size();) {
    size_t last = first + 1;
    uintptr_t end = slots[first].end;
    while (last < slots.size() && slots[last].begin < end)
      end = std::max(end, slots[last++].end);
    const uintptr_t begin = slots[first].begin;
    uint32_t types = device_->hostMemoryTypes(reinterpret_cast<void *>(begin));
    for (size_t k = first; k < last; ++k)
      types &= slots[k].requirements.memoryTypeBits;
    // The lowest type that can hold it and that the host sees coherently.
    int type = device_->findMemoryType(types,
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                       0);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    bool imported = false;
    if (type >= 0) {
      VkImportMemoryHostPointerInfoEXT import{};
      import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
      import.handleType =
          VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
      import.pHostPointer = reinterpret_cast<void *>(begin);
      VkMemoryAllocateInfo info{};
      info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
      info.pNext = &import;
      info.allocationSize = end - begin;
      info.memoryTypeIndex = static_cast<uint32_t>(type);
      imported =
          vk.vkAllocateMemory(device, &info, nullptr, &memory) == VK_SUCCESS;
    }
    for (size_t k = first; k < last && imported; ++k) {
      Resource &buffer = slots[k].buffer;
      buffer.offset = reinterpret_cast<uintptr_t>(buffer.mapped) - begin;
      imported = vk.vkBindBufferMemory(device, buffer.buffer, memory,
                                       buffer.offset) == VK_SUCCESS;
    }
    if (imported)
      imported_.push_back(memory);
    else if (memory)
      vk.vkFreeMemory(device, memory, nullptr);
    for (size_t k = first; k < last; ++k) {
      Resource &buffer = slots[k].buffer;
      if (!imported) {
        vk.vkDestroyBuffer(device, buffer.buffer, nullptr);
        continue;
      }
      buffer.memory = memory;
      buffer.extent = slots[k].requirements.size;
      staging_[slots[k].staging] = buffer;
      inPlace_[slots[k].staging] = true;
    }
    first = last;
  }
  return Status::ok();
}

Status VulkanDelegate::createBuffer(VkDeviceSize bytes,
                                    VkBufferUsageFlags usage,
                                    Resource &resource) {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = alignTo(std::max<VkDeviceSize>(bytes, 16), 16);
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  resource.bytes = info.size;
  DUET_VK_CHECK(device_->api().vkCreateBuffer(device_->handle(), &info, nullptr,
                                              &resource.buffer),
                "vkCreateBuffer");
  return Status::ok();
}

Status VulkanDelegate::createImage(const PlannedTensor &tensor,
                                   Resource &resource) {
  VkImageCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  info.imageType = VK_IMAGE_TYPE_3D;
  info.format = textureFormat();
  info.extent = {tensor.extents[0], tensor.extents[1], tensor.extents[2]};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  // Written as a storage image; read as one too, or as a sampled image.
  info.usage = VK_IMAGE_USAGE_STORAGE_BIT |
               (sampledInputs_ ? VK_IMAGE_USAGE_SAMPLED_BIT : 0);
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  DUET_VK_CHECK(device_->api().vkCreateImage(device_->handle(), &info, nullptr,
                                             &resource.image),
                fmt::format("vkCreateImage ({}x{}x{} RGBA32F for {})",
                            tensor.extents[0], tensor.extents[1],
                            tensor.extents[2],
                            program_.describeTensor(tensor.programId)));
  return Status::ok();
}

Status VulkanDelegate::bindArena(
    const std::vector<Resource *> &resources, VkMemoryPropertyFlags required,
    VkMemoryPropertyFlags preferred, const char *what,
    const std::vector<std::pair<size_t, size_t>> &lifetimes,
    ArenaBytes *bytes) {
  const VulkanApi &vk = device_->api();
  VkDevice device = device_->handle();
  VkDeviceSize granularity = device_->limits().bufferImageGranularity;
  struct Item {
    Resource *resource;
    std::pair<size_t, size_t> lifetime;
    VkMemoryRequirements requirements;
    VkDeviceSize offset = 0;
  };
  // Resources grouped by the memory type they go to; usually one.
  std::map<int, std::vector<Item>> groups;
  for (size_t i = 0; i < resources.size(); ++i) {
    Item item{resources[i],
              lifetimes.empty() ? std::pair<size_t, size_t>{0, SIZE_MAX}
                                : lifetimes[i],
              {}};
    if (item.resource->image)
      vk.vkGetImageMemoryRequirements(device, item.resource->image,
                                      &item.requirements);
    else
      vk.vkGetBufferMemoryRequirements(device, item.resource->buffer,
                                       &item.requirements);
    int type = device_->findMemoryType(item.requirements.memoryTypeBits,
                                       required, preferred);
    if (type < 0)
      return Status::error("vulkan: device '{}' has no memory type for the "
                           "{}",
                           device_->info().name, what);
    groups[type].push_back(item);
  }
  auto overlap = [](VkDeviceSize a, VkDeviceSize aSize, VkDeviceSize b,
                    VkDeviceSize bSize) { return a < b + bSize && b < a + aSize; };
  for (auto &[type, items] : groups) {
    // Largest first, each at the lowest offset where it overlaps no placed
    // resource alive at the same time (greedy by size); without lifetimes
    // all are alive together and lie one after the other.
    std::stable_sort(items.begin(), items.end(),
                     [](const Item &a, const Item &b) {
                       return a.requirements.size > b.requirements.size;
                     });
    VkDeviceSize size = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      Item &item = items[i];
      VkDeviceSize alignment =
          std::max(item.requirements.alignment, granularity);
      std::vector<const Item *> alive;
      for (size_t k = 0; k < i; ++k)
        if (items[k].lifetime.first <= item.lifetime.second &&
            item.lifetime.first <= items[k].lifetime.second)
          alive.push_back(&items[k]);
      std::sort(alive.begin(), alive.end(), [](const Item *a, const Item *b) {
        return a->offset < b->offset;
      });
      VkDeviceSize offset = 0;
      for (const Item *other : alive) {
        if (offset + item.requirements.size <= other->offset)
          break;
        offset = std::max(
            offset,
            alignTo(other->offset + other->requirements.size, alignment));
      }
      item.offset = offset;
      size = std::max(size, offset + item.requirements.size);
      if (bytes)
        bytes->apart += alignTo(item.requirements.size, alignment);
    }
    if (bytes)
      bytes->shared += size;
    VkMemoryAllocateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    info.allocationSize = std::max<VkDeviceSize>(size, 16);
    info.memoryTypeIndex = static_cast<uint32_t>(type);
    Arena arena;
    std::string note;
    VkResult allocated = faultable(runtime::BackendCall::vulkanAllocate,
                                   VK_ERROR_OUT_OF_DEVICE_MEMORY, note, [&] {
                                     return vk.vkAllocateMemory(
                                         device, &info, nullptr, &arena.memory);
                                   });
    if (allocated != VK_SUCCESS)
      return callFailed(
          fmt::format("vkAllocateMemory of {} bytes for the {} of delegate {}",
                      info.allocationSize, what, index_),
          allocated, note);
    arenas_.push_back(arena);
    Arena &kept = arenas_.back();
    if (required & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
      DUET_VK_CHECK(vk.vkMapMemory(device, kept.memory, 0, VK_WHOLE_SIZE, 0,
                                   &kept.mapped),
                    fmt::format("mapping the {}", what));
    for (const Item &item : items) {
      Resource &resource = *item.resource;
      resource.memory = kept.memory;
      resource.offset = item.offset;
      resource.extent = item.requirements.size;
      if (kept.mapped)
        resource.mapped = static_cast<uint8_t *>(kept.mapped) + item.offset;
      if (!resource.image) {
        DUET_VK_CHECK(vk.vkBindBufferMemory(device, resource.buffer,
                                            kept.memory, item.offset),
                      "vkBindBufferMemory");
        continue;
      }
      DUET_VK_CHECK(vk.vkBindImageMemory(device, resource.image, kept.memory,
                                         item.offset),
                    "vkBindImageMemory");
      bool aliased = false;
      for (const Item &other : items)
        aliased = aliased ||
                  (&other != &item &&
                   overlap(item.offset, item.requirements.size, other.offset,
                           other.requirements.size));
      if (aliased)
        freshImages_[item.lifetime.first].push_back(resource.image);
    }
  }
  return Status::ok();
}

VulkanDelegate::Resource &VulkanDelegate::resourceOf(Ref ref) {
  switch (ref.kind) {
  case Ref::Kind::tensor:
    return tensors_[ref.index];
  case Ref::Kind::weight:
    return weights_[ref.index];
  case Ref::Kind::staging:
    if (stagingOnDevice_[ref.index].buffer)
      return stagingOnDevice_[ref.index];
    return staging_[ref.index];
  default:
    return dummy_;
  }
}

Status VulkanDelegate::load(ByteSpan blob, const DelegateIo &io) {
  const runtime::VulkanOptions &options = program_.options().vulkan;
  LoadPhaseClock clock(program_.options().profile.loadPhase);
  auto phase = [&](const std::string &what) {
    clock.mark(fmt::format("delegate {} on vulkan: {}", index_, what));
  };
  DUET_RETURN_IF_ERROR(
      buildDispatchPlan(program_, index_, blob, device_->info(),
                        device_->checkedLimits(options), plan_));
  phase(fmt::format("plan ({} dispatches, {} at load)",
                    plan_.runDispatches.size(), plan_.loadDispatches.size()));
  const VulkanApi &vk = device_->api();
  VkDevice device = device_->handle();
  // Image inputs through the texture path (texelFetch) on a GPU, as storage
  // images (imageLoad) on a CPU device, where lavapipe runs texelFetch at
  // half the speed (tensor.glsl).
  sampledInputs_ = device_->info().deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU ||
                   options.testSampledInputs;
  if (plan_.fp16Images) {
    // The test hook stands for a device without the format.
    bool hooked = options.testNoFp16Images;
    if (hooked || !device_->supportsTensorImages(textureFormat()))
      return Status::error(
          "vulkan delegate {}: the program was compiled with --force-fp16, "
          "but device '{}' cannot use VK_FORMAT_R16G16B16A16_SFLOAT as a "
          "storage and sampled image{}; recompile without --force-fp16 or "
          "pick another device with {}",
          index_, device_->info().name,
          hookNote(hooked, kVulkanTestNoFp16ImagesVariable),
          kVulkanDeviceVariable);
    // Its convolutions and products compute in fp16 where the device can;
    // elsewhere in fp32, which the notice says.
    bool hookedMath = options.testNoFp16Math;
    fp16Math_ = device_->info().shaderFloat16 && !hookedMath;
    bool computes = false;
    for (const Dispatch &dispatch : plan_.runDispatches)
      computes = computes || hasFp16Math(dispatch.family);
    if (!fp16Math_ && computes && options.notice)
      options.notice(fmt::format(
          "vulkan delegate {}: device '{}' has no shaderFloat16{}, so its "
          "convolutions and products compute in fp32 on the --force-fp16 "
          "program's fp16 images",
          index_, device_->info().name,
          hookNote(hookedMath, kVulkanTestNoFp16MathVariable)));
  }

  // The device arena: tensors, weights and the stand-in for absent weights.
  constexpr VkBufferUsageFlags kDeviceBuffer =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
      VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  // A tensor only run dispatches use, from the first that does to the last,
  // shares memory with those whose lifetimes do not overlap its own; the
  // constants, and anything a load dispatch uses, keep theirs.
  constexpr size_t kUnused = SIZE_MAX;
  std::vector<std::pair<size_t, size_t>> lifetime(plan_.tensors.size(),
                                                  {kUnused, 0});
  std::vector<bool> ownMemory(plan_.tensors.size(), false);
  auto own = [&](const Ref &ref) {
    if (ref.kind == Ref::Kind::tensor)
      ownMemory[ref.index] = true;
  };
  for (const Dispatch &dispatch : plan_.loadDispatches)
    visitRefs(dispatch, own, own);
  for (size_t d = 0; d < plan_.runDispatches.size(); ++d) {
    auto use = [&](const Ref &ref) {
      if (ref.kind != Ref::Kind::tensor)
        return;
      auto &[first, last] = lifetime[ref.index];
      first = std::min(first, d);
      last = std::max(last, d);
    };
    visitRefs(plan_.runDispatches[d], use, use);
  }
  std::vector<Resource *> onDevice, shared;
  std::vector<std::pair<size_t, size_t>> sharedLifetimes;
  tensors_.resize(plan_.tensors.size());
  for (size_t i = 0; i < plan_.tensors.size(); ++i) {
    const PlannedTensor &tensor = plan_.tensors[i];
    // A computed tensor no dispatch touches (a product's result that the
    // epilogue after it consumed in its dispatch) gets nothing.
    if (tensor.role == PlannedTensor::Role::computed && !ownMemory[i] &&
        lifetime[i].first == kUnused)
      continue;
    if (tensor.texture)
      DUET_RETURN_IF_ERROR(createImage(tensor, tensors_[i]));
    else
      DUET_RETURN_IF_ERROR(createBuffer(
          static_cast<VkDeviceSize>(tensor.numel) * sizeof(float),
          kDeviceBuffer, tensors_[i]));
    if (tensor.role != PlannedTensor::Role::constant && !ownMemory[i] &&
        lifetime[i].first != kUnused) {
      shared.push_back(&tensors_[i]);
      sharedLifetimes.push_back(lifetime[i]);
    } else {
      onDevice.push_back(&tensors_[i]);
    }
  }
  weights_.resize(plan_.weights.size());
  for (size_t i = 0; i < plan_.weights.size(); ++i) {
    DUET_RETURN_IF_ERROR(
        createBuffer(static_cast<VkDeviceSize>(
                         program_.constantView(plan_.weights[i]).numel()) *
                         sizeof(float),
                     kDeviceBuffer, weights_[i]));
    onDevice.push_back(&weights_[i]);
  }
  DUET_RETURN_IF_ERROR(createBuffer(16, kDeviceBuffer, dummy_));
  onDevice.push_back(&dummy_);
  // Parameter blocks live on the device too, uploaded with the weights: a
  // dispatch reads its block before anything else, and a block in host
  // memory made each of them wait for a read across the bus.
  size_t dispatches = plan_.loadDispatches.size() + plan_.runDispatches.size();
  paramsStride_ = alignTo(sizeof(ParamsBlock),
                          device_->limits().minUniformBufferOffsetAlignment);
  DUET_RETURN_IF_ERROR(createBuffer(paramsStride_ * dispatches,
                                    VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    params_));
  onDevice.push_back(&params_);
  bool stageOnDevice =
      device_->info().deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
      options.testDeviceStaging;
  stagingOnDevice_.resize(plan_.staging.size());
  for (size_t i = 0; i < plan_.staging.size() && stageOnDevice; ++i) {
    if (plan_.staging[i].use == StagingBuffer::Use::constant)
      continue;
    DUET_RETURN_IF_ERROR(
        createBuffer(stagingBytes(i), kDeviceBuffer, stagingOnDevice_[i]));
    onDevice.push_back(&stagingOnDevice_[i]);
  }
  DUET_RETURN_IF_ERROR(bindArena(
      onDevice, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "tensors and weights"));
  freshImages_.assign(plan_.runDispatches.size(), {});
  ArenaBytes sharing;
  DUET_RETURN_IF_ERROR(bindArena(shared, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                 "run's tensors", sharedLifetimes, &sharing));
  for (size_t i = 0; i < plan_.tensors.size(); ++i) {
    if (!tensors_[i].image)
      continue;
    VkImageViewCreateInfo view{};
    view.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    view.image = tensors_[i].image;
    view.viewType = VK_IMAGE_VIEW_TYPE_3D;
    view.format = textureFormat();
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    DUET_VK_CHECK(
        vk.vkCreateImageView(device, &view, nullptr, &tensors_[i].view),
        "vkCreateImageView");
  }

  // The host arena: the staging buffers of inputs, outputs and observed
  // tensors, mapped for good; those of inputs and outputs in the model's
  // memory itself where the device can import it (importHostIo).
  staging_.resize(plan_.staging.size());
  DUET_RETURN_IF_ERROR(importHostIo(io));
  std::vector<Resource *> onHost;
  for (size_t i = 0; i < plan_.staging.size(); ++i) {
    if (plan_.staging[i].use == StagingBuffer::Use::constant ||
        staging_[i].buffer)
      continue;
    DUET_RETURN_IF_ERROR(createBuffer(stagingBytes(i),
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                      staging_[i]));
    onHost.push_back(&staging_[i]);
  }
  if (!onHost.empty())
    DUET_RETURN_IF_ERROR(bindArena(onHost,
                                   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                   VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                   "staging buffers"));
  // Constants read as tensors: device buffers that the upload fills and the
  // load dispatches pack into their layouts, freed once they have.
  std::vector<Resource *> constants;
  for (size_t i = 0; i < plan_.staging.size(); ++i) {
    if (plan_.staging[i].use != StagingBuffer::Use::constant)
      continue;
    DUET_RETURN_IF_ERROR(createBuffer(stagingBytes(i),
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                      stagingOnDevice_[i]));
    constants.push_back(&stagingOnDevice_[i]);
  }
  loadArenas_ = arenas_.size();
  if (!constants.empty())
    DUET_RETURN_IF_ERROR(bindArena(constants, 0,
                                   VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                   "constants being uploaded"));
  phase(fmt::format("memory ({} images and buffers; the run's {} tensors "
                    "share {:.1f} MiB by lifetime, {:.1f} MiB apart; {} of "
                    "{} inputs and outputs read and written in place)",
                    onDevice.size() + shared.size() + onHost.size() +
                        constants.size(),
                    shared.size(), sharing.shared / double(1 << 20),
                    sharing.apart / double(1 << 20),
                    std::count(inPlace_.begin(), inPlace_.end(), true),
                    plan_.inputs.size() + plan_.outputs.size()));

  device_->loadPipelineCache(options.pipelineCacheDir, options.notice);
  phase("pipeline cache read");
  DUET_RETURN_IF_ERROR(createPipelines());
  phase(fmt::format("pipelines ({} made, {} shader modules)",
                    pipelines_.size(), layouts_.size()));
  device_->savePipelineCache(options.pipelineCacheDir, options.notice);
  phase("pipeline cache saved");
  DUET_RETURN_IF_ERROR(createDescriptorSets());
  phase(fmt::format("descriptor sets ({})", sets_.size()));

  VkCommandPoolCreateInfo pool{};
  pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool.queueFamilyIndex = device_->queueFamily();
  DUET_VK_CHECK(vk.vkCreateCommandPool(device, &pool, nullptr, &commandPool_),
                "vkCreateCommandPool");
  VkFenceCreateInfo fence{};
  fence.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  DUET_VK_CHECK(vk.vkCreateFence(device, &fence, nullptr, &fence_),
                "vkCreateFence");
  DUET_RETURN_IF_ERROR(uploadAndPrepare(clock));
  DUET_RETURN_IF_ERROR(recordRun());
  phase(fmt::format("run commands recorded ({} dispatches, {} waiting for "
                    "the ones before)",
                    plan_.runDispatches.size(), runWaits_));
  return Status::ok();
}

Status VulkanDelegate::createPipelines() {
  const VulkanApi &vk = device_->api();
  VkDevice device = device_->handle();
  // The one sampler of every sampled input, immutable in the set layouts;
  // texelFetch reads texels by index, so none of its filtering applies.
  if (sampledInputs_) {
    VkSamplerCreateInfo samplerInfo{};
    samplerInfo.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
    samplerInfo.magFilter = VK_FILTER_NEAREST;
    samplerInfo.minFilter = VK_FILTER_NEAREST;
    samplerInfo.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    samplerInfo.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    samplerInfo.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    samplerInfo.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    DUET_VK_CHECK(
        vk.vkCreateSampler(device, &samplerInfo, nullptr, &sampler_),
        "vkCreateSampler");
  }
  for (const std::vector<Dispatch> *list :
       {&plan_.loadDispatches, &plan_.runDispatches}) {
    for (const Dispatch &dispatch : *list) {
      PipelineKey key{dispatch.family, dispatch.inputsInBuffers,
                      dispatch.outputInBuffer};
      Layouts &layouts = layouts_[key];
      if (!layouts.module) {
        ShaderCode code =
            shaderCode(dispatch.family, dispatch.inputsInBuffers,
                       dispatch.outputInBuffer, plan_.fp16Images, fp16Math_,
                       sampledInputs_);
        VkShaderModuleCreateInfo module{};
        module.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
        module.codeSize = code.count * sizeof(uint32_t);
        module.pCode = code.words;
        DUET_VK_CHECK(
            vk.vkCreateShaderModule(device, &module, nullptr, &layouts.module),
            fmt::format("creating the {} shader", shaderName(dispatch.family)));

        ShaderBindings counts = shaderBindings(dispatch.family);
        std::vector<VkDescriptorSetLayoutBinding> bindings;
        auto bind = [&](uint32_t binding, VkDescriptorType type) {
          bindings.push_back(
              {binding, type, 1, VK_SHADER_STAGE_COMPUTE_BIT,
               type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER ? &sampler_
                                                                 : nullptr});
        };
        bind(kParamsBinding, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER);
        bind(kOutputBinding, outputDescriptor(dispatch.outputInBuffer));
        for (int i = 0; i < counts.inputs; ++i)
          bind(kFirstInputBinding + i,
               inputDescriptor(dispatch.inputsInBuffers, sampledInputs_));
        for (int i = 0; i < counts.weights; ++i)
          bind(kFirstWeightBinding + i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
        VkDescriptorSetLayoutCreateInfo setInfo{};
        setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
        setInfo.bindingCount = static_cast<uint32_t>(bindings.size());
        setInfo.pBindings = bindings.data();
        DUET_VK_CHECK(vk.vkCreateDescriptorSetLayout(device, &setInfo, nullptr,
                                                     &layouts.set),
                      "vkCreateDescriptorSetLayout");
        VkPipelineLayoutCreateInfo layoutInfo{};
        layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
        layoutInfo.setLayoutCount = 1;
        layoutInfo.pSetLayouts = &layouts.set;
        DUET_VK_CHECK(vk.vkCreatePipelineLayout(device, &layoutInfo, nullptr,
                                                &layouts.pipeline),
                      "vkCreatePipelineLayout");
      }

      VkPipeline &pipeline = pipelines_[{key, dispatch.spec}];
      if (!pipeline) {
        VkSpecializationMapEntry entries[7];
        for (uint32_t i = 0; i < 7; ++i)
          entries[i] = {i, static_cast<uint32_t>(i * sizeof(int32_t)),
                        sizeof(int32_t)};
        VkSpecializationInfo specialization{};
        specialization.mapEntryCount = 7;
        specialization.pMapEntries = entries;
        specialization.dataSize = sizeof(dispatch.spec);
        specialization.pData = dispatch.spec.data();
        VkComputePipelineCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
        info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        info.stage.module = layouts.module;
        info.stage.pName = "main";
        info.stage.pSpecializationInfo = &specialization;
        info.layout = layouts.pipeline;
        std::string note;
        VkResult created = faultable(runtime::BackendCall::vulkanPipeline,
                                     VK_ERROR_OUT_OF_HOST_MEMORY, note, [&] {
                                       return vk.vkCreateComputePipelines(
                                           device, device_->pipelineCache(), 1,
                                           &info, nullptr, &pipeline);
                                     });
        if (created != VK_SUCCESS)
          return callFailed(
              fmt::format("vkCreateComputePipelines for the {} pipeline of {} "
                          "(delegate {})",
                          shaderName(dispatch.family), dispatch.op, index_),
              created, note);
      }
      bound_.push_back({pipeline, layouts.pipeline});
    }
  }
  return Status::ok();
}

Status VulkanDelegate::createDescriptorSets() {
  const VulkanApi &vk = device_->api();
  VkDevice device = device_->handle();
  std::vector<const Dispatch *> all;
  for (const std::vector<Dispatch> *list :
       {&plan_.loadDispatches, &plan_.runDispatches})
    for (const Dispatch &dispatch : *list)
      all.push_back(&dispatch);

  uint32_t images = 0, sampled = 0, buffers = 0;
  for (const Dispatch *dispatch : all) {
    ShaderBindings counts = shaderBindings(dispatch->family);
    (dispatch->outputInBuffer ? buffers : images) += 1;
    (dispatch->inputsInBuffers ? buffers
     : sampledInputs_          ? sampled
                               : images) += static_cast<uint32_t>(counts.inputs);
    buffers += static_cast<uint32_t>(counts.weights);
  }
  std::vector<VkDescriptorPoolSize> sizes = {
      {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, static_cast<uint32_t>(all.size())}};
  if (images)
    sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, images});
  if (sampled)
    sizes.push_back({VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, sampled});
  if (buffers)
    sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers});
  VkDescriptorPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  poolInfo.maxSets = static_cast<uint32_t>(all.size());
  poolInfo.poolSizeCount = static_cast<uint32_t>(sizes.size());
  poolInfo.pPoolSizes = sizes.data();
  DUET_VK_CHECK(
      vk.vkCreateDescriptorPool(device, &poolInfo, nullptr, &descriptorPool_),
      "vkCreateDescriptorPool");

  sets_.resize(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const Dispatch &dispatch = *all[i];
    Layouts &layouts = layouts_[{dispatch.family, dispatch.inputsInBuffers,
                                 dispatch.outputInBuffer}];
    VkDescriptorSetAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorPool = descriptorPool_;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &layouts.set;
    DUET_VK_CHECK(vk.vkAllocateDescriptorSets(device, &allocate, &sets_[i]),
                  "vkAllocateDescriptorSets");

    // At most: params, output, three inputs, two weights.
    VkDescriptorBufferInfo bufferInfos[7];
    VkDescriptorImageInfo imageInfos[7];
    VkWriteDescriptorSet writes[7];
    uint32_t count = 0;
    auto write = [&](uint32_t binding, Ref ref, VkDescriptorType type) {
      VkWriteDescriptorSet &w = writes[count];
      w = VkWriteDescriptorSet{};
      w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      w.dstSet = sets_[i];
      w.dstBinding = binding;
      w.descriptorCount = 1;
      w.descriptorType = type;
      Resource &resource = resourceOf(ref);
      if (type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER) {
        bufferInfos[count] = {resource.buffer, 0, VK_WHOLE_SIZE};
        w.pBufferInfo = &bufferInfos[count];
      } else {
        // A sampled input's sampler is the layout's immutable one.
        imageInfos[count] = {VK_NULL_HANDLE, resource.view,
                             VK_IMAGE_LAYOUT_GENERAL};
        w.pImageInfo = &imageInfos[count];
      }
      ++count;
    };
    VkWriteDescriptorSet &params = writes[count];
    params = VkWriteDescriptorSet{};
    params.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    params.dstSet = sets_[i];
    params.dstBinding = kParamsBinding;
    params.descriptorCount = 1;
    params.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    bufferInfos[count] = {params_.buffer, paramsStride_ * i,
                          sizeof(ParamsBlock)};
    params.pBufferInfo = &bufferInfos[count];
    ++count;
    write(kOutputBinding, dispatch.output,
          outputDescriptor(dispatch.outputInBuffer));
    ShaderBindings counts = shaderBindings(dispatch.family);
    for (int k = 0; k < counts.inputs; ++k)
      write(kFirstInputBinding + k, dispatch.inputs[k],
            inputDescriptor(dispatch.inputsInBuffers, sampledInputs_));
    for (int k = 0; k < counts.weights; ++k)
      write(kFirstWeightBinding + k, dispatch.weights[k],
            VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    vk.vkUpdateDescriptorSets(device, count, writes, 0, nullptr);
  }
  return Status::ok();
}

size_t VulkanDelegate::recordDispatches(VkCommandBuffer commands,
                                        const std::vector<Dispatch> &dispatches,
                                        size_t firstSet) {
  const VulkanApi &vk = device_->api();
  bool run = commands == runCommands_;
  size_t count = dispatches.size();
  // Where the barriers go. A dispatch waits for those since the last
  // barrier only when it reads bytes they wrote, or writes bytes they read
  // or wrote: independent dispatches (q, k and v of an attention) may then
  // overlap on the device. The load's dispatches, and a profiled run's
  // (each timed on its own), wait for every one before them.
  struct Bytes {
    VkDeviceMemory memory;
    VkDeviceSize begin, end;
  };
  auto bytesOf = [&](std::vector<Bytes> &into) {
    return [&](const Ref &ref) {
      if (ref.kind == Ref::Kind::none)
        return;
      const Resource &resource = resourceOf(ref);
      into.push_back({resource.memory, resource.offset,
                      resource.offset + resource.extent});
    };
  };
  auto touches = [](const std::vector<Bytes> &set, const Bytes &bytes) {
    for (const Bytes &other : set)
      if (other.memory == bytes.memory && other.begin < bytes.end &&
          bytes.begin < other.end)
        return true;
    return false;
  };
  bool everyOne = !run || timestamps_;
  std::vector<bool> waits(count, false);
  std::vector<Bytes> read, written;
  for (size_t i = 0; i < count; ++i) {
    std::vector<Bytes> reads, writes;
    visitRefs(dispatches[i], bytesOf(reads), bytesOf(writes));
    bool wait = everyOne;
    for (const Bytes &bytes : reads)
      wait = wait || touches(written, bytes);
    for (const Bytes &bytes : writes)
      wait = wait || touches(written, bytes) || touches(read, bytes);
    if (i > 0 && wait) {
      waits[i] = true;
      read.clear();
      written.clear();
    }
    read.insert(read.end(), reads.begin(), reads.end());
    written.insert(written.end(), writes.begin(), writes.end());
  }

  // An image whose bytes other tensors use too starts each run from
  // UNDEFINED (a driver may keep state per image that an alias's writes
  // invalidate). Its transition joins the last barrier before its first
  // dispatch: everything that used its bytes before is done there, and no
  // dispatch between touches them (it would have needed a barrier).
  std::vector<std::vector<VkImageMemoryBarrier>> transitions(count);
  for (size_t i = 0; run && i < count && i < freshImages_.size(); ++i) {
    size_t at = i;
    while (at > 0 && !waits[at])
      --at;
    for (VkImage image : freshImages_[i])
      transitions[at].push_back(toGeneral(image, VK_ACCESS_SHADER_WRITE_BIT));
  }

  size_t waiting = 0;
  for (size_t i = 0; i < count; ++i) {
    std::vector<VkImageMemoryBarrier> &images = transitions[i];
    if (waits[i]) {
      VkMemoryBarrier memory{};
      memory.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
      memory.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      memory.dstAccessMask =
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
      vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                              &memory, 0, nullptr,
                              static_cast<uint32_t>(images.size()),
                              images.data());
      ++waiting;
    } else if (!images.empty()) {
      // Before the run's first dispatch: after the previous run's writes
      // of the same bytes (earlier submissions).
      vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                              nullptr, 0, nullptr,
                              static_cast<uint32_t>(images.size()),
                              images.data());
    }
    auto [pipeline, layout] = bound_[firstSet + i];
    vk.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vk.vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, layout,
                               0, 1, &sets_[firstSet + i], 0, nullptr);
    vk.vkCmdDispatch(commands, dispatches[i].groups[0],
                     dispatches[i].groups[1], 1);
    if (timestamps_ && run)
      vk.vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             timestamps_, static_cast<uint32_t>(i + 1));
  }
  // What comes after (the run's copies out, the host) reads what they wrote.
  memoryBarrier(vk, commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  return waiting;
}

Status VulkanDelegate::submit(VkCommandBuffer commands, const char *what) {
  const VulkanApi &vk = device_->api();
  if (device_->lost())
    return Status::error("vulkan: delegate {} cannot submit {}: device '{}' "
                         "was lost before (VK_ERROR_DEVICE_LOST), and what "
                         "was loaded on it cannot run again; load the "
                         "program again, which opens the device anew",
                         index_, what, device_->info().name)
        .withCode(ErrorCode::failure);
  // A run's submission and wait may fail on purpose
  // (LoadOptions::faults.calls); the load's never do.
  const bool run = commands == runCommands_;
  auto failed = [&](const std::string &call, VkResult result,
                    const std::string &note) {
    if (result == VK_ERROR_DEVICE_LOST)
      device_->markLost();
    return callFailed(fmt::format("{} of {} (delegate {}, device '{}')", call,
                                  what, index_, device_->info().name),
                      result, note);
  };
  VkSubmitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.commandBufferCount = 1;
  info.pCommandBuffers = &commands;
  std::string note;
  {
    std::lock_guard<std::mutex> lock(device_->queueMutex());
    auto make = [&] {
      return vk.vkQueueSubmit(device_->queue(), 1, &info, fence_);
    };
    VkResult submitted =
        run ? faultable(runtime::BackendCall::vulkanSubmit,
                        VK_ERROR_OUT_OF_HOST_MEMORY, note, make)
            : make();
    if (submitted != VK_SUCCESS)
      return failed("vkQueueSubmit", submitted, note);
  }
  // A device lost on purpose is lost once the commands ran, as a real loss
  // is reported by the wait: nothing of the delegate is in use after it.
  VkResult waited =
      vk.vkWaitForFences(device_->handle(), 1, &fence_, VK_TRUE, UINT64_MAX);
  if (waited == VK_SUCCESS && run &&
      faults_.fails(runtime::BackendCall::vulkanDeviceLost)) {
    waited = VK_ERROR_DEVICE_LOST;
    note = faults_.injected(runtime::BackendCall::vulkanDeviceLost);
  }
  if (waited != VK_SUCCESS)
    return failed("vkWaitForFences", waited, note);
  DUET_VK_CHECK(vk.vkResetFences(device_->handle(), 1, &fence_),
                "vkResetFences");
  return Status::ok();
}

Status VulkanDelegate::uploadAndPrepare(LoadPhaseClock &clock) {
  const VulkanApi &vk = device_->api();
  VkDevice device = device_->handle();

  // What goes to the device, in 4-byte words: the parameter blocks, the
  // weights, and the constants read as tensors.
  struct Upload {
    VkBuffer target;
    int64_t words;
    std::function<void(int64_t first, int64_t count, void *out)> write;
  };
  std::vector<uint8_t> params(params_.bytes, 0);
  size_t slot = 0;
  for (const std::vector<Dispatch> *list :
       {&plan_.loadDispatches, &plan_.runDispatches})
    for (const Dispatch &dispatch : *list)
      std::memcpy(params.data() + paramsStride_ * slot++, &dispatch.params,
                  sizeof(ParamsBlock));
  std::vector<Upload> uploads;
  uploads.push_back({params_.buffer, static_cast<int64_t>(params.size() / 4),
                     [&](int64_t first, int64_t count, void *out) {
                       std::memcpy(out, params.data() + first * 4,
                                   static_cast<size_t>(count) * 4);
                     }});
  for (size_t i = 0; i < plan_.weights.size(); ++i) {
    TensorView view = program_.constantView(plan_.weights[i]);
    uploads.push_back({weights_[i].buffer, view.numel(),
                       [view](int64_t first, int64_t count, void *out) {
                         toWeightWords(view, first, count, out);
                       }});
  }
  for (size_t i = 0; i < plan_.staging.size(); ++i) {
    if (plan_.staging[i].use != StagingBuffer::Use::constant)
      continue;
    const PlannedTensor &tensor = plan_.tensors[plan_.staging[i].tensor];
    TensorView view = program_.constantView(tensor.programId);
    // An fp16 image would turn a constant beyond its range into infinity.
    bool clamp = plan_.fp16Images && tensor.texture;
    uploads.push_back(
        {stagingOnDevice_[i].buffer, tensor.numel,
         [view, clamp](int64_t first, int64_t count, void *out) {
           auto *values = static_cast<float *>(out);
           toFloats(view, first, count, values);
           if (clamp)
             for (int64_t k = 0; k < count; ++k)
               values[k] = std::clamp(values[k], -kFp16Max, kFp16Max);
         }});
  }

  VkCommandBuffer commands = VK_NULL_HANDLE;
  auto begin = [&]() -> Status {
    VkCommandBufferAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    allocate.commandPool = commandPool_;
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 1;
    DUET_VK_CHECK(vk.vkAllocateCommandBuffers(device, &allocate, &commands),
                  "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    DUET_VK_CHECK(vk.vkBeginCommandBuffer(commands, &info),
                  "vkBeginCommandBuffer");
    return Status::ok();
  };
  auto finish = [&](const char *what) -> Status {
    VkResult result = vk.vkEndCommandBuffer(commands);
    Status status = result == VK_SUCCESS
                        ? submit(commands, what)
                        : Status::error("vulkan: recording {} failed: {}",
                                        what, resultName(result));
    vk.vkFreeCommandBuffers(device, commandPool_, 1, &commands);
    commands = VK_NULL_HANDLE;
    return status;
  };
  auto release = [&] {
    if (commands)
      vk.vkFreeCommandBuffers(device, commandPool_, 1, &commands);
    commands = VK_NULL_HANDLE;
  };

  // Through the device's ring: written here a piece at a time, each piece
  // copied to its buffer, the ring reused once the copies of a full ring
  // have run.
  std::unique_lock<std::mutex> ringLock;
  const Device::UploadRing *ring = nullptr;
  DUET_RETURN_IF_ERROR(device_->uploadRing(ringLock, ring));
  VkDeviceSize capacity = ring->bytes;
  if (uint64_t piece = program_.options().vulkan.testUploadPieceBytes)
    capacity = std::clamp<VkDeviceSize>(piece / 4 * 4, 4, capacity);
  VkDeviceSize used = 0;
  int64_t words = 0;
  int pieces = 1;
  Status status = begin();
  for (const Upload &upload : uploads) {
    for (int64_t done = 0; status.isOk() && done < upload.words;) {
      if (used + 4 > capacity) {
        status = finish("a piece of the weight upload");
        if (status.isOk())
          status = begin();
        used = 0;
        ++pieces;
        continue;
      }
      int64_t count = std::min<int64_t>(
          upload.words - done, static_cast<int64_t>((capacity - used) / 4));
      upload.write(done, count, ring->mapped + used);
      VkBufferCopy copy{used, static_cast<VkDeviceSize>(done) * 4,
                        static_cast<VkDeviceSize>(count) * 4};
      vk.vkCmdCopyBuffer(commands, ring->buffer, upload.target, 1, &copy);
      used += copy.size;
      done += count;
      words += count;
    }
  }
  if (status.isOk())
    status = finish("the weight upload");
  ringLock.unlock();
  if (!status.isOk()) {
    release();
    return status;
  }
  clock.mark(fmt::format("delegate {} on vulkan: weights and constants "
                         "uploaded ({:.1f} MiB in {} piece{})",
                         index_, words * 4 / double(1 << 20), pieces,
                         pieces == 1 ? "" : "s"));

  // The load dispatches: constants packed into their layouts.
  status = begin();
  if (status.isOk()) {
    // Storage images stay in the GENERAL layout for their whole life.
    std::vector<VkImageMemoryBarrier> images;
    for (Resource &tensor : tensors_)
      if (tensor.image)
        images.push_back(toGeneral(tensor.image, 0));
    if (!images.empty())
      vk.vkCmdPipelineBarrier(
          commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0, nullptr,
          static_cast<uint32_t>(images.size()), images.data());
    // The upload's copies (earlier submissions) before every dispatch, the
    // run's too, reads what they wrote.
    memoryBarrier(vk, commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_UNIFORM_READ_BIT);
    recordDispatches(commands, plan_.loadDispatches, 0);
    status = finish("the load commands");
  }
  release();
  if (!status.isOk()) {
    // The device may still read the constants' buffers: they go with the
    // delegate, once nothing of it runs.
    std::lock_guard<std::mutex> lock(device_->queueMutex());
    vk.vkQueueWaitIdle(device_->queue());
    return status;
  }
  clock.mark(fmt::format("delegate {} on vulkan: {} load dispatches run",
                         index_, plan_.loadDispatches.size()));

  // The constants are in their layouts now: their upload buffers go.
  for (size_t i = 0; i < plan_.staging.size(); ++i) {
    if (plan_.staging[i].use != StagingBuffer::Use::constant ||
        !stagingOnDevice_[i].buffer)
      continue;
    vk.vkDestroyBuffer(device, stagingOnDevice_[i].buffer, nullptr);
    stagingOnDevice_[i] = Resource{};
  }
  while (arenas_.size() > loadArenas_) {
    vk.vkFreeMemory(device, arenas_.back().memory, nullptr);
    arenas_.pop_back();
  }
  return status;
}

Status VulkanDelegate::recordRun() {
  const VulkanApi &vk = device_->api();
  VkCommandBufferAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate.commandPool = commandPool_;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  DUET_VK_CHECK(
      vk.vkAllocateCommandBuffers(device_->handle(), &allocate, &runCommands_),
      "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  DUET_VK_CHECK(vk.vkBeginCommandBuffer(runCommands_, &begin),
                "vkBeginCommandBuffer");
  DUET_RETURN_IF_ERROR(prepareProfile());
  if (timestamps_) {
    vk.vkCmdResetQueryPool(runCommands_, timestamps_, 0,
                           static_cast<uint32_t>(dispatchTimes_.size() + 1));
    vk.vkCmdWriteTimestamp(runCommands_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                           timestamps_, 0);
  }
  // Device staging: the inputs copied in before the dispatches, the
  // outputs (and observed tensors) out after them.
  auto copyStaging = [&](bool in) {
    bool any = false;
    for (size_t i = 0; i < plan_.staging.size(); ++i) {
      if (!stagingOnDevice_[i].buffer ||
          plan_.staging[i].use == StagingBuffer::Use::constant ||
          (plan_.staging[i].use == StagingBuffer::Use::input) != in)
        continue;
      // The tensor's bytes exactly: an input or output read and written in
      // place has the model's other tensors right after it.
      VkBufferCopy copy{0, 0, stagingBytes(i)};
      vk.vkCmdCopyBuffer(
          runCommands_, in ? staging_[i].buffer : stagingOnDevice_[i].buffer,
          in ? stagingOnDevice_[i].buffer : staging_[i].buffer, 1, &copy);
      any = true;
    }
    return any;
  };
  if (copyStaging(true))
    memoryBarrier(vk, runCommands_, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT);
  runWaits_ = recordDispatches(runCommands_, plan_.runDispatches,
                   plan_.loadDispatches.size());
  memoryBarrier(vk, runCommands_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  if (copyStaging(false))
    memoryBarrier(vk, runCommands_, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
  DUET_VK_CHECK(vk.vkEndCommandBuffer(runCommands_), "vkEndCommandBuffer");
  return Status::ok();
}

Status VulkanDelegate::execute(const std::vector<TensorView> &inputs,
                               const std::vector<TensorView> &outputs) {
  if (inputs.size() != plan_.inputs.size() ||
      outputs.size() != plan_.outputs.size())
    return Status::error("vulkan delegate {}: called with {} inputs and {} "
                         "outputs, it has {} and {}",
                         index_, inputs.size(), outputs.size(),
                         plan_.inputs.size(), plan_.outputs.size());
  // Staging holds the inputs first and the outputs last, in call order.
  size_t firstOutput = plan_.staging.size() - plan_.outputs.size();
  // A staging buffer in place is the memory imported at load: the executor
  // gives every run the views it prepared the delegate with.
  auto check = [&](const TensorView &view, int32_t tensor, const char *what,
                   size_t i, size_t slot) {
    const PlannedTensor &planned = plan_.tensors[tensor];
    if (!view.data || view.dtype != planned.dtype ||
        view.sizes != planned.sizes)
      return Status::error("vulkan delegate {}: {} {} is not a {} tensor of "
                           "the planned shape",
                           index_, what, i, dtypeName(planned.dtype));
    if (inPlace_[slot] && staging_[slot].mapped != view.data)
      return Status::error("vulkan delegate {}: {} {} is other memory than "
                           "the model's, which the device reads and writes "
                           "in place",
                           index_, what, i);
    return Status::ok();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    DUET_RETURN_IF_ERROR(check(inputs[i], plan_.inputs[i], "input", i, i));
    if (!inPlace_[i])
      toFloats(inputs[i], 0, inputs[i].numel(),
               reinterpret_cast<float *>(staging_[i].mapped));
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    DUET_RETURN_IF_ERROR(
        check(outputs[i], plan_.outputs[i], "output", i, firstOutput + i));
  DUET_RETURN_IF_ERROR(submit(runCommands_, "the delegate's commands"));
  if (timestamps_)
    DUET_RETURN_IF_ERROR(readTimestamps());
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!inPlace_[firstOutput + i])
      fromFloats(
          reinterpret_cast<const float *>(staging_[firstOutput + i].mapped),
          outputs[i]);
  return Status::ok();
}

Status VulkanDelegate::prepareProfile() {
  const PhysicalDeviceInfo &info = device_->info();
  if (!program_.options().profile.enabled || info.timestampValidBits == 0 ||
      plan_.runDispatches.empty())
    return Status::ok();
  const VulkanApi &vk = device_->api();
  VkQueryPoolCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  create.queryType = VK_QUERY_TYPE_TIMESTAMP;
  create.queryCount = static_cast<uint32_t>(plan_.runDispatches.size() + 1);
  DUET_VK_CHECK(
      vk.vkCreateQueryPool(device_->handle(), &create, nullptr, &timestamps_),
      "vkCreateQueryPool");
  for (size_t i = 0; i < plan_.runDispatches.size(); ++i) {
    const Dispatch &dispatch = plan_.runDispatches[i];
    const int32_t kernel = dispatch.spec[6];
    std::string shape;
    if (dispatch.output.kind == Ref::Kind::tensor)
      shape = fmt::format(
          " -> [{}]",
          fmt::join(plan_.tensors[dispatch.output.index].sizes, ","));
    // The kernel where a family has several: the texel convolution's, and
    // a gather that runs texel by texel.
    std::string variant;
    if (dispatch.family == ShaderFamily::ConvolutionTexel)
      variant = fmt::format(" (kernel {})", kernel);
    else if (dispatch.family == ShaderFamily::Gather && kernel == 2)
      variant = " (texels)";
    else if (dispatch.family == ShaderFamily::Softmax && dispatch.spec[4] == 1)
      variant = " (statistics)";
    dispatchTimes_.push_back(
        {fmt::format("dispatch {}: {}{} {}{}", i, shaderName(dispatch.family),
                     variant, dispatch.op, shape),
         0});
  }
  return Status::ok();
}

Status VulkanDelegate::readTimestamps() {
  const PhysicalDeviceInfo &info = device_->info();
  std::vector<uint64_t> ticks(dispatchTimes_.size() + 1);
  DUET_VK_CHECK(device_->api().vkGetQueryPoolResults(
                    device_->handle(), timestamps_, 0,
                    static_cast<uint32_t>(ticks.size()),
                    ticks.size() * sizeof(uint64_t), ticks.data(),
                    sizeof(uint64_t),
                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                "reading the profile's timestamps");
  const uint64_t mask = info.timestampValidBits >= 64
                            ? ~uint64_t(0)
                            : (uint64_t(1) << info.timestampValidBits) - 1;
  for (size_t i = 0; i < dispatchTimes_.size(); ++i)
    dispatchTimes_[i].ms =
        static_cast<double>((ticks[i + 1] - ticks[i]) & mask) *
        info.timestampPeriod * 1e-6;
  return Status::ok();
}

std::vector<int32_t> VulkanDelegate::observableTensors() const {
  std::vector<int32_t> ids;
  for (const StagingBuffer &staging : plan_.staging)
    if (staging.use == StagingBuffer::Use::observed)
      ids.push_back(plan_.tensors[staging.tensor].programId);
  return ids;
}

Status VulkanDelegate::readObserved(int32_t id, const TensorView &out) const {
  for (size_t i = 0; i < plan_.staging.size(); ++i) {
    const StagingBuffer &staging = plan_.staging[i];
    const PlannedTensor &tensor = plan_.tensors[staging.tensor];
    if (staging.use != StagingBuffer::Use::observed || tensor.programId != id)
      continue;
    if (!out.data || out.dtype != tensor.dtype || out.sizes != tensor.sizes)
      break;
    fromFloats(reinterpret_cast<const float *>(staging_[i].mapped), out);
    return Status::ok();
  }
  return Status::error("vulkan delegate {}: no tensor {} of the planned "
                       "shape to read",
                       index_, id);
}

} // namespace duet::rt::vulkan
