//===- TuneCommand.cpp - duet-run tune ------------------------------------===//
//
// Placement by cost estimates each op and transfer from a profile's costs
// (docs/profiles.md). `duet-run tune` measures what they really cost here:
// it runs each program it is given with the runtime's profile on, takes the
// median time of every instruction, and compares it with what the costs the
// program was compiled with (Program::targetCosts) estimate for it, with the
// same work counts the compiler used (runtime/core/OpWork.h). Each backend's
// costs are then scaled by measured / estimated over its instructions (the
// portable kernels per work class, since each of their calls is timed on its
// own; a delegate per backend, since a partition is timed as one call), and
// written as a profile with this machine's Vulkan limits. Programs of one
// model compiled for different backend sets (`--backends vulkan`,
// `--backends xnnpack`, `--backends portable`) give every backend its
// measurements.
//
//===----------------------------------------------------------------------===//

#include "runtime/duet-run/TuneCommand.h"

#include "runtime/cli/Environment.h"
#include "runtime/cli/OutputFiles.h"
#include "runtime/cli/PrintableText.h"
#include "runtime/cli/ProfileSummary.h"
#include "runtime/cli/ProgramInputs.h"
#include "runtime/core/AttrMap.h"
#include "runtime/core/Backend.h"
#include "runtime/core/OpWork.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <map>
#include <memory>

namespace duet::cli {
namespace {

using nlohmann::ordered_json;

struct TuneArgs {
  std::vector<std::string> programs;
  std::string output;
  std::string name = "tuned";
  unsigned iterations = 20;
  unsigned warmup = 3;
  unsigned threads = 0;
  double maxWork = 0;
};

using Costs = rt::BackendCosts;

/// Reads the costs object `text` of `program`; an error message otherwise.
std::string parseCosts(const std::string &program, const std::string &text,
                       std::map<std::string, Costs> &costs,
                       std::string &source) {
  if (text.empty())
    return fmt::format("{}: the program records no target costs (it was "
                       "written by a duet older than tuning); compile it "
                       "again",
                       program);
  ordered_json json = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("source"))
    return fmt::format("{}: the program's target costs are not a costs "
                       "object; compile it again",
                       program);
  source = json["source"].is_string() ? json["source"].get<std::string>() : "";
  for (auto &[backend, value] : json.items()) {
    if (backend == "source")
      continue;
    Costs &c = costs[backend];
    auto number = [&](const char *key, double &field) {
      if (value.contains(key) && value[key].is_number())
        field = value[key].get<double>();
    };
    number("call_us", c.callUs);
    number("op_us", c.opUs);
    number("transfer_us", c.transferUs);
    number("transfer_bytes_per_us", c.transferBytesPerUs);
    for (size_t cls = 0; cls < rt::kWorkClasses; ++cls)
      number(std::string(rt::workRateKey(rt::WorkClass(cls))).c_str(),
             c.unitsPerUs[cls]);
  }
  return {};
}

/// Measured and estimated microseconds of some instructions.
struct Sums {
  double measuredUs = 0;
  double estimatedUs = 0;
  size_t instructions = 0;

