//===- OpWork.h - how much work an aten op is, from its shapes --*- C++ -*-===//
//
// Placement by cost (docs/partitioning.md) estimates each op's time as a
// fixed cost plus its work at a backend's rate for the op's class; `duet-run
// tune` fits those rates to measured times. Both count the work here, from
// the op's name and static shapes, so the compiler's estimate and the
// runtime's fit agree by construction, and so do the estimates made from
// a backend's costs.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_OPWORK_H
#define DUET_RUNTIME_CORE_OPWORK_H

#include "runtime/core/ProgramTypes.h"
#include "runtime/core/Status.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

namespace duet::rt {

/// What an op's work is counted in.
enum class WorkClass {
  /// Convolutions, linear layers, matrix products, attention:
  /// multiply-adds.
  gemm,
  /// Pointwise ops: the largest tensor's elements.
  elementwise,
  /// Reductions, normalizations, softmax, pooling, scans: the largest
  /// tensor's elements.
  reduce,
  /// Data movement (views, permutes, copies, gathers, resizing): the
  /// largest tensor's elements.
  data,
};
constexpr size_t kWorkClasses = 4;

/// The key of a class's rate in a profile's costs ("gemm_macs_per_us").
std::string_view workRateKey(WorkClass cls);

/// The ops of each class but elementwise, by dialect name, for tests.
const std::array<std::vector<std::string_view>, kWorkClasses> &
opsByWorkClass();

struct OpWork {
  WorkClass cls = WorkClass::elementwise;
  double units = 0;
};

/// The work of aten op `op` ("aten.convolution") with operand sizes `inputs`
/// (an absent optional operand: empty, as a scalar) and result sizes
/// `outputs`; `transposed` is a convolution's attribute.
OpWork estimateWork(std::string_view op,
                    const std::vector<std::vector<int64_t>> &inputs,
                    const std::vector<std::vector<int64_t>> &outputs,
                    bool transposed = false);

/// The costs of one backend on a target, in microseconds, as a profile's
/// "costs" object states them (docs/profiles.md).
struct BackendCosts {
  /// One call of a partition (a submit and its wait; an XNNPACK runtime
  /// invocation); 0 for the portable kernels, which run no partitions.
  double callUs = 0;
  /// Each op on top of its work (a dispatch, a node, a kernel call).
  double opUs = 0;
  /// Each tensor that enters or leaves one of its partitions, plus its
  /// bytes at transferBytesPerUs (0: no per-byte cost).
  double transferUs = 0;
  double transferBytesPerUs = 0;
  /// Units of work per microsecond, by WorkClass.
  std::array<double, kWorkClasses> unitsPerUs = {1, 1, 1, 1};
};

/// An upper bound of the steps the portable kernel of `op` takes: the units
/// of estimateWork, where a windowed op (a pooling op's `kernel_size`, of
/// `window` elements; 1 for other ops) visits its whole window for each
/// output element, and attention builds its `[L, S]` scores (and mask) even
/// where its query is empty. Bounds the work of a program (kDefaultMaxWork).
double workBound(std::string_view op,
                 const std::vector<std::vector<int64_t>> &inputs,
                 const std::vector<std::vector<int64_t>> &outputs,
                 bool transposed, double window);

/// The work of one run of a program: the sum of workBound over its kernel
/// calls and its delegates' ops, and the op that takes the most.
struct ProgramWork {
  double total = 0;
  double largest = 0;
  const KernelCall *largestCall = nullptr;
};

/// The work of `calls`, whose operands are ids into `tensors`.
ProgramWork programWork(const std::vector<TensorInfo> &tensors,
                        const std::vector<const KernelCall *> &calls);

/// The work of a program's kernel calls among `instructions` and the
/// recorded ops of `delegates` (DelegateSpec as the compiler writes them,
/// DelegateInfo as the loader reads them).
template <typename Delegate>
ProgramWork programWork(const std::vector<TensorInfo> &tensors,
                        const std::vector<Instruction> &instructions,
                        const std::vector<Delegate> &delegates) {
  std::vector<const KernelCall *> calls;
  for (const Instruction &instruction : instructions)
    if (const auto *call = std::get_if<KernelCall>(&instruction))
      calls.push_back(call);
  for (const Delegate &delegate : delegates)
    for (const KernelCall &op : delegate.ops)
      calls.push_back(&op);
  return programWork(tensors, calls);
}

/// An error when `work` is over `limit` (0: kDefaultMaxWork), naming the op
/// that takes the most and the option that raises the limit.
Status checkWork(const ProgramWork &work, double limit);

/// Estimated microseconds of an op of `work` on `costs`' backend.
double estimateOpUs(const BackendCosts &costs, const OpWork &work);
/// Estimated microseconds of moving `bytes` into or out of a partition.
double estimateTransferUs(const BackendCosts &costs, uint64_t bytes);

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_OPWORK_H
