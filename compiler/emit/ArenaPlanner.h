//===- ArenaPlanner.h - arena offsets from tensor lifetimes -----*- C++ -*-===//
//
// Activations share one arena. Two tensors may overlap in memory only when
// their lifetimes do not overlap. The planner is greedy by size (largest first,
// each at the lowest offset that conflicts with nothing placed), improved by a
// bounded hill climb over the placement order when that leaves a gap; it
// reports the lower bound no plan can beat: the most bytes alive at one step.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_EMIT_ARENAPLANNER_H
#define DUET_COMPILER_EMIT_ARENAPLANNER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace duet {

/// One buffer to place: alive from the step that defines it to the last step
/// that reads it, both inclusive.
struct PlanRequest {
  uint64_t bytes = 0;
  int64_t firstStep = 0;
  int64_t lastStep = 0;
  /// The tensor's name, for errors.
  std::string name;
};

/// Where each request lies in the arena (the program records its size as
/// rt::MemoryPlan).
struct ArenaAssignment {
  /// Offset of each request in the arena, in request order.
  std::vector<uint64_t> offsets;
  uint64_t arenaBytes = 0;
  /// The most (aligned) bytes alive at any one step.
  uint64_t lowerBoundBytes = 0;
};

/// Places every request at an offset aligned to `alignment` (a power of two).
ArenaAssignment planMemory(const std::vector<PlanRequest> &requests,
                           uint64_t alignment = 64);

/// Plans `requests` as planMemory does, for a program that must load: no
/// buffer over kMaxTensorBytes and no arena over kMaxArenaBytes
/// (runtime/core/Limits.h). Returns why not, naming the tensor or the
/// arena's largest tensors and the limit; nothing when `plan` was made.
std::optional<std::string>
planMemoryWithinLimits(const std::vector<PlanRequest> &requests,
                       uint64_t alignment, ArenaAssignment &plan);

} // namespace duet

#endif // DUET_COMPILER_EMIT_ARENAPLANNER_H
