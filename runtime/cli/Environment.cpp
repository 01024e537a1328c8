//===- Environment.cpp - the variables duet's tools read ------------------===//

#include "runtime/cli/Environment.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace duet::cli {
namespace {

/// Reads a test hook that lowers a device limit into `value`; an unset or
/// empty variable leaves it.
template <typename T> rt::Status readLimit(const char *variable, T &value) {
  std::string text = environmentValue(variable);
  if (text.empty())
    return rt::Status::ok();
  char *end = nullptr;
  unsigned long long parsed = std::strtoull(text.c_str(), &end, 10);
  // strtoull takes a sign, which a limit cannot have.
  if (*end || text.front() == '-' || text.front() == '+' || parsed == 0 ||
      parsed > std::numeric_limits<T>::max())
    return rt::Status::error("vulkan: {}={} must be a positive whole number "
                             "(it is a test hook that lowers a device limit "
                             "or a size)",
                             variable, text);
  value = static_cast<T>(parsed);
  return rt::Status::ok();
}

} // namespace

std::string pipelineCacheFolder() {
  std::string chosen = environmentValue(rt::kVulkanPipelineCacheVariable);
  if (chosen == "off")
    return "";
  if (!chosen.empty())
    return chosen;
  if (std::string cache = environmentValue("XDG_CACHE_HOME"); !cache.empty())
    return cache + "/duet";
  if (std::string home = environmentValue("HOME"); !home.empty())
    return home + "/.cache/duet";
  return "";
}

std::string environmentValue(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

rt::Status readBackendEnvironment(rt::LoadOptions &options) {
  runtime::VulkanOptions &vulkan = options.vulkan;
  vulkan.device = environmentValue(rt::kVulkanDeviceVariable);
  DUET_RETURN_IF_ERROR(readLimit(rt::kVulkanTestMaxImage3DVariable,
                                 vulkan.testMaxImageDimension3D));
  DUET_RETURN_IF_ERROR(readLimit(rt::kVulkanTestMaxBufferRangeVariable,
                                 vulkan.testMaxStorageBufferRange));
  vulkan.testNoFp16Images =
      std::getenv(rt::kVulkanTestNoFp16ImagesVariable) != nullptr;
  vulkan.testNoFp16Math =
      std::getenv(rt::kVulkanTestNoFp16MathVariable) != nullptr;
  vulkan.testDeviceStaging =
      std::getenv(rt::kVulkanTestDeviceStagingVariable) != nullptr;
  vulkan.testSampledInputs =
      std::getenv(rt::kVulkanTestSampledInputsVariable) != nullptr;
  vulkan.testDepthParts =
      std::getenv(rt::kVulkanTestDepthPartsVariable) != nullptr;
  vulkan.noEpilogues = std::getenv(rt::kVulkanNoEpiloguesVariable) != nullptr;
  vulkan.noOperandViews =
      std::getenv(rt::kVulkanNoOperandViewsVariable) != nullptr;
  vulkan.noHostImport = std::getenv(rt::kVulkanNoHostImportVariable) != nullptr;
  options.xnnpackOnly = std::getenv(rt::kXnnpackOnlyVariable) != nullptr;
  DUET_RETURN_IF_ERROR(readLimit(rt::kVulkanTestUploadPieceBytesVariable,
                                 vulkan.testUploadPieceBytes));
  vulkan.pipelineCacheDir = pipelineCacheFolder();
  vulkan.notice = [](const std::string &text) {
    fmt::print(stderr, "note: {}\n", text);
  };
  return rt::Status::ok();
}

std::optional<rt::DeviceInfo> selectedDevice(std::string *backendName) {
  rt::LoadOptions load;
  if (!readBackendEnvironment(load).isOk())
    return std::nullopt;
  rt::BackendRegistry &registry = rt::defaultBackends();
  for (const std::string &name : registry.names()) {
    rt::Backend *backend = registry.find(name);
    rt::DeviceList list;
    if (!backend->listsDevices() ||
        !backend->listDevices("", load, list).isOk() || !list.selected)
      continue;
    if (backendName)
      *backendName = name;
    return list.devices[*list.selected];
  }
  return std::nullopt;
}

} // namespace duet::cli
