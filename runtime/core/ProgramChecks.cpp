//===- ProgramChecks.cpp - semantic checks of a decoded program -----------===//
//
// The FlatBuffers verifier only proves that the file's offsets stay inside
// the FlatBuffer. These checks prove what the executor relies on: sizes
// within the bounds of Limits.h, every id names a tensor, every tensor's
// bytes lie inside its segment or the arena, byte counts match sizes and
// dtypes, the instructions form a program that reads only values already
// written and writes no constant or input, and every kernel call is one its
// portable kernel accepts (operand counts, attributes, dtypes, ranks and
// shapes), so that no instruction can fail at run for its form, only for
// values. Names from the file are escaped in every message.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Escape.h"
#include "runtime/core/Limits.h"
#include "runtime/core/OpWork.h"
#include "runtime/core/Program.h"

#include <fmt/ranges.h>

#include <cstdint>

namespace duet::rt {

std::string_view tensorKindName(TensorKind kind) {
  switch (kind) {
  case TensorKind::input:
    return "input";
  case TensorKind::output:
    return "output";
  case TensorKind::constant:
    return "constant";
  case TensorKind::activation:
    return "activation";
  case TensorKind::delegateInternal:
    return "delegate-internal";
  }
  return "unknown";
}

std::string_view storageName(Storage storage) {
  switch (storage) {
  case Storage::buffer:
    return "buffer";
  case Storage::texture3d:
    return "texture3d";
  }
  return "unknown";
}

std::string_view layoutName(Layout layout) {
  switch (layout) {
  case Layout::contiguous:
    return "contiguous";
  case Layout::widthPacked:
    return "width_packed";
  case Layout::heightPacked:
    return "height_packed";
  case Layout::channelsPacked:
    return "channels_packed";
  }
  return "unknown";
}

namespace {

bool isArenaKind(TensorKind kind) {
  return kind == TensorKind::input || kind == TensorKind::output ||
         kind == TensorKind::activation;
}

/// Checks one kernel call and marks its outputs as written. Inside a
/// delegate (`inDelegate`), the call may read and write the delegate's own
/// tensors; `needKernel` asks for a portable kernel, which a delegate's
/// recorded op only needs when it will run in reference mode. A call whose
/// op has a portable kernel of this runtime is checked against it whether
/// or not it will run, so that reference mode refuses nothing more.
class InstructionChecker {
public:
  explicit InstructionChecker(const Program &program, bool ownKernels)
      : program_(program), ownKernels_(ownKernels) {}

