//===- MemoryPlan.cpp - greedy-by-size arena planning --------------------===//

#include "compiler/emit/MemoryPlan.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace duet {

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

MemoryPlan planMemory(const std::vector<PlanRequest> &requests,
                      uint64_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);

  // Lower bound: sweep the steps, adding a buffer at its first step and
  // removing it after its last.
  std::map<int64_t, int64_t> delta;
  for (const PlanRequest &r : requests) {
    int64_t bytes = static_cast<int64_t>(alignUp(r.bytes, alignment));
    delta[r.firstStep] += bytes;
    delta[r.lastStep + 1] -= bytes;
  }
  int64_t alive = 0;
  for (auto &[step, change] : delta) {
    alive += change;
    plan.lowerBoundBytes =
        std::max(plan.lowerBoundBytes, static_cast<uint64_t>(alive));
  }

  // Largest first; ties by earlier start so that the plan is deterministic.
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (requests[a].bytes != requests[b].bytes)
      return requests[a].bytes > requests[b].bytes;
    return requests[a].firstStep < requests[b].firstStep;
  });

  struct Placed {
    uint64_t begin, end;
  };
  std::vector<size_t> placed;
  for (size_t index : order) {
    const PlanRequest &r = requests[index];
    uint64_t bytes = alignUp(std::max<uint64_t>(r.bytes, 1), alignment);
    // Address ranges of placed buffers alive at the same time, by start.
    std::vector<Placed> conflicts;
    for (size_t other : placed) {
      const PlanRequest &o = requests[other];
      if (o.firstStep <= r.lastStep && r.firstStep <= o.lastStep)
        conflicts.push_back(
            {plan.offsets[other],
             plan.offsets[other] +
                 alignUp(std::max<uint64_t>(o.bytes, 1), alignment)});
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [](const Placed &a, const Placed &b) { return a.begin < b.begin; });
    // The first gap that holds the buffer (best fit would save little here
    // and cost determinism in reading the plan).
    uint64_t offset = 0;
    for (const Placed &c : conflicts) {
      if (c.begin >= offset + bytes)
        break;
      offset = std::max(offset, c.end);
    }
    plan.offsets[index] = offset;
    plan.arenaBytes = std::max(plan.arenaBytes, offset + bytes);
    placed.push_back(index);
  }
  return plan;
}

} // namespace duet
