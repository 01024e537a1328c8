//===- ReplayCommand.cpp - duet-run replay --------------------------------===//
//
// `--runs N` runs of a program on the same inputs (Replay.h), reported as
// the distinct outputs, the runs that differ from run 0 and the largest
// deviations from run 0 and from the reference. With `--vs B`, `--rounds R`
// rounds alternate the two programs, A then B, then B then A, and so on,
// N runs of each per round; each program's figures are given per round and
// over all rounds. The exit code is 6 when some run of a program differs
// from its run 0 (docs/debugging.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/duet-run/ReplayCommand.h"

#include "runtime/cli/FaultOption.h"
#include "runtime/cli/OutputFiles.h"
#include "runtime/cli/PrintableText.h"
#include "runtime/cli/ProgramInputs.h"
#include "runtime/core/Npy.h"
#include "runtime/duet-run/Replay.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <sys/stat.h>

namespace duet::cli {
namespace {

using nlohmann::ordered_json;

struct ReplayArgs {
  std::string program;
  std::vector<std::string> inputs;
  unsigned runs = 0;
  unsigned rounds = 5;
  std::string vs;
  std::string dumpEach;
  bool json = false;
  unsigned injectPeriod = 0;
  std::vector<std::string> faults;
  unsigned threads = 0;
  double maxWork = 0;
};

/// Where `--dump-each` puts output `output` of run `run`; the --vs
/// program's files start with "vs.".
std::string dumpPath(const ReplayArgs &args, bool vs, uint64_t run,
                     size_t output) {
  return fmt::format("{}/{}run{}.output{}.npy", args.dumpEach, vs ? "vs." : "",
                     run, output);
}

/// Makes the --dump-each folder when it is missing.
int prepareDumpFolder(const std::string &dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return kOk;
    printError(fmt::format("--dump-each '{}' is a file, not a folder; give a "
                           "folder (it is created when missing)",
                           dir));
    return kIoError;
  }
  if (errno == ENOENT && ::mkdir(dir.c_str(), 0777) == 0)
    return kOk;
  printError(fmt::format("--dump-each: cannot create the folder '{}': {}; "
                         "create it first or choose another",
                         dir, std::strerror(errno)));
  return kIoError;
}

/// Checks that `b` takes and gives what `a` does, as two compilations of
/// one model do.
int checkSameSignature(ReplayedProgram &a, ReplayedProgram &b) {
  const rt::Runtime &x = a.runtime(), &y = b.runtime();
  auto mismatch = [&](const char *what, size_t index, const rt::TensorInfo &p,
                      const rt::TensorInfo &q) {
    printError(fmt::format("--vs: {} {} {} ({}) is {} {}, but {} {} {} is {} "
                           "{}; --vs compares two programs of one model",
                           b.path(), what, index, q.name,
                           rt::dtypeName(q.dtype), rt::formatNpyShape(q.sizes),
                           a.path(), what, index, rt::dtypeName(p.dtype),
                           rt::formatNpyShape(p.sizes)));
    return kBadInput;
  };
  if (x.inputCount() != y.inputCount() || x.outputCount() != y.outputCount()) {
    printError(fmt::format("--vs: {} takes {} input(s) and gives {} output(s), "
                           "{} takes {} and gives {}; --vs compares two "
                           "programs of one model",
                           a.path(), x.inputCount(), x.outputCount(), b.path(),
                           y.inputCount(), y.outputCount()));
    return kBadInput;
  }
  for (size_t i = 0; i < x.inputCount(); ++i) {
    const rt::TensorInfo &p = x.inputInfo(i), &q = y.inputInfo(i);
    if (p.dtype != q.dtype || p.sizes != q.sizes)
      return mismatch("input", i, p, q);
  }
  for (size_t i = 0; i < x.outputCount(); ++i) {
    const rt::TensorInfo &p = x.outputInfo(i), &q = y.outputInfo(i);
    if (p.dtype != q.dtype || p.sizes != q.sizes)
      return mismatch("output", i, p, q);
  }
  return kOk;
}

/// Writes the outputs of one run as .npy files; the first note (bfloat16
/// written as float32) is printed once.
int dumpRun(const ReplayArgs &args, bool vs, uint64_t run,
            const Tensors &outputs, bool &noted) {
  std::vector<std::vector<uint8_t>> encoded(outputs.size());
  std::vector<OutputBytes> writes;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = dumpPath(args, vs, run, i), notice;
    rt::Status status = rt::encodeNpy(outputs.view(i), encoded[i], notice);
    if (!status.isOk()) {
      printError(status.withContext(path).message());
      return kIoError;
    }
    if (!notice.empty() && !noted) {
      fmt::print(stderr, "note: {}: {}\n", path, notice);
      noted = true;
    }
    writes.push_back({path, std::string_view(reinterpret_cast<const char *>(
                                                 encoded[i].data()),
                                             encoded[i].size())});
  }
  return writeOutputs(writes);
}

