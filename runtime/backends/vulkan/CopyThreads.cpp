//===- CopyThreads.cpp - host copies split between threads ----------------===//

#include "runtime/backends/vulkan/CopyThreads.h"

#include <algorithm>

namespace duet::rt::vulkan {

CopyThreads::CopyThreads(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i)
    workers_.emplace_back([this] { work(); });
}

CopyThreads::~CopyThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

void CopyThreads::takePieces() {
  while (true) {
    int64_t piece;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_ >= pieces_)
        return;
      piece = next_++;
    }
    int64_t first = piece * pieceElements_;
    (*copy_)(first, std::min(pieceElements_, elements_ - first));
    std::lock_guard<std::mutex> lock(mutex_);
    if (++finished_ == pieces_)
      done_.notify_all();
  }
}

void CopyThreads::work() {
  uint64_t seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_)
        return;
      seen = generation_;
    }
    takePieces();
  }
}

void CopyThreads::run(
    int64_t n, int64_t elementBytes,
    const std::function<void(int64_t first, int64_t count)> &copy) {
  int64_t bytes = n * elementBytes;
  int64_t threads = static_cast<int64_t>(workers_.size()) + 1;
  int64_t pieces = std::min(threads, bytes / kMinPieceBytes);
  if (pieces <= 1) {
    if (n > 0)
      copy(0, n);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    copy_ = &copy;
    elements_ = n;
    pieceElements_ = (n + pieces - 1) / pieces;
    pieces_ = (n + pieceElements_ - 1) / pieceElements_;
    next_ = finished_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  takePieces();
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return finished_ == pieces_; });
  copy_ = nullptr;
}

} // namespace duet::rt::vulkan
