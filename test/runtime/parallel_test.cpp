//===- parallel_test.cpp - the portable kernels on several threads --------===//
//
// parallelFor's split (every item once, inline without a pool, exceptions
// back on the caller), and the kernels that split their work giving the
// same bits on two threads as on one: each item is computed one way
// whatever the split (runtime/core/Parallel.h).
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"
#include "runtime/core/Parallel.h"
#include "runtime/kernels/Gemm.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

std::shared_ptr<WorkerPool> pool(unsigned threads) {
  std::shared_ptr<WorkerPool> made;
  REQUIRE(sharedWorkerPool(threads, made).isOk());
  return made;
}

std::vector<float> randomFloats(int64_t n, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<float> values(n);
  for (float &v : values)
    v = uniform(generator);
  return values;
}

/// Runs `op` without a pool and on a pool of two threads; the outputs must
/// be the same bytes.
void requireSameOnTwoThreads(std::string_view op, const AttrMap &attrs,
                             const std::vector<Tensor> &inputs, Shape shape) {
  INFO(op);
  Tensor one = run1(op, attrs, inputs, shape);
  std::shared_ptr<WorkerPool> two = pool(2);
  ParallelScope scope(two.get());
  Tensor both = run1(op, attrs, inputs, shape);
  REQUIRE(one.bytes() == both.bytes());
}

} // namespace

TEST_CASE("parallelFor covers every item once, in chunks of at least the "
          "grain",
          "[parallel]") {
  std::shared_ptr<WorkerPool> two = pool(2);
  REQUIRE(two);
  for (bool pooled : {false, true})
    for (int64_t n : {0, 1, 7, 100, 4096, 100003})
      for (int64_t grain : {1, 64, 1 << 20}) {
        INFO("pooled " << pooled << " n " << n << " grain " << grain);
        ParallelScope scope(pooled ? two.get() : nullptr);
        std::vector<std::atomic<int>> seen(n);
        // Counted here, checked after: Catch's assertions are not for the
        // pool's threads.
        std::atomic<int> chunks{0}, shortChunks{0}, emptyChunks{0};
        parallelFor(n, grain, [&](int64_t begin, int64_t end) {
          if (begin >= end)
            ++emptyChunks;
          ++chunks;
          if (end - begin < grain && end != n)
            ++shortChunks;
          for (int64_t i = begin; i < end; ++i)
            ++seen[i];
        });
        for (int64_t i = 0; i < n; ++i)
          REQUIRE(seen[i] == 1);
        CHECK(emptyChunks == 0);
        CHECK(shortChunks == 0);
        if (!pooled || n < 2 * grain)
          CHECK(chunks == (n > 0 ? 1 : 0));
      }
}

