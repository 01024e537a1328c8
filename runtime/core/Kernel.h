//===- Kernel.h - the portable kernel interface -----------------*- C++ -*-===//
//
// A portable kernel runs one aten-dialect op on host tensors. Kernels are found
// by the op's dialect name ("aten.convolution"); their attributes are read by
// the names the aten dialect gives them (AtenOps.td), so the compiler writes an
// op into the program exactly as it is in the IR.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_KERNEL_H
#define DUET_RUNTIME_CORE_KERNEL_H

#include "runtime/core/DType.h"
#include "runtime/core/Status.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace duet::rt {

/// Read access to an op's attributes. An attribute the op did not record is
/// std::nullopt, which a kernel accepts only for the attributes the dialect
/// declares optional (the compiler writes all others, defaults included).
/// Enum attributes (gelu `approximate`, div `rounding_mode`) are strings.
class OpAttrs {
public:
  virtual ~OpAttrs() = default;
  virtual std::optional<int64_t> getInt(std::string_view name) const = 0;
  virtual std::optional<double> getFloat(std::string_view name) const = 0;
  virtual std::optional<bool> getBool(std::string_view name) const = 0;
  virtual std::optional<std::vector<int64_t>>
  getInts(std::string_view name) const = 0;
  virtual std::optional<std::string_view>
  getString(std::string_view name) const = 0;
};

/// Runs one op. `inputs` follow the op's operand order, an absent optional
/// operand being a view without data; `outputs` are allocated by the caller
/// with the shapes and dtypes the compiler computed.
using KernelFn = Status (*)(const OpAttrs &attrs,
                            const std::vector<TensorView> &inputs,
                            const std::vector<TensorView> &outputs);

/// The kernel of an op, or nullptr when the op has none. Declared here, for
/// the loader, and defined by the portable kernels' registry
/// (runtime/kernels/Registry.cpp), which every runtime links.
KernelFn findKernel(std::string_view opName);

/// Checks a call of `opName` without running it, before any memory exists:
/// the operand counts and attributes its kernel declares (Registry.cpp), and
/// the dtypes, ranks and shapes its kernel checks before it touches memory,
/// so that a call that passes reads and writes only inside its operands.
/// `inputs` and `outputs` give dtypes and sizes (their data is not read);
/// `given[i]` says whether input i is passed (false: an absent optional
/// operand). Only checks that depend on values (an index out of range, an
/// integer division by zero) are left to the run.
Status checkKernelCall(std::string_view opName, const OpAttrs &attrs,
                       const std::vector<TensorView> &inputs,
                       const std::vector<bool> &given,
                       const std::vector<TensorView> &outputs);

/// The same for a recorded call whose operands are `tensors[id]` (an id of
/// -1 is an absent optional operand; every other id must be in range): the
/// check the loader makes, and the compiler before it writes the call.
struct KernelCall;
struct TensorInfo;
Status checkKernelCall(const KernelCall &call,
                       const std::vector<TensorInfo> &tensors);

/// Every op name that has a portable kernel, sorted.
std::vector<std::string_view> kernelOpNames();

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_KERNEL_H
