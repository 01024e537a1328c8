//===- Partitioner.h - placing ops on Vulkan, XNNPACK or portable -*- C++
//-*-===//
//
// The partitioner's library API. `partitionModule` asks the backends, in
// priority order, whether they can run each op; groups the claimed ops into
// acyclic partitions wrapped in `duet.delegate`; legalizes each partition
// with the decomposition library for its backend's native ops; plans the
// storage and packing of every Vulkan tensor; and returns the report that
// explains each decision. The `duet-partition` pass runs the same.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_PARTITIONER_H
#define DUET_PARTITIONERS_PARTITIONER_H

#include "partitioners/common/Report.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace duet {

/// What one partitioning is asked to do.
struct PartitionOptions {
  /// Backends in priority order ("vulkan", "xnnpack", any order or subset);
  /// empty means {"vulkan", "xnnpack"}.
  std::vector<std::string> backends;
  /// Vulkan image extents (x, y, z) that replace the profile's.
  std::optional<std::array<int64_t, 3>> textureLimits;
  /// A built-in device profile name or a profile file path; empty: "generic".
  std::string targetProfile;
  /// Let XNNPACK take bf16 ops that it can compute in fp32 (per op).
  bool enableBf16 = false;
};

/// The backend names, in the default priority order.
std::vector<std::string> knownBackends();

/// Partitions every function of `module` in place and returns the report.
/// Fails, with an error on the module, for an unknown or repeated backend, an
/// unknown or bad device profile, bad texture limits, or a function whose
/// body is not a single block.
mlir::FailureOr<PartitionReport>
partitionModule(mlir::ModuleOp module, const PartitionOptions &options);

/// The report of a compilation with no delegate backend: every op of every
/// function portable, none rejected (no backend was asked). The module is
/// not changed.
PartitionReport portableReport(mlir::ModuleOp module);

/// Registers `duet-partition`, `duet-vulkan-layout`, `duet-xnnpack-layout`
/// and `duet-fuse-activations` for tools.
void registerPartitionerPasses();

/// Adds the passes that lower partitions for their emitters, in order: the
/// XNNPACK layout plan, then activation fusion. The pipeline runs them after
/// partitioning; the emitters write what they recorded.
void addDelegateLoweringPasses(mlir::OpPassManager &pm);

/// Runs addDelegateLoweringPasses on `module` (for callers that partition
/// and emit without the pipeline, as the backend tests do).
mlir::LogicalResult lowerDelegates(mlir::ModuleOp module);

} // namespace duet

#endif // DUET_PARTITIONERS_PARTITIONER_H
