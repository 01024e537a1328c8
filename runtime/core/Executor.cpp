//===- Executor.cpp - runs a loaded program -------------------------------===//

#include "runtime/core/Executor.h"

#include "runtime/core/Escape.h"
#include "runtime/core/Limits.h"
#include "runtime/core/Parallel.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace duet::rt {

namespace {

/// Bytes past the end of the arena that a backend may read: XNNPACK reads up
/// to XNN_EXTRA_BYTES (16) beyond an input, so the last tensor needs them.
constexpr uint64_t kArenaSlack = 64;

/// The node a kernel call stands for, as a profile names it: its first
/// output tensor's name, which the compiler takes from the graph's node.
std::string firstOutputName(const Program &program, const KernelCall &call) {
  if (call.outputs.empty() || call.outputs[0] < 0)
    return "";
  return program.tensors()[call.outputs[0]].name;
}

} // namespace

void *Executor::allocateZeroed(uint64_t bytes, void *&block, uint64_t *extent) {
  // calloc leaves large blocks to the kernel's zero pages instead of writing
  // them, so a huge arena costs nothing until used; an input never set then
  // reads as zeros, not as whatever the memory held.
  // The memory starts at, and runs on to, a multiple of kHostExtentAlignment
  // (Backend.h's DelegateIo), so that backends may work on whole pages of it.
  const uint64_t usable = alignUp(bytes + kArenaSlack, kHostExtentAlignment);
  const uint64_t padded = usable + kHostExtentAlignment;
  if (usable < bytes || padded < usable) // from a file: it may be absurd
    return nullptr;
  block = std::calloc(1, padded);
  if (!block)
    return nullptr;
  if (extent)
    *extent = usable;
  return reinterpret_cast<void *>(
      alignUp(reinterpret_cast<uintptr_t>(block), kHostExtentAlignment));
}

Executor::~Executor() {
  // Delegates may hold pointers into the arena.
  prepared_.clear();
  std::free(arenaBlock_);
  std::free(internalBlock_);
}

Status Executor::create(const Program &program,
                        std::unique_ptr<Executor> &executor) {
  if (program.inspectOnly())
    return Status::error("{}: the program was loaded for inspection only and "
                         "cannot run",
                         program.name());
  std::unique_ptr<Executor> created(new Executor(program));
  DUET_RETURN_IF_ERROR(created->prepare().withContext(program.name()));
  // Worker threads only for a program with portable kernels to split: one
  // whose every step is a delegate starts none.
  if (std::any_of(created->steps_.begin(), created->steps_.end(),
                  [](const Step &step) { return step.kernel != nullptr; }))
    DUET_RETURN_IF_ERROR(sharedWorkerPool(program.threads(), created->pool_)
                             .withContext(program.name()));
  executor = std::move(created);
  return Status::ok();
}

std::vector<TensorView> Executor::bind(const std::vector<int32_t> &ids) const {
  std::vector<TensorView> views;
  views.reserve(ids.size());
  for (int32_t id : ids)
    views.push_back(id < 0 ? TensorView() : views_[id]);
  return views;
}

Status Executor::addKernelStep(const KernelCall &call, std::string where,
                               size_t instruction, int64_t delegateOp) {
  Step step;
  step.computed = call.outputs;
  for (const TensorFault &fault : faults_)
    if (fault.instruction == instruction && fault.delegateOp == delegateOp)
      step.faults.push_back(fault);
  step.where = std::move(where);
  step.kernel = program_.findOpKernel(call.op);
  if (!step.kernel) // the loader checked; a lookup may still change its mind
    return Status::error("{}: no portable kernel implements {}", step.where,
                         escaped(call.op));
  step.attrs = attributeMap(call);
  step.inputs = bind(call.inputs);
  step.outputs = bind(call.outputs);
  steps_.push_back(std::move(step));
  return Status::ok();
}

void Executor::addProfileEntry(size_t instruction, std::string kind,
                               std::string name, std::string node) {
  if (!program_.options().profile.enabled)
    return;
  ProfileEntry entry;
  entry.instruction = instruction;
  entry.kind = std::move(kind);
  entry.name = std::move(name);
  entry.node = std::move(node);
  profile_.push_back(std::move(entry));
}

