//===- Parallel.h - the threads the portable kernels share ------*- C++ -*-===//
//
// A program loaded with more than one thread (LoadOptions::threads) splits
// its portable kernels' work on a pool of worker threads: one pool per thread
// count in the process, shared by every program that asks for that many. The
// executor makes its program's pool current for a run (ParallelScope), and a
// kernel splits independent work (elements, rows, planes, tiles of a
// product) with parallelFor, which runs inline without a pool, with too
// little work, or when another run holds the pool. Each item is computed the
// same way, by one thread, whatever the split, so results do not depend on
// the thread count.
//
// The pool is duet's own, not a pthreadpool like XNNPACK's: a pthreadpool's
// caller waits, at the end of every split, for each worker to wake and check
// in, and on a machine whose other CPUs are busy that wait is a scheduler
// time slice. Here the caller and the workers claim chunks from one counter
// and the caller waits only for chunks a worker has begun, so a worker the
// scheduler has not run yet costs nothing: the caller does its share.
//
// A kernel compiled in two clones (DUET_KERNEL_CLONES) must give the chunk
// to a function that is itself cloned: a lambda inside a cloned function is
// a separate function, compiled once for the baseline.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_PARALLEL_H
#define DUET_RUNTIME_CORE_PARALLEL_H

#include "runtime/core/Status.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>

namespace duet::rt {

class WorkerPool;

/// The process's pool for `threads` threads (the caller and threads - 1
/// workers), shared by every program asking for that many while one of them
/// holds it; null for one thread, which runs everything on the caller.
Status sharedWorkerPool(unsigned threads, std::shared_ptr<WorkerPool> &pool);

/// Makes `pool` the one parallelFor uses on this thread while the scope
/// lives; scopes nest.
class ParallelScope {
public:
  explicit ParallelScope(WorkerPool *pool);
  ~ParallelScope();
  ParallelScope(const ParallelScope &) = delete;
  ParallelScope &operator=(const ParallelScope &) = delete;

private:
  WorkerPool *previous_;
};

namespace detail {
/// How many tasks `n` items, at least `grain` a task, make on the current
/// pool: 1 without one.
size_t parallelTasks(int64_t n, int64_t grain);
/// Runs task(context, i) for i in [0, tasks) on the current pool and this
/// thread; `task` must not throw.
void parallelize(size_t tasks, void (*task)(void *, size_t), void *context);
} // namespace detail

/// Calls body(begin, end) on disjoint chunks covering [0, n), each of at
/// least `grain` items but for the last, on the current ParallelScope's
/// pool; inline, as one chunk, without a pool or when n < 2 * grain. The
/// first exception a chunk throws is rethrown here, on the caller's thread,
/// once every chunk has ended.
template <typename Body>
void parallelFor(int64_t n, int64_t grain, const Body &body) {
  if (n <= 0)
    return;
  size_t tasks = detail::parallelTasks(n, std::max<int64_t>(grain, 1));
  if (tasks <= 1) {
    body(int64_t(0), n);
    return;
  }
  struct Split {
    const Body *body;
    int64_t n, chunk;
    std::mutex lock;
    std::exception_ptr error;
  } split{&body, n,
          (n + static_cast<int64_t>(tasks) - 1) / static_cast<int64_t>(tasks)};
  detail::parallelize(
      tasks,
      [](void *context, size_t i) {
        Split &s = *static_cast<Split *>(context);
        int64_t begin = static_cast<int64_t>(i) * s.chunk;
        int64_t end = std::min(s.n, begin + s.chunk);
        if (begin >= end)
          return;
        try {
          (*s.body)(begin, end);
        } catch (...) {
          std::lock_guard<std::mutex> guard(s.lock);
          if (!s.error)
            s.error = std::current_exception();
        }
      },
      &split);
  if (split.error)
    std::rethrow_exception(split.error);
}

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_PARALLEL_H
