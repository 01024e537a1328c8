//===- Backend.h - delegates and the registry of backends -------*- C++ -*-===//
//
// A backend (runtime/backends/<name>/) turns a delegate blob into something
// it can run and runs it; one that runs on devices lists them for `duet
// devices`. Backends are registered by name (runtime/backends/
// BuiltinBackends.cpp); the loader refuses a program whose delegate names a
// backend that is not registered, unless it runs in reference mode.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_BACKEND_H
#define DUET_RUNTIME_CORE_BACKEND_H

#include "runtime/core/DType.h"
#include "runtime/core/LoadOptions.h"
#include "runtime/core/Profile.h"
#include "runtime/core/ProgramTypes.h"
#include "runtime/core/Status.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace duet::rt {

class Program;

/// What a backend made of a delegate blob at load: compiled pipelines,
/// prepacked weights, an XNNPACK runtime.
class PreparedDelegate {
public:
  virtual ~PreparedDelegate() = default;
  /// The parts of its latest run it timed apart, into `parts` (replaced),
  /// when loaded with LoadOptions::profile.enabled; nothing by default: the
  /// executor's time of the whole call is then the only figure.
  virtual void profileParts(std::vector<ProfilePart> &parts) const {
    parts.clear();
  }
  /// When loaded with LoadOptions::observer: the program tensors inside its
  /// partition (delegate-internal ones) whose values it computes apart, as
  /// the result of a node or dispatch of its own, and can give after a run.
  /// An op fused into the next one has none. Nothing by default.
  virtual std::vector<int32_t> observableTensors() const { return {}; }
  /// Copies tensor `id`, one of observableTensors(), as the latest run
  /// computed it, into `out` (the program's dtype and sizes, row-major).
  virtual Status readObserved(int32_t id, const TensorView &out) const {
    return Status::error("this delegate keeps no tensor {} to read", id);
  }
};

/// The host memory of one delegate call, fixed when the executor prepares
/// it: the views every execute() of the delegate is given (the DelegateCall's
/// inputs and outputs, in its order), and the executor's memory they lie in
/// (the arena), `extent` bytes from `base`, both multiples of
/// kHostExtentAlignment. The executor owns every byte of that extent for the
/// prepared delegate's life, so a backend may read its inputs and write its
/// outputs there in place (the Vulkan delegate has the device copy to and
/// from them, runtime/backends/vulkan/VulkanDelegate.cpp). A view outside
/// the extent (a constant's) is only read.
struct DelegateIo {
  std::vector<TensorView> inputs, outputs;
  uint8_t *base = nullptr;
  size_t extent = 0;
};

/// The alignment of DelegateIo's extent: the largest page size of the hosts
/// duet runs on (64 KiB pages on some ARM kernels), so that a backend may
/// round a view out to whole pages without leaving the extent.
inline constexpr size_t kHostExtentAlignment = 64 * 1024;

/// One fact about a device: a number, a yes or no, or text.
using DeviceFact =
    std::pair<std::string, std::variant<uint64_t, bool, std::string>>;

/// A device a backend can run on, as `duet devices` shows it.
struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  /// What kind of device it is, shown after the name in parentheses
  /// ("discrete GPU, Vulkan 1.3.230").
  std::string kind;
  /// The same as facts, for `--json` ("type", "api_version").
  std::vector<DeviceFact> kindFacts;
  /// Why duet cannot use it; empty when it can.
  std::string unusable;
  /// The limits and features duet plans for, in the driver's names.
  std::vector<DeviceFact> limits;
  /// The device as a target profile of the compiler (`duet compile
  /// --target-profile`), field by field; empty when the backend has none.
  std::vector<DeviceFact> profile;
};

/// A backend's devices and the one its delegates run on.
struct DeviceList {
  std::vector<DeviceInfo> devices;
  /// The index of that device; nothing when none fits (`whyNone` says why).
  std::optional<uint32_t> selected;
  std::string whyNone;
  /// What `duet devices` says under the list when one is selected: how it
  /// was chosen and how to choose another.
  std::string selectedNote;
};

class Backend {
public:
  virtual ~Backend() = default;

  /// The name delegates are recorded under.
  virtual std::string_view name() const = 0;

  /// Whether it runs on devices it can list (listDevices).
  virtual bool listsDevices() const { return false; }
  /// Lists its devices into `list` and selects the one `wanted` names (an
  /// index or a part of a name; empty: the one its delegates would run on
  /// when loaded with `options`). An error when the devices cannot be
  /// listed.
  virtual Status listDevices(const std::string &wanted,
                             const LoadOptions &options, DeviceList &list) {
    return Status::ok();
  }

  /// Prepares delegate `index` of `program` from `blob` (its bytes in the
  /// program file). Constant tensors the blob names by id are read through
  /// `program.constantView(id)`; the program outlives the prepared delegate.
  /// `io` says which host tensors every execute() will be given.
  virtual Status init(const Program &program, uint32_t index, ByteSpan blob,
                      const DelegateIo &io,
                      std::unique_ptr<PreparedDelegate> &prepared) = 0;

  /// Runs a prepared delegate. `inputs` and `outputs` are host tensors in
  /// the order of the DelegateCall's ids: those of init's DelegateIo.
  virtual Status execute(PreparedDelegate &delegate,
                         const std::vector<TensorView> &inputs,
                         const std::vector<TensorView> &outputs) = 0;
};

/// Backends by name.
class BackendRegistry {
public:
  /// Adds `backend`; an error when one of the same name is already there.
  Status add(std::shared_ptr<Backend> backend);
  /// The backend named `name`, or nullptr.
  Backend *find(std::string_view name) const;
  /// Registered names, in registration order.
  std::vector<std::string> names() const;

private:
  std::vector<std::shared_ptr<Backend>> backends_;
};

/// The registry a program uses when its LoadOptions name none: the backends
/// this build has, added on first use by addBuiltinBackends.
BackendRegistry &defaultBackends();

/// Adds the delegate backends built into this runtime (runtime/backends) to
/// `registry`. It is an explicit call rather than static constructors, which
/// a static link drops.
void addBuiltinBackends(BackendRegistry &registry);

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_BACKEND_H
