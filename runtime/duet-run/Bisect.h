//===- Bisect.h - the first op that leaves the reference ------*- C++ -*-===//
//
// `duet-run bisect` runs a program twice on the same inputs, as it is and in
// reference mode (every op on the portable kernels), each with a
// LoadOptions::observer that keeps a copy of every tensor right after the
// step that computed it: in the program's run that is the result of every
// kernel call, every delegate output and every tensor a delegate computes
// apart inside its partition (PreparedDelegate::observableTensors); in the
// reference, every op's. Then the ops are compared one by one in execution
// order (kernel calls, and each delegate's ops in their recorded order) and
// the first whose result leaves tolerance is named, with the ops after it
// that read what it computed and left tolerance too.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_DUET_RUN_BISECT_H
#define DUET_RUNTIME_DUET_RUN_BISECT_H

#include "runtime/cli/TensorDifference.h"
#include "runtime/core/Runtime.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace duet::cli {

/// Copies of the tensors a run computed, by tensor id.
class TensorRecord {
public:
  /// The LoadOptions::observer that fills this record; the record must
  /// outlive the runtime loaded with it.
  rt::TensorObserver observer();
  /// The copy of tensor `id`, or null when the run gave none.
  const rt::TensorView *find(int32_t id) const;

private:
  struct Copy {
    rt::TensorView view;
    std::vector<uint8_t> bytes;
  };
  std::map<int32_t, Copy> copies_;
};

/// rtol and atol; negative: the default of the tensor's dtype
/// (defaultTolerance).
struct Tolerance {
  double rtol = -1;
  double atol = -1;
};

/// One op of the program in execution order.
struct BisectOp {
  const rt::KernelCall *call = nullptr;
  /// "portable", or the delegate's backend.
  std::string backend;
  /// The partition as `duet inspect --json` numbers them: each delegate
  /// call is one, and each run of consecutive kernel calls is one.
  uint32_t partition = 0;
};

/// An input of the first divergent op and the values it held.
struct InputRange {
  int32_t tensor = -1;
  /// Where the values come from: "delegate" (the program's run, an input or
  /// a constant of the program included), or "reference" when the program's
  /// run kept no copy (a value inside a delegate fused away).
  std::string from;
  ValueRange range;
};

/// The comparison of one op's result.
struct OpComparison {
  size_t op = 0;
  int32_t tensor = -1;
  double maxAbs = 0;
  /// maxAbs / max|reference|: what rtol bounds.
  double maxRel = 0;
  /// Whether the program's result holds a NaN or an infinity, and whether
  /// none of the op's inputs did (it appeared there first).
  bool nonfinite = false;
  bool nonfiniteFirst = false;
  double rtol = 0, atol = 0;
};

struct BisectResult {
  std::vector<BisectOp> ops;
  /// Ops whose result both runs kept, and those the program's run did not
  /// (fused into the next op inside a delegate).
  size_t compared = 0;
  size_t unobserved = 0;
  std::optional<OpComparison> first;
  std::vector<InputRange> firstInputs;
  /// The ops after it that read, directly or not, what it computed and
  /// whose results left tolerance too (under --nan: hold NaN or infinity).
  std::vector<OpComparison> downstream;
};

/// Compares the records of `runtime`'s run and of its reference run; with
/// `nanMode`, the first op is the first whose result holds a NaN or an
/// infinity, whatever the reference says.
BisectResult bisect(const rt::Runtime &runtime, const TensorRecord &program,
                    const TensorRecord &reference, const Tolerance &tolerance,
                    bool nanMode);

} // namespace duet::cli

#endif // DUET_RUNTIME_DUET_RUN_BISECT_H