std::string hashText(uint64_t hash) { return fmt::format("{:016x}", hash); }

/// A deviation for JSON: a number, or "inf" / "nan", which JSON lacks.
ordered_json deviationJson(double value) {
  if (std::isfinite(value))
    return value;
  return std::isnan(value) ? "nan" : "inf";
}

ordered_json tallyJson(const std::string &program, const Tally &tally) {
  ordered_json out;
  out["program"] = printableName(program);
  out["runs"] = tally.runs;
  out["distinct_outputs"] = tally.hashes.size();
  ordered_json hashes = ordered_json::array();
  for (uint64_t hash : tally.hashes)
    hashes.push_back(hashText(hash));
  out["output_hashes"] = hashes;
  out["deviating_runs"] = tally.deviatingRuns;
  out["max_abs_dev_from_first"] = deviationJson(tally.maxDevFromFirst);
  out["max_abs_dev_from_reference"] = deviationJson(tally.maxDevFromReference);
  return out;
}

/// "a, b, c, … (N more)" of the first `most` of `items`.
template <typename T, typename F>
std::string listText(const std::vector<T> &items, size_t most, F format) {
  std::string text;
  for (size_t i = 0; i < items.size() && i < most; ++i)
    text += (i ? ", " : "") + format(items[i]);
  if (items.size() > most)
    text += fmt::format(", … ({} more)", items.size() - most);
  return text;
}

void printTally(const std::string &program, const Tally &tally,
                const std::string &indent) {
  size_t distinct = tally.hashes.size();
  fmt::print("{}{}: {} run{}, {} distinct output{} (fnv1a64 {})\n", indent,
             printableName(program), tally.runs, tally.runs == 1 ? "" : "s",
             distinct, distinct == 1 ? "" : "s",
             listText(tally.hashes, 4, hashText));
  const std::vector<uint64_t> &deviating = tally.deviatingRuns;
  fmt::print("{}  runs that differ from run 0: {}\n", indent,
             deviating.empty()
                 ? std::string("none")
                 : fmt::format("{} ({})", deviating.size(),
                               listText(deviating, 20, [](uint64_t run) {
                                 return std::to_string(run);
                               })));
  fmt::print("{}  max abs deviation from run 0: {:.3g}; from the reference "
             "(portable kernels): {:.3g}\n",
             indent, tally.maxDevFromFirst, tally.maxDevFromReference);
}

/// The programs of a replay and what their runs showed.
struct Replay {
  /// programs[0] is the program, programs[1] the --vs one.
  std::vector<std::unique_ptr<ReplayedProgram>> programs;
  unsigned rounds = 1;
  /// perRound[r][p]: program p in round r.
  std::vector<std::vector<Tally>> perRound;
  /// The inputs every run is given.
  Tensors inputs;

  /// The programs in the order round `round` runs them: as given in round
  /// 0, reversed in round 1, and so on.
  std::vector<size_t> order(unsigned round) const {
    std::vector<size_t> out;
    for (size_t turn = 0; turn < programs.size(); ++turn)
      out.push_back((turn + round) % programs.size());
    return out;
  }
};

