//===- Faults.h - planted node faults, resolved ----------------*- C++ -*-===//
//
// LoadOptions::faults.nodes names nodes by their .pt2 name; a program
// computes each node with an op (KernelCall::node), either a portable kernel
// call or an op of a delegate partition. This is where a name becomes the
// tensors to make wrong and the place that makes them so: the executor for a
// kernel call, the backend for a delegate's op. Each backend plants the
// fault its own way (inside the partition, so its later ops read it) and
// uses applyFault's formula.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_FAULTS_H
#define DUET_RUNTIME_CORE_FAULTS_H

#include "runtime/core/Program.h"
#include "runtime/core/Status.h"

#include <string>
#include <vector>

namespace duet::rt {

/// A planted fault on one tensor of the program.
struct TensorFault {
  int32_t tensor = -1;
  runtime::FaultKind kind = runtime::FaultKind::add;
  double value = 0;
  /// The node and op it was planted at, for messages.
  std::string node;
  std::string op;
  /// Where that op is: its instruction, and for a delegate's op its index
  /// in DelegateInfo::ops (-1 for a kernel call).
  size_t instruction = 0;
  int64_t delegateOp = -1;
};

/// The faults of `program.options().faults.nodes`, each on every
/// floating-point result of the last op that computes its node. An error
/// names a node that no op computes, or one without a floating-point result.
Status resolveFaults(const Program &program, std::vector<TensorFault> &faults);

/// The faults that delegate `delegate` must plant inside its partition (none
/// in reference mode, where the executor plants them after the kernels).
/// The program's faults were resolved at load, so this cannot fail.
std::vector<TensorFault> delegateFaults(const Program &program,
                                        uint32_t delegate);

/// `x` with `fault` applied: x + value, 0 or NaN.
float faultedValue(const TensorFault &fault, float x);

/// Applies `fault` to every element of `view` (float32, float64, float16 or
/// bfloat16) in host memory.
void applyFault(const TensorFault &fault, const TensorView &view);

/// For a fault a delegate cannot plant because the op is fused into the op
/// after it: "node 'relu' (aten.relu)", the first later op of the delegate
/// that reads the faulted tensor, or "the op after it" when none does.
std::string fusedInto(const Program &program, const TensorFault &fault);

/// "fault add 1 at node 'relu' (aten.relu)", for messages.
std::string describeFault(const TensorFault &fault);

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_FAULTS_H
