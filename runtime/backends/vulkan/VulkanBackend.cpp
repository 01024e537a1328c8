//===- VulkanBackend.cpp - the Vulkan delegate backend --------------------===//

#include "runtime/backends/vulkan/VulkanBackend.h"

#include "runtime/backends/vulkan/VulkanDelegate.h"
#include "runtime/backends/vulkan/VulkanDevice.h"

#include <fmt/core.h>

#include <cctype>

namespace duet::rt {
namespace {

/// "nvidia-h200" from "NVIDIA H200": a profile name.
std::string slug(const std::string &name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-')
      out += '-';
    if (c == '(')
      break;
  }
  while (!out.empty() && out.back() == '-')
    out.pop_back();
  return out.empty() ? "vulkan-device" : out;
}

/// `info` as `duet devices` shows it, with its limits as a device profile
/// (partitioners/vulkan/rules/DeviceProfile.h describes the format).
DeviceInfo describe(const vulkan::PhysicalDeviceInfo &info) {
  DeviceInfo out;
  out.index = info.index;
  out.name = info.name;
  out.kind = info.type + ", Vulkan " + info.apiVersion;
  out.kindFacts = {{"type", info.type}, {"api_version", info.apiVersion}};
  out.unusable = info.unsuitable;
  out.limits = {
      {"maxImageDimension3D", uint64_t(info.limits.maxImageDimension3D)},
      {"maxStorageBufferRange", uint64_t(info.limits.maxStorageBufferRange)},
      {"maxComputeWorkGroupInvocations",
       uint64_t(info.limits.maxComputeWorkGroupInvocations)},
      {"shaderFloat16", info.shaderFloat16},
      {"storageBuffer16BitAccess", info.storageBuffer16BitAccess}};
  out.profile = {
      {"name", slug(info.name)},
      {"device", info.name + " (" + out.kind + ")"},
      {"maxImageDimension3D", uint64_t(info.limits.maxImageDimension3D)},
      {"maxStorageBufferRange", uint64_t(info.limits.maxStorageBufferRange)},
      {"source", std::string("Read from the device's Vulkan driver by `duet "
                             "devices --profile-out`.")}};
  return out;
}

class VulkanBackend : public Backend {
public:
  std::string_view name() const override { return "vulkan"; }

  bool listsDevices() const override { return true; }

  Status listDevices(const std::string &wanted, const LoadOptions &options,
                     DeviceList &list) override {
    std::vector<vulkan::PhysicalDeviceInfo> devices;
    DUET_RETURN_IF_ERROR(vulkan::listDevices(devices));
    for (const vulkan::PhysicalDeviceInfo &info : devices)
      list.devices.push_back(describe(info));
    // The device named, or the one delegates loaded with `options` run on.
    const std::string &choice = wanted.empty() ? options.vulkan.device : wanted;
    uint32_t chosen = 0;
    Status selection = vulkan::selectDevice(devices, choice, chosen);
    if (!selection.isOk()) {
      list.whyNone = selection.message();
      return Status::ok();
    }
    list.selected = chosen;
    list.selectedNote = std::string("duet runs Vulkan delegates on this device "
                                    "(choose another with ") +
                        kVulkanDeviceVariable + "=<index or part of its name>)";
    return Status::ok();
  }

  Status init(const Program &program, uint32_t index, ByteSpan blob,
              const DelegateIo &io,
              std::unique_ptr<PreparedDelegate> &prepared) override {
    std::shared_ptr<vulkan::Device> device;
    const LoadPhaseClock::Sink &sink = program.options().profile.loadPhase;
    LoadPhaseClock clock(sink);
    // The steps of an open, inside the device's phase.
    LoadPhaseClock::Sink steps;
    if (sink)
      steps = [&](const std::string &step, double ms) {
        sink(fmt::format("delegate {} on vulkan: device: {}", index, step), ms);
      };
    DUET_RETURN_IF_ERROR(
        vulkan::Device::shared(program.options().vulkan.device, device, steps));
    clock.mark(fmt::format("delegate {} on vulkan: device (opened by the "
                           "first load in a process)",
                           index));
    std::unique_ptr<vulkan::VulkanDelegate> delegate;
    DUET_RETURN_IF_ERROR(vulkan::VulkanDelegate::create(
        std::move(device), program, index, blob, io, delegate));
    prepared = std::move(delegate);
    return Status::ok();
  }

  Status execute(PreparedDelegate &delegate,
                 const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs) override {
    return static_cast<vulkan::VulkanDelegate &>(delegate).execute(inputs,
                                                                   outputs);
  }
};

} // namespace

std::shared_ptr<Backend> makeVulkanBackend() {
  return std::make_shared<VulkanBackend>();
}

} // namespace duet::rt