  Status checkKernelCall(const KernelCall &call, const std::string &where,
                         bool inDelegate, bool needKernel,
                         std::vector<char> &written) const {
    std::string op = escaped(call.op);
    if (needKernel && !program_.findOpKernel(call.op))
      return Status::error("{}: no portable kernel implements {}; this "
                           "runtime cannot run the op",
                           where, op);
    for (size_t k = 0; k < call.inputs.size(); ++k) {
      int32_t id = call.inputs[k];
      if (id == -1)
        continue;
      DUET_RETURN_IF_ERROR(checkId(id, where, op, "input", k));
      if (kind(id) == TensorKind::delegateInternal && !inDelegate)
        return Status::error("{} ({}): input {} is {}, which lives inside a "
                             "delegate",
                             where, op, k, program_.describeTensor(id));
      if (!written[id] && inDelegate)
        return Status::error("{} ({}): input {} reads {}, which is neither a "
                             "constant, an input of the delegate call nor "
                             "written by an earlier recorded op",
                             where, op, k, program_.describeTensor(id));
      if (!written[id])
        return Status::error("{} ({}): input {} reads {} before any "
                             "instruction writes it",
                             where, op, k, program_.describeTensor(id));
    }
    for (size_t i = 0; i < call.attributes.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (call.attributes[i].name == call.attributes[j].name)
          return Status::error("{} ({}): attribute '{}' is given twice", where,
                               op, escaped(call.attributes[i].name));
    DUET_RETURN_IF_ERROR(
        checkOutputs(call.outputs, where, op, inDelegate, written));
    DUET_RETURN_IF_ERROR(checkDisjoint(call.inputs, call.outputs, where, op));
    if (ownKernels_ && findKernel(call.op))
      return checkOperands(call).withContext(where);
    return Status::ok();
  }

  /// The portable kernel's checks of `call` on its tensors' dtypes and
  /// sizes; every id is known to name a tensor.
  Status checkOperands(const KernelCall &call) const {
    return rt::checkKernelCall(call, program_.tensors());
  }

  Status checkOutputs(const std::vector<int32_t> &outputs,
                      const std::string &where, std::string_view op,
                      bool inDelegate, std::vector<char> &written) const {
    for (size_t k = 0; k < outputs.size(); ++k) {
      int32_t id = outputs[k];
      DUET_RETURN_IF_ERROR(checkId(id, where, op, "output", k));
      TensorKind tensorKind = kind(id);
      bool writable =
          tensorKind == TensorKind::activation ||
          tensorKind == TensorKind::output ||
          (inDelegate && tensorKind == TensorKind::delegateInternal);
      if (!writable)
        return Status::error("{} ({}): output {} is {}, {} tensor, which no "
                             "instruction may write",
                             where, op, k, program_.describeTensor(id),
                             article(tensorKind));
      written[id] = 1;
    }
    return Status::ok();
  }

  /// The memory planner gives an instruction's outputs arena bytes of
  /// their own: an output that overlaps an operand would have a kernel or
  /// a backend read what it is writing (and copy between overlapping
  /// ranges, which memcpy does not allow). Every id is known to be valid.
  Status checkDisjoint(const std::vector<int32_t> &inputs,
                       const std::vector<int32_t> &outputs,
                       const std::string &where, std::string_view op) const {
    auto overlap = [&](int32_t a, int32_t b) {
      const TensorInfo &x = program_.tensors()[a];
      const TensorInfo &y = program_.tensors()[b];
      if (!isArenaKind(x.kind) || !isArenaKind(y.kind) || !x.nbytes ||
          !y.nbytes)
        return false;
      uint64_t xStart = static_cast<uint64_t>(x.arenaOffset);
      uint64_t yStart = static_cast<uint64_t>(y.arenaOffset);
      return xStart < yStart + y.nbytes && yStart < xStart + x.nbytes;
    };
    for (size_t k = 0; k < outputs.size(); ++k) {
      auto clash = [&](std::string_view role, size_t j, int32_t other) {
        return Status::error("{} ({}): output {} is {}, whose arena bytes "
                             "overlap those of {} {}, {}; the plan is corrupt",
                             where, op, k, program_.describeTensor(outputs[k]),
                             role, j, program_.describeTensor(other));
      };
      for (size_t j = 0; j < inputs.size(); ++j)
        if (inputs[j] >= 0 && overlap(outputs[k], inputs[j]))
          return clash("input", j, inputs[j]);
      for (size_t j = 0; j < k; ++j)
        if (overlap(outputs[k], outputs[j]))
          return clash("output", j, outputs[j]);
    }
    return Status::ok();
  }

  Status checkId(int32_t id, const std::string &where, std::string_view op,
                 std::string_view role, size_t index) const {
    if (id >= 0 && static_cast<size_t>(id) < program_.tensors().size())
      return Status::ok();
    return Status::error("{} ({}): {} {} names tensor {}, but the program has "
                         "{} tensors",
                         where, op, role, index, id, program_.tensors().size());
  }

  TensorKind kind(int32_t id) const { return program_.tensors()[id].kind; }

  static std::string article(TensorKind kind) {
    std::string_view name = tensorKindName(kind);
    return fmt::format(
        "{} {}",
        name.front() == 'a' || name.front() == 'i' || name.front() == 'o' ? "an"
                                                                          : "a",
        name);
  }

private:
  const Program &program_;
  /// Kernels come from this runtime's table (findKernel), not a lookup the
  /// caller gave, so the table's declarations apply.
  bool ownKernels_;
};

} // namespace

/// The plan's own figures: an arena within kMaxArenaBytes that holds the
/// bytes it says are alive at once.
Status Program::checkPlanBounds() const {
  if (plan_.arenaBytes > kMaxArenaBytes)
    return Status::error("the memory plan asks for an arena of {} bytes, over "
                         "the limit of {} bytes (kMaxArenaBytes, 16 GiB) a "
                         "program may plan; the plan is corrupt or the model "
                         "too large for duet",
                         plan_.arenaBytes, kMaxArenaBytes);
  if (plan_.peakBytes > plan_.arenaBytes)
    return Status::error("the memory plan's {}-byte arena is smaller than its "
                         "{} bytes alive at once; the plan is corrupt",
                         plan_.arenaBytes, plan_.peakBytes);

  return Status::ok();
}

/// Tensor `i`'s rank, byte count and where its bytes lie: in the constant
/// segment or the arena.
Status Program::checkTensor(size_t i) const {
  const TensorInfo &t = tensors_[i];
  std::string tensor = describeTensor(static_cast<int32_t>(i));
  if (t.sizes.size() > kMaxTensorRank)
    return Status::error("{}: rank {} is over the limit of {} dims "
                         "(kMaxTensorRank); the file is corrupt",
                         tensor, t.sizes.size(), kMaxTensorRank);
  uint64_t bytes = 0;
  if (!tensorBytes(t.dtype, t.sizes, bytes))
    return Status::error("{}: sizes [{}] hold a negative size or a byte "
                         "count that overflows; the file is corrupt",
                         tensor, fmt::join(t.sizes, ", "));
  if (bytes != t.nbytes)
    return Status::error("{}: sizes [{}] of {} take {} bytes but the file "
                         "records {}; the file is corrupt",
                         tensor, fmt::join(t.sizes, ", "), dtypeName(t.dtype),
                         bytes, t.nbytes);
  if (bytes > kMaxTensorBytes)
    return Status::error("{}: sizes [{}] of {} take {} bytes, over the limit "
                         "of {} bytes (kMaxTensorBytes, 4 GiB) one tensor "
                         "may hold; the file is corrupt or the model too "
                         "large for duet",
                         tensor, fmt::join(t.sizes, ", "), dtypeName(t.dtype),
                         bytes, kMaxTensorBytes);
  if (t.kind == TensorKind::constant) {
    if (t.constantOffset % kConstantAlignment != 0)
      return Status::error("{}: constant offset {} is not {}-byte aligned; "
                           "the file is corrupt",
                           tensor, t.constantOffset, kConstantAlignment);
    // Backends read up to kConstantTailBytes past a constant (XNNPACK
    // does), so the segment must go on that far after each one.
    std::optional<uint64_t> end = checkedAdd(t.constantOffset, t.nbytes);
    if (!end || *end > segmentBytes_)
      return Status::error("{}: constant bytes [{}, {}) lie outside the "
                           "{}-byte constant segment; the file is truncated "
                           "or corrupt",
                           tensor, t.constantOffset,
                           t.constantOffset +
                               std::min(t.nbytes, ~t.constantOffset),
                           segmentBytes_);
    if (*end + kConstantTailBytes > segmentBytes_)
      return Status::error("{}: constant bytes [{}, {}) end {} bytes before "
                           "the end of the {}-byte constant segment, which "
                           "must close with {} zero bytes; the file is "
                           "corrupt",
                           tensor, t.constantOffset, *end, segmentBytes_ - *end,
                           segmentBytes_, kConstantTailBytes);
    if (t.dtype == DType::boolean)
      if (std::optional<uint64_t> bad = firstInvalidBool(
              data_ + segmentOffset_ + t.constantOffset, t.nbytes))
        return Status::error("{}: bool element {} holds the byte {}, not 0 "
                             "or 1; the file is corrupt",
                             tensor, *bad,
                             data_[segmentOffset_ + t.constantOffset + *bad]);
  } else if (isArenaKind(t.kind)) {
    if (t.arenaOffset < 0)
      return Status::error("{}: {} tensor has no arena offset; the file is "
                           "corrupt",
                           tensor, InstructionChecker::article(t.kind));
    uint64_t offset = static_cast<uint64_t>(t.arenaOffset);
    if (offset % dtypeSize(t.dtype) != 0)
      return Status::error("{}: arena offset {} is not a multiple of its "
                           "{}-byte elements; the plan is corrupt",
                           tensor, offset, dtypeSize(t.dtype));
    if (offset > plan_.arenaBytes || t.nbytes > plan_.arenaBytes - offset)
      return Status::error("{}: arena bytes [{}, {}) lie outside the {}-byte "
                           "arena; the plan is corrupt",
                           tensor, offset, offset + t.nbytes, plan_.arenaBytes);
  }

  return Status::ok();
}

/// The program's inputs and outputs: tensors of the right kinds, each input
/// listed once, every input and output tensor listed.
Status Program::checkInputsAndOutputs() const {
  const size_t count = tensors_.size();
  auto inRange = [&](int32_t id) {
    return id >= 0 && static_cast<size_t>(id) < count;
  };

  std::vector<char> listed(count, 0);
  for (size_t k = 0; k < inputs_.size(); ++k) {
    int32_t id = inputs_[k];
    if (!inRange(id))
      return Status::error("program input {} names tensor {}, but the program "
                           "has {} tensors",
                           k, id, count);
    if (tensors_[id].kind != TensorKind::input)
      return Status::error("program input {} is {}, {} tensor", k,
                           describeTensor(id),
                           InstructionChecker::article(tensors_[id].kind));
    if (listed[id])
      return Status::error("{} is listed twice among the program's inputs",
                           describeTensor(id));
    listed[id] = 1;
  }
  for (size_t i = 0; i < count; ++i)
    if (tensors_[i].kind == TensorKind::input && !listed[i])
      return Status::error("{} is an input tensor missing from the program's "
                           "inputs",
                           describeTensor(static_cast<int32_t>(i)));

  std::fill(listed.begin(), listed.end(), 0);
  for (size_t k = 0; k < outputs_.size(); ++k) {
    int32_t id = outputs_[k];
    if (!inRange(id))
      return Status::error("program output {} names tensor {}, but the "
                           "program has {} tensors",
                           k, id, count);
    if (tensors_[id].kind == TensorKind::delegateInternal)
      return Status::error("program output {} is {}, which lives inside a "
                           "delegate",
                           k, describeTensor(id));
    listed[id] = 1;
  }
  for (size_t i = 0; i < count; ++i)
    if (tensors_[i].kind == TensorKind::output && !listed[i])
      return Status::error("{} is an output tensor missing from the "
                           "program's outputs",
                           describeTensor(static_cast<int32_t>(i)));

  return Status::ok();
}

/// The instructions in order: each reads only what is written before it,
/// each delegate is called once, and every output is written.
Status Program::checkInstructions() const {
  const size_t count = tensors_.size();
  auto inRange = [&](int32_t id) {
    return id >= 0 && static_cast<size_t>(id) < count;
  };

  // Walk the instructions in order, tracking which tensors hold a value.
  InstructionChecker checker(*this, !options_.kernels && !options_.inspectOnly);
  std::vector<char> written(count, 0);
  for (size_t i = 0; i < count; ++i)
    written[i] = tensors_[i].kind == TensorKind::input ||
                 tensors_[i].kind == TensorKind::constant;
  std::vector<char> called(delegates_.size(), 0);
  const bool runsReference = options_.reference && !options_.inspectOnly;
  for (size_t i = 0; i < instructions_.size(); ++i) {
    std::string where = fmt::format("instruction {}", i);
    if (const auto *call = std::get_if<KernelCall>(&instructions_[i])) {
      DUET_RETURN_IF_ERROR(checker.checkKernelCall(
          *call, where, /*inDelegate=*/false,
          /*needKernel=*/!options_.inspectOnly, written));
      continue;
    }
    const auto &call = std::get<DelegateCall>(instructions_[i]);
    if (call.delegate >= delegates_.size())
      return Status::error("{} calls delegate {}, but the program has {} "
                           "delegates",
                           where, call.delegate, delegates_.size());
    if (called[call.delegate])
      return Status::error("{} calls delegate {} again; each delegate is "
                           "called once",
                           where, call.delegate);
    called[call.delegate] = 1;
    const DelegateInfo &delegate = delegates_[call.delegate];
    std::string backend = escaped(delegate.backend);
    std::string op = fmt::format("delegate {} on {}", call.delegate, backend);

    // The recorded ops see the constants, the call's inputs and what they
    // write themselves.
    std::vector<char> inner(count, 0);
    for (size_t t = 0; t < count; ++t)
      inner[t] = tensors_[t].kind == TensorKind::constant;
    for (size_t k = 0; k < call.inputs.size(); ++k) {
      int32_t id = call.inputs[k];
      DUET_RETURN_IF_ERROR(checker.checkId(id, where, op, "input", k));
      if (tensors_[id].kind == TensorKind::delegateInternal)
        return Status::error("{} ({}): input {} is {}, which lives inside a "
                             "delegate",
                             where, op, k, describeTensor(id));
      if (!written[id])
        return Status::error("{} ({}): input {} reads {} before any "
                             "instruction writes it",
                             where, op, k, describeTensor(id));
      inner[id] = 1;
    }
    for (size_t k = 0; k < delegate.ops.size(); ++k)
      DUET_RETURN_IF_ERROR(checker.checkKernelCall(
          delegate.ops[k], fmt::format("delegate {} op {}", call.delegate, k),
          /*inDelegate=*/true, /*needKernel=*/runsReference, inner));
    if (runsReference && delegate.ops.empty())
      return Status::error("delegate {} on {} records no ops, so it cannot "
                           "run in reference mode",
                           call.delegate, backend);
    if (!delegate.ops.empty()) {
      for (int32_t id : call.outputs)
        if (inRange(id) && !inner[id])
          return Status::error("delegate {} on {}: no recorded op writes its "
                               "output {}",
                               call.delegate, backend, describeTensor(id));
    }
    DUET_RETURN_IF_ERROR(
        checker.checkOutputs(call.outputs, where, op, false, written));
    DUET_RETURN_IF_ERROR(
        checker.checkDisjoint(call.inputs, call.outputs, where, op));
    if (!options_.reference && !options_.inspectOnly &&
        !backends().find(delegate.backend)) {
      std::vector<std::string> names = backends().names();
      return Status::error("delegate {} needs the '{}' backend, which this "
                           "runtime has not registered (registered: {}); "
                           "register it, or run in reference mode to use the "
                           "portable kernels",
                           call.delegate, backend,
                           names.empty()
                               ? std::string("none")
                               : fmt::format("{}", fmt::join(names, ", ")));
    }
  }
  for (size_t d = 0; d < delegates_.size(); ++d)
    if (!called[d])
      return Status::error("delegate {} on {} is never called; the file is "
                           "corrupt",
                           d, escaped(delegates_[d].backend));

  for (size_t k = 0; k < outputs_.size(); ++k)
    if (!written[outputs_[k]])
      return Status::error("program output {} is {}, which no instruction "
                           "writes",
                           k, describeTensor(outputs_[k]));

  return Status::ok();
}

/// The arena is exactly what the planned tensors need.
Status Program::checkArenaSize() const {
  // The compiler's plan is exactly as large as its tensors need (the last
  // one's end, rounded up to kArenaAlignment): a larger arena is memory
  // nothing uses, allocated at load on the file's word.
  uint64_t needed = 0;
  for (const TensorInfo &t : tensors_)
    if (isArenaKind(t.kind))
      needed = std::max(needed, static_cast<uint64_t>(t.arenaOffset) +
                                    std::max<uint64_t>(t.nbytes, 1));
  needed = (needed + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  if (plan_.arenaBytes > needed)
    return Status::error("the memory plan asks for an arena of {} bytes, but "
                         "its tensors need {}; the plan is corrupt",
                         plan_.arenaBytes, needed);

  return Status::ok();
}

Status Program::check() const {
  DUET_RETURN_IF_ERROR(checkPlanBounds());
  for (size_t i = 0; i < tensors_.size(); ++i)
    DUET_RETURN_IF_ERROR(checkTensor(i));
  DUET_RETURN_IF_ERROR(checkInputsAndOutputs());
  DUET_RETURN_IF_ERROR(checkInstructions());
  DUET_RETURN_IF_ERROR(checkArenaSize());

  // Every loop of a run is bounded by the shapes and attributes checked
  // above; their product is bounded here. A delegate's recorded ops stand
  // for its work. A program loaded only to look at it never runs.
  if (options_.inspectOnly)
    return Status::ok();
  return checkWork(programWork(tensors_, instructions_, delegates_),
                   options_.maxWork);
}

} // namespace duet::rt
