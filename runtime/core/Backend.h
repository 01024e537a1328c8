//===- Backend.h - delegates and the registry of backends -------*- C++ -*-===//
//
// A backend (vulkan, xnnpack) turns a delegate blob into something it can run
// and runs it. Backends are registered by name; the loader refuses a program
// whose delegate names a backend that is not registered, unless it runs in
// reference mode.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_BACKEND_H
#define DUET_RUNTIME_CORE_BACKEND_H

#include "runtime/core/DType.h"
#include "runtime/core/ProgramTypes.h"
#include "runtime/core/Status.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace duet::rt {

class Program;

/// What a backend made of a delegate blob at load: compiled pipelines,
/// prepacked weights, an XNNPACK runtime.
class PreparedDelegate {
public:
  virtual ~PreparedDelegate() = default;
};

class Backend {
public:
  virtual ~Backend() = default;

  /// The name delegates are recorded under ("vulkan", "xnnpack").
  virtual std::string_view name() const = 0;

  /// Prepares delegate `index` of `program` from `blob` (its bytes in the
  /// program file). Constant tensors the blob names by id are read through
  /// `program.constantView(id)`; the program outlives the prepared delegate.
  virtual Status init(const Program &program, uint32_t index, ByteSpan blob,
                      std::unique_ptr<PreparedDelegate> &prepared) = 0;

  /// Runs a prepared delegate. `inputs` and `outputs` are host tensors in
  /// the order of the DelegateCall's ids.
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
