//===- Partitioner.h - placing ops on the delegate backends -----*- C++ -*-===//
//
// The partitioner's library API. `partitionModule` asks the registered
// backends (partitioners/common/BackendLowering.h), in priority order,
// whether they can run each op; groups the claimed ops into acyclic
// partitions wrapped in `duet.delegate`; legalizes each partition with the
// decomposition library for its backend's native ops; lets its backend plan
// it (Vulkan: the storage and packing of every tensor); and returns the
// report that explains each decision. The `duet-partition` pass runs the
// same.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_PARTITIONER_H
#define DUET_PARTITIONERS_PARTITIONER_H

#include "partitioners/common/BackendLowering.h"
#include "partitioners/common/Report.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace duet {

/// How ops are given to backends (docs/partitioning.md).
enum class PlacementPolicy {
  /// The first backend, in priority order, that can run an op takes it.
  priority,
  /// The placement with the least estimated time under the target
  /// profile's costs, among the backends asked and the portable kernels.
  cost,
};

/// "priority" or "cost" as a PlacementPolicy; nothing for any other text.
std::optional<PlacementPolicy> parsePlacementPolicy(llvm::StringRef text);

/// What one partitioning is asked to do.
struct PartitionOptions {
  /// Backends in priority order (any order or subset of knownBackends());
  /// empty means all of them, in the default order. Placed by cost, the
  /// backends that may be used.
  std::vector<std::string> backends;
  PlacementPolicy placement = PlacementPolicy::priority;
  /// The backends' options by name (BackendLowering::options).
  partition::BackendOptions backendOptions;
};

/// The backend names, in the default priority order.
std::vector<std::string> knownBackends();

/// Partitions every function of `module` in place and returns the report.
/// Every registered backend is set up, asked or not, so that its options
/// are checked and the report has its section. Fails, with an error on the
/// module, for an unknown or repeated backend, an unknown or bad option
/// (a device profile, texture limits), or a function whose body is not a
/// single block.
mlir::FailureOr<PartitionReport>
partitionModule(mlir::ModuleOp module, const PartitionOptions &options);

/// The report of a compilation with no delegate backend: every op of every
/// function portable, none rejected (no backend was asked). The module is
/// not changed.
PartitionReport portableReport(mlir::ModuleOp module);

/// The costs object of the target profile `options` name, as JSON text
/// (PartitionReport::targetCostsJson), for a compilation that partitions
/// nothing (`--backends portable`) but whose program should still record
/// them; empty when no backend reads a profile. An error for a bad option.
llvm::Expected<std::string>
targetCostsJson(mlir::MLIRContext *context,
                const partition::BackendOptions &options);

/// Registers `duet-partition`, `duet-fuse-activations` and every backend's
/// passes for tools.
void registerPartitionerPasses();

/// Registers the dialects the partitioner and the backends' lowering write
/// (`fusion`, and the backends' own), for tools.
void registerPartitionerDialects(mlir::DialectRegistry &registry);

/// Adds the passes that lower partitions for their emitters, in order: every
/// backend's own (the XNNPACK layout plan), then activation fusion. The
/// pipeline runs them after partitioning; the emitters write what they
/// recorded.
void addDelegateLoweringPasses(mlir::OpPassManager &pm);

/// Runs addDelegateLoweringPasses on `module` (for callers that partition
/// and emit without the pipeline, as the backend tests do).
mlir::LogicalResult lowerDelegates(mlir::ModuleOp module);

} // namespace duet

#endif // DUET_PARTITIONERS_PARTITIONER_H
