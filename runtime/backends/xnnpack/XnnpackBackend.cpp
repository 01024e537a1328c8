//===- XnnpackBackend.cpp - the XNNPACK CPU delegate ----------------------===//

#include "runtime/backends/xnnpack/XnnpackBackend.h"

#include "runtime/backends/xnnpack/XnnpackDelegate.h"
#include "runtime/core/Program.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <map>
#include <mutex>

namespace duet::rt {

namespace {

class XnnpackBackend : public Backend {
public:
  std::string_view name() const override { return "xnnpack"; }

  Status init(const Program &program, uint32_t index, ByteSpan blob,
              const DelegateIo &,
              std::unique_ptr<PreparedDelegate> &prepared) override {
    // XNNPACK is initialized once per process and stays so: its state is
    // only the tables of the kernels this CPU has.
    static const xnn_status initialized = xnn_initialize(nullptr);
    if (initialized != xnn_status_success)
      return Status::error("xnn_initialize failed ({}): XNNPACK does not "
                           "support this CPU; compile with --backends "
                           "portable",
                           static_cast<int>(initialized))
          .withCode(ErrorCode::unsupported);
    std::shared_ptr<pthreadpool> pool;
    DUET_RETURN_IF_ERROR(threadpool(program.threads(), pool));
    return xnnpack::XnnpackDelegate::create(program, index, blob,
                                            std::move(pool), prepared);
  }

  Status execute(PreparedDelegate &delegate,
                 const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs) override {
    return static_cast<xnnpack::XnnpackDelegate &>(delegate).run(inputs,
                                                                 outputs);
  }

private:
  /// The pool of `threads` threads (Program::threads) that the delegates of
  /// every program asking for that many share; null for one thread, which
  /// XNNPACK runs on the caller.
  Status threadpool(unsigned threads, std::shared_ptr<pthreadpool> &pool) {
    if (threads == 1)
      return Status::ok();
    std::lock_guard<std::mutex> lock(mutex_);
    std::weak_ptr<pthreadpool> &cached = pools_[threads];
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

  std::mutex mutex_;
  std::map<unsigned, std::weak_ptr<pthreadpool>> pools_;
};

} // namespace

std::shared_ptr<Backend> makeXnnpackBackend() {
  return std::make_shared<XnnpackBackend>();
}

} // namespace duet::rt
