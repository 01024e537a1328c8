//===- PipelineCache.cpp - compiled pipelines kept on disk -----------------===//
//
// Creating the pipelines is most of a Vulkan load (shader compilation by the
// driver). A device's VkPipelineCache is saved to a file of its own in the
// folder VulkanOptions::pipelineCacheDir names and merged back by later
// loads. The file is duet's header then the driver's cache data:
//
//   bytes 0-7    "DUETVKPC"
//   bytes 8-11   format version (1), little-endian
//   bytes 12-15  zero
//   bytes 16-23  size of the driver's data
//   bytes 24-31  FNV-1a 64 of the driver's data
//   bytes 32-    the driver's data (vkGetPipelineCacheData), whose own header
//                names the vendor, device and pipelineCacheUUID
//
// The file is named after the vendor, device and UUID, so two devices or
// drivers never share one; the loader still checks the driver's header
// against this device, and the length and hash against the header, before
// the driver sees a byte: a truncated, damaged or foreign file is ignored
// with a notice and the pipelines are compiled as without a cache. Files are
// written to a temporary name and renamed, so a reader never sees half of
// one.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/vulkan/VulkanDevice.h"
#include "runtime/core/AtomicFile.h"
#include "runtime/core/Fnv1a.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <unistd.h>

namespace duet::rt::vulkan {
namespace {

constexpr char kMagic[8] = {'D', 'U', 'E', 'T', 'V', 'K', 'P', 'C'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 32;
/// Vulkan's own header: length, version, vendorID, deviceID, the UUID.
constexpr size_t kDriverHeaderBytes = 16 + VK_UUID_SIZE;

uint32_t readU32(const uint8_t *at) {
  return uint32_t(at[0]) | uint32_t(at[1]) << 8 | uint32_t(at[2]) << 16 |
         uint32_t(at[3]) << 24;
}
uint64_t readU64(const uint8_t *at) {
  return uint64_t(readU32(at)) | uint64_t(readU32(at + 4)) << 32;
}
void writeU32(uint8_t *at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    at[i] = static_cast<uint8_t>(value >> (8 * i));
}
void writeU64(uint8_t *at, uint64_t value) {
  writeU32(at, static_cast<uint32_t>(value));
  writeU32(at + 4, static_cast<uint32_t>(value >> 32));
}

std::string hex(const uint8_t *bytes, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i)
    out += fmt::format("{:02x}", bytes[i]);
  return out;
}

/// The file of `info`'s pipelines in `dir`.
std::string cachePath(const std::string &dir, const PhysicalDeviceInfo &info) {
  return (std::filesystem::path(dir) /
          fmt::format("vulkan-{:04x}-{:04x}-{}.pipelines", info.vendorId,
                      info.deviceId,
                      hex(info.pipelineCacheUuid.data(), VK_UUID_SIZE)))
      .string();
}

/// Why the driver data `data` cannot seed `info`'s cache; empty when it can.
std::string whyForeign(const std::vector<uint8_t> &data,
                       const PhysicalDeviceInfo &info) {
  if (data.size() < kDriverHeaderBytes ||
      readU32(data.data()) < kDriverHeaderBytes ||
      readU32(data.data() + 4) != VK_PIPELINE_CACHE_HEADER_VERSION_ONE)
    return "its driver data has no Vulkan pipeline-cache header";
  if (readU32(data.data() + 8) != info.vendorId ||
      readU32(data.data() + 12) != info.deviceId ||
      std::memcmp(data.data() + 16, info.pipelineCacheUuid.data(),
                  VK_UUID_SIZE) != 0)
    return fmt::format("it was written by another device or driver (vendor "
                       "{:04x}, device {:04x}, cache UUID {}; this is {})",
                       readU32(data.data() + 8), readU32(data.data() + 12),
                       hex(data.data() + 16, VK_UUID_SIZE), info.name);
  return {};
}

void tell(const std::function<void(const std::string &)> &notice,
          const std::string &text) {
  if (notice)
    notice(text);
}

} // namespace

void Device::loadPipelineCache(
    const std::string &dir,
    const std::function<void(const std::string &)> &notice) {
  if (dir.empty())
    return;
  std::lock_guard<std::mutex> lock(cacheMutex_);
  if (cacheBytes_.count(dir))
    return;
  cacheBytes_[dir] = 0;
  std::string path = cachePath(dir, info_);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return; // no cache yet
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
  auto ignore = [&](const std::string &why) {
    tell(notice, fmt::format("vulkan: ignored the pipeline cache {}: {}; the "
                             "pipelines are compiled anew and the file "
                             "rewritten",
                             path, why));
  };
  if (in.bad())
    return ignore("it cannot be read");
  if (file.size() < kHeaderBytes ||
      std::memcmp(file.data(), kMagic, sizeof kMagic) != 0)
    return ignore("it is not a duet pipeline cache");
  if (readU32(file.data() + 8) != kFormatVersion)
    return ignore(fmt::format("it has format version {}, this runtime "
                              "writes {}",
                              readU32(file.data() + 8), kFormatVersion));
  uint64_t size = readU64(file.data() + 16);
  if (size != file.size() - kHeaderBytes)
    return ignore(fmt::format("it is cut or padded ({} bytes of driver data "
                              "where the header says {})",
                              file.size() - kHeaderBytes, size));
  std::vector<uint8_t> data(file.begin() + kHeaderBytes, file.end());
  if (fnv1a(data.data(), data.size()) != readU64(file.data() + 24))
    return ignore("its data does not match its checksum (damaged)");
  if (std::string why = whyForeign(data, info_); !why.empty())
    return ignore(why);

  VkPipelineCacheCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  info.initialDataSize = data.size();
  info.pInitialData = data.data();
  VkPipelineCache loaded = VK_NULL_HANDLE;
  VkResult result =
      api_.vkCreatePipelineCache(device_, &info, nullptr, &loaded);
  if (result != VK_SUCCESS)
    return ignore(fmt::format("the driver refused its data ({})",
                              resultName(result)));
  result = api_.vkMergePipelineCaches(device_, pipelineCache_, 1, &loaded);
  api_.vkDestroyPipelineCache(device_, loaded, nullptr);
  if (result != VK_SUCCESS)
    return ignore(fmt::format("the driver could not merge it ({})",
                              resultName(result)));
  cacheBytes_[dir] = data.size();
}

void Device::savePipelineCache(
    const std::string &dir,
    const std::function<void(const std::string &)> &notice) {
  if (dir.empty())
    return;
  std::lock_guard<std::mutex> lock(cacheMutex_);
  size_t size = 0;
  if (api_.vkGetPipelineCacheData(device_, pipelineCache_, &size, nullptr) !=
          VK_SUCCESS ||
      size == 0 || size <= cacheBytes_[dir])
    return;
  std::vector<uint8_t> file(kHeaderBytes + size);
  if (api_.vkGetPipelineCacheData(device_, pipelineCache_, &size,
                                  file.data() + kHeaderBytes) != VK_SUCCESS)
    return;
  file.resize(kHeaderBytes + size);
  std::memcpy(file.data(), kMagic, sizeof kMagic);
  writeU32(file.data() + 8, kFormatVersion);
  writeU32(file.data() + 12, 0);
  writeU64(file.data() + 16, size);
  writeU64(file.data() + 24, fnv1a(file.data() + kHeaderBytes, size));

  std::string path = cachePath(dir, info_);
  auto failed = [&](const std::string &why) {
    tell(notice, fmt::format("vulkan: did not save the pipeline cache {}: "
                             "{}; loads compile the pipelines anew (set "
                             "DUET_VULKAN_PIPELINE_CACHE to a writable "
                             "folder, or to off)",
                             path, why));
  };
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    return failed(fmt::format("cannot make the folder: {}", error.message()));
  // Whole or not at all, and durable (rt::AtomicFile): a reader never sees
  // half of a cache, and a crash leaves the old one.
  Status written = writeFileAtomically(path, file.data(), file.size());
  if (!written.isOk())
    return failed(written.message());
  cacheBytes_[dir] = size;
}

} // namespace duet::rt::vulkan
