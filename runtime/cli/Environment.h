//===- Environment.h - the variables duet's tools read ----------*- C++ -*-===//
//
// The one place under runtime/ that reads the environment: the runtime
// itself takes every choice through LoadOptions, and the command-line tools
// (`duet`, `duet-run`) translate their variables here. The variables are
// documented in docs/cli.md and docs/vulkan.md.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_ENVIRONMENT_H
#define DUET_RUNTIME_CLI_ENVIRONMENT_H

#include "runtime/core/Backend.h"
#include "runtime/core/LoadOptions.h"
#include "runtime/core/Status.h"

#include <optional>
#include <string>

namespace duet::cli {

/// The value of the variable `name`; empty when it is unset.
std::string environmentValue(const char *name);

/// The folder of the Vulkan pipeline cache: DUET_VULKAN_PIPELINE_CACHE, none
/// when it is `off`, and when it is unset `duet` under $XDG_CACHE_HOME, else
/// under ~/.cache.
std::string pipelineCacheFolder();

/// The backends' load options from the environment: `options.vulkan` from
/// DUET_VULKAN_DEVICE and the test hooks
/// DUET_VULKAN_TEST_MAX_IMAGE_3D, DUET_VULKAN_TEST_MAX_STORAGE_BUFFER_RANGE
/// (positive whole numbers), DUET_VULKAN_TEST_NO_FP16_IMAGES and
/// DUET_VULKAN_TEST_DEVICE_STAGING (set to any value), and
/// `options.xnnpackOnly` from DUET_XNNPACK_ONLY (set to any value). An error
/// names a variable whose value is not such a number.
rt::Status readBackendEnvironment(rt::LoadOptions &options);

/// The device the runtime's delegates would run on here, under the
/// environment's Vulkan options: the selected device of the first backend
/// that lists devices and selects one, with that backend's name in
/// `backend`. Nothing when no backend selects a device (or the environment's
/// options are bad, which `duet devices` reports).
std::optional<rt::DeviceInfo> selectedDevice(std::string *backend = nullptr);

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_ENVIRONMENT_H