/// Everything before the first run: the programs, their inputs, the
/// --dump-each files, the reference runs.
int prepare(const ReplayArgs &args, Replay &replay) {
  rt::LoadOptions options;
  options.threads = args.threads;
  options.maxWork = args.maxWork;
  options.faults.nondeterminismPeriod = args.injectPeriod;
  if (int code = parseFaults(args.faults, options.faults.nodes))
    return code;
  replay.programs.resize(args.vs.empty() ? 1 : 2);
  if (int code =
          ReplayedProgram::load(args.program, options, replay.programs[0]))
    return code;
  if (!args.vs.empty()) {
    if (int code = ReplayedProgram::load(args.vs, options, replay.programs[1]))
      return code;
    if (int code = checkSameSignature(*replay.programs[0], *replay.programs[1]))
      return code;
  }
  rt::Runtime &first = replay.programs[0]->runtime();
  if (int code = setInputs(first, args.program, args.inputs,
                           RandomInputs::allowed, /*quiet=*/false))
    return code;
  replay.inputs = Tensors::inputsOf(first);
  replay.rounds = args.vs.empty() ? 1 : args.rounds;
  replay.perRound.assign(replay.rounds,
                         std::vector<Tally>(replay.programs.size()));

  if (!args.dumpEach.empty()) {
    if (int code = prepareDumpFolder(args.dumpEach))
      return code;
    CommandFiles files;
    files.addInput("the program", args.program);
    if (!args.vs.empty())
      files.addInput("--vs", args.vs);
    for (const std::string &input : args.inputs)
      files.addInput("--input", input);
    uint64_t runsEach = uint64_t(args.runs) * replay.rounds;
    for (size_t p = 0; p < replay.programs.size(); ++p)
      for (uint64_t run = 0; run < runsEach; ++run)
        for (size_t i = 0; i < first.outputCount(); ++i)
          files.addOutput("--dump-each", dumpPath(args, p == 1, run, i));
    if (int code = files.check())
      return code;
  }
  if (args.injectPeriod)
    fmt::print(stderr,
               "note: --inject-nondeterminism {}: runs {}, {}, … of each "
               "program add 1 to the first element of each floating-point "
               "output\n",
               args.injectPeriod, args.injectPeriod - 1,
               2 * args.injectPeriod - 1);
  for (std::unique_ptr<ReplayedProgram> &program : replay.programs)
    if (int code = program->runReference(replay.inputs))
      return code;
  return kOk;
}

/// The runs, round by round, each program --runs times per round.
int measure(const ReplayArgs &args, Replay &replay) {
  bool noted = false;
  Tensors outputs;
  for (unsigned round = 0; round < replay.rounds; ++round)
    for (size_t p : replay.order(round))
      for (unsigned k = 0; k < args.runs; ++k) {
        ReplayedProgram &program = *replay.programs[p];
        uint64_t run = program.total().runs;
        if (int code =
                program.run(replay.inputs, replay.perRound[round][p], outputs))
          return code;
        if (!args.dumpEach.empty())
          if (int code = dumpRun(args, p == 1, run, outputs, noted))
            return code;
      }
  return kOk;
}

ordered_json vsJson(const ReplayArgs &args, const Replay &replay,
                    double between) {
  ordered_json out;
  out["rounds"] = replay.rounds;
  out["runs_per_round"] = args.runs;
  out["programs"] = ordered_json::array();
  for (const std::unique_ptr<ReplayedProgram> &program : replay.programs)
    out["programs"].push_back(tallyJson(program->path(), program->total()));
  out["per_round"] = ordered_json::array();
  for (unsigned round = 0; round < replay.rounds; ++round) {
    ordered_json entry;
    entry["round"] = round;
    entry["order"] = ordered_json::array();
    for (size_t p : replay.order(round))
      entry["order"].push_back(printableName(replay.programs[p]->path()));
    entry["programs"] = ordered_json::array();
    for (size_t p = 0; p < replay.programs.size(); ++p)
      entry["programs"].push_back(
          tallyJson(replay.programs[p]->path(), replay.perRound[round][p]));
    out["per_round"].push_back(entry);
  }
  out["max_abs_dev_between_programs"] = deviationJson(between);
  return out;
}

