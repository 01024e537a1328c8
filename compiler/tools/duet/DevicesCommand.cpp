//===- DevicesCommand.cpp - duet devices ---------------------------------===//
//
// Lists the Vulkan devices with the limits that decide how duet plans for
// them, marks the one `duet run` would use, and writes a device profile that
// `duet compile --target-profile` reads (partitioners/vulkan/DeviceProfile.h
// describes the format).
//
//===----------------------------------------------------------------------===//

#include "compiler/tools/duet/Commands.h"
#include "compiler/tools/duet/OutputFiles.h"
#include "compiler/tools/duet/PrintableText.h"

#include "runtime/backends/vulkan/VulkanDevice.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <memory>

namespace duet::cli {
namespace {

namespace vk = rt::vulkan;
using nlohmann::ordered_json;

struct DevicesArgs {
  bool json = false;
  std::string profileOut;
  std::string device;
};

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

ordered_json deviceJson(const vk::DeviceInfo &info, bool selected) {
  ordered_json out;
  out["index"] = info.index;
  out["name"] = info.name;
  out["type"] = info.type;
  out["api_version"] = info.apiVersion;
  out["selected"] = selected;
  out["usable"] = info.unsuitable.empty();
  if (!info.unsuitable.empty())
    out["unusable_because"] = info.unsuitable;
  out["maxImageDimension3D"] = info.limits.maxImageDimension3D;
  out["maxStorageBufferRange"] = info.limits.maxStorageBufferRange;
  out["maxComputeWorkGroupInvocations"] =
      info.limits.maxComputeWorkGroupInvocations;
  out["shaderFloat16"] = info.shaderFloat16;
  out["storageBuffer16BitAccess"] = info.storageBuffer16BitAccess;
  return out;
}

int runDevices(const DevicesArgs &args) {
  if (!args.profileOut.empty()) {
    CommandFiles files;
    files.addOutput("--profile-out", args.profileOut);
    if (int code = files.check())
      return code;
  }
  std::vector<vk::DeviceInfo> devices;
  rt::Status status = vk::listDevices(devices);
  if (!status.isOk()) {
    printError(status.message());
    return kUnsupported;
  }
  // The device `duet run` would use, or the one --device names.
  std::string wanted = args.device;
  if (wanted.empty())
    if (const char *env = std::getenv(vk::kDeviceVariable))
      wanted = env;
  uint32_t chosen = 0;
  rt::Status selection = vk::selectDevice(devices, wanted, chosen);
  if (!selection.isOk() && (!args.profileOut.empty() || !args.device.empty())) {
    printError(selection.message());
    return kUnsupported;
  }
  bool haveChoice = selection.isOk();

  if (args.json) {
    ordered_json list = ordered_json::array();
    for (const vk::DeviceInfo &info : devices)
      list.push_back(deviceJson(info, haveChoice && info.index == chosen));
    fmt::print("{}\n", dumpJson(list, 2));
  } else {
    for (const vk::DeviceInfo &info : devices) {
      bool selected = haveChoice && info.index == chosen;
      fmt::print("{}{}: {} ({}, Vulkan {}){}\n", selected ? "* " : "  ",
                 info.index, info.name, info.type, info.apiVersion,
                 info.unsuitable.empty() ? ""
                                         : " unusable: " + info.unsuitable);
      fmt::print("     maxImageDimension3D {}, maxStorageBufferRange {}, "
                 "maxComputeWorkGroupInvocations {}, shaderFloat16 {}, "
                 "storageBuffer16BitAccess {}\n",
                 info.limits.maxImageDimension3D,
                 info.limits.maxStorageBufferRange,
                 info.limits.maxComputeWorkGroupInvocations,
                 info.shaderFloat16 ? "yes" : "no",
                 info.storageBuffer16BitAccess ? "yes" : "no");
    }
    if (haveChoice)
      fmt::print("* duet runs Vulkan delegates on this device (choose another "
                 "with {}=<index or part of its name>)\n",
                 vk::kDeviceVariable);
  }

  if (args.profileOut.empty())
    return kOk;
  const vk::DeviceInfo &info = devices[chosen];
  ordered_json profile;
  profile["name"] = slug(info.name);
  profile["device"] =
      fmt::format("{} ({}, Vulkan {})", info.name, info.type, info.apiVersion);
  profile["maxImageDimension3D"] = info.limits.maxImageDimension3D;
  profile["maxStorageBufferRange"] = info.limits.maxStorageBufferRange;
  profile["source"] = "Read from the device's Vulkan driver by `duet devices "
                      "--profile-out`.";
  std::string text = dumpJson(profile, 2) + "\n";
  if (int code = writeOutputs({{args.profileOut, text}}))
    return code;
  fmt::print(stderr, "duet: wrote the profile of device {} ({}) to {}\n",
             info.index, info.name, args.profileOut);
  return kOk;
}

} // namespace

Runner addDevicesCommand(CLI::App &app) {
  auto args = std::make_shared<DevicesArgs>();
  CLI::App *cmd = app.add_subcommand(
      "devices", "List the Vulkan devices and the limits duet plans for");
  cmd->add_flag("--json", args->json, "print the list as JSON");
  cmd->add_option("--profile-out", args->profileOut,
                  "write the device's limits as a profile for `duet compile "
                  "--target-profile FILE`");
  cmd->add_option("--device", args->device,
                  "the device to describe with --profile-out: an index or a "
                  "part of its name (default: the one duet runs on)");
  return [args] { return runDevices(*args); };
}

} // namespace duet::cli