Status Executor::prepare() {
  const std::vector<TensorInfo> &tensors = program_.tensors();
  const uint64_t arenaBytes = program_.memoryPlan().arenaBytes;
  arena_ = allocateZeroed(arenaBytes, arenaBlock_, &arenaExtent_);
  if (!arena_)
    return Status::error("cannot allocate the {}-byte arena", arenaBytes);

  // The delegates' tensors in reference mode, within the bound on an arena.
  // Each is within kMaxTensorBytes (the loader checked), so stopping at the
  // bound keeps the sum from overflowing.
  uint64_t internalBytes = 0;
  const bool observing = static_cast<bool>(program_.options().observer);
  if (program_.referenceMode() || observing)
    for (const TensorInfo &t : tensors) {
      if (t.kind != TensorKind::delegateInternal)
        continue;
      internalBytes += alignUp(t.nbytes, kConstantAlignment);
      if (internalBytes > kMaxArenaBytes)
        return Status::error("the delegates' tensors take more than {} bytes "
                             "in reference mode, the limit of an arena "
                             "(kMaxArenaBytes)",
                             kMaxArenaBytes);
    }
  if (internalBytes) {
    internal_ = allocateZeroed(internalBytes, internalBlock_);
    if (!internal_)
      return Status::error("cannot allocate {} bytes for the delegates' "
                           "tensors in reference mode",
                           internalBytes);
  }

  views_.resize(tensors.size());
  uint64_t internalOffset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo &t = tensors[i];
    TensorView &view = views_[i];
    switch (t.kind) {
    case TensorKind::constant:
      view = program_.constantView(static_cast<int32_t>(i));
      continue;
    case TensorKind::input:
    case TensorKind::output:
    case TensorKind::activation:
      view.data = static_cast<uint8_t *>(arena_) + t.arenaOffset;
      break;
    case TensorKind::delegateInternal:
      if (internal_) {
        view.data = static_cast<uint8_t *>(internal_) + internalOffset;
        internalOffset += alignUp(t.nbytes, kConstantAlignment);
      }
      break;
    }
    view.dtype = t.dtype;
    view.sizes = t.sizes;
  }

  DUET_RETURN_IF_ERROR(resolveFaults(program_, faults_));
  const std::vector<Instruction> &instructions = program_.instructions();
  for (size_t i = 0; i < instructions.size(); ++i) {
    std::string where = fmt::format("instruction {}", i);
    if (const auto *call = std::get_if<KernelCall>(&instructions[i])) {
      DUET_RETURN_IF_ERROR(addKernelStep(*call, where, i, -1));
      addProfileEntry(i, "kernel", call->op, firstOutputName(program_, *call));
      continue;
    }
    const auto &call = std::get<DelegateCall>(instructions[i]);
    const DelegateInfo &delegate = program_.delegates()[call.delegate];
    if (program_.referenceMode()) {
      for (size_t k = 0; k < delegate.ops.size(); ++k) {
        DUET_RETURN_IF_ERROR(addKernelStep(
            delegate.ops[k],
            fmt::format("{}: delegate {} op {}", where, call.delegate, k), i,
            static_cast<int64_t>(k)));
        addProfileEntry(i, "kernel", delegate.ops[k].op,
                        firstOutputName(program_, delegate.ops[k]));
      }
      continue;
    }
    Backend *backend = program_.backends().find(delegate.backend);
    if (!backend)
      return Status::error("{}: the '{}' backend is not registered", where,
                           escaped(delegate.backend));
    DelegateIo io;
    io.inputs = bind(call.inputs);
    io.outputs = bind(call.outputs);
    io.base = static_cast<uint8_t *>(arena_);
    io.extent = arenaExtent_;
    std::unique_ptr<PreparedDelegate> prepared;
    LoadPhaseClock clock(program_.options().profile.loadPhase);
    DUET_RETURN_IF_ERROR(
        backend->init(program_, call.delegate, delegate.blob, io, prepared)
            .withContext(fmt::format("{}: initializing delegate {} on {}",
                                     where, call.delegate,
                                     escaped(delegate.backend))));
    if (!prepared)
      return Status::error("{}: the {} backend prepared nothing for delegate "
                           "{}",
                           where, escaped(delegate.backend), call.delegate);
    clock.mark(fmt::format("delegate {} on {}", call.delegate,
                           escaped(delegate.backend)));
    Step step;
    step.where = fmt::format("{}: delegate {} on {}", where, call.delegate,
                             escaped(delegate.backend));
    step.backend = backend;
    step.delegate = prepared.get();
    step.inputs = std::move(io.inputs);
    step.outputs = std::move(io.outputs);
    step.computed = call.outputs;
    if (observing)
      for (int32_t id : prepared->observableTensors())
        if (id >= 0 && static_cast<size_t>(id) < tensors.size() &&
            tensors[id].kind == TensorKind::delegateInternal)
          step.readObserved.push_back(id);
    prepared_.push_back(std::move(prepared));
    steps_.push_back(std::move(step));
    addProfileEntry(i, "delegate", delegate.backend,
                    fmt::format("delegate {}", call.delegate));
  }
  return Status::ok();
}

Status Executor::runStep(const Step &step) const {
  Status status =
      step.kernel
          ? step.kernel(step.attrs, step.inputs, step.outputs)
          : step.backend->execute(*step.delegate, step.inputs, step.outputs);
  if (status.isOk())
    for (const TensorFault &fault : step.faults)
      applyFault(fault, views_[fault.tensor]);
  if (status.isOk() && program_.options().observer)
    status = observe(step);
  if (!status.isOk())
    return status.withContext(
        fmt::format("{}: {}", program_.name(), step.where));
  return Status::ok();
}

Status Executor::observe(const Step &step) const {
  const TensorObserver &observer = program_.options().observer;
  for (int32_t id : step.computed)
    if (id >= 0)
      observer(id, views_[id]);
  for (int32_t id : step.readObserved) {
    DUET_RETURN_IF_ERROR(step.delegate->readObserved(id, views_[id])
                             .withContext(fmt::format(
                                 "reading {}", program_.describeTensor(id))));
    observer(id, views_[id]);
  }
  return Status::ok();
}

Status Executor::run() {
  ParallelScope scope(pool_.get());
  if (profile_.empty()) {
    for (const Step &step : steps_)
      DUET_RETURN_IF_ERROR(runStep(step));
    return Status::ok();
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    auto start = std::chrono::steady_clock::now();
    DUET_RETURN_IF_ERROR(runStep(steps_[s]));
    profile_[s].ms = msSince(start);
    if (steps_[s].delegate)
      steps_[s].delegate->profileParts(profile_[s].parts);
  }
  return Status::ok();
}

} // namespace duet::rt
