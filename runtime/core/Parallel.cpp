//===- Parallel.cpp - the threads the portable kernels share --------------===//

#include "runtime/core/Parallel.h"

#include <pthreadpool.h>

#include <map>

namespace duet::rt {
namespace {
thread_local pthreadpool_t current = nullptr;
} // namespace

Status sharedThreadpool(unsigned threads, std::shared_ptr<pthreadpool> &pool) {
  pool.reset();
  if (threads <= 1)
    return Status::ok();
  static std::mutex mutex;
  static std::map<unsigned, std::weak_ptr<pthreadpool>> pools;
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<pthreadpool> &cached = pools[threads];
  pool = cached.lock();
  if (pool)
    return Status::ok();
  pthreadpool_t created = pthreadpool_create(threads);
  if (!created)
    return Status::error("cannot create a pool of {} threads", threads);
  pool.reset(created, pthreadpool_destroy);
  cached = pool;
  return Status::ok();
}

ParallelScope::ParallelScope(pthreadpool *pool) : previous_(current) {
  current = pool;
}
ParallelScope::~ParallelScope() { current = previous_; }

namespace detail {

size_t parallelTasks(int64_t n, int64_t grain) {
  if (!current || n < 2 * grain)
    return 1;
  // A few tasks a thread, so that a thread the OS preempts does not hold
  // the rest up for long.
  size_t threads = pthreadpool_get_threads_count(current);
  size_t byWork = static_cast<size_t>(n / grain);
  return std::max<size_t>(1, std::min(byWork, threads * 4));
}

void parallelize(size_t tasks, void (*task)(void *, size_t), void *context) {
  pthreadpool_parallelize_1d(current, task, context, tasks,
                             PTHREADPOOL_FLAG_YIELD_WORKERS);
}

} // namespace detail
} // namespace duet::rt
