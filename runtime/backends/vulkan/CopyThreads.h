//===- CopyThreads.h - host copies split between threads --------*- C++ -*-===//
//
// A run of the Vulkan delegate copies its inputs into host-visible staging
// memory and its outputs out of it. The bytes the GPU wrote are not in the
// CPU's caches, and one core reads them at about 10 GB/s: on the H200
// machine the Whisper encoder's 2.3 MB output took 0.21 ms to copy out and
// its 0.96 MB input 0.12 ms to copy in, a tenth of its run. CopyThreads
// splits such a copy into pieces of at least kMinPieceBytes and runs them
// on a few threads of its own (the caller takes a piece too), which sleep
// between runs.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_VULKAN_COPYTHREADS_H
#define DUET_RUNTIME_BACKENDS_VULKAN_COPYTHREADS_H

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace duet::rt::vulkan {

class CopyThreads {
public:
  /// A piece below this many bytes is not worth waking a thread for.
  static constexpr int64_t kMinPieceBytes = 256 * 1024;

  /// With `threads` threads in all (the caller's among them): 1 copies on
  /// the caller alone and starts none.
  explicit CopyThreads(unsigned threads);
  ~CopyThreads();
  CopyThreads(const CopyThreads &) = delete;
  CopyThreads &operator=(const CopyThreads &) = delete;

  /// Calls `copy(first, count)` for pieces that cover elements [0, n) of
  /// `elementBytes` bytes each, on the threads, and returns when all are
  /// done.
  void run(int64_t n, int64_t elementBytes,
           const std::function<void(int64_t first, int64_t count)> &copy);

private:
  void work();
  /// Takes pieces of the current job until none is left.
  void takePieces();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t)> *copy_ = nullptr;
  int64_t elements_ = 0, pieceElements_ = 0, pieces_ = 0;
  int64_t next_ = 0, finished_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

} // namespace duet::rt::vulkan

#endif // DUET_RUNTIME_BACKENDS_VULKAN_COPYTHREADS_H
