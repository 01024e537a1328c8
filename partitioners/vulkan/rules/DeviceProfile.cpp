//===- DeviceProfile.cpp - Vulkan limits the partitioner plans for --------===//
//
// Profiles are read with llvm::json because its parse errors carry the line
// and column, which a user editing a profile needs, and it reports errors
// without exceptions (the compiler is built without them).
//
//===----------------------------------------------------------------------===//

#include "partitioners/vulkan/rules/DeviceProfile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace duet::partition {

namespace {

struct BuiltinProfile {
  const char *name;
  const char *json;
};

// Generated from partitioners/vulkan/profiles/*.json at configure time.
constexpr BuiltinProfile kBuiltinProfiles[] = {
#include "partitioners/vulkan/VulkanProfiles.inc"
};

/// The largest value a Vulkan uint32_t limit can hold.
constexpr int64_t kMaxUint32 = 4294967295;

llvm::Error profileError(llvm::StringRef origin, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "device profile " + origin + ": " + message);
}

/// Reads a limit: a whole number in [1, 2^32-1], as Vulkan reports it.
llvm::Expected<int64_t> readLimit(const llvm::json::Object &object,
                                  llvm::StringRef key, llvm::StringRef origin) {
  const llvm::json::Value *value = object.get(key);
  if (!value)
    return profileError(origin, "missing \"" + key + "\"");
  std::optional<int64_t> number = value->getAsInteger();
  if (!number || *number < 1 || *number > kMaxUint32)
    return profileError(origin, "\"" + key +
                                    "\" must be a whole number from 1 to " +
                                    llvm::Twine(kMaxUint32));
  return *number;
}

/// Reads a non-empty string field.
llvm::Expected<std::string> readText(const llvm::json::Object &object,
                                     llvm::StringRef key,
                                     llvm::StringRef origin, bool required) {
  const llvm::json::Value *value = object.get(key);
  if (!value) {
    if (required)
      return profileError(origin, "missing \"" + key + "\"");
    return std::string();
  }
  std::optional<llvm::StringRef> text = value->getAsString();
  if (!text || text->empty())
    return profileError(origin, "\"" + key + "\" must be a non-empty string");
  return text->str();
}

} // namespace

std::vector<std::string> builtinProfileNames() {
  std::vector<std::string> names;
  for (const BuiltinProfile &profile : kBuiltinProfiles)
    names.push_back(profile.name);
  std::sort(names.begin(), names.end());
  return names;
}

llvm::Expected<DeviceProfile> parseDeviceProfile(llvm::StringRef json,
                                                 llvm::StringRef origin) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return profileError(origin, "not valid JSON: " +
                                    llvm::toString(parsed.takeError()));
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return profileError(origin, "must be a JSON object");

  static constexpr llvm::StringLiteral kKeys[] = {"name",
                                                  "device",
                                                  "source",
                                                  "maxImageDimension3D",
                                                  "maxStorageBufferRange",
                                                  "costs"};
  for (const auto &entry : *object)
    if (!llvm::is_contained(kKeys, entry.first.str()))
      return profileError(origin,
                          "unknown key \"" + entry.first.str() +
                              "\"; a profile has name, device, source, "
                              "maxImageDimension3D, maxStorageBufferRange, "
                              "costs");

  DeviceProfile profile;
  profile.origin = origin.str();
  auto name = readText(*object, "name", origin, /*required=*/true);
  if (!name)
    return name.takeError();
  auto device = readText(*object, "device", origin, /*required=*/false);
  if (!device)
    return device.takeError();
  auto source = readText(*object, "source", origin, /*required=*/true);
  if (!source)
    return source.takeError();
  auto extent = readLimit(*object, "maxImageDimension3D", origin);
  if (!extent)
    return extent.takeError();
  auto bufferRange = readLimit(*object, "maxStorageBufferRange", origin);
  if (!bufferRange)
    return bufferRange.takeError();
  profile.name = std::move(*name);
  profile.device = std::move(*device);
  profile.source = std::move(*source);
  profile.maxImageDimension3D = *extent;
  profile.maxStorageBufferRange = *bufferRange;
  if (const llvm::json::Value *costs = object->get("costs")) {
    const llvm::json::Object *costObject = costs->getAsObject();
    if (!costObject)
      return profileError(origin, "\"costs\" must be an object");
    auto parsed = TargetCosts::parse(*costObject, origin);
    if (!parsed)
      return parsed.takeError();
    profile.costs = std::move(*parsed);
  }
  return profile;
}

llvm::Expected<DeviceProfile> loadDeviceProfile(llvm::StringRef nameOrPath) {
  bool isPath = nameOrPath.contains('/') || nameOrPath.ends_with(".json");
  if (!isPath) {
    for (const BuiltinProfile &builtin : kBuiltinProfiles) {
      if (nameOrPath != builtin.name)
        continue;
      auto profile = parseDeviceProfile(builtin.json, "\"" + nameOrPath.str() +
                                                          "\" (built-in)");
      if (profile)
        profile->origin = "built-in";
      return profile;
    }
    std::string known;
    for (const std::string &name : builtinProfileNames())
      known += (known.empty() ? "" : ", ") + name;
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown device profile \"" + nameOrPath.str() +
            "\"; built-in profiles: " + known +
            "; or give the path of a profile .json file");
  }
  auto buffer = llvm::MemoryBuffer::getFile(nameOrPath, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read device profile " + nameOrPath +
                                       ": " + buffer.getError().message());
  return parseDeviceProfile((*buffer)->getBuffer(), nameOrPath);
}

llvm::Expected<VulkanLimits>
resolveVulkanLimits(llvm::StringRef profileName,
                    std::optional<std::array<int64_t, 3>> textureLimits) {
  auto profile =
      loadDeviceProfile(profileName.empty() ? "generic" : profileName);
  if (!profile)
    return profile.takeError();
  VulkanLimits limits;
  std::string described =
      "profile " + profile->name + " (" + profile->origin + ")";
  limits.maxExtent.fill(profile->maxImageDimension3D);
  limits.maxStorageBufferRange = profile->maxStorageBufferRange;
  limits.origin = described;
  if (profile->costs) {
    auto costs = std::make_shared<TargetCosts>(std::move(*profile->costs));
    costs->setOrigin(described);
    limits.costs = std::move(costs);
  } else {
    auto generic = loadDeviceProfile("generic");
    if (!generic)
      return generic.takeError();
    auto costs = std::make_shared<TargetCosts>(std::move(*generic->costs));
    costs->setOrigin("profile generic (built-in), since " + described +
                     " states no costs");
    limits.costs = std::move(costs);
  }
  if (textureLimits) {
    for (int64_t limit : *textureLimits)
      if (limit < 1 || limit > kMaxUint32)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "texture-limits must be three whole numbers from 1 to " +
                std::to_string(kMaxUint32) + ", got " + std::to_string(limit));
    limits.maxExtent = *textureLimits;
    limits.origin = "texture-limits option; " + described + " for buffers";
  }
  return limits;
}

} // namespace duet::partition
