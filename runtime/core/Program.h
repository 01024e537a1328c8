//===- Program.h - a loaded and verified program file ----------*- C++ -*-===//
//
// The loader. It maps a .duet file (or copies bytes), runs the FlatBuffers
// verifier, decodes the program into the structs of ProgramTypes.h and checks
// it: sizes within the bounds of Limits.h, ids in range, offsets inside the
// constant segment and the arena, byte counts that match sizes and dtypes,
// instructions that read values already written and write no constant or
// input, every kernel call (the delegates' recorded ops too) against what its
// portable kernel declares and checks, and a registered backend for every
// delegate. Backends check their blobs when the executor prepares them, before
// anything runs. A program that loads can be executed without further checks;
// a file that does not is reported as one line naming the file and what is
// wrong, with the file's own names escaped (Escape.h).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_PROGRAM_H
#define DUET_RUNTIME_CORE_PROGRAM_H

#include "runtime/core/Backend.h"
#include "runtime/core/DType.h"
#include "runtime/core/Kernel.h"
#include "runtime/core/LoadOptions.h"
#include "runtime/core/ProgramTypes.h"
#include "runtime/core/Status.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace duet::rt {

class Program {
public:
  /// Maps and loads the file at `path`.
  static Status load(const std::string &path, const LoadOptions &options,
                     std::unique_ptr<Program> &program);
  /// Loads a copy of `size` bytes at `data`; `name` stands for the file in
  /// messages.
  static Status loadFromBytes(const void *data, size_t size, std::string name,
                              const LoadOptions &options,
                              std::unique_ptr<Program> &program);

  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  /// The path, or the name given to loadFromBytes.
  const std::string &name() const { return name_; }
  uint32_t formatVersion() const { return formatVersion_; }
  const std::vector<TensorInfo> &tensors() const { return tensors_; }
  /// Tensor ids of the model's inputs and outputs, in the model's order.
  const std::vector<int32_t> &inputs() const { return inputs_; }
  const std::vector<int32_t> &outputs() const { return outputs_; }
  const std::vector<Instruction> &instructions() const { return instructions_; }
  const std::vector<DelegateInfo> &delegates() const { return delegates_; }
  const MemoryPlan &memoryPlan() const { return plan_; }
  /// The target profile's costs the compiler planned with, as JSON text;
  /// empty when the program has none (docs/profiles.md).
  const std::string &targetCosts() const { return targetCosts_; }

  /// Sizes of the file and its parts.
  uint64_t fileBytes() const { return size_; }
  uint64_t flatBufferBytes() const { return flatBufferBytes_; }
  uint64_t constantSegmentOffset() const { return segmentOffset_; }
  uint64_t constantSegmentBytes() const { return segmentBytes_; }

  /// A read-only view of constant `id` in the file's memory; a view without
  /// data when `id` is not a constant. Kernels and backends must not write
  /// through it (the file is mapped read-only).
  TensorView constantView(int32_t id) const;

  /// "tensor 12 (conv.weight)", as errors name a tensor.
  std::string describeTensor(int32_t id) const;

  bool referenceMode() const { return options_.reference; }
  bool inspectOnly() const { return options_.inspectOnly; }
  /// LoadOptions::threads, 0 resolved to usableCpuCount().
  unsigned threads() const;
  /// The options the program was loaded with, for backends to read theirs.
  const LoadOptions &options() const { return options_; }
  /// The registry delegates are initialized from.
  const BackendRegistry &backends() const;
  /// The kernel of `op` through the load options' lookup.
  KernelFn findOpKernel(std::string_view op) const;

private:
  Program() = default;
  Status parse();
  Status decode(const void *root);
  /// The semantic checks (ProgramChecks.cpp), on the decoded program: the
  /// parts below, in this order, then the work limit.
  Status check() const;
  Status checkPlanBounds() const;
  Status checkTensor(size_t i) const;
  Status checkInputsAndOutputs() const;
  Status checkInstructions() const;
  Status checkArenaSize() const;

  std::string name_;
  LoadOptions options_;
  // The file's bytes: a read-only mapping, or a 64-aligned heap copy.
  const uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
  void *mapping_ = nullptr;
  size_t mappingBytes_ = 0;
  void *heap_ = nullptr;

  uint32_t formatVersion_ = 0;
  uint64_t flatBufferBytes_ = 0;
  uint64_t segmentOffset_ = 0;
  uint64_t segmentBytes_ = 0;
  std::vector<TensorInfo> tensors_;
  std::vector<int32_t> inputs_;
  std::vector<int32_t> outputs_;
  std::vector<Instruction> instructions_;
  std::vector<DelegateInfo> delegates_;
  MemoryPlan plan_;
  std::string targetCosts_;
};

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_PROGRAM_H
