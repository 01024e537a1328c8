//===- CompileCommand.cpp - duet compile ---------------------------------===//

#include "compiler/pipeline/Pipeline.h"
#include "compiler/duet/Commands.h"
#include "runtime/cli/Environment.h"
#include "runtime/cli/OutputFiles.h"
#include "runtime/core/Backend.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <chrono>
#include <deque>
#include <memory>

namespace duet::cli {
namespace {

/// A backend option as a flag of `duet compile`.
struct BackendFlag {
  const partition::OptionSpec *spec;
  /// What CLI11 parsed into.
  CLI::Option *option = nullptr;
  std::string text;
  bool set = false;
};

struct CompileArgs {
  std::string input;
  std::string output;
  std::vector<std::string> backends;
  /// Every option of every backend (CLI11 keeps pointers into them).
  std::deque<BackendFlag> backendFlags;
  std::string placement;
  std::string report;
  bool explain = false;
  bool strict = false;
  bool quiet = false;
  double maxWork = 0;
};

/// The target profile option every backend set shares (Vulkan's): the
/// device whose limits and costs the compilation plans for.
constexpr llvm::StringLiteral kTargetProfile = "target-profile";

/// What `duet compile` plans for when told neither --backends nor
/// --target-profile: the machine it runs on.
struct MachineTarget {
  /// The candidate backends; empty: every one of the build.
  std::vector<std::string> backends;
  /// The built-in profile whose limits and costs to plan with.
  std::string profile;
  /// What was found and chosen, for the summary line.
  std::string note;
};

/// The device the runtime's delegates would run on here, if it is a GPU,
/// decides: a GPU (discrete, integrated or virtual) means every backend,
/// with the NVIDIA desktop profile for an NVIDIA device and `generic`
/// otherwise; no device, or a CPU one (Mesa's lavapipe), means XNNPACK and
/// the portable kernels, with the `host-cpu` profile (docs/cli.md).
MachineTarget thisMachine() {
  std::string found = "no Vulkan device";
  std::string backend;
  if (std::optional<rt::DeviceInfo> info = selectedDevice(&backend)) {
    std::string type;
    for (const auto &[fact, value] : info->kindFacts)
      if (fact == "type")
        if (const auto *text = std::get_if<std::string>(&value))
          type = *text;
    if (type == "CPU" || type == "other") {
      found = fmt::format("{} device {} is {} ({})", backend, info->index,
                          info->name, type);
    } else {
      bool nvidia = llvm::StringRef(info->name).contains_insensitive("nvidia");
      MachineTarget target;
      target.profile = nvidia ? "nvidia-desktop" : "generic";
      target.note = fmt::format(
          "planned for this machine's {} ({}): every backend, costs of "
          "profile {}",
          info->name, type, target.profile);
      return target;
    }
  }
  MachineTarget target;
  for (const std::string &name : knownBackends())
    if (name != "vulkan")
      target.backends.push_back(name);
  target.profile = "host-cpu";
  target.note = fmt::format(
      "planned for this machine: no GPU ({}), so {} and the portable kernels; "
      "--backends or --target-profile plans for another",
      found,
      target.backends.empty() ? std::string("none")
                              : fmt::format("{}", fmt::join(target.backends,
                                                            ", ")));
  return target;
}

int runCompile(const CompileArgs &args) {
  CompileOptions options;
  options.backends = args.backends;
  options.maxWork = args.maxWork;
  // Placed by cost unless the backends are named, which keeps their order.
  options.partition.placement =
      args.backends.empty() ? PlacementPolicy::cost : PlacementPolicy::priority;
  if (!args.placement.empty())
    options.partition.placement = *parsePlacementPolicy(args.placement);
  bool profileGiven = false;
  for (const BackendFlag &flag : args.backendFlags)
    profileGiven |= flag.spec->name == kTargetProfile && flag.option->count();
  std::string machineNote;
  if (args.backends.empty() && !profileGiven) {
    MachineTarget machine = thisMachine();
    options.backends = machine.backends;
    options.partition.backendOptions.set(kTargetProfile, machine.profile);
    machineNote = machine.note;
  }
  CommandFiles files;
  files.addInput("the model", args.input);
  for (const BackendFlag &flag : args.backendFlags) {
    if (!flag.option->count())
      continue;
    llvm::StringRef name = flag.spec->name;
    if (flag.spec->isFlag()) {
      options.partition.backendOptions.setFlag(name, flag.set);
      continue;
    }
    options.partition.backendOptions.set(name, flag.text);
    // A value that is no file's path (a profile name) matches no output.
    if (flag.spec->readsFile)
      files.addInput("--" + name.str(), flag.text);
  }
  files.addOutput("-o", args.output);
  if (!args.report.empty())
    files.addOutput("--report", args.report);
  if (int code = files.check())
    return code;

  auto start = std::chrono::steady_clock::now();
  CompileErrorKind kind = CompileErrorKind::internal;
  auto result = compileModel(args.input, options, &kind);
  if (!result) {
    printError(llvm::toString(result.takeError()));
    return kind == CompileErrorKind::badInput      ? kBadInput
           : kind == CompileErrorKind::unsupported ? kUnsupported
                                                   : kFailure;
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();

  std::vector<OutputBytes> outputs = {
      {args.output,
       std::string_view(reinterpret_cast<const char *>(result->program.data()),
                        result->program.size())}};
  std::string report;
  if (!args.report.empty()) {
    report = reportToJson(result->report);
    outputs.push_back({args.report, report});
  }
  if (int code = writeOutputs(outputs))
    return code;
  if (args.explain)
    fmt::print("{}", reportToTable(result->report));

  if (!args.quiet) {
    std::string counts;
    for (const auto &[backend, count] : countByBackend(result->report))
      counts +=
          fmt::format("{}{} {}", counts.empty() ? "" : ", ", backend, count);
    const EmitStats &e = result->emitStats;
    if (!machineNote.empty())
      fmt::print(stderr, "duet: {}\n", machineNote);
    fmt::print(stderr,
               "duet: {} -> {}: {} ops ({}), {} partitions; constants {:.1f} "
               "KiB, arena {:.1f} KiB (lower bound {:.1f} KiB); {:.1f} ms\n",
               args.input, args.output, result->report.ops.size(), counts,
               result->report.partitions.size(), e.constantBytes / 1024.0,
               e.arenaBytes / 1024.0, e.arenaLowerBoundBytes / 1024.0, ms);
  }
  if (args.strict) {
    std::vector<std::string> fallen = portableOps(result->report);
    if (!fallen.empty()) {
      std::string list;
      for (const std::string &line : fallen)
        list += "\n  " + line;
      printError(fmt::format("--strict: {} op(s) fall to the portable kernels "
                             "(backends: {}):{}",
                             fallen.size(),
                             result->backends.empty()
                                 ? std::string("none")
                                 : fmt::format("{}", fmt::join(result->backends, ",")),
                             list));
      return kStrictFallback;
    }
  }
  return kOk;
}

} // namespace

Runner addCompileCommand(CLI::App &app) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App *cmd = app.add_subcommand(
      "compile", "Compile a .pt2 archive (torch.export.save) into a .duet "
                 "program");
  cmd->add_option("model", args->input, "the .pt2 archive")->required();
  cmd->add_option("-o,--output", args->output, "the program file to write")
      ->required();
  cmd->add_option("--backends", args->backends,
                  "delegate backends in priority order, comma separated: " +
                      partition::backendNames(", ", ", ") +
                      ", portable (portable is always the last resort; "
                      "'portable' alone means no delegate). Default: what "
                      "this machine can run (no GPU: every backend but "
                      "vulkan), or with --target-profile every backend")
      ->delimiter(',');
  // Each backend's options, in the backends' order.
  for (const partition::BackendLowering *backend :
       partition::backendLowerings())
    for (const partition::OptionSpec &spec : backend->options()) {
      BackendFlag &flag = args->backendFlags.emplace_back();
      flag.spec = &spec;
      std::string name = "--" + spec.name.str();
      flag.option = spec.isFlag()
                        ? cmd->add_flag(name, flag.set, spec.help.str())
                        : cmd->add_option(name, flag.text, spec.help.str());
    }
  cmd->add_option("--placement", args->placement,
                  "priority: the first backend in --backends order that can "
                  "run an op takes it; cost: the placement with the least "
                  "estimated time under the target profile's costs. Default: "
                  "priority with --backends, cost without")
      ->check(CLI::IsMember({"priority", "cost"}));
  cmd->add_option("--report", args->report,
                  "write the placement report as JSON to this file");
  cmd->add_flag("--explain", args->explain,
                "print each op, where it went and why other backends said no");
  cmd->add_flag("--strict", args->strict,
                "fail (exit 4) when any op falls to the portable kernels");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  cmd->add_option("--max-work", args->maxWork,
                  "refuse a model whose one run takes more work than this "
                  "(multiply-adds or elements visited; 0, the default, is "
                  "1e15); the runtime's --max-work must then allow it too")
      ->check(CLI::NonNegativeNumber);
  return [args] { return runCompile(*args); };
}

} // namespace duet::cli