void printVs(const Replay &replay, double between) {
  const std::vector<std::unique_ptr<ReplayedProgram>> &programs =
      replay.programs;
  for (unsigned round = 0; round < replay.rounds; ++round) {
    std::vector<size_t> order = replay.order(round);
    fmt::print("round {}: {}, then {}\n", round,
               printableName(programs[order[0]]->path()),
               printableName(programs[order[1]]->path()));
    for (size_t p = 0; p < programs.size(); ++p)
      printTally(programs[p]->path(), replay.perRound[round][p], "  ");
  }
  fmt::print("all {} rounds:\n", replay.rounds);
  for (const std::unique_ptr<ReplayedProgram> &program : programs)
    printTally(program->path(), program->total(), "  ");
  fmt::print("  {} vs {} (run 0 of each): max abs difference {:.3g}\n",
             printableName(programs[0]->path()),
             printableName(programs[1]->path()), between);
}

int runReplay(const ReplayArgs &args) {
  Replay replay;
  if (int code = prepare(args, replay))
    return code;
  if (int code = measure(args, replay))
    return code;
  const ReplayedProgram &program = *replay.programs[0];
  if (replay.programs.size() == 1) {
    if (args.json)
      fmt::print("{}\n", dumpJson(tallyJson(args.program, program.total()), 2));
    else
      printTally(args.program, program.total(), "");
  } else {
    double between = maxDeviation(program.first(), replay.programs[1]->first());
    if (args.json)
      fmt::print("{}\n", dumpJson(vsJson(args, replay, between), 2));
    else
      printVs(replay, between);
  }
  for (const std::unique_ptr<ReplayedProgram> &replayed : replay.programs)
    if (!replayed->total().deviatingRuns.empty())
      return kMismatch;
  return kOk;
}

} // namespace

Runner addReplayCommand(CLI::App &app) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App *cmd = addProgramCommand(
      app, "replay",
      "Run a .duet program many times on the same inputs and report whether "
      "its outputs ever change",
      args->program);
  addInputOption(*cmd, args->inputs, /*randomDefault=*/true);
  cmd->add_option("--runs", args->runs,
                  "runs of the program (with --vs: of each program, per "
                  "round)")
      ->required()
      ->check(CLI::Range(1u, 10000000u));
  CLI::Option *vs = cmd->add_option(
      "--vs", args->vs,
      "a second program of the same model (another compilation of it): the "
      "two alternate, in an order rotated every round");
  cmd->add_option("--rounds", args->rounds,
                  "rounds of --vs (default 5): A then B, B then A, ...")
      ->check(CLI::Range(1u, 100000u))
      ->needs(vs);
  cmd->add_option("--dump-each", args->dumpEach,
                  "write every run's outputs as DIR/run<i>.output<j>.npy "
                  "(the --vs program's as DIR/vs.run<i>.output<j>.npy); DIR "
                  "is created when missing");
  cmd->add_flag("--json", args->json,
                "print one JSON object: runs, distinct_outputs, "
                "output_hashes, deviating_runs, max_abs_dev_from_first, "
                "max_abs_dev_from_reference (with --vs: one per program, "
                "overall and per round)");
  cmd->add_option("--inject-nondeterminism", args->injectPeriod,
                  "fault injection, for trying the check: runs K-1, 2K-1, ... "
                  "of each program add 1 to the first element of each "
                  "floating-point output (LoadOptions::faults)")
      ->check(CLI::Range(1u, 10000000u));
  addInjectFaultOption(*cmd, args->faults);
  addThreadsOption(*cmd, args->threads);
  addMaxWorkOption(*cmd, args->maxWork);
  return [args] { return runReplay(*args); };
}

} // namespace duet::cli
