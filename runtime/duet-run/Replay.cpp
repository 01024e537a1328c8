//===- Replay.cpp - many runs of one loaded program, compared -------------===//

#include "runtime/duet-run/Replay.h"

#include "runtime/cli/ExitCodes.h"
#include "runtime/cli/Messages.h"
#include "runtime/cli/ProgramInputs.h"
#include "runtime/cli/TensorDifference.h"
#include "runtime/core/Fnv1a.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>

namespace duet::cli {
namespace {

/// Counts run number `index` of a program into `tally`: the hash of its
/// outputs, whether they differ from run 0's and how far from it and from
/// the reference's.
void count(Tally &tally, uint64_t index, uint64_t hash, bool deviates,
           double fromFirst, double fromReference) {
  ++tally.runs;
  if (tally.seen.insert(hash).second)
    tally.hashes.push_back(hash);
  if (deviates)
    tally.deviatingRuns.push_back(index);
  tally.maxDevFromFirst = std::max(tally.maxDevFromFirst, fromFirst);
  tally.maxDevFromReference =
      std::max(tally.maxDevFromReference, fromReference);
}

/// Whether `a` and `b` hold different bytes.
bool differ(const Tensors &a, const Tensors &b) {
  for (size_t i = 0; i < a.size(); ++i) {
    rt::TensorView x = a.view(i), y = b.view(i);
    if (x.bytes() != y.bytes() || std::memcmp(x.data, y.data, x.bytes()) != 0)
      return true;
  }
  return false;
}

} // namespace

Tensors Tensors::copy(const rt::Runtime &runtime,
                      const std::vector<int32_t> &ids) {
  Tensors out;
  for (int32_t id : ids) {
    rt::TensorView view = runtime.tensorView(id);
    const auto *data = static_cast<const uint8_t *>(view.data);
    out.bytes_.emplace_back(data, data + (data ? view.bytes() : 0));
    view.data = nullptr;
    out.shapes_.push_back(std::move(view));
  }
  return out;
}

Tensors Tensors::inputsOf(const rt::Runtime &runtime) {
  return copy(runtime, runtime.program().inputs());
}

Tensors Tensors::outputsOf(const rt::Runtime &runtime) {
  return copy(runtime, runtime.program().outputs());
}

rt::TensorView Tensors::view(size_t index) const {
  rt::TensorView view = shapes_[index];
  // Views are read-only by convention here; TensorView has no const form.
  view.data = const_cast<uint8_t *>(bytes_[index].data());
  return view;
}

uint64_t Tensors::hash() const {
  uint64_t hash = rt::kFnv1aOffsetBasis;
  for (const std::vector<uint8_t> &bytes : bytes_)
    hash = rt::fnv1a(bytes.data(), bytes.size(), hash);
  return hash;
}

rt::Status feedInputs(rt::Runtime &runtime, const Tensors &inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    DUET_RETURN_IF_ERROR(runtime.setInput(i, inputs.view(i)));
  return rt::Status::ok();
}

double maxDeviation(const Tensors &a, const Tensors &b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, difference(a.view(i), b.view(i)).worst());
  return worst;
}

int ReplayedProgram::load(const std::string &path,
                          const rt::LoadOptions &options,
                          std::unique_ptr<ReplayedProgram> &program) {
  std::unique_ptr<ReplayedProgram> loaded(new ReplayedProgram());
  loaded->path_ = path;
  if (int code = loadProgram(path, options, loaded->runtime_))
    return code;
  rt::LoadOptions reference;
  reference.reference = true;
  reference.maxWork = options.maxWork;
  if (int code = loadProgram(path, reference, loaded->referenceRuntime_))
    return code;
  program = std::move(loaded);
  return kOk;
}

int ReplayedProgram::runReference(const Tensors &inputs) {
  rt::Status status = feedInputs(*referenceRuntime_, inputs);
  if (status.isOk())
    status = referenceRuntime_->run();
  if (!status.isOk()) {
    printError(status.withContext("the reference run").message());
    return kFailure;
  }
  reference_ = Tensors::outputsOf(*referenceRuntime_);
  return kOk;
}

int ReplayedProgram::run(const Tensors &inputs, Tally &round,
                         Tensors &outputs) {
  rt::Status status = feedInputs(*runtime_, inputs);
  if (status.isOk())
    status = runtime_->run();
  if (!status.isOk()) {
    printError(
        status.withContext(fmt::format("run {}", total_.runs)).message());
    return kFailure;
  }
  outputs = Tensors::outputsOf(*runtime_);
  if (total_.runs == 0)
    first_ = outputs;
  uint64_t index = total_.runs;
  uint64_t hash = outputs.hash();
  bool deviates = differ(outputs, first_);
  double fromFirst = maxDeviation(outputs, first_);
  double fromReference = maxDeviation(outputs, reference_);
  count(round, index, hash, deviates, fromFirst, fromReference);
  count(total_, index, hash, deviates, fromFirst, fromReference);
  return kOk;
}

} // namespace duet::cli
