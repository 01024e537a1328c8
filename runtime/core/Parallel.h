//===- Parallel.h - the threads the portable kernels share ------*- C++ -*-===//
//
// A program loaded with more than one thread (LoadOptions::threads) runs its
// portable kernels on a pthreadpool, the kind XNNPACK's delegates use: one
// pool per thread count in the process, shared by every program and delegate
// that asks for that many. The executor makes its program's pool current for
// the duration of a run (ParallelScope), and a kernel splits independent work
// (elements, rows, planes, column blocks of a product) with parallelFor,
// which runs inline without a pool or with too little work. Each item is
// computed the same way, by one thread, whatever the split, so results do
// not depend on the thread count.
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

struct pthreadpool;

namespace duet::rt {

/// The process's pool of `threads` threads, shared by every program and
/// delegate asking for that many while one of them holds it; null for one
/// thread, which runs everything on the caller.
Status sharedThreadpool(unsigned threads, std::shared_ptr<pthreadpool> &pool);

/// Makes `pool` the one parallelFor uses on this thread while the scope
/// lives; scopes nest.
class ParallelScope {
public:
  explicit ParallelScope(pthreadpool *pool);
  ~ParallelScope();
  ParallelScope(const ParallelScope &) = delete;
  ParallelScope &operator=(const ParallelScope &) = delete;

private:
  pthreadpool *previous_;
};

namespace detail {
/// How many tasks `n` items, at least `grain` a task, make on the current
/// pool: 1 without one.
size_t parallelTasks(int64_t n, int64_t grain);
/// Runs task(context, i) for i in [0, tasks) on the current pool.
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
