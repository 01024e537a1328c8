//===- CompileCommand.cpp - duet compile ---------------------------------===//

#include "compiler/pipeline/Pipeline.h"
#include "compiler/tools/duet/Commands.h"
#include "runtime/cli/OutputFiles.h"

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
  std::string report;
  bool explain = false;
  bool strict = false;
  bool quiet = false;
};

int runCompile(const CompileArgs &args) {
  CompileOptions options;
  options.backends = args.backends;
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
                      "'portable' alone means no delegate). Default: every "
                      "delegate backend this build can write")
      ->delimiter(',');
  // Each backend's options, in the backends' order.
  for (const partition::DelegateBackend *backend :
       partition::delegateBackends())
    for (const partition::OptionSpec &spec : backend->options()) {
      BackendFlag &flag = args->backendFlags.emplace_back();
      flag.spec = &spec;
      std::string name = "--" + spec.name.str();
      flag.option = spec.isFlag()
                        ? cmd->add_flag(name, flag.set, spec.help.str())
                        : cmd->add_option(name, flag.text, spec.help.str());
    }
  cmd->add_option("--report", args->report,
                  "write the placement report as JSON to this file");
  cmd->add_flag("--explain", args->explain,
                "print each op, where it went and why other backends said no");
  cmd->add_flag("--strict", args->strict,
                "fail (exit 4) when any op falls to the portable kernels");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  return [args] { return runCompile(*args); };
}

} // namespace duet::cli
