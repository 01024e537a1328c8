//===- BenchCommand.cpp - duet bench, duet-run bench ----------------------===//
//
// Latency of a program as the runtime runs it: the load (file read, checks,
// delegates prepared: everything before the first run can start), then
// `--warmup` runs that are not counted and `--iterations` timed runs, of
// which the median, minimum and maximum are printed. Inputs are the given
// .npy files, or seeded random values so that two runs see the same data.
// With `--profile` the timed runs are profiled (LoadOptions::profile) and a
// table of where their time went follows (ProfileSummary.h). With
// `--reload` the program is loaded a second time once the runs are done,
// beside the first: what the next load of an app that holds a program
// costs, with the process's Vulkan instance and device open and its
// pipeline cache filled. `--load-phases` prints where each load's time went
// (ProfileOptions::loadPhase).
//
//===----------------------------------------------------------------------===//

#include "runtime/cli/Command.h"
#include "runtime/cli/FaultOption.h"
#include "runtime/cli/PrintableText.h"
#include "runtime/cli/ProfileSummary.h"
#include "runtime/cli/ProgramInputs.h"

#include "runtime/core/Runtime.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <memory>

namespace duet::cli {
namespace {

struct BenchArgs {
  std::string program;
  std::vector<std::string> inputs;
  unsigned iterations = 100;
  unsigned warmup = 10;
  unsigned threads = 0;
  double maxWork = 0;
  bool json = false;
  bool profile = false;
  bool reload = false;
  bool loadPhases = false;
  std::vector<std::string> faults;
  std::vector<std::string> failCalls;
};

using Phases = std::vector<std::pair<std::string, double>>;

nlohmann::ordered_json phasesJson(const Phases &phases) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto &[phase, ms] : phases)
    out.push_back({{"phase", phase}, {"ms", ms}});
  return out;
}

void printPhases(const char *title, const Phases &phases) {
  fmt::print("{}:\n", title);
  for (const auto &[phase, ms] : phases)
    fmt::print("  {:9.3f} ms  {}\n", ms, printableName(phase));
}

int runBench(const BenchArgs &args) {
  rt::LoadOptions options;
  options.threads = args.threads;
  options.maxWork = args.maxWork;
  options.profile.enabled = args.profile;
  if (int code = parseFaults(args.faults, options.faults.nodes))
    return code;
  if (int code = parseFailCalls(args.failCalls, options.faults.calls))
    return code;
  Phases loadPhases, reloadPhases;
  Phases *phases = &loadPhases;
  if (args.loadPhases)
    options.profile.loadPhase = [&phases](const std::string &phase,
                                          double ms) {
      phases->emplace_back(phase, ms);
    };
  std::unique_ptr<rt::Runtime> runtime;
  double loadMs = 0;
  if (int code = loadProgram(args.program, options, runtime, &loadMs))
    return code;
  if (int code = setInputs(*runtime, args.program, args.inputs,
                           RandomInputs::allowed, /*quiet=*/false))
    return code;
  std::vector<double> times;
  times.reserve(args.iterations);
  ProfileSummary profile;
  for (unsigned i = 0; i < args.warmup + args.iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    rt::Status status = runtime->run();
    double ms = rt::msSince(start);
    if (!status.isOk()) {
      printError(status.message());
      return static_cast<int>(status.codeOr(ErrorCode::failure));
    }
    if (i < args.warmup)
      continue;
    times.push_back(ms);
    if (args.profile)
      profile.add(runtime->profile());
  }
  double reloadMs = 0;
  std::unique_ptr<rt::Runtime> second;
  phases = &reloadPhases;
  if (args.reload)
    if (int code = loadProgram(args.program, options, second, &reloadMs))
      return code;
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  double medianMs = median(times);
  unsigned threads = runtime->program().threads();
  if (args.json) {
    nlohmann::ordered_json out;
    out["median_ms"] = medianMs;
    out["min_ms"] = times.front();
    out["max_ms"] = times.back();
    out["load_ms"] = loadMs;
    if (args.reload)
      out["reload_ms"] = reloadMs;
    if (args.loadPhases) {
      out["load_phases"] = phasesJson(loadPhases);
      if (args.reload)
        out["reload_phases"] = phasesJson(reloadPhases);
    }
    out["iterations"] = args.iterations;
    out["threads"] = threads;
    if (args.profile)
      out["profile"] = profile.json();
    fmt::print("{}\n", dumpJson(out));
    return kOk;
  }
  fmt::print("{}: median {:.3f} ms, min {:.3f} ms, max {:.3f} ms over {} runs "
             "({} warm-up), {} thread{}; load {:.2f} ms\n",
             args.program, medianMs, times.front(), times.back(), n,
             args.warmup, threads, threads == 1 ? "" : "s", loadMs);
  if (args.reload)
    fmt::print("reload (a second load in this process) {:.2f} ms\n", reloadMs);
  if (args.loadPhases) {
    printPhases("load phases", loadPhases);
    if (args.reload)
      printPhases("reload phases", reloadPhases);
  }
  if (args.profile)
    fmt::print("{}", profile.text());
  return kOk;
}

} // namespace

Runner addBenchCommand(CLI::App &app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App *cmd = addProgramCommand(
      app, "bench", "Measure the load time and run latency of a .duet program",
      args->program);
  addInputOption(*cmd, args->inputs, /*randomDefault=*/true);
  cmd->add_option("--iterations", args->iterations, "timed runs (default 100)")
      ->check(CLI::Range(1u, 1000000u));
  cmd->add_option("--warmup", args->warmup,
                  "runs before timing starts (default 10)");
  addThreadsOption(*cmd, args->threads);
  addMaxWorkOption(*cmd, args->maxWork);
  addInjectFaultOption(*cmd, args->faults);
  addFailCallOption(*cmd, args->failCalls);
  cmd->add_flag("--profile", args->profile,
                "time each instruction of the timed runs, and each step inside "
                "XNNPACK delegates, and print where the time goes (median per "
                "instruction, % of their sum, most first)");
  cmd->add_flag("--reload", args->reload,
                "after the runs, load the program again beside the first and "
                "print that load's time too (the Vulkan device open, its "
                "pipelines cached)");
  cmd->add_flag("--load-phases", args->loadPhases,
                "print where the load's time went (and the reload's): the "
                "program read and checked, each delegate, and inside a Vulkan "
                "delegate its device, plan, memory, pipelines, descriptor "
                "sets, weight upload and recording");
  cmd->add_flag("--json", args->json,
                "print one JSON object: median_ms, min_ms, max_ms, load_ms, "
                "iterations, threads (reload_ms with --reload, load_phases and "
                "reload_phases with --load-phases, profile with --profile)");
  return [args] { return runBench(*args); };
}

} // namespace duet::cli
