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

#include "test/fuzz/FuzzSupport.h"

#include "runtime/backends/vulkan/DispatchPlan.h"
#include "runtime/backends/xnnpack/XnnpackDelegate.h"
#include "runtime/core/Executor.h"
#include "runtime/core/Program.h"
#include "runtime/schema/program_generated.h"
#include "runtime/schema/vulkan_generated.h"
#include "runtime/schema/xnnpack_generated.h"

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
vulkan::DeviceInfo fakeDevice() {
  vulkan::DeviceInfo device;
  device.name = "fuzz (generic profile)";
  device.type = "other";
  device.apiVersion = "1.1.0";
  vulkan::DeviceLimits &limits = device.limits;
  limits.maxImageDimension3D = 2048;
  limits.maxStorageBufferRange = uint64_t(1) << 27;
  limits.maxComputeWorkGroupInvocations = 1024;
  limits.maxComputeWorkGroupCount = {65535, 65535, 65535};
  limits.maxUniformBufferRange = 65536;
  limits.minUniformBufferOffsetAlignment = 256;
  limits.bufferImageGranularity = 1024;
  return device;
}

/// Checks each delegate blob as its backend's init would.
void checkDelegates(const Program &program) {
  static const vulkan::DeviceInfo device = fakeDevice();
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

/// Open: regressions/fuzz-program/open/bool-constant-byte.duet. The loader
/// takes a bool constant's bytes as they are and the kernels load them as
/// `bool`, undefined for a byte other than 0 or 1.
bool hasNonBooleanByte(const Program &program) {
  for (size_t id = 0; id < program.tensors().size(); ++id) {
    const TensorInfo &t = program.tensors()[id];
    if (t.kind != TensorKind::constant || t.dtype != DType::boolean)
      continue;
    TensorView view = program.constantView(static_cast<int32_t>(id));
    const auto *bytes = static_cast<const uint8_t *>(view.data);
    for (uint64_t i = 0; bytes && i < t.nbytes; ++i)
      if (bytes[i] > 1)
        return true;
  }
  return false;
}

/// Open: regressions/fuzz-program/open/kernel-attribute-overflow.duet. The
/// portable kernels compute output shapes from attributes in unchecked int64
/// (Convolution.cpp's readConvShape: (in - 1) * stride overflows). Programs
/// whose integer attributes all fit in int32 still run.
bool hasHugeAttribute(const Program &program) {
  auto huge = [](const KernelCall &call) {
    for (const Attribute &attr : call.attributes) {
      std::vector<int64_t> values;
      if (const auto *v = std::get_if<int64_t>(&attr.value))
        values.push_back(*v);
      else if (const auto *list =
                   std::get_if<std::vector<int64_t>>(&attr.value))
        values = *list;
      for (int64_t v : values)
        if (v > INT32_MAX || v < INT32_MIN)
          return true;
    }
    return false;
  };
  for (const Instruction &instruction : program.instructions())
    if (const auto *call = std::get_if<KernelCall>(&instruction);
        call && huge(*call))
      return true;
  for (const DelegateInfo &delegate : program.delegates())
    for (const KernelCall &call : delegate.ops)
      if (huge(call))
        return true;
  return false;
}

/// Whether a vector of 8-byte scalars starts off an 8-byte boundary.
template <typename T> bool misaligned(const flatbuffers::Vector<T> *v) {
  static_assert(sizeof(T) == 8);
  return v && reinterpret_cast<uintptr_t>(v->data()) % alignof(T) != 0;
}

bool misalignedIn(const duet::schema::KernelCall *call) {
  if (!call || !call->attributes())
    return false;
  for (const duet::schema::Attribute *attr : *call->attributes())
    if (const auto *list = attr->value_as_IntListValue();
        list && misaligned(list->values()))
      return true;
  return false;
}

bool misalignedInVulkan(const flatbuffers::Vector<uint8_t> &blob) {
  namespace sc = duet::vulkan::schema;
  flatbuffers::Verifier verifier(blob.data(), blob.size());
  if (!sc::VerifyDelegateBuffer(verifier))
    return false;
  const sc::Delegate *root = sc::GetDelegate(blob.data());
  if (root->tensors())
    for (const sc::Tensor *t : *root->tensors())
      if (misaligned(t->sizes()))
        return true;
  if (root->ops())
    for (const sc::Op *op : *root->ops())
      if (const sc::Cat *cat = op->args_as_Cat();
          cat && misaligned(cat->offsets()))
        return true;
  return false;
}

bool misalignedInXnnpack(const flatbuffers::Vector<uint8_t> &blob) {
  namespace sc = duet::xnnpack::schema;
  flatbuffers::Verifier verifier(blob.data(), blob.size());
  if (!sc::VerifyDelegateBuffer(verifier))
    return false;
  const sc::Delegate *root = sc::GetDelegate(blob.data());
  if (root->values())
    for (const sc::Value *v : *root->values())
      if (misaligned(v->dims()))
        return true;
  if (root->steps())
    for (flatbuffers::uoffset_t i = 0; i < root->steps()->size(); ++i)
      if (root->steps_type()->GetEnum<sc::Step>(i) == sc::Step::Subgraph) {
        const auto *graph =
            static_cast<const sc::Subgraph *>(root->steps()->Get(i));
        if (graph->nodes())
          for (const sc::Node *node : *graph->nodes())
            if (misaligned(node->shape()))
              return true;
      }
  return false;
}

/// Open: regressions/fuzz-program/open/misaligned-int64-vector.duet.
/// FlatBuffers 2.0.8's verifier checks a vector's length field for 4-byte
/// alignment only, so a [long] or [ulong] vector (program tensor sizes, int
/// list attributes; in the blobs, sizes, offsets, dims and shapes) may start
/// off an 8-byte boundary, and the loader and both delegates read it as
/// int64. Walks a verified copy aligned as the loader's (64 bytes).
bool hasMisalignedWideVector(const uint8_t *data, size_t size) {
  namespace sc = duet::schema;
  if (size < 8)
    return false;
  std::unique_ptr<uint8_t, decltype(&std::free)> copy(
      static_cast<uint8_t *>(
          std::aligned_alloc(kConstantAlignment, alignUp(size, 64))),
      &std::free);
  std::memcpy(copy.get(), data, size);
  uint64_t bytes = flatbuffers::ReadScalar<uint32_t>(copy.get()) + 4ull;
  if (bytes > size)
    return false;
  flatbuffers::Verifier verifier(copy.get(), bytes);
  if (!sc::VerifySizePrefixedProgramBuffer(verifier))
    return false;
  const sc::Program *root = sc::GetSizePrefixedProgram(copy.get());
  if (root->tensors())
    for (const sc::Tensor *t : *root->tensors())
      if (misaligned(t->sizes()))
        return true;
  if (root->instructions())
    for (flatbuffers::uoffset_t i = 0; i < root->instructions()->size(); ++i)
      if (root->instructions_type()->GetEnum<sc::Instruction>(i) ==
              sc::Instruction::KernelCall &&
          misalignedIn(static_cast<const sc::KernelCall *>(
              root->instructions()->Get(i))))
        return true;
  if (root->delegates())
    for (const sc::Delegate *d : *root->delegates()) {
      if (d->ops())
        for (const sc::KernelCall *call : *d->ops())
          if (misalignedIn(call))
            return true;
      if (d->blob() &&
          (misalignedInVulkan(*d->blob()) || misalignedInXnnpack(*d->blob())))
        return true;
    }
  return false;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // As the XNNPACK backend does, once per process.
  if (xnn_initialize(nullptr) != xnn_status_success)
    std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!duet::fuzz::strict() && hasMisalignedWideVector(data, size))
    return 0;
  LoadOptions options;
  // Reference mode loads without registered backends (the delegate blobs are
  // checked by checkDelegates instead) and runs every op on the kernels.
  options.reference = true;
  options.threads = 1;
  std::unique_ptr<Program> program;
  if (!Program::loadFromBytes(data, size, "fuzz.duet", options, program).isOk())
    return 0;
  checkDelegates(*program);
  if (!duet::fuzz::strict() &&
      (hasNonBooleanByte(*program) || hasHugeAttribute(*program)))
    return 0;
  if (program->memoryPlan().arenaBytes > kMaxRunBytes ||
      internalBytes(*program) > kMaxRunBytes)
    return 0;
  std::unique_ptr<Executor> executor;
  if (!Executor::create(*program, executor).isOk())
    return 0;
  (void)executor->run();
  return 0;
}
