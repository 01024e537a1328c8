//===- DeviceProfile.h - Vulkan limits the partitioner plans for -*- C++
//-*-===//
//
// The partitioner plans Vulkan textures and buffers against the limits of a
// target device: a profile (`partitioners/vulkan/profiles/<name>.json`,
// compiled in, or any JSON file of the same form) or explicit
// `texture-limits=X,Y,Z`. A profile states where its numbers come from.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_VULKAN_DEVICEPROFILE_H
#define DUET_PARTITIONERS_VULKAN_DEVICEPROFILE_H

#include "partitioners/common/CostModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace duet::partition {

/// A device profile: the Vulkan limits the layout rules depend on.
struct DeviceProfile {
  /// The profile's name ("generic", "adreno", ...).
  std::string name;
  /// The devices it describes, in words.
  std::string device;
  /// Where the numbers come from (specification, driver source, measured).
  std::string source;
  /// VkPhysicalDeviceLimits::maxImageDimension3D: the largest extent of a
  /// 3-D image along any axis.
  int64_t maxImageDimension3D = 0;
  /// VkPhysicalDeviceLimits::maxStorageBufferRange: the largest storage
  /// buffer a shader can address, in bytes.
  int64_t maxStorageBufferRange = 0;
  /// "built-in" or the file the profile was read from.
  std::string origin;
  /// What each backend's ops and transfers cost on the device (the
  /// profile's optional "costs" object), for placement by cost.
  std::optional<TargetCosts> costs;
};

/// The limits one compilation plans Vulkan storage against.
struct VulkanLimits {
  /// The largest image extent per axis (x, y, z), in texels.
  std::array<int64_t, 3> maxExtent = {2048, 2048, 2048};
  /// The largest storage buffer, in bytes.
  int64_t maxStorageBufferRange = 134217728;
  /// Where these limits come from: "profile generic (built-in)",
  /// "texture-limits option; profile generic (built-in) for buffers".
  std::string origin;
  /// The profile's costs; those of the built-in "generic" when the profile
  /// states none (their origin says so).
  std::shared_ptr<const TargetCosts> costs;
};

/// The names of the compiled-in profiles, sorted.
std::vector<std::string> builtinProfileNames();

/// Parses a profile from JSON text; `origin` names it in errors.
llvm::Expected<DeviceProfile> parseDeviceProfile(llvm::StringRef json,
                                                 llvm::StringRef origin);

/// A compiled-in profile by name, or a profile file by path (a value with a
/// '/' or ending in ".json" is a path).
llvm::Expected<DeviceProfile> loadDeviceProfile(llvm::StringRef nameOrPath);

/// The limits for a compilation: those of `profile` (the built-in "generic"
/// when empty), with the image extents replaced by `textureLimits` when given.
/// An unknown profile, a bad profile file or a limit below 1 is an error.
llvm::Expected<VulkanLimits>
resolveVulkanLimits(llvm::StringRef profile,
                    std::optional<std::array<int64_t, 3>> textureLimits);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_VULKAN_DEVICEPROFILE_H
