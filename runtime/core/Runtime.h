//===- Runtime.h - the public API of the duet runtime ----------*- C++ -*-===//
//
// What an application embedding duet uses:
//
//   duet::rt::LoadOptions options;             // backends, reference mode
//   std::unique_ptr<duet::rt::Runtime> model;
//   if (auto s = duet::rt::Runtime::load("model.duet", options, model); !s)
//     die(s.message());
//   model->setInput(0, imageView);
//   model->run();
//   duet::rt::TensorView logits = model->output(0);
//
// Every failure is a Status with one readable line; nothing throws.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_RUNTIME_H
#define DUET_RUNTIME_CORE_RUNTIME_H

#include "runtime/core/DType.h"
#include "runtime/core/Executor.h"
#include "runtime/core/Program.h"
#include "runtime/core/Status.h"

#include <memory>
#include <string>

namespace duet::rt {

class Runtime {
public:
  /// Loads, verifies and prepares the program file at `path`.
  static Status load(const std::string &path, const LoadOptions &options,
                     std::unique_ptr<Runtime> &runtime);
  /// The same for a program in memory (copied); `name` stands for the file
  /// in messages.
  static Status loadFromBytes(const void *data, size_t size, std::string name,
                              const LoadOptions &options,
                              std::unique_ptr<Runtime> &runtime);

  const Program &program() const { return *program_; }

  /// The model's inputs and outputs, in the model's order: name, dtype and
  /// sizes (TensorInfo::name, dtype, sizes).
  size_t inputCount() const { return program_->inputs().size(); }
  size_t outputCount() const { return program_->outputs().size(); }
  const TensorInfo &inputInfo(size_t index) const;
  const TensorInfo &outputInfo(size_t index) const;

  /// Copies `value` into input `index`; its dtype and sizes must match.
  Status setInput(size_t index, const TensorView &value);
  /// Reads input `index` from a .npy file. A float32 file given for a
  /// float16 or bfloat16 input is rounded, and `notice` says so.
  Status setInputFromNpy(size_t index, const std::string &path,
                         std::string &notice);

  /// Runs the program once. Under LoadOptions::faults.nondeterminismPeriod
  /// K, every K-th run then adds 1 to the first element of each
  /// floating-point output (include/duet/runtime_options.h).
  Status run();

  /// Where the latest run's time went, per prepared instruction, when loaded
  /// with LoadOptions::profile.enabled; empty otherwise (Executor::profile).
  const std::vector<ProfileEntry> &profile() const {
    return executor_->profile();
  }

  /// A view of output `index` in the runtime's memory, valid until the next
  /// run() or until the runtime goes away. An index out of range gives a
  /// view without data.
  TensorView output(size_t index) const;
  /// The memory of any tensor by id (see Executor::view), for tools that
  /// look inside a run; ids come from program().tensors().
  TensorView tensorView(int32_t id) const;

  /// Writes output `index` to a .npy file (bfloat16 as float32, with a
  /// notice).
  Status writeOutputNpy(size_t index, const std::string &path,
                        std::string &notice) const;

private:
  Runtime() = default;
  static Status finishLoad(std::unique_ptr<Program> program,
                           std::unique_ptr<Runtime> &runtime);
  Status checkIndex(size_t index, size_t count, std::string_view what) const;
  /// "input 0 (x)".
  std::string describeInput(size_t index) const;

  /// The planted fault of LoadOptions::faults, after a run.
  void plantFaults();

  std::unique_ptr<Program> program_;
  std::unique_ptr<Executor> executor_;
  /// Runs that succeeded, for the planted faults.
  uint64_t runs_ = 0;
};

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_RUNTIME_H
