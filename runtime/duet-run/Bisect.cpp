//===- Bisect.cpp - the first op that leaves the reference ----------------===//

#include "runtime/duet-run/Bisect.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace duet::cli {

rt::TensorObserver TensorRecord::observer() {
  return [this](int32_t id, const rt::TensorView &value) {
    Copy &copy = copies_[id];
    const auto *data = static_cast<const uint8_t *>(value.data);
    copy.bytes.assign(data, data + (data ? value.bytes() : 0));
    copy.view = value;
    copy.view.data = copy.bytes.data();
  };
}

const rt::TensorView *TensorRecord::find(int32_t id) const {
  auto found = copies_.find(id);
  return found == copies_.end() ? nullptr : &found->second.view;
}

namespace {

std::vector<BisectOp> opsInOrder(const rt::Program &program) {
  std::vector<BisectOp> ops;
  uint32_t partitions = 0;
  bool portable = false;
  for (const rt::Instruction &instruction : program.instructions()) {
    if (const auto *call = std::get_if<rt::KernelCall>(&instruction)) {
      if (!portable)
        ++partitions;
      portable = true;
      ops.push_back({call, "portable", partitions - 1});
      continue;
    }
    portable = false;
    const auto &call = std::get<rt::DelegateCall>(instruction);
    const rt::DelegateInfo &delegate = program.delegates()[call.delegate];
    for (const rt::KernelCall &op : delegate.ops)
      ops.push_back({&op, delegate.backend, partitions});
    ++partitions;
  }
  return ops;
}

class Comparer {
public:
  Comparer(const rt::Runtime &runtime, const TensorRecord &program,
           const TensorRecord &reference, const Tolerance &tolerance,
           bool nanMode)
      : runtime_(runtime), program_(program), reference_(reference),
        tolerance_(tolerance), nanMode_(nanMode) {}

  /// What the program's run held for tensor `id`: its copy of a computed
  /// tensor, or the runtime's input or constant; null when it kept none.
  const rt::TensorView *programValue(int32_t id) {
    if (const rt::TensorView *copy = program_.find(id))
      return copy;
    rt::TensorKind kind = runtime_.program().tensors()[id].kind;
    if (kind != rt::TensorKind::input && kind != rt::TensorKind::constant)
      return nullptr;
    held_ = runtime_.tensorView(id);
    return held_.present() ? &held_ : nullptr;
  }

  /// The comparison of op `index`'s results (its worst), when both runs
  /// kept one; `leaves` says whether it diverges.
  std::optional<OpComparison> compare(const BisectResult &result, size_t index,
                                      bool &leaves) {
    const rt::KernelCall &call = *result.ops[index].call;
    std::optional<OpComparison> worst;
    leaves = false;
    for (int32_t id : call.outputs) {
      const rt::TensorView *a = id >= 0 ? program_.find(id) : nullptr;
      const rt::TensorView *b = id >= 0 ? reference_.find(id) : nullptr;
      if (!a || !b || a->numel() != b->numel())
        continue;
      OpComparison cmp;
      cmp.op = index;
      cmp.tensor = id;
      Difference diff = difference(*a, *b);
      defaultTolerance(a->dtype, cmp.rtol, cmp.atol);
      if (tolerance_.rtol >= 0)
        cmp.rtol = tolerance_.rtol;
      if (tolerance_.atol >= 0)
        cmp.atol = tolerance_.atol;
      cmp.maxAbs = diff.worst();
      cmp.maxRel = diff.maxOfSecond > 0 ? cmp.maxAbs / diff.maxOfSecond
                   : cmp.maxAbs > 0 ? std::numeric_limits<double>::infinity()
                                    : 0;
      cmp.nonfinite = valueRange(*a).nonfinite > 0;
      if (cmp.nonfinite) {
        cmp.nonfiniteFirst = true;
        for (int32_t input : call.inputs)
          if (const rt::TensorView *in =
                  input >= 0 ? programValue(input) : nullptr)
            if (valueRange(*in).nonfinite > 0)
              cmp.nonfiniteFirst = false;
      }
      bool out =
          nanMode_ ? cmp.nonfinite : !withinTolerance(diff, cmp.rtol, cmp.atol);
      if (!worst || (out && !leaves) ||
          (out == leaves && cmp.maxAbs > worst->maxAbs)) {
        worst = cmp;
        leaves = leaves || out;
      }
    }
    return worst;
  }

  std::vector<InputRange> inputRanges(const rt::KernelCall &call) {
    std::vector<InputRange> ranges;
    for (int32_t id : call.inputs) {
      if (id < 0)
        continue;
      InputRange range;
      range.tensor = id;
      const rt::TensorView *value = programValue(id);
      range.from = "delegate";
      if (!value) {
        value = reference_.find(id);
        range.from = "reference";
      }
      if (!value)
        continue;
      range.range = valueRange(*value);
      ranges.push_back(range);
    }
    return ranges;
  }

private:
  const rt::Runtime &runtime_;
  const TensorRecord &program_;
  const TensorRecord &reference_;
  Tolerance tolerance_;
  bool nanMode_;
  rt::TensorView held_;
};

} // namespace

BisectResult bisect(const rt::Runtime &runtime, const TensorRecord &program,
                    const TensorRecord &reference, const Tolerance &tolerance,
                    bool nanMode) {
  BisectResult result;
  result.ops = opsInOrder(runtime.program());
  Comparer comparer(runtime, program, reference, tolerance, nanMode);
  std::set<int32_t> tainted;
  for (size_t k = 0; k < result.ops.size(); ++k) {
    const rt::KernelCall &call = *result.ops[k].call;
    bool leaves = false;
    std::optional<OpComparison> cmp = comparer.compare(result, k, leaves);
    if (cmp)
      ++result.compared;
    else
      ++result.unobserved;
    if (!result.first) {
      if (!leaves)
        continue;
      result.first = cmp;
      result.firstInputs = comparer.inputRanges(call);
      tainted.insert(call.outputs.begin(), call.outputs.end());
      continue;
    }
    bool reads = false;
    for (int32_t id : call.inputs)
      reads = reads || (id >= 0 && tainted.count(id));
    if (!reads)
      continue;
    tainted.insert(call.outputs.begin(), call.outputs.end());
    if (leaves)
      result.downstream.push_back(*cmp);
  }
  return result;
}

} // namespace duet::cli
