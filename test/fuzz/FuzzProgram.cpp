//===- FuzzProgram.cpp - libFuzzer target: the program loader ------------===//
//
// A .duet file is untrusted input to the runtime. The target loads the bytes
// (FlatBuffer verification, decoding, the semantic checks of
// ProgramChecks.cpp), then checks every delegate blob the way its backend
// does at load without needing a device: the XNNPACK delegate is created on
// the calling thread, and the Vulkan blob goes through buildDispatchPlan (the
// device-independent half of a Vulkan load) against a made-up device with
// the generic profile's limits. A program that loads with a small arena is
// then run once in reference mode (every op, delegated or not, on the
// portable kernels) on zeroed inputs.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/vulkan/DispatchPlan.h"
#include "runtime/backends/xnnpack/XnnpackDelegate.h"
#include "runtime/core/Executor.h"
#include "runtime/core/Program.h"

#include <xnnpack.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace duet::rt;

namespace {

/// The largest arena (and delegate-internal memory) a fuzz input is run
/// with: the fixtures need well under a megabyte, and a bigger program costs
/// time in the kernels that finds nothing the loader checks would not.
constexpr uint64_t kMaxRunBytes = uint64_t(16) << 20;

/// A device as the generic profile (partitioners/vulkan/profiles) describes
/// it, which is what `duet compile` targets by default.
vulkan::PhysicalDeviceInfo fakeDevice() {
  vulkan::PhysicalDeviceInfo device;
  device.name = "fuzz (generic profile)";
  device.type = "other";
  device.apiVersion = "1.1.0";
  vulkan::DeviceLimits &limits = device.limits;
  limits.maxImageDimension3D = 2048;
  limits.maxStorageBufferRange = uint64_t(1) << 27;
  limits.maxComputeWorkGroupInvocations = 1024;
  limits.maxComputeSharedMemorySize = 32768;
  limits.maxComputeWorkGroupCount = {65535, 65535, 65535};
  limits.maxUniformBufferRange = 65536;
  limits.minUniformBufferOffsetAlignment = 256;
  limits.bufferImageGranularity = 1024;
  return device;
}

/// Checks each delegate blob as its backend's init would.
void checkDelegates(const Program &program) {
  static const vulkan::PhysicalDeviceInfo device = fakeDevice();
  for (uint32_t i = 0; i < program.delegates().size(); ++i) {
    const DelegateInfo &delegate = program.delegates()[i];
    if (delegate.backend == "xnnpack") {
      std::unique_ptr<PreparedDelegate> prepared;
      (void)xnnpack::XnnpackDelegate::create(program, i, delegate.blob,
                                             /*poolOwner=*/nullptr, prepared);
    } else if (delegate.backend == "vulkan") {
      vulkan::DispatchPlan plan;
      (void)vulkan::buildDispatchPlan(program, i, delegate.blob, device,
                                      device.limits, plan);
    }
  }
}

/// The memory reference mode gives the delegates' internal tensors,
/// saturated: the sizes come from the input.
uint64_t internalBytes(const Program &program) {
  uint64_t total = 0;
  for (const TensorInfo &t : program.tensors())
    if (t.kind == TensorKind::delegateInternal &&
        __builtin_add_overflow(total, t.nbytes, &total))
      return UINT64_MAX;
  return total;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // As the XNNPACK backend does, once per process.
  if (xnn_initialize(nullptr) != xnn_status_success)
    std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LoadOptions options;
  // Reference mode loads without registered backends (the delegate blobs are
  // checked by checkDelegates instead) and runs every op on the kernels.
  options.reference = true;
  options.threads = 1;
  std::unique_ptr<Program> program;
  if (!Program::loadFromBytes(data, size, "fuzz.duet", options, program).isOk())
    return 0;
  checkDelegates(*program);
  if (program->memoryPlan().arenaBytes > kMaxRunBytes ||
      internalBytes(*program) > kMaxRunBytes)
    return 0;
  std::unique_ptr<Executor> executor;
  if (!Executor::create(*program, executor).isOk())
    return 0;
  (void)executor->run();
  return 0;
}
