//===- copy_threads_test.cpp - host copies split between threads ----------===//

#include "runtime/backends/vulkan/CopyThreads.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <vector>

using duet::rt::vulkan::CopyThreads;

TEST_CASE("copy threads cover every element once, run after run",
          "[vulkan][copy]") {
  for (unsigned threads : {1u, 2u, 5u}) {
    CopyThreads pool(threads);
    // Below two pieces' bytes the caller copies alone, in one call; above,
    // pieces of at least kMinPieceBytes, no more than the threads.
    for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{65536}, int64_t{131072},
                      int64_t{1000003}, int64_t{2621440}}) {
      for (int round = 0; round < 3; ++round) {
        std::vector<uint8_t> seen(static_cast<size_t>(n), 0);
        std::mutex mutex;
        int calls = 0;
        bool inside = true;
        // Catch's assertions are not for other threads: the pieces only
        // record what they were given.
        pool.run(n, 4, [&](int64_t first, int64_t count) {
          bool ok = first >= 0 && count > 0 && first + count <= n;
          if (ok)
            for (int64_t i = first; i < first + count; ++i)
              ++seen[static_cast<size_t>(i)];
          std::lock_guard<std::mutex> lock(mutex);
          ++calls;
          inside = inside && ok;
        });
        INFO("threads " << threads << ", n " << n << ", round " << round);
        CHECK(inside);
        CHECK(std::all_of(seen.begin(), seen.end(),
                          [](uint8_t times) { return times == 1; }));
        int64_t pieces =
            std::min<int64_t>(threads, n * 4 / CopyThreads::kMinPieceBytes);
        CHECK(calls == (n == 0 ? 0 : std::max<int64_t>(1, pieces)));
      }
    }
  }
}
