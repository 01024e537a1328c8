//===- ArenaPlanner.cpp - greedy-by-size arena planning ------------------===//

#include "compiler/emit/ArenaPlanner.h"

#include "runtime/core/Limits.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace duet {

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

/// Places the requests in `order`, each at the lowest aligned offset that
/// overlaps no placed buffer alive at the same time; returns the arena size.
static uint64_t placeInOrder(const std::vector<PlanRequest> &requests,
                             const std::vector<size_t> &order,
                             uint64_t alignment,
                             std::vector<uint64_t> &offsets) {
  struct Range {
    uint64_t begin, end;
  };
  offsets.assign(requests.size(), 0);
  std::vector<size_t> placed;
  std::vector<Range> conflicts;
  uint64_t arena = 0;
  for (size_t index : order) {
    const PlanRequest &r = requests[index];
    uint64_t bytes = alignUp(std::max<uint64_t>(r.bytes, 1), alignment);
    conflicts.clear();
    for (size_t other : placed) {
      const PlanRequest &o = requests[other];
      if (o.firstStep <= r.lastStep && r.firstStep <= o.lastStep)
        conflicts.push_back(
            {offsets[other],
             offsets[other] + alignUp(std::max<uint64_t>(o.bytes, 1),
                                      alignment)});
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [](const Range &a, const Range &b) { return a.begin < b.begin; });
    uint64_t offset = 0;
    for (const Range &c : conflicts) {
      if (c.begin >= offset + bytes)
        break;
      offset = std::max(offset, c.end);
    }
    offsets[index] = offset;
    arena = std::max(arena, offset + bytes);
    placed.push_back(index);
  }
  return arena;
}

ArenaAssignment planMemory(const std::vector<PlanRequest> &requests,
                           uint64_t alignment) {
  ArenaAssignment plan;
  plan.offsets.assign(requests.size(), 0);

  // Lower bound: sweep the steps, adding a buffer at its first step and
  // removing it after its last.
  std::map<int64_t, int64_t> delta;
  for (const PlanRequest &r : requests) {
    int64_t bytes = static_cast<int64_t>(
        alignUp(std::max<uint64_t>(r.bytes, 1), alignment));
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
  plan.arenaBytes = placeInOrder(requests, order, alignment, plan.offsets);

  // Greedy by size leaves gaps when big buffers of neighbouring lifetimes
  // interleave (a detection head's cat, split and cat). Hill-climb on the
  // placement order: swap two entries, keep the swap when the arena shrinks,
  // until the lower bound is reached or the work budget (placement steps,
  // about a tenth of a second) is spent. Plans already at the bound cost
  // nothing more.
  const uint64_t n = requests.size();
  uint64_t budget = 50'000'000;
  std::vector<uint64_t> offsets;
  bool improved = true;
  while (improved && plan.arenaBytes > plan.lowerBoundBytes) {
    improved = false;
    for (size_t i = 0; i + 1 < n && plan.arenaBytes > plan.lowerBoundBytes;
         ++i) {
      for (size_t j = i + 1; j < n && plan.arenaBytes > plan.lowerBoundBytes;
           ++j) {
        if (budget < n * n)
          return plan;
        budget -= n * n;
        std::swap(order[i], order[j]);
        uint64_t arena = placeInOrder(requests, order, alignment, offsets);
        if (arena < plan.arenaBytes) {
          plan.arenaBytes = arena;
          plan.offsets = offsets;
          improved = true;
        } else {
          std::swap(order[i], order[j]);
        }
      }
    }
  }
  return plan;
}

std::optional<std::string>
planMemoryWithinLimits(const std::vector<PlanRequest> &requests,
                       uint64_t alignment, ArenaAssignment &plan) {
  // The importer refuses tensors over the limit, but passes and delegate
  // emitters make tensors of their own; checking before planning also keeps
  // the planner's sums far from overflowing (each request is at most 4 GiB).
  for (const PlanRequest &r : requests)
    if (r.bytes > rt::kMaxTensorBytes)
      return "tensor '" + r.name + "' needs " + std::to_string(r.bytes) +
             " bytes, over duet's limit of " +
             std::to_string(rt::kMaxTensorBytes) +
             " bytes (4 GiB) per tensor (kMaxTensorBytes, "
             "runtime/core/Limits.h); export the model with smaller shapes";
  plan = planMemory(requests, alignment);
  // The arena exists only once planned, so this is the earliest place that
  // can check it.
  if (plan.arenaBytes <= rt::kMaxArenaBytes)
    return std::nullopt;
  std::vector<size_t> largest(requests.size());
  std::iota(largest.begin(), largest.end(), 0);
  std::stable_sort(largest.begin(), largest.end(), [&](size_t a, size_t b) {
    return requests[a].bytes > requests[b].bytes;
  });
  largest.resize(std::min<size_t>(largest.size(), 3));
  std::string names;
  for (size_t i : largest)
    names += (names.empty() ? "" : ", ") + ("'" + requests[i].name + "' (") +
             std::to_string(requests[i].bytes) + " bytes)";
  return "the program's memory arena needs " + std::to_string(plan.arenaBytes) +
         " bytes, over duet's limit of " + std::to_string(rt::kMaxArenaBytes) +
         " bytes (16 GiB, kMaxArenaBytes in runtime/core/Limits.h); its "
         "largest tensors are " +
         names + "; export the model with smaller shapes";
}

} // namespace duet
