//===- Parallel.cpp - the threads the portable kernels share --------------===//

#include "runtime/core/Parallel.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <system_error>
#include <thread>
#include <vector>

namespace duet::rt {
namespace {

/// How long a worker keeps looking for the next split before it sleeps, and
/// the caller for the last claimed tasks: the splits of one run follow each
/// other within microseconds, a futex wake-up costs tens of them, and after
/// the run the workers leave the CPUs to others.
constexpr auto kSpin = std::chrono::microseconds(100);

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// Spins until `ready()` or kSpin has passed; whether it is ready.
template <typename Ready> bool spinUntil(const Ready &ready) {
  auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 1;; ++i) {
    if (ready())
      return true;
    if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline)
      return false;
    cpuRelax();
  }
}

} // namespace

/// Workers that sleep until a split is published, then claim its tasks with
/// the caller from one cursor: the split's generation in the high 32 bits,
/// the next task in the low 32. A task is claimed by advancing the cursor
/// while it still holds the split's generation, so a worker that wakes after
/// its split has ended claims nothing and touches nothing of it. Generations
/// are 32-bit and wrap (after 2^32 splits, days of a busy server); a worker
/// would have to sleep through all 2^32 of them to mistake one for another.
class WorkerPool {
public:
  /// Throws std::system_error when a thread cannot be started (after
  /// stopping the ones that were).
  explicit WorkerPool(unsigned threads) {
    workers_.reserve(threads - 1);
    try {
      for (unsigned i = 1; i < threads; ++i)
        workers_.emplace_back([this] { work(); });
    } catch (...) {
      stop();
      throw;
    }
  }

  ~WorkerPool() { stop(); }

  unsigned threads() const {
    return static_cast<unsigned>(workers_.size()) + 1;
  }

  void run(size_t tasks, void (*task)(void *, size_t), void *context) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock() || tasks > 0xffffffffu) {
      // Another run holds the pool (or a split inside this one's chunk):
      // this thread does the work.
      for (size_t i = 0; i < tasks; ++i)
        task(context, i);
      return;
    }
    task_.store(task, std::memory_order_relaxed);
    context_.store(context, std::memory_order_relaxed);
    tasks_.store(tasks, std::memory_order_relaxed);
    remaining_.store(tasks, std::memory_order_relaxed);
    uint32_t generation = ++generation_;
    cursor_.store(uint64_t(generation) << 32, std::memory_order_release);
    published_.store(generation, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(wakeLock_);
      if (sleepers_ > 0)
        wake_.notify_all();
    }
    claimAndRun(generation);
    // Only tasks a worker has claimed are left: wait for those.
    auto finished = [&] {
      return remaining_.load(std::memory_order_acquire) == 0;
    };
    if (spinUntil(finished))
      return;
    std::unique_lock<std::mutex> lock(doneLock_);
    allDone_.wait(lock, finished);
  }

private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(wakeLock_);
      stopping_.store(true, std::memory_order_relaxed);
    }
    wake_.notify_all();
    for (std::thread &worker : workers_)
      if (worker.joinable())
        worker.join();
  }

  void work() {
    uint32_t seen = 0;
    auto woken = [&] {
      return stopping_.load(std::memory_order_relaxed) ||
             published_.load(std::memory_order_acquire) != seen;
    };
    while (true) {
      if (!spinUntil(woken)) {
        std::unique_lock<std::mutex> lock(wakeLock_);
        ++sleepers_;
        wake_.wait(lock, woken);
        --sleepers_;
      }
      if (stopping_.load(std::memory_order_relaxed))
        return;
      seen = published_.load(std::memory_order_acquire);
      claimAndRun(seen);
    }
  }

  void claimAndRun(uint32_t generation) {
    uint64_t cursor = cursor_.load(std::memory_order_acquire);
    while (true) {
      if (static_cast<uint32_t>(cursor >> 32) != generation)
        return;
      uint64_t index = cursor & 0xffffffffu;
      // Read before the claim; a claim that succeeds proves they are this
      // split's (the next split is published only after this one's last
      // task ends, which needs the cursor past its tasks).
      size_t tasks = tasks_.load(std::memory_order_relaxed);
      if (index >= tasks)
        return;
      auto *task = task_.load(std::memory_order_relaxed);
      void *context = context_.load(std::memory_order_relaxed);
      if (!cursor_.compare_exchange_weak(cursor, cursor + 1,
                                         std::memory_order_acq_rel,
                                         std::memory_order_acquire))
        continue;
      task(context, index);
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(doneLock_);
        allDone_.notify_all();
      }
      cursor = cursor_.load(std::memory_order_acquire);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex busy_; // one split at a time
  uint32_t generation_ = 0;
  std::atomic<uint64_t> cursor_{0};
  std::atomic<void (*)(void *, size_t)> task_{nullptr};
  std::atomic<void *> context_{nullptr};
  std::atomic<size_t> tasks_{0};
  std::atomic<size_t> remaining_{0};
  std::mutex wakeLock_;
  std::condition_variable wake_;
  /// The latest split's generation, which wakes the workers.
  std::atomic<uint32_t> published_{0};
  std::atomic<bool> stopping_{false};
  unsigned sleepers_ = 0; // under wakeLock_
  std::mutex doneLock_;
  std::condition_variable allDone_;
};

namespace {
thread_local WorkerPool *current = nullptr;
} // namespace

Status sharedWorkerPool(unsigned threads, std::shared_ptr<WorkerPool> &pool) {
  pool.reset();
  if (threads <= 1)
    return Status::ok();
  static std::mutex mutex;
  static std::map<unsigned, std::weak_ptr<WorkerPool>> pools;
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<WorkerPool> &cached = pools[threads];
  pool = cached.lock();
  if (pool)
    return Status::ok();
  try {
    pool = std::make_shared<WorkerPool>(threads);
  } catch (const std::system_error &e) {
    return Status::error("cannot start {} worker threads: {}", threads - 1,
                         e.what());
  }
  cached = pool;
  return Status::ok();
}

ParallelScope::ParallelScope(WorkerPool *pool) : previous_(current) {
  current = pool;
}
ParallelScope::~ParallelScope() { current = previous_; }

namespace detail {

size_t parallelTasks(int64_t n, int64_t grain) {
  if (!current || n < 2 * grain)
    return 1;
  // A few tasks a thread, so that the threads' shares even out.
  size_t byWork = static_cast<size_t>(n / grain);
  return std::max<size_t>(1, std::min<size_t>(byWork, current->threads() * 4));
}

void parallelize(size_t tasks, void (*task)(void *, size_t), void *context) {
  current->run(tasks, task, context);
}

} // namespace detail
} // namespace duet::rt