TEST_CASE("parallelFor uses the pool's threads and rethrows a chunk's "
          "exception on the caller",
          "[parallel]") {
  std::shared_ptr<WorkerPool> two = pool(2);
  ParallelScope scope(two.get());
  std::atomic<bool> elsewhere{false};
  const std::thread::id caller = std::this_thread::get_id();
  parallelFor(1 << 16, 1, [&](int64_t, int64_t) {
    if (std::this_thread::get_id() != caller)
      elsewhere = true;
    // Long enough that the second thread takes some chunks.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  });
  CHECK(elsewhere);
  REQUIRE_THROWS_AS(parallelFor(1000, 1,
                                [&](int64_t begin, int64_t) {
                                  if (begin == 0)
                                    throw std::runtime_error("chunk 0");
                                }),
                    std::runtime_error);
}

TEST_CASE("one pool per thread count, shared while held", "[parallel]") {
  std::shared_ptr<WorkerPool> a = pool(2), b = pool(2), c = pool(3);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(pool(1) == nullptr);
}

TEST_CASE("split kernels give the same bits on two threads as on one",
          "[parallel]") {
  Tensor x = Tensor::random({2, 48, 40, 40}, 1, -4, 4);
  requireSameOnTwoThreads(
      "aten.gelu", AttrMap().setString("approximate", "none"), {x}, x.sizes());
  requireSameOnTwoThreads("aten.sigmoid", AttrMap(), {x}, x.sizes());
  requireSameOnTwoThreads("aten.softmax", AttrMap().setInt("dim", 3), {x},
                          x.sizes());
  requireSameOnTwoThreads("aten.softmax", AttrMap().setInt("dim", 1), {x},
                          x.sizes());
  // Broadcasting binary ops: rows that start mid-way through the outer
  // index must read each operand at the offsets one thread would.
  Tensor scale = Tensor::random({48, 1, 1}, 11), row = Tensor::random({40}, 12);
  requireSameOnTwoThreads("aten.add", AttrMap().setFloat("alpha", 0.5),
                          {x, scale}, x.sizes());
  requireSameOnTwoThreads("aten.mul", AttrMap(), {row, x}, x.sizes());
  requireSameOnTwoThreads("aten.maximum", AttrMap(), {x, x}, x.sizes());
  Tensor tokens = Tensor::random({4, 197, 192}, 2);
  requireSameOnTwoThreads(
      "aten.layer_norm",
      AttrMap().setInts("normalized_shape", {192}).setFloat("eps", 1e-6),
      {tokens, Tensor::random({192}, 3), Tensor::random({192}, 4)},
      tokens.sizes());
  auto conv = [](Shape stride, Shape padding, int64_t groups) {
    AttrMap attrs;
    attrs.setInts("stride", stride)
        .setInts("padding", padding)
        .setInts("dilation", {1, 1})
        .setInts("output_padding", {0, 0})
        .setInt("groups", groups)
        .setBool("transposed", false);
    return attrs;
  };
  // Depthwise 7x7 (unit stride) and 3x3 stride 2, and a dense 3x3.
  requireSameOnTwoThreads(
      "aten.convolution", conv({1, 1}, {3, 3}, 48),
      {x, Tensor::random({48, 1, 7, 7}, 5), Tensor::random({48}, 6)},
      {2, 48, 40, 40});
  requireSameOnTwoThreads(
      "aten.convolution", conv({2, 2}, {1, 1}, 48),
      {x, Tensor::random({48, 1, 3, 3}, 7), Tensor::random({48}, 8)},
      {2, 48, 20, 20});
  requireSameOnTwoThreads(
      "aten.convolution", conv({1, 1}, {1, 1}, 1),
      {x, Tensor::random({96, 48, 3, 3}, 9), Tensor::random({96}, 10)},
      {2, 96, 40, 40});
}

TEST_CASE("gemm's tiles on two threads give its one-thread bits",
          "[parallel][gemm]") {
  using namespace duet::rt::portable;
  struct Size {
    int64_t m, n, k;
  };
  uint32_t seed = 100;
  for (Size s : {Size{150, 700, 300}, Size{1, 5000, 64}, Size{300, 90, 40},
                 Size{64, 256, 1}}) {
    INFO("m " << s.m << " n " << s.n << " k " << s.k);
    std::vector<float> a = randomFloats(s.m * s.k, seed++);
    std::vector<float> b = randomFloats(s.k * s.n, seed++);
    std::vector<float> one = randomFloats(s.m * s.n, seed++), both = one;
    gemm(s.m, s.n, s.k, 0.5f, MatrixRef::rowMajor(a.data(), s.k),
         MatrixRef::rowMajor(b.data(), s.n), 1.f, one.data(), s.n);
    std::shared_ptr<WorkerPool> two = pool(2);
    ParallelScope scope(two.get());
    gemm(s.m, s.n, s.k, 0.5f, MatrixRef::rowMajor(a.data(), s.k),
         MatrixRef::rowMajor(b.data(), s.n), 1.f, both.data(), s.n);
    REQUIRE(one == both);
  }
}

TEST_CASE("a second caller of a pool in use does its split itself",
          "[parallel]") {
  // Thread A holds the pool in a split whose first chunk waits for thread B;
  // B's split on the same pool runs on B alone, and A's then ends.
  std::shared_ptr<WorkerPool> two = pool(2);
  std::atomic<bool> aHolds{false}, bDone{false}, bAlone{true};
  std::thread a([&] {
    ParallelScope scope(two.get());
    parallelFor(64, 1, [&](int64_t begin, int64_t) {
      if (begin != 0)
        return;
      aHolds = true;
      for (int i = 0; i < 20000 && !bDone; ++i)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    });
  });
  std::thread b([&] {
    while (!aHolds)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    ParallelScope scope(two.get());
    const std::thread::id self = std::this_thread::get_id();
    parallelFor(64, 1, [&](int64_t, int64_t) {
      if (std::this_thread::get_id() != self)
        bAlone = false;
    });
    bDone = true;
  });
  a.join();
  b.join();
  CHECK(bDone);
  CHECK(bAlone);
}
