//===- CallFaults.h - backend calls that fail on purpose -------*- C++ -*-===//
//
// LoadOptions::faults.calls names calls at a backend's edge that fail on
// purpose (include/duet/runtime_options.h, BackendCall), to show that each
// failure is reported cleanly and leaves the process able to load again.
// Each delegate counts its own calls here and asks, before making one,
// whether this one fails; the backend then reports it as the call's own
// failure would be. The names are spelled once here, for the tools'
// `--fail-call` and for the messages.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_CALLFAULTS_H
#define DUET_RUNTIME_BACKENDS_CALLFAULTS_H

#include "duet/runtime_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace duet::rt {

struct BackendCallName {
  runtime::BackendCall call;
  const char *name;
};

/// Every BackendCall by its name, `backend.call`.
inline constexpr BackendCallName kBackendCallNames[] = {
    {runtime::BackendCall::vulkanAllocate, "vulkan.allocate"},
    {runtime::BackendCall::vulkanPipeline, "vulkan.pipeline"},
    {runtime::BackendCall::vulkanSubmit, "vulkan.submit"},
    {runtime::BackendCall::vulkanDeviceLost, "vulkan.device-lost"},
    {runtime::BackendCall::xnnpackCreate, "xnnpack.create"},
    {runtime::BackendCall::xnnpackSetup, "xnnpack.setup"},
};

inline const char *backendCallName(runtime::BackendCall call) {
  for (const BackendCallName &entry : kBackendCallNames)
    if (entry.call == call)
      return entry.name;
  return "unknown";
}

/// The call named `name`; false when none is.
inline bool parseBackendCall(std::string_view name,
                             runtime::BackendCall &call) {
  for (const BackendCallName &entry : kBackendCallNames)
    if (name == entry.name) {
      call = entry.call;
      return true;
    }
  return false;
}

/// One delegate's calls, counted against the faults of its load. A call
/// kind no fault names is not even counted.
class CallFaults {
public:
  explicit CallFaults(const runtime::FaultOptions &faults) {
    // A value outside the enum (an API caller's cast) names no call.
    for (const runtime::BackendCallFault &fault : faults.calls)
      if (index(fault.call) < kCalls)
        failing_[index(fault.call)].push_back(fault.occurrence);
  }

  /// Counts one call of `call`; true when this one must fail.
  bool fails(runtime::BackendCall call) {
    const std::vector<uint32_t> &failing = failing_[index(call)];
    if (failing.empty())
      return false;
    uint32_t made = ++made_[index(call)];
    return std::find(failing.begin(), failing.end(), made) != failing.end();
  }

  /// What a message adds to the failure of a call that fails(): "(injected
  /// on purpose: vulkan.submit:2)".
  std::string injected(runtime::BackendCall call) const {
    return fmt::format("(injected on purpose: {}:{})", backendCallName(call),
                       made_[index(call)]);
  }

private:
  static size_t index(runtime::BackendCall call) {
    return static_cast<size_t>(call);
  }
  static constexpr size_t kCalls = std::size(kBackendCallNames);
  std::array<std::vector<uint32_t>, kCalls> failing_;
  std::array<uint32_t, kCalls> made_{};
};

} // namespace duet::rt

#endif // DUET_RUNTIME_BACKENDS_CALLFAULTS_H
