//===- RunCommand.cpp - duet run, duet-run run ----------------------------===//

#include "runtime/cli/Command.h"
#include "runtime/cli/FaultOption.h"
#include "runtime/cli/OutputFiles.h"
#include "runtime/cli/ProgramInputs.h"
#include "runtime/cli/TensorDifference.h"

#include "runtime/core/Npy.h"
#include "runtime/core/Runtime.h"

#include <fmt/core.h>

#include <chrono>
#include <memory>

namespace duet::cli {
namespace {

struct RunArgs {
  std::string program;
  std::vector<std::string> inputs;
  std::string output;
  std::string outputDir;
  std::vector<std::string> expect;
  double rtol = -1;
  double atol = -1;
  bool reference = false;
  bool quiet = false;
  unsigned threads = 0;
  double maxWork = 0;
  std::vector<std::string> faults;
  std::vector<std::string> failCalls;
};

/// Compares output `index` with the reference file; prints one line.
int compareOutput(rt::Runtime &runtime, size_t index, const std::string &path,
                  const RunArgs &args) {
  rt::NpyArray ref;
  rt::Status status = rt::readNpy(path, ref);
  if (!status.isOk()) {
    printError(status.message());
    return kBadInput;
  }
  rt::TensorView out = runtime.output(index);
  const rt::TensorInfo &info = runtime.outputInfo(index);
  rt::TensorView refView{ref.dtype, ref.sizes, ref.data.data()};
  if (ref.sizes != out.sizes) {
    printError(fmt::format("{}: shape {} differs from output {} ({}) shape {}",
                           path, rt::formatNpyShape(ref.sizes), index,
                           info.name, rt::formatNpyShape(out.sizes)));
    return kMismatch;
  }
  if (!referenceDtypeMatches(out.dtype, ref.dtype)) {
    printError(fmt::format("{}: dtype {} differs from output {} ({}) dtype {}",
                           path, rt::dtypeName(ref.dtype), index, info.name,
                           rt::dtypeName(out.dtype)));
    return kMismatch;
  }
  double rtol, atol;
  defaultTolerance(out.dtype, rtol, atol);
  if (args.rtol >= 0)
    rtol = args.rtol;
  if (args.atol >= 0)
    atol = args.atol;
  Closeness close = closeness(out, refView, rtol, atol);
  const Difference &diff = close.difference;
  bool ok = close.ok();
  fmt::print("output {} ({}): max abs diff {:.3g} vs {} (per element |diff| "
             "<= {:g} + {:g}*|ref|: {}){} {}\n",
             index, info.name, diff.maxAbs, path, atol, rtol,
             describeCloseness(close, out.sizes),
             diff.nan ? ", NaN where the reference has none" : "",
             ok ? "ok" : "MISMATCH");
  return ok ? kOk : kMismatch;
}

int runRun(const RunArgs &args) {
  rt::LoadOptions options;
  options.reference = args.reference;
  options.threads = args.threads;
  options.maxWork = args.maxWork;
  if (int code = parseFaults(args.faults, options.faults.nodes))
    return code;
  if (int code = parseFailCalls(args.failCalls, options.faults.calls))
    return code;
  std::unique_ptr<rt::Runtime> runtime;
  if (int code = loadProgram(args.program, options, runtime))
    return code;
  size_t outputs = runtime->outputCount();
  if (!args.output.empty() && outputs != 1) {
    printError(fmt::format("{} has {} outputs: use --output-dir", args.program,
                           outputs));
    return kBadInput;
  }
  if (!args.expect.empty() && args.expect.size() != outputs) {
    printError(fmt::format("{} has {} output(s), {} given with --expect",
                           args.program, outputs, args.expect.size()));
    return kBadInput;
  }
  // The output paths are known once the program says how many outputs it
  // has; they are checked before anything runs.
  std::vector<std::string> outputPaths;
  if (!args.output.empty())
    outputPaths.push_back(args.output);
  else if (!args.outputDir.empty())
    for (size_t i = 0; i < outputs; ++i)
      outputPaths.push_back(fmt::format("{}/output{}.npy", args.outputDir, i));
  CommandFiles files;
  files.addInput("the program", args.program);
  for (const std::string &input : args.inputs)
    files.addInput("--input", input);
  for (const std::string &reference : args.expect)
    files.addInput("--expect", reference);
  for (const std::string &path : outputPaths)
    files.addOutput(args.output.empty() ? "--output-dir" : "-o", path);
  if (int code = files.check())
    return code;

  if (int code = setInputs(*runtime, args.program, args.inputs,
                           RandomInputs::refused, args.quiet))
    return code;
  auto start = std::chrono::steady_clock::now();
  rt::Status status = runtime->run();
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (!status.isOk()) {
    printError(status.message());
    return static_cast<int>(status.codeOr(ErrorCode::failure));
  }
  if (!args.quiet)
    fmt::print(stderr, "duet: ran {} in {:.2f} ms{}\n", args.program, ms,
               args.reference ? " (reference: portable kernels only)" : "");

  std::vector<std::vector<uint8_t>> encoded(outputPaths.size());
  std::vector<OutputBytes> writes;
  for (size_t i = 0; i < outputPaths.size(); ++i) {
    std::string notice;
    status = rt::encodeNpy(runtime->output(i), encoded[i], notice);
    if (!status.isOk()) {
      printError(status.withContext(outputPaths[i]).message());
      return kIoError;
    }
    if (!notice.empty() && !args.quiet)
      fmt::print(stderr, "note: {}: {}\n", outputPaths[i], notice);
    writes.push_back(
        {outputPaths[i],
         std::string_view(reinterpret_cast<const char *>(encoded[i].data()),
                          encoded[i].size())});
  }
  if (int code = writeOutputs(writes))
    return code;
  if (!args.expect.empty()) {
    int worst = kOk;
    for (size_t i = 0; i < outputs; ++i) {
      int code = compareOutput(*runtime, i, args.expect[i], args);
      if (code != kOk)
        worst = code;
    }
    return worst;
  }
  return kOk;
}

} // namespace

Runner addRunCommand(CLI::App &app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App *cmd = addProgramCommand(
      app, "run", "Run a .duet program on .npy inputs", args->program);
  addInputOption(*cmd, args->inputs, /*randomDefault=*/false);
  auto *out = cmd->add_option("-o,--output", args->output,
                              "write the (single) output to this .npy");
  auto *dir = cmd->add_option("--output-dir", args->outputDir,
                              "write every output as DIR/outputN.npy");
  out->excludes(dir);
  cmd->add_option("--expect", args->expect,
                  "a reference .npy per output, in order: print the max abs "
                  "difference and exit 6 when any element has |out - ref| > "
                  "atol + rtol*|ref|, or the shape or dtype differs");
  cmd->add_option("--rtol", args->rtol,
                  "relative tolerance for --expect (default by output dtype: "
                  "float32 1e-4, float16 2e-3, bfloat16 2e-2)");
  cmd->add_option("--atol", args->atol,
                  "absolute tolerance for --expect (default: float32 1e-5, "
                  "float16 1e-3, bfloat16 1e-2)");
  cmd->add_flag("--reference", args->reference,
                "run every op, delegated ones too, on the portable kernels");
  addThreadsOption(*cmd, args->threads);
  addMaxWorkOption(*cmd, args->maxWork);
  addInjectFaultOption(*cmd, args->faults);
  addFailCallOption(*cmd, args->failCalls);
  cmd->add_flag("-q,--quiet", args->quiet, "print only errors and comparisons");
  return [args] { return runRun(*args); };
}

} // namespace duet::cli
