//===- Replay.h - many runs of one loaded program, compared -----*- C++ -*-===//
//
// `duet-run replay` runs a loaded program again and again on the same inputs
// and keeps, per run, the FNV-1a hash of its output bytes (Fnv1a.h) and how
// far each output lies from the program's first run and from its reference
// (the same program loaded with LoadOptions::reference, run once on the same
// inputs). A deterministic program gives one distinct output.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_DUET_RUN_REPLAY_H
#define DUET_RUNTIME_DUET_RUN_REPLAY_H

#include "runtime/core/Runtime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace duet::cli {

/// The bytes of a program's inputs or of one run's outputs, with their
/// dtypes and sizes.
class Tensors {
public:
  /// A copy of the inputs last set on `runtime`.
  static Tensors inputsOf(const rt::Runtime &runtime);
  /// A copy of the outputs of the last run of `runtime`.
  static Tensors outputsOf(const rt::Runtime &runtime);

  size_t size() const { return bytes_.size(); }
  rt::TensorView view(size_t index) const;
  /// The FNV-1a hash of every tensor's bytes, in order.
  uint64_t hash() const;

private:
  static Tensors copy(const rt::Runtime &runtime,
                      const std::vector<int32_t> &ids);

  /// Dtypes and sizes; the data is in bytes_.
  std::vector<rt::TensorView> shapes_;
  std::vector<std::vector<uint8_t>> bytes_;
};

/// What a set of runs of one program showed.
struct Tally {
  uint64_t runs = 0;
  /// The distinct hashes of the runs' outputs, in the order first seen,
  /// and the same as a set, to look them up.
  std::vector<uint64_t> hashes;
  std::unordered_set<uint64_t> seen;
  /// The runs whose outputs differ from the program's first run (run 0),
  /// by their index among all of the program's runs.
  std::vector<uint64_t> deviatingRuns;
  /// max |output - the first run's| and max |output - the reference's| over
  /// the runs and outputs; infinity where a NaN meets a number.
  double maxDevFromFirst = 0;
  double maxDevFromReference = 0;
};

/// A program under replay: loaded twice, as given and as its reference.
class ReplayedProgram {
public:
  /// Loads `path` with `options`, and again in reference mode without the
  /// faults of `options`. kOk, or prints one error and returns its code.
  static int load(const std::string &path, const rt::LoadOptions &options,
                  std::unique_ptr<ReplayedProgram> &program);

  const std::string &path() const { return path_; }
  rt::Runtime &runtime() { return *runtime_; }

  /// Runs the reference once on `inputs`; kOk, or prints one error and
  /// returns its code.
  int runReference(const Tensors &inputs);
  /// Runs the program once on `inputs`, counting the run in `round` and in
  /// total(); `outputs` is then what it gave. kOk, or prints one error and
  /// returns its code.
  int run(const Tensors &inputs, Tally &round, Tensors &outputs);

  const Tally &total() const { return total_; }
  /// The outputs of run 0 (empty before it).
  const Tensors &first() const { return first_; }

private:
  ReplayedProgram() = default;

  std::string path_;
  std::unique_ptr<rt::Runtime> runtime_;
  std::unique_ptr<rt::Runtime> referenceRuntime_;
  Tensors reference_;
  Tensors first_;
  Tally total_;
};

/// Sets every input of `runtime` to `inputs` (of the same dtypes and
/// sizes). A replay sets them before every run, as an application does, so
/// that a run which damaged its inputs (a bug: a program never writes them)
/// shows as that one run deviating rather than as every run after it.
rt::Status feedInputs(rt::Runtime &runtime, const Tensors &inputs);

/// max over the tensors of how far apart `a` and `b` are
/// (TensorDifference.h, infinity where a NaN meets a number).
double maxDeviation(const Tensors &a, const Tensors &b);

} // namespace duet::cli

#endif // DUET_RUNTIME_DUET_RUN_REPLAY_H
