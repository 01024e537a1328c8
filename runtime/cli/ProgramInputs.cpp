//===- ProgramInputs.cpp - loading a program and giving it inputs ---------===//

#include "runtime/cli/ProgramInputs.h"

#include "runtime/cli/Environment.h"
#include "runtime/cli/ExitCodes.h"
#include "runtime/cli/FaultOption.h"
#include "runtime/cli/Messages.h"
#include "runtime/core/Npy.h"

#include <fmt/core.h>

#include <chrono>
#include <cstring>
#include <random>

namespace duet::cli {
namespace {

/// Fills input `index` with values from a generator seeded by `index`.
rt::Status setRandomInput(rt::Runtime &runtime, size_t index) {
  const rt::TensorInfo &info = runtime.inputInfo(index);
  std::mt19937 random(static_cast<uint32_t>(index));
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> integer(0, 7);
  size_t count = info.nbytes / rt::dtypeSize(info.dtype);
  std::vector<uint8_t> bytes(info.nbytes);
  for (size_t i = 0; i < count; ++i) {
    uint8_t *at = bytes.data() + i * rt::dtypeSize(info.dtype);
    auto put = [&](auto value) { std::memcpy(at, &value, sizeof value); };
    switch (info.dtype) {
    case rt::DType::f32:
      put(real(random));
      break;
    case rt::DType::f16:
      put(rt::floatToHalf(real(random)));
      break;
    case rt::DType::bf16:
      put(rt::floatToBf16(real(random)));
      break;
    case rt::DType::f64:
      put(static_cast<double>(real(random)));
      break;
    case rt::DType::i64:
      put(static_cast<int64_t>(integer(random)));
      break;
    case rt::DType::i32:
      put(static_cast<int32_t>(integer(random)));
      break;
    case rt::DType::i16:
      put(static_cast<int16_t>(integer(random)));
      break;
    case rt::DType::i8:
      put(static_cast<int8_t>(integer(random)));
      break;
    case rt::DType::u8:
      put(static_cast<uint8_t>(integer(random)));
      break;
    case rt::DType::boolean:
      put(static_cast<uint8_t>(integer(random) & 1));
      break;
    }
  }
  return runtime.setInput(index,
                          rt::TensorView{info.dtype, info.sizes, bytes.data()});
}

} // namespace

int loadProgram(const std::string &path, rt::LoadOptions options,
                std::unique_ptr<rt::Runtime> &runtime, double *loadMs) {
  rt::Status status = readBackendEnvironment(options);
  if (status.isOk()) {
    auto start = std::chrono::steady_clock::now();
    status = rt::Runtime::load(path, options, runtime);
    if (loadMs)
      *loadMs = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  }
  if (status.isOk()) {
    if (!options.faults.nodes.empty())
      noteFaults(*runtime);
    return kOk;
  }
  printError(status.message());
  return static_cast<int>(status.codeOr(ErrorCode::badInput));
}

std::string describeInputs(const rt::Runtime &runtime) {
  std::string text;
  for (size_t i = 0; i < runtime.inputCount(); ++i) {
    const rt::TensorInfo &info = runtime.inputInfo(i);
    text +=
        fmt::format("{}{} {} {}", i ? ", " : "", info.name,
                    rt::dtypeName(info.dtype), rt::formatNpyShape(info.sizes));
  }
  return text;
}

int setInputs(rt::Runtime &runtime, const std::string &program,
              const std::vector<std::string> &paths, RandomInputs random,
              bool quiet) {
  bool useRandom = paths.empty() && random == RandomInputs::allowed;
  if (!useRandom && paths.size() != runtime.inputCount()) {
    if (random == RandomInputs::allowed)
      printError(fmt::format("{} takes {} input(s), {} given with --input; "
                             "give all of them or none (random inputs)",
                             program, runtime.inputCount(), paths.size()));
    else
      printError(fmt::format("{} takes {} input(s) ({}), {} given with --input",
                             program, runtime.inputCount(),
                             describeInputs(runtime), paths.size()));
    return kBadInput;
  }
  for (size_t i = 0; i < runtime.inputCount(); ++i) {
    std::string notice;
    rt::Status status = useRandom
                            ? setRandomInput(runtime, i)
                            : runtime.setInputFromNpy(i, paths[i], notice);
    if (!status.isOk()) {
      printError(status.message());
      return kBadInput;
    }
    if (!notice.empty() && !quiet)
      fmt::print(stderr, "note: {}\n", notice);
  }
  return kOk;
}

} // namespace duet::cli
