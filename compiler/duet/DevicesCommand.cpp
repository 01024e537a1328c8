//===- DevicesCommand.cpp - duet devices ---------------------------------===//
//
// Lists the devices of every backend of the runtime that runs on devices
// (rt::Backend::listDevices), with the limits that decide how duet plans for
// them, marks the one its delegates would run on, and writes a device
// profile that `duet compile --target-profile` reads.
//
//===----------------------------------------------------------------------===//

#include "compiler/duet/Commands.h"
#include "runtime/cli/Environment.h"
#include "runtime/cli/OutputFiles.h"
#include "runtime/cli/PrintableText.h"

#include "runtime/core/Backend.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace duet::cli {
namespace {

using nlohmann::ordered_json;

struct DevicesArgs {
  bool json = false;
  std::string profileOut;
  std::string device;
};

void addFacts(ordered_json &out, const std::vector<rt::DeviceFact> &facts) {
  for (const auto &[name, value] : facts)
    std::visit([&, &name = name](const auto &v) { out[name] = v; }, value);
}

/// "maxImageDimension3D 16384, shaderFloat16 yes".
std::string factsText(const std::vector<rt::DeviceFact> &facts) {
  std::string out;
  for (const auto &[name, value] : facts) {
    std::string text;
    if (const auto *number = std::get_if<uint64_t>(&value))
      text = std::to_string(*number);
    else if (const auto *flag = std::get_if<bool>(&value))
      text = *flag ? "yes" : "no";
    else
      text = std::get<std::string>(value);
    out += (out.empty() ? "" : ", ") + name + " " + text;
  }
  return out;
}

ordered_json deviceJson(const rt::DeviceInfo &info, bool selected) {
  ordered_json out;
  out["index"] = info.index;
  out["name"] = info.name;
  addFacts(out, info.kindFacts);
  out["selected"] = selected;
  out["usable"] = info.unusable.empty();
  if (!info.unusable.empty())
    out["unusable_because"] = info.unusable;
  addFacts(out, info.limits);
  return out;
}

int runDevices(const DevicesArgs &args) {
  if (!args.profileOut.empty()) {
    CommandFiles files;
    files.addOutput("--profile-out", args.profileOut);
    if (int code = files.check())
      return code;
  }
  // Every backend that runs on devices, with the one --device names (or the
  // one a program would run on, under the environment's options) selected.
  rt::LoadOptions options;
  if (rt::Status status = readBackendEnvironment(options); !status.isOk()) {
    printError(status.message());
    return kBadInput;
  }
  std::vector<rt::DeviceList> lists;
  rt::BackendRegistry &registry = rt::defaultBackends();
  for (const std::string &name : registry.names()) {
    rt::Backend *backend = registry.find(name);
    if (!backend->listsDevices())
      continue;
    rt::DeviceList &list = lists.emplace_back();
    rt::Status status = backend->listDevices(args.device, options, list);
    if (!status.isOk()) {
      printError(status.message());
      return kUnsupported;
    }
    if (!list.selected && (!args.profileOut.empty() || !args.device.empty())) {
      printError(list.whyNone);
      return kUnsupported;
    }
  }

  if (args.json) {
    ordered_json all = ordered_json::array();
    for (const rt::DeviceList &list : lists)
      for (const rt::DeviceInfo &info : list.devices)
        all.push_back(deviceJson(info, list.selected == info.index));
    fmt::print("{}\n", dumpJson(all, 2));
  } else {
    for (const rt::DeviceList &list : lists) {
      for (const rt::DeviceInfo &info : list.devices) {
        fmt::print("{}{}: {} ({}){}\n",
                   list.selected == info.index ? "* " : "  ", info.index,
                   info.name, info.kind,
                   info.unusable.empty() ? "" : " unusable: " + info.unusable);
        fmt::print("     {}\n", factsText(info.limits));
      }
      if (list.selected)
        fmt::print("* {}\n", list.selectedNote);
    }
  }

  if (args.profileOut.empty())
    return kOk;
  // The selected device of the first backend whose devices are profiles.
  for (const rt::DeviceList &list : lists) {
    const rt::DeviceInfo &info = list.devices[*list.selected];
    if (info.profile.empty())
      continue;
    ordered_json profile;
    addFacts(profile, info.profile);
    std::string text = dumpJson(profile, 2) + "\n";
    if (int code = writeOutputs({{args.profileOut, text}}))
      return code;
    fmt::print(stderr, "duet: wrote the profile of device {} ({}) to {}\n",
               info.index, info.name, args.profileOut);
    return kOk;
  }
  printError("--profile-out: no backend of this build describes its devices "
             "as target profiles");
  return kUnsupported;
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
