//===- BisectCommand.cpp - duet-run bisect --------------------------------===//
//
// Loads the program twice, as it is and in reference mode, each with an
// observer that keeps every tensor its run computes (Bisect.h), runs both on
// the same inputs and reports the first op whose result leaves tolerance:
// its node, op, backend and partition, its errors, whether NaN or Inf
// appeared there, its inputs' ranges, and the ops downstream it
// contaminated. Exit 0 when every op is within tolerance, 6 when one is not.
//
//===----------------------------------------------------------------------===//

#include "runtime/duet-run/BisectCommand.h"

#include "runtime/cli/FaultOption.h"
#include "runtime/cli/OutputFiles.h"
#include "runtime/cli/PrintableText.h"
#include "runtime/cli/ProgramInputs.h"
#include "runtime/core/Npy.h"
#include "runtime/duet-run/Bisect.h"
#include "runtime/duet-run/Replay.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <set>
#include <sys/stat.h>

namespace duet::cli {
namespace {

using nlohmann::ordered_json;

/// The contaminated ops the text output lists before "… and N more".
constexpr size_t kDownstreamShown = 8;

struct BisectArgs {
  std::string program;
  std::vector<std::string> inputs;
  std::string tolerance;
  bool nan = false;
  bool json = false;
  std::string dump;
  std::vector<std::string> faults;
  unsigned threads = 0;
  double maxWork = 0;
  /// The float64 rule: PyTorch's outputs of the same graph in float64 and
  /// in fp32, one file per output each.
  std::vector<std::string> float64;
  std::vector<std::string> expect;
};

/// How far the program's output `index` is from PyTorch's float64 one,
/// against how far PyTorch's own fp32 output is.
struct Float64Verdict {
  size_t output = 0;
  double duetError = 0;
  double pytorchError = 0;
  /// "within": inside the fp32 bound of PyTorch's fp32 output; "sensitive":
  /// outside it, but no further from float64 than kFloat64Margin times
  /// PyTorch's fp32 is (the network amplifies rounding); "wrong": further.
  std::string verdict;
};

/// How much further from float64 than PyTorch's fp32 a correct program may
/// be: two fp32 computations of one graph round differently, and neither is
/// the closer by design, so only a clear factor says "wrong".
constexpr double kFloat64Margin = 2;

/// The float64 rule over every output; kOk or prints one error.
int classifyFloat64(const BisectArgs &args, rt::Runtime &runtime,
                    std::vector<Float64Verdict> &verdicts) {
  size_t outputs = runtime.outputCount();
  if (args.float64.size() != outputs || args.expect.size() != outputs) {
    printError(fmt::format("{} has {} output(s): the float64 rule takes one "
                           "--float64 and one --expect file per output, got "
                           "{} and {}",
                           printableName(args.program), outputs,
                           args.float64.size(), args.expect.size()));
    return kBadInput;
  }
  for (size_t k = 0; k < outputs; ++k) {
    rt::NpyArray wide, narrow;
    for (auto [path, array] : {std::pair{&args.float64[k], &wide},
                               std::pair{&args.expect[k], &narrow}}) {
      rt::Status status = rt::readNpy(*path, *array);
      if (!status.isOk()) {
        printError(status.message());
        return kBadInput;
      }
    }
    rt::TensorView out = runtime.output(k);
    if (wide.sizes != out.sizes || narrow.sizes != out.sizes) {
      printError(fmt::format("output {}: {} is {} and {} is {}, but the "
                             "program's output is {}",
                             k, printableName(args.float64[k]),
                             rt::formatNpyShape(wide.sizes),
                             printableName(args.expect[k]),
                             rt::formatNpyShape(narrow.sizes),
                             rt::formatNpyShape(out.sizes)));
      return kBadInput;
    }
    if (wide.dtype != rt::DType::f64 ||
        !referenceDtypeMatches(out.dtype, narrow.dtype)) {
      printError(fmt::format(
          "output {}: {} is {} and {} is {}; the float64 rule takes a "
          "float64 file and one of the output's dtype, {}",
          k, printableName(args.float64[k]), rt::dtypeName(wide.dtype),
          printableName(args.expect[k]), rt::dtypeName(narrow.dtype),
          rt::dtypeName(out.dtype)));
      return kBadInput;
    }
    rt::TensorView wideView{wide.dtype, wide.sizes, wide.data.data()};
    rt::TensorView narrowView{narrow.dtype, narrow.sizes, narrow.data.data()};
    Float64Verdict v;
    v.output = k;
    v.duetError = difference(out, wideView).worst();
    v.pytorchError = difference(narrowView, wideView).worst();
    double rtol, atol;
    defaultTolerance(out.dtype, rtol, atol);
    v.verdict = closeness(out, narrowView, rtol, atol).ok() ? "within"
                : v.duetError <= kFloat64Margin * v.pytorchError + atol
                    ? "sensitive"
                    : "wrong";
    verdicts.push_back(v);
  }
  return kOk;
}

/// "rtol,atol" into `tolerance`; kOk or prints one error.
int parseTolerance(const std::string &text, Tolerance &tolerance) {
  if (text.empty())
    return kOk;
  size_t comma = text.find(',');
  char *end = nullptr;
  bool ok = comma != std::string::npos;
  if (ok) {
    std::string rtol = text.substr(0, comma), atol = text.substr(comma + 1);
    tolerance.rtol = std::strtod(rtol.c_str(), &end);
    ok = !rtol.empty() && *end == '\0';
    tolerance.atol = std::strtod(atol.c_str(), &end);
    ok = ok && !atol.empty() && *end == '\0';
  }
  if (!ok || !std::isfinite(tolerance.rtol) || !std::isfinite(tolerance.atol) ||
      tolerance.rtol < 0 || tolerance.atol < 0) {
    printError(fmt::format("--tolerance '{}': give two numbers rtol,atol, "
                           "neither negative (e.g. 1e-4,1e-5)",
                           printableName(text)));
    return kBadInput;
  }
  return kOk;
}

/// The program loaded for the bisection, its reference, and the records of
/// their runs (which the runtimes' observers fill, so they live as long).
struct Bisection {
  TensorRecord programRecord, referenceRecord;
  std::unique_ptr<rt::Runtime> runtime, reference;
};

int runBoth(const BisectArgs &args, Bisection &b) {
  rt::LoadOptions options;
  options.threads = args.threads;
  options.maxWork = args.maxWork;
  if (int code = parseFaults(args.faults, options.faults.nodes))
    return code;
  options.observer = b.programRecord.observer();
  if (int code = loadProgram(args.program, options, b.runtime))
    return code;
  rt::LoadOptions referenceOptions;
  referenceOptions.reference = true;
  referenceOptions.maxWork = args.maxWork;
  referenceOptions.observer = b.referenceRecord.observer();
  if (int code = loadProgram(args.program, referenceOptions, b.reference))
    return code;
  if (int code = setInputs(*b.runtime, args.program, args.inputs,
                           RandomInputs::allowed, /*quiet=*/false))
    return code;
  Tensors inputs = Tensors::inputsOf(*b.runtime);
  rt::Status status = b.runtime->run();
  if (!status.isOk()) {
    printError(status.message());
    return kFailure;
  }
  status = feedInputs(*b.reference, inputs);
  if (status.isOk())
    status = b.reference->run();
  if (!status.isOk()) {
    printError(status.withContext("the reference run").message());
    return kFailure;
  }
  return kOk;
}

std::string nodeText(const rt::KernelCall &call) {
  return call.node.empty() ? std::string("(no node)")
                           : "'" + printableName(call.node) + "'";
}

ordered_json number(double value) {
  if (std::isfinite(value))
    return value;
  return std::isnan(value) ? "nan" : "inf";
}

ordered_json opJson(const BisectResult &result, const OpComparison &cmp) {
  const BisectOp &op = result.ops[cmp.op];
  ordered_json out;
  out["node"] = op.call->node.empty()
                    ? ordered_json()
                    : ordered_json(printableName(op.call->node));
  out["op"] = printableName(op.call->op);
  out["backend"] = printableName(op.backend);
  out["partition"] = op.partition;
  out["tensor"] = cmp.tensor;
  out["max_abs_err"] = number(cmp.maxAbs);
  out["max_rel_err"] = number(cmp.maxRel);
  out["nonfinite"] = cmp.nonfinite;
  out["nonfinite_first"] = cmp.nonfiniteFirst;
  return out;
}

ordered_json resultJson(const BisectArgs &args, const rt::Program &program,
                        const BisectResult &result) {
  ordered_json out;
  out["program"] = printableName(args.program);
  out["mode"] = args.nan ? "nan" : "tolerance";
  out["ops"] = result.ops.size();
  out["compared"] = result.compared;
  out["unobserved"] = result.unobserved;
  if (!result.first) {
    out["first_divergent"] = nullptr;
    out["downstream"] = ordered_json::array();
    return out;
  }
  ordered_json first = opJson(result, *result.first);
  first["rtol"] = result.first->rtol;
  first["atol"] = result.first->atol;
  first["inputs"] = ordered_json::array();
  for (const InputRange &input : result.firstInputs) {
    ordered_json entry;
    entry["tensor"] = input.tensor;
    entry["name"] = printableName(program.tensors()[input.tensor].name);
    bool any = input.range.min <= input.range.max;
    entry["min"] = any ? ordered_json(input.range.min) : ordered_json();
    entry["max"] = any ? ordered_json(input.range.max) : ordered_json();
    entry["nonfinite"] = input.range.nonfinite;
    entry["from"] = input.from;
    first["inputs"].push_back(entry);
  }
  out["first_divergent"] = first;
  // A node decomposed into several ops is listed once in `downstream`.
  ordered_json downstream = ordered_json::array(), ops = ordered_json::array();
  std::set<std::string> listed;
  for (const OpComparison &cmp : result.downstream) {
    const rt::KernelCall &call = *result.ops[cmp.op].call;
    if (call.node.empty())
      downstream.push_back(nullptr);
    else if (listed.insert(call.node).second)
      downstream.push_back(printableName(call.node));
    ops.push_back(opJson(result, cmp));
  }
  out["downstream"] = downstream;
  out["downstream_ops"] = ops;
  return out;
}

std::string rangeText(const ValueRange &range) {
  std::string text = range.min <= range.max
                         ? fmt::format("[{:.4g}, {:.4g}]", range.min, range.max)
                         : std::string("no finite value");
  if (range.nonfinite)
    text += fmt::format(", {} NaN/Inf", range.nonfinite);
  return text;
}

void printResult(const BisectArgs &args, const rt::Program &program,
                 const BisectResult &result) {
  std::string counts = fmt::format(
      "{} ops, {} compared with the reference (portable kernels){}",
      result.ops.size(), result.compared,
      result.unobserved
          ? fmt::format(", {} without a value of their own in their delegate "
                        "(fused into the op after them)",
                        result.unobserved)
          : "");
  fmt::print("{}: {}\n", printableName(args.program), counts);
  if (!result.first) {
    fmt::print("every op is {}\n", args.nan ? "free of NaN and Inf"
                                            : "within tolerance of the "
                                              "reference");
    return;
  }
  const OpComparison &cmp = *result.first;
  const BisectOp &op = result.ops[cmp.op];
  fmt::print("first {}: node {} ({}), {} partition {}\n",
             args.nan ? "op with NaN/Inf" : "divergent op", nodeText(*op.call),
             printableName(op.call->op), printableName(op.backend),
             op.partition);
  fmt::print("  {}: max abs error {:.3g} (tolerance {:g}*max|ref| + {:g}), "
             "max rel error {:.3g}\n",
             printableName(program.describeTensor(cmp.tensor)), cmp.maxAbs,
             cmp.rtol, cmp.atol, cmp.maxRel);
  fmt::print("  NaN/Inf: {}\n", !cmp.nonfinite ? "none"
                                : cmp.nonfiniteFirst
                                    ? "appear here first (no input has any)"
                                    : "present, as in its inputs");
  for (const InputRange &input : result.firstInputs)
    fmt::print("  input {}: {}{}\n",
               printableName(program.describeTensor(input.tensor)),
               rangeText(input.range),
               input.from == "reference"
                   ? " (the reference's: the delegate keeps no value of it)"
                   : "");
  if (result.downstream.empty()) {
    fmt::print("downstream: no later op reading it {}\n",
               args.nan ? "holds NaN/Inf" : "left tolerance");
    return;
  }
  fmt::print("downstream, contaminated ({} op{}):\n", result.downstream.size(),
             result.downstream.size() == 1 ? "" : "s");
  for (size_t i = 0; i < result.downstream.size(); ++i) {
    if (i == kDownstreamShown) {
      fmt::print("  … and {} more (--json lists them all)\n",
                 result.downstream.size() - i);
      break;
    }
    const OpComparison &later = result.downstream[i];
    const BisectOp &at = result.ops[later.op];
    fmt::print("  node {} ({}), {} partition {}: max abs error {:.3g}\n",
               nodeText(*at.call), printableName(at.call->op),
               printableName(at.backend), at.partition, later.maxAbs);
  }
}

/// --dump: the first divergent op's result from both runs.
int dumpFirst(const BisectArgs &args, const Bisection &b,
              const BisectResult &result) {
  const OpComparison &cmp = *result.first;
  const rt::TensorView *views[2] = {b.programRecord.find(cmp.tensor),
                                    b.referenceRecord.find(cmp.tensor)};
  const char *suffix[2] = {"program", "reference"};
  std::vector<std::vector<uint8_t>> encoded(2);
  std::vector<OutputBytes> writes;
  for (int i = 0; i < 2; ++i) {
    std::string path =
        fmt::format("{}/first_divergent.{}.npy", args.dump, suffix[i]);
    std::string notice;
    rt::Status status = rt::encodeNpy(*views[i], encoded[i], notice);
    if (!status.isOk()) {
      printError(status.withContext(path).message());
      return kIoError;
    }
    writes.push_back({path, std::string_view(reinterpret_cast<const char *>(
                                                 encoded[i].data()),
                                             encoded[i].size())});
  }
  return writeOutputs(writes);
}

int runBisect(const BisectArgs &args) {
  Tolerance tolerance;
  if (int code = parseTolerance(args.tolerance, tolerance))
    return code;
  if (!args.dump.empty()) {
    CommandFiles files;
    files.addInput("the program", args.program);
    for (const std::string &input : args.inputs)
      files.addInput("--input", input);
    for (const char *suffix : {"program", "reference"})
      files.addOutput("--dump", fmt::format("{}/first_divergent.{}.npy",
                                            args.dump, suffix));
    if (int code = files.check())
      return code;
  }
  Bisection b;
  if (int code = runBoth(args, b))
    return code;
  std::vector<Float64Verdict> verdicts;
  if (!args.float64.empty() || !args.expect.empty())
    if (int code = classifyFloat64(args, *b.runtime, verdicts))
      return code;
  bool wrong = false;
  for (const Float64Verdict &v : verdicts)
    wrong |= v.verdict == "wrong";
  BisectResult result = bisect(*b.runtime, b.programRecord, b.referenceRecord,
                               tolerance, args.nan);
  if (args.json) {
    ordered_json out = resultJson(args, b.runtime->program(), result);
    if (!verdicts.empty()) {
      ordered_json rule = ordered_json::array();
      for (const Float64Verdict &v : verdicts)
        rule.push_back({{"output", v.output},
                        {"duet_error", number(v.duetError)},
                        {"pytorch_error", number(v.pytorchError)},
                        {"verdict", v.verdict}});
      out["float64"] = rule;
    }
    fmt::print("{}\n", dumpJson(out, 2));
  } else {
    for (const Float64Verdict &v : verdicts)
      fmt::print("float64 rule, output {}: duet is {:.3g} from float64, "
                 "PyTorch's fp32 {:.3g}: {}\n",
                 v.output, v.duetError, v.pytorchError,
                 v.verdict == "within"
                     ? "within the fp32 bound of PyTorch's fp32 output"
                 : v.verdict == "sensitive"
                     ? fmt::format("sensitive (outside the fp32 bound, but no "
                                   "further from float64 than {:g}x PyTorch's "
                                   "own fp32: the network amplifies rounding)",
                                   kFloat64Margin)
                     : fmt::format("wrong (further from float64 than {:g}x "
                                   "PyTorch's own fp32: a bug)",
                                   kFloat64Margin));
    printResult(args, b.runtime->program(), result);
  }
  if (!result.first)
    return wrong ? kMismatch : kOk;
  if (!args.dump.empty())
    if (int code = dumpFirst(args, b, result))
      return code;
  return kMismatch;
}

} // namespace

Runner addBisectCommand(CLI::App &app) {
  auto args = std::make_shared<BisectArgs>();
  CLI::App *cmd = addProgramCommand(
      app, "bisect",
      "Run a .duet program and its portable reference side by side and name "
      "the first op whose delegate result leaves tolerance",
      args->program);
  addInputOption(*cmd, args->inputs, /*randomDefault=*/true);
  cmd->add_option("--tolerance", args->tolerance,
                  "rtol,atol: an op's result is within tolerance when max "
                  "|result - reference| <= rtol*max|reference| + atol "
                  "(default by dtype as run --expect: float32 1e-4,1e-5, "
                  "float16 2e-3,1e-3, bfloat16 2e-2,1e-2)");
  cmd->add_flag("--nan", args->nan,
                "name the first op whose result holds a NaN or an infinity, "
                "whatever the reference says");
  cmd->add_flag("--json", args->json,
                "print one JSON object: first_divergent (node, op, backend, "
                "partition, max_abs_err, max_rel_err, nonfinite, inputs; null "
                "when every op is within tolerance) and downstream (nodes)");
  cmd->add_option("--dump", args->dump,
                  "write the first divergent op's result as "
                  "DIR/first_divergent.program.npy and "
                  "DIR/first_divergent.reference.npy (DIR must exist)");
  cmd->add_option("--float64", args->float64,
                  "the float64 rule (with --expect): PyTorch's output of the "
                  "same graph in float64 (tools/float64_reference.py), one "
                  "file per output; each output is classified within, "
                  "sensitive or wrong, and a wrong one exits 6");
  cmd->add_option("--expect", args->expect,
                  "the float64 rule: PyTorch's fp32 output of the same graph "
                  "and inputs, one file per output");
  addInjectFaultOption(*cmd, args->faults);
  addThreadsOption(*cmd, args->threads);
  addMaxWorkOption(*cmd, args->maxWork);
  return [args] { return runBisect(*args); };
}

} // namespace duet::cli
