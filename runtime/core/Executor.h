//===- Executor.h - runs a loaded program ----------------------*- C++ -*-===//
//
// The executor owns a program's memory: the arena holding inputs, outputs and
// activations at their planned offsets, and in reference mode the delegates'
// internal tensors. It prepares every delegate once, binds every instruction's
// operands once, and then each run() is a walk over prepared steps.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_EXECUTOR_H
#define DUET_RUNTIME_CORE_EXECUTOR_H

#include "runtime/core/AttrMap.h"
#include "runtime/core/Backend.h"
#include "runtime/core/Faults.h"
#include "runtime/core/Program.h"

#include <memory>
#include <string>
#include <vector>

namespace duet::rt {

class WorkerPool;

class Executor {
public:
  /// Prepares `program`, which must outlive the executor: allocates the
  /// arena, initializes each delegate on its backend (or, in reference mode,
  /// binds the delegate's recorded ops to portable kernels).
  static Status create(const Program &program,
                       std::unique_ptr<Executor> &executor);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  /// The memory of tensor `id`: arena memory for inputs, outputs and
  /// activations, the file's memory for constants (read-only), and for a
  /// delegate's internal tensor memory only in reference mode (otherwise a
  /// view without data). Valid while the executor lives.
  const TensorView &view(int32_t id) const { return views_[id]; }

  /// Runs the instructions in order. Inputs are read from, and outputs
  /// written to, their views.
  Status run();

  /// The times of the latest run, one entry per prepared instruction in
  /// order, when loaded with LoadOptions::profile.enabled; empty otherwise.
  const std::vector<ProfileEntry> &profile() const { return profile_; }

private:
  /// One prepared instruction.
  struct Step {
    /// "instruction 3" or "instruction 3: delegate 0 op 2", for errors.
    std::string where;
    KernelFn kernel = nullptr;
    AttrMap attrs;
    Backend *backend = nullptr;
    PreparedDelegate *delegate = nullptr;
    std::vector<TensorView> inputs;
    std::vector<TensorView> outputs;
    /// The tensors it computes, for LoadOptions::observer: a kernel's
    /// results, a delegate's outputs and then the tensors it keeps apart
    /// (`readObserved` read from the delegate).
    std::vector<int32_t> computed;
    std::vector<int32_t> readObserved;
    /// Faults planted after a kernel (Faults.h).
    std::vector<TensorFault> faults;
  };

  explicit Executor(const Program &program) : program_(program) {}
  Status prepare();
  Status addKernelStep(const KernelCall &call, std::string where,
                       size_t instruction, int64_t delegateOp);
  /// Calls LoadOptions::observer with what `step` computed.
  Status observe(const Step &step) const;
  /// The profile entry of the step just added, when profiling.
  void addProfileEntry(size_t instruction, std::string kind, std::string name,
                       std::string node);
  Status runStep(const Step &step) const;
  std::vector<TensorView> bind(const std::vector<int32_t> &ids) const;

  /// Zeroed memory of `bytes` (and some slack) inside `block`, which is what
  /// to free, from a multiple of kHostExtentAlignment and `*extent` bytes
  /// long (a multiple of it too, when `extent` is given); nullptr when there
  /// is not enough.
  static void *allocateZeroed(uint64_t bytes, void *&block,
                              uint64_t *extent = nullptr);

  const Program &program_;
  void *arena_ = nullptr;
  /// The bytes from arena_ that are the executor's (DelegateIo::extent).
  uint64_t arenaExtent_ = 0;
  void *arenaBlock_ = nullptr;
  void *internal_ = nullptr;
  void *internalBlock_ = nullptr;
  std::vector<TensorView> views_;
  /// The program's worker pool (Parallel.h), current while it runs; null
  /// for one thread or a program without portable kernels.
  std::shared_ptr<WorkerPool> pool_;
  std::vector<std::unique_ptr<PreparedDelegate>> prepared_;
  std::vector<Step> steps_;
  std::vector<ProfileEntry> profile_;
  /// LoadOptions::faults.nodes, resolved (Faults.h).
  std::vector<TensorFault> faults_;
};

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_EXECUTOR_H