  void add(double measured, double estimated) {
    measuredUs += measured;
    estimatedUs += estimated;
    ++instructions;
  }
  /// measured / estimated; 1 without measurements.
  double scale() const {
    return instructions && estimatedUs > 0 && measuredUs > 0
               ? measuredUs / estimatedUs
               : 1;
  }
};

/// What tuning gathered over every program.
struct Gathered {
  std::map<std::string, Sums> delegates;
  std::array<Sums, rt::kWorkClasses> portable;
  size_t instructions = 0;
};

rt::OpWork workOf(const rt::Program &program, const rt::KernelCall &call) {
  std::vector<std::vector<int64_t>> inputs, outputs;
  for (int32_t id : call.inputs)
    inputs.push_back(id < 0 ? std::vector<int64_t>{}
                            : program.tensors()[id].sizes);
  for (int32_t id : call.outputs)
    outputs.push_back(program.tensors()[id].sizes);
  bool transposed = rt::attributeMap(call).getBool("transposed").value_or(false);
  return rt::estimateWork(call.op, inputs, outputs, transposed);
}

/// Times `path` and adds its instructions to `gathered`, estimated with
/// `base` (the first program's costs); kOk or an error code.
int measure(const TuneArgs &args, const std::string &path,
            std::map<std::string, Costs> &base, std::string &baseSource,
            Gathered &gathered) {
  rt::LoadOptions options;
  options.threads = args.threads;
  options.maxWork = args.maxWork;
  options.profile.enabled = true;
  std::unique_ptr<rt::Runtime> runtime;
  if (int code = loadProgram(path, options, runtime))
    return code;
  if (int code = setInputs(*runtime, path, {}, RandomInputs::allowed,
                           /*quiet=*/true))
    return code;
  const rt::Program &program = runtime->program();
  if (base.empty()) {
    std::string error =
        parseCosts(path, program.targetCosts(), base, baseSource);
    if (!error.empty()) {
      printError(error);
      return kBadInput;
    }
  } else if (program.targetCosts().empty()) {
    printError(parseCosts(path, "", base, baseSource));
    return kBadInput;
  }

  std::map<size_t, std::vector<double>> times;
  for (unsigned run = 0; run < args.warmup + args.iterations; ++run) {
    rt::Status status = runtime->run();
    if (!status.isOk()) {
      printError(status.withContext(path).message());
      return kFailure;
    }
    if (run < args.warmup)
      continue;
    for (const rt::ProfileEntry &entry : runtime->profile())
      times[entry.instruction].push_back(entry.ms * 1000);
  }

  auto costsOf = [&](const std::string &backend) -> const Costs * {
    auto found = base.find(backend);
    return found == base.end() ? nullptr : &found->second;
  };
  for (const auto &[index, samples] : times) {
    double measured = median(samples);
    const rt::Instruction &instruction = program.instructions()[index];
    if (const auto *call = std::get_if<rt::KernelCall>(&instruction)) {
      const Costs *portable = costsOf("portable");
      if (!portable)
        continue;
      rt::OpWork work = workOf(program, *call);
      gathered.portable[size_t(work.cls)].add(measured, rt::estimateOpUs(*portable, work));
      ++gathered.instructions;
      continue;
    }
    const auto &call = std::get<rt::DelegateCall>(instruction);
    const rt::DelegateInfo &delegate = program.delegates()[call.delegate];
    const Costs *costs = costsOf(delegate.backend);
    if (!costs)
      continue;
    double estimated = costs->callUs;
    for (const rt::KernelCall &op : delegate.ops)
      estimated += rt::estimateOpUs(*costs, workOf(program, op));
    for (const auto *ids : {&call.inputs, &call.outputs})
      for (int32_t id : *ids)
        estimated += rt::estimateTransferUs(*costs, program.tensors()[id].nbytes);
    gathered.delegates[delegate.backend].add(measured, estimated);
    ++gathered.instructions;
  }
  return kOk;
}

ordered_json costsJson(const Costs &costs) {
  ordered_json out;
  auto rounded = [](double value) {
    if (value <= 0)
      return 0.0;
    double scale = std::pow(10.0, 3 - std::floor(std::log10(value)));
    return std::round(value * scale) / scale;
  };
  out["call_us"] = rounded(costs.callUs);
  out["op_us"] = rounded(costs.opUs);
  out["transfer_us"] = rounded(costs.transferUs);
  out["transfer_bytes_per_us"] = rounded(costs.transferBytesPerUs);
  for (size_t cls = 0; cls < rt::kWorkClasses; ++cls)
    out[std::string(rt::workRateKey(rt::WorkClass(cls)))] =
        rounded(costs.unitsPerUs[cls]);
  return out;
}

/// The limits of the device the runtime would use here, as profile fields;
/// nothing without one.
std::vector<rt::DeviceFact> deviceProfile() {
  std::optional<rt::DeviceInfo> device = selectedDevice();
  return device ? device->profile : std::vector<rt::DeviceFact>{};
}

int runTune(const TuneArgs &args) {
  CommandFiles files;
  for (const std::string &program : args.programs)
    files.addInput("the program", program);
  files.addOutput("-o", args.output);
  if (int code = files.check())
    return code;

  std::map<std::string, Costs> base;
  std::string baseSource;
  Gathered gathered;
  for (const std::string &program : args.programs)
    if (int code = measure(args, program, base, baseSource, gathered))
      return code;

  // Scale each backend's costs by what its instructions measured.
  std::map<std::string, Costs> tuned = base;
  std::string scales;
  for (auto &[backend, costs] : tuned) {
    if (backend == "portable") {
      Sums all;
      for (const Sums &sums : gathered.portable) {
        all.measuredUs += sums.measuredUs;
        all.estimatedUs += sums.estimatedUs;
        all.instructions += sums.instructions;
      }
      if (!all.instructions) {
        scales += fmt::format("; portable: not measured, kept");
        continue;
      }
      costs.opUs *= all.scale();
      std::string perClass;
      for (size_t cls = 0; cls < rt::kWorkClasses; ++cls) {
        const Sums &sums = gathered.portable[cls];
        double scale = sums.instructions ? sums.scale() : all.scale();
        costs.unitsPerUs[cls] /= scale;
        perClass += fmt::format("{}{} x{:.3g} ({} calls)",
                                perClass.empty() ? "" : ", ",
                                rt::workRateKey(rt::WorkClass(cls)), 1 / scale,
                                sums.instructions);
      }
      scales += fmt::format("; portable: {}", perClass);
      continue;
    }
    auto found = gathered.delegates.find(backend);
    if (found == gathered.delegates.end()) {
      scales += fmt::format("; {}: not measured, kept", backend);
      continue;
    }
    double scale = found->second.scale();
    costs.callUs *= scale;
    costs.opUs *= scale;
    costs.transferUs *= scale;
    if (costs.transferBytesPerUs > 0)
      costs.transferBytesPerUs /= scale;
    for (double &rate : costs.unitsPerUs)
      rate /= scale;
    scales += fmt::format("; {}: times x{:.3g} ({} partition calls, {:.1f} us "
                          "measured against {:.1f} estimated)",
                          backend, scale, found->second.instructions,
                          found->second.measuredUs, found->second.estimatedUs);
  }

  ordered_json profile;
  std::vector<rt::DeviceFact> device = deviceProfile();
  std::string deviceName = "this machine, with no Vulkan device";
  uint64_t extent = 2048, bufferRange = 134217728;
  for (const auto &[fact, value] : device) {
    if (fact == "device")
      deviceName = std::get<std::string>(value);
    else if (fact == "maxImageDimension3D")
      extent = std::get<uint64_t>(value);
    else if (fact == "maxStorageBufferRange")
      bufferRange = std::get<uint64_t>(value);
  }
  profile["name"] = args.name;
  profile["device"] = deviceName;
  profile["maxImageDimension3D"] = extent;
  profile["maxStorageBufferRange"] = bufferRange;
  profile["source"] =
      device.empty()
          ? std::string("Written by duet-run tune. No Vulkan device here: the "
                        "limits are the generic profile's.")
          : std::string("Written by duet-run tune; the limits are the "
                        "device's, read from its Vulkan driver.");
  ordered_json costs;
  costs["source"] = fmt::format(
      "duet-run tune over {} program(s), {} instructions timed, median of {} "
      "runs each, {} thread(s) for XNNPACK{}. Scaled from: {}",
      args.programs.size(), gathered.instructions, args.iterations,
      args.threads ? std::to_string(args.threads) : "the default",
      scales, baseSource);
  for (const auto &[backend, values] : tuned)
    costs[backend] = costsJson(values);
  profile["costs"] = costs;

  std::string text = dumpJson(profile, 2) + "\n";
  if (int code = writeOutputs({{args.output, text}}))
    return code;
  fmt::print(stderr, "duet-run: timed {} instructions of {} program(s); wrote "
                     "the profile {} to {}\n",
             gathered.instructions, args.programs.size(), args.name,
             args.output);
  return kOk;
}

} // namespace

Runner addTuneCommand(CLI::App &app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App *cmd = app.add_subcommand(
      "tune", "Time programs here and write a target profile whose costs fit "
              "the times, for duet compile --target-profile");
  cmd->add_option("programs", args->programs,
                  "the .duet programs to time: compilations of your models "
                  "for each backend set (--backends vulkan, xnnpack, "
                  "portable), so that every backend is measured")
      ->required();
  cmd->add_option("-o,--output", args->output, "the profile .json to write")
      ->required();
  cmd->add_option("--name", args->name,
                  "the profile's name (default \"tuned\")");
  cmd->add_option("--iterations", args->iterations,
                  "timed runs of each program (default 20)")
      ->check(CLI::Range(1u, 100000u));
  cmd->add_option("--warmup", args->warmup,
                  "runs of each program before timing (default 3)");
  addThreadsOption(*cmd, args->threads);
  addMaxWorkOption(*cmd, args->maxWork);
  return [args] { return runTune(*args); };
}

} // namespace duet::cli
