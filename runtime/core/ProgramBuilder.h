//===- ProgramBuilder.h - writes a .duet program file ----------*- C++ -*-===//
//
// The one writer of the program format (runtime/schema/program.fbs). The
// compiler's emitter hands it tensors, constant bytes, instructions,
// delegates and the memory plan, and gets the file bytes back; the loader in
// Program.cpp is the one reader.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_PROGRAMBUILDER_H
#define DUET_RUNTIME_CORE_PROGRAMBUILDER_H

#include "runtime/core/ProgramTypes.h"
#include "runtime/core/Status.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace duet::rt {

/// Collects a program and serializes it. Ids are handed out in call order:
/// tensors from 0, delegates from 0. The builder computes every tensor's
/// `nbytes` and every constant's offset; it does not check ids or the plan
/// (the loader does, and a compiler can load what it wrote to be sure).
/// An invalid tensor (a negative size, a byte count that overflows, constant
/// bytes of the wrong length) is reported by serialize() and writeFile().
class ProgramBuilder {
public:
  /// Adds a tensor of any kind but constant and returns its id.
  int32_t addTensor(TensorInfo tensor);

  /// Adds a constant whose numel * element-size bytes are at `data`, which
  /// must stay valid until serialize() or writeFile() has returned. Large
  /// weights are thus written straight from the compiler's buffers.
  int32_t addConstant(TensorInfo tensor, const void *data);
  /// Adds a constant whose bytes the builder keeps.
  int32_t addConstant(TensorInfo tensor, std::vector<uint8_t> bytes);

  /// The model's inputs and outputs, in the model's order.
  void setInputs(std::vector<int32_t> ids) { inputs_ = std::move(ids); }
  void setOutputs(std::vector<int32_t> ids) { outputs_ = std::move(ids); }

  void addKernelCall(KernelCall call) {
    instructions_.push_back(std::move(call));
  }
  /// Adds a delegate partition and returns its index for a DelegateCall.
  uint32_t addDelegate(DelegateSpec delegate);
  void addDelegateCall(DelegateCall call) {
    instructions_.push_back(std::move(call));
  }

  void setMemoryPlan(MemoryPlan plan) { plan_ = plan; }
  /// The target profile's costs as JSON text (Program::targetCosts).
  void setTargetCosts(std::string json) { targetCosts_ = std::move(json); }

  /// Bytes of the constant segment so far: the constants, 64-aligned, then
  /// zeros up to a multiple of 64 with at least kConstantTailBytes of them.
  uint64_t constantSegmentBytes() const;

  /// The whole file in memory.
  Status serialize(std::vector<uint8_t> &bytes) const;
  /// Writes the file to `path` through an AtomicFile (AtomicFile.h), so a
  /// failed write never leaves a half program behind.
  Status writeFile(const std::string &path) const;

private:
  /// Emits the file in order through `sink`, which returns false on failure.
  Status emit(const std::function<bool(const void *, size_t)> &sink) const;
  int32_t addConstantTensor(TensorInfo tensor, const void *data,
                            size_t ownedIndex);
  void noteError(Status status);

  struct ConstantBytes {
    int32_t tensor;
    const void *data; // null when the bytes are in owned_
    size_t ownedIndex;
  };

  std::vector<TensorInfo> tensors_;
  std::vector<ConstantBytes> constants_;
  std::vector<std::vector<uint8_t>> owned_;
  std::vector<int32_t> inputs_;
  std::vector<int32_t> outputs_;
  std::vector<Instruction> instructions_;
  std::vector<DelegateSpec> delegates_;
  MemoryPlan plan_;
  std::string targetCosts_;
  /// The end of the last constant.
  uint64_t constantsEnd_ = 0;
  Status firstError_;
};

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_PROGRAMBUILDER_H
