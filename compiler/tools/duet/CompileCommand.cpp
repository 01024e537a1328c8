//===- CompileCommand.cpp - duet compile ---------------------------------===//

#include "compiler/pipeline/Pipeline.h"
#include "compiler/tools/duet/Commands.h"
#include "compiler/tools/duet/OutputFiles.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <sstream>

namespace duet::cli {
namespace {

struct CompileArgs {
  std::string input;
  std::string output;
  std::vector<std::string> backends;
  std::string textureLimits;
  std::string targetProfile;
  bool enableBf16 = false;
  bool forceFp16 = false;
  std::string report;
  bool explain = false;
  bool strict = false;
  bool quiet = false;
};

bool parseLimits(const std::string &text, std::array<int64_t, 3> &limits) {
  std::istringstream in(text);
  std::string part;
  for (int i = 0; i < 3; ++i) {
    if (!std::getline(in, part, ','))
      return false;
    try {
      size_t used = 0;
      long long value = std::stoll(part, &used);
      if (used != part.size() || value < 1)
        return false;
      limits[i] = value;
    } catch (const std::exception &) {
      return false;
    }
  }
  return !std::getline(in, part, ',');
}

int runCompile(const CompileArgs &args) {
  CompileOptions options;
  options.backends = args.backends;
  options.partition.enableBf16 = args.enableBf16;
  options.partition.targetProfile = args.targetProfile;
  options.forceFp16 = args.forceFp16;
  if (!args.textureLimits.empty()) {
    std::array<int64_t, 3> limits;
    if (!parseLimits(args.textureLimits, limits)) {
      printError("--texture-limits takes three positive integers X,Y,Z, got '" +
                 args.textureLimits + "'");
      return kBadInput;
    }
    options.partition.textureLimits = limits;
  }
  CommandFiles files;
  files.addInput("the model", args.input);
  // A profile name that is no file's path matches no output.
  if (!args.targetProfile.empty())
    files.addInput("--target-profile", args.targetProfile);
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

  BackendCounts counts = countByBackend(result->report);
  if (!args.quiet) {
    const EmitStats &e = result->emitStats;
    fmt::print(stderr,
               "duet: {} -> {}: {} ops (vulkan {}, xnnpack {}, portable {}), "
               "{} partitions; constants {:.1f} KiB, arena {:.1f} KiB (lower "
               "bound {:.1f} KiB); {:.1f} ms\n",
               args.input, args.output, result->report.ops.size(), counts.vulkan,
               counts.xnnpack, counts.portable, result->report.partitions.size(),
               e.constantBytes / 1024.0, e.arenaBytes / 1024.0,
               e.arenaLowerBoundBytes / 1024.0, ms);
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
                  "delegate backends in priority order, comma separated: "
                  "vulkan, xnnpack, portable (portable is always the last "
                  "resort; 'portable' alone means no delegate). Default: every "
                  "delegate backend this build can write")
      ->delimiter(',');
  cmd->add_option("--texture-limits", args->textureLimits,
                  "Vulkan 3-D image extent limits X,Y,Z (overrides the "
                  "profile's)");
  cmd->add_option("--target-profile", args->targetProfile,
                  "a device profile name (generic, lavapipe, "
                  "nvidia-desktop, adreno, mali, powervr-dxt-48-1536) or a "
                  "profile .json file");
  cmd->add_flag("--enable-bf16", args->enableBf16,
                "let XNNPACK take bf16 ops it can compute in fp32 (decided "
                "per op)");
  cmd->add_flag("--force-fp16", args->forceFp16,
                "keep Vulkan textures in RGBA16F images instead of RGBA32F "
                "(fp16 storage, fp32 math; inputs and outputs keep their "
                "dtypes)");
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
