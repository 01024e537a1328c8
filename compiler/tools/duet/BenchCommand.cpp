//===- BenchCommand.cpp - duet bench -------------------------------------===//
//
// Latency of a program as the runtime runs it: the load (file read, checks,
// delegates prepared: everything before the first run can start), then
// `--warmup` runs that are not counted and `--iterations` timed runs, of
// which the median, minimum and maximum are printed. Inputs are the given
// .npy files, or seeded random values so that two runs see the same data.
//
//===----------------------------------------------------------------------===//

#include "compiler/tools/duet/Commands.h"
#include "compiler/tools/duet/PrintableText.h"

#include "runtime/core/Runtime.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <thread>

namespace duet::cli {
namespace {

struct BenchArgs {
  std::string program;
  std::vector<std::string> inputs;
  unsigned iterations = 100;
  unsigned warmup = 10;
  unsigned threads = 0;
  bool json = false;
};

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Fills input `index` with values from a generator seeded by `index`:
/// floats in [-1, 1], integers in [0, 8), booleans 0 or 1.
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

int runBench(const BenchArgs &args) {
  rt::LoadOptions options;
  options.threads = args.threads;
  std::unique_ptr<rt::Runtime> runtime;
  auto loadStart = std::chrono::steady_clock::now();
  rt::Status status = rt::Runtime::load(args.program, options, runtime);
  double loadMs = msSince(loadStart);
  if (!status.isOk()) {
    printError(status.message());
    return kBadInput;
  }
  if (!args.inputs.empty() && args.inputs.size() != runtime->inputCount()) {
    printError(fmt::format("{} takes {} input(s), {} given with --input; "
                           "give all of them or none (random inputs)",
                           args.program, runtime->inputCount(),
                           args.inputs.size()));
    return kBadInput;
  }
  for (size_t i = 0; i < runtime->inputCount(); ++i) {
    std::string notice;
    status = args.inputs.empty()
                 ? setRandomInput(*runtime, i)
                 : runtime->setInputFromNpy(i, args.inputs[i], notice);
    if (!status.isOk()) {
      printError(status.message());
      return kBadInput;
    }
  }
  std::vector<double> times;
  times.reserve(args.iterations);
  for (unsigned i = 0; i < args.warmup + args.iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    status = runtime->run();
    double ms = msSince(start);
    if (!status.isOk()) {
      printError(status.message());
      return kFailure;
    }
    if (i >= args.warmup)
      times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  unsigned threads = args.threads
                         ? args.threads
                         : std::max(1u, std::thread::hardware_concurrency());
  if (args.json) {
    nlohmann::ordered_json out;
    out["median_ms"] = median;
    out["min_ms"] = times.front();
    out["max_ms"] = times.back();
    out["load_ms"] = loadMs;
    out["iterations"] = args.iterations;
    out["threads"] = threads;
    fmt::print("{}\n", dumpJson(out));
    return kOk;
  }
  fmt::print("{}: median {:.3f} ms, min {:.3f} ms, max {:.3f} ms over {} runs "
             "({} warm-up), {} thread{}; load {:.2f} ms\n",
             args.program, median, times.front(), times.back(), n, args.warmup,
             threads, threads == 1 ? "" : "s", loadMs);
  return kOk;
}

} // namespace

Runner addBenchCommand(CLI::App &app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App *cmd = app.add_subcommand(
      "bench", "Measure the load time and run latency of a .duet program");
  cmd->add_option("program", args->program, "the .duet program")->required();
  cmd->add_option("-i,--input", args->inputs,
                  "an input .npy, once per model input in the model's order "
                  "(default: seeded random values)");
  cmd->add_option("--iterations", args->iterations, "timed runs (default 100)")
      ->check(CLI::Range(1u, 1000000u));
  cmd->add_option("--warmup", args->warmup,
                  "runs before timing starts (default 10)");
  cmd->add_option("--threads", args->threads,
                  "threads of the CPU delegate (XNNPACK); 0, the default, "
                  "uses one per core")
      ->check(CLI::Range(0u, 1024u));
  cmd->add_flag("--json", args->json,
                "print one JSON object: median_ms, min_ms, max_ms, load_ms, "
                "iterations, threads");
  return [args] { return runBench(*args); };
}

} // namespace duet::cli
