//===- Runtime.cpp - the public API of the duet runtime -------------------===//

#include "runtime/core/Runtime.h"

#include "runtime/core/Escape.h"
#include "runtime/core/Npy.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace duet::rt {
namespace {

/// `value` + 1, or the next value up where 1 is below its precision, so
/// that a finite value always changes; an infinity or NaN stays.
template <typename T> T plusOne(T value) {
  T raised = value + 1;
  return raised != value
             ? raised
             : std::nextafter(value, std::numeric_limits<T>::infinity());
}

/// The same for a 16-bit float stored as `bits` (fp16 or bf16).
uint16_t plusOne16(uint16_t bits, float (*toFloat)(uint16_t),
                   uint16_t (*fromFloat)(float)) {
  float value = toFloat(bits);
  if (!std::isfinite(value))
    return bits;
  uint16_t raised = fromFloat(value + 1.0f);
  if (raised != bits)
    return raised;
  // One step up in the bit pattern: away from zero for a positive value,
  // toward it for a negative one.
  return static_cast<uint16_t>(bits & 0x8000 ? bits - 1 : bits + 1);
}

} // namespace

Status Runtime::finishLoad(std::unique_ptr<Program> program,
                           std::unique_ptr<Runtime> &runtime) {
  std::unique_ptr<Runtime> created(new Runtime());
  created->program_ = std::move(program);
  DUET_RETURN_IF_ERROR(
      Executor::create(*created->program_, created->executor_));
  runtime = std::move(created);
  return Status::ok();
}

Status Runtime::load(const std::string &path, const LoadOptions &options,
                     std::unique_ptr<Runtime> &runtime) {
  std::unique_ptr<Program> program;
  LoadPhaseClock clock(options.profile.loadPhase);
  DUET_RETURN_IF_ERROR(Program::load(path, options, program));
  clock.mark("the program read and checked");
  return finishLoad(std::move(program), runtime);
}

Status Runtime::loadFromBytes(const void *data, size_t size, std::string name,
                              const LoadOptions &options,
                              std::unique_ptr<Runtime> &runtime) {
  std::unique_ptr<Program> program;
  LoadPhaseClock clock(options.profile.loadPhase);
  DUET_RETURN_IF_ERROR(
      Program::loadFromBytes(data, size, std::move(name), options, program));
  clock.mark("the program read and checked");
  return finishLoad(std::move(program), runtime);
}

const TensorInfo &Runtime::inputInfo(size_t index) const {
  return program_->tensors()[program_->inputs().at(index)];
}

const TensorInfo &Runtime::outputInfo(size_t index) const {
  return program_->tensors()[program_->outputs().at(index)];
}

Status Runtime::checkIndex(size_t index, size_t count,
                           std::string_view what) const {
  if (index < count)
    return Status::ok();
  return Status::error("{}: there is no {} {}; the program has {}",
                       program_->name(), what, index, count);
}

std::string Runtime::describeInput(size_t index) const {
  const TensorInfo &info = inputInfo(index);
  if (info.name.empty())
    return fmt::format("input {}", index);
  return fmt::format("input {} ({})", index, escaped(info.name));
}

Status Runtime::setInput(size_t index, const TensorView &value) {
  DUET_RETURN_IF_ERROR(checkIndex(index, inputCount(), "input"));
  const TensorInfo &info = inputInfo(index);
  if (value.dtype != info.dtype || value.sizes != info.sizes)
    return Status::error("{}: {} takes {} of shape [{}], not {} of shape [{}]",
                         program_->name(), describeInput(index),
                         dtypeName(info.dtype), fmt::join(info.sizes, ", "),
                         dtypeName(value.dtype), fmt::join(value.sizes, ", "));
  if (!value.present() && info.nbytes)
    return Status::error("{}: the value given for {} has no data",
                         program_->name(), describeInput(index));
  if (info.dtype == DType::boolean)
    if (std::optional<uint64_t> bad = firstInvalidBool(value.data, info.nbytes))
      return Status::error("{}: bool element {} of the value given for {} "
                           "holds the byte {}, not 0 or 1",
                           program_->name(), *bad, describeInput(index),
                           static_cast<const uint8_t *>(value.data)[*bad]);
  if (info.nbytes)
    std::memcpy(executor_->view(program_->inputs()[index]).data, value.data,
                info.nbytes);
  return Status::ok();
}

Status Runtime::setInputFromNpy(size_t index, const std::string &path,
                                std::string &notice) {
  notice.clear();
  DUET_RETURN_IF_ERROR(checkIndex(index, inputCount(), "input"));
  NpyArray array;
  DUET_RETURN_IF_ERROR(readNpy(path, array));
  const TensorInfo &info = inputInfo(index);
  return copyNpyInto(array, path, describeInput(index), info.dtype, info.sizes,
                     executor_->view(program_->inputs()[index]).data, notice);
}

Status Runtime::run() {
  DUET_RETURN_IF_ERROR(executor_->run());
  ++runs_;
  plantFaults();
  return Status::ok();
}

void Runtime::plantFaults() {
  uint32_t period = program_->options().faults.nondeterminismPeriod;
  if (!period || runs_ % period != 0)
    return;
  std::vector<int32_t> done;
  for (int32_t id : program_->outputs()) {
    // An output listed twice is one tensor, changed once; only tensors the
    // program computes are changed, never a constant or an input.
    const TensorInfo &info = program_->tensors()[id];
    if (info.kind != TensorKind::output ||
        std::find(done.begin(), done.end(), id) != done.end())
      continue;
    done.push_back(id);
    TensorView view = executor_->view(id);
    if (!view.present() || view.numel() == 0)
      continue;
    switch (view.dtype) {
    case DType::f32:
      view.as<float>()[0] = plusOne(view.as<float>()[0]);
      break;
    case DType::f64:
      view.as<double>()[0] = plusOne(view.as<double>()[0]);
      break;
    case DType::f16:
      view.as<uint16_t>()[0] =
          plusOne16(view.as<uint16_t>()[0], halfToFloat, floatToHalf);
      break;
    case DType::bf16:
      view.as<uint16_t>()[0] =
          plusOne16(view.as<uint16_t>()[0], bf16ToFloat, floatToBf16);
      break;
    default:
      break;
    }
  }
}

TensorView Runtime::output(size_t index) const {
  if (index >= outputCount())
    return TensorView();
  return executor_->view(program_->outputs()[index]);
}

TensorView Runtime::tensorView(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= program_->tensors().size())
    return TensorView();
  return executor_->view(id);
}

Status Runtime::writeOutputNpy(size_t index, const std::string &path,
                               std::string &notice) const {
  notice.clear();
  DUET_RETURN_IF_ERROR(checkIndex(index, outputCount(), "output"));
  return writeNpy(path, output(index), notice);
}

} // namespace duet::rt
