//===- Report.h - every placement decision and its reasons ------*- C++ -*-===//
//
// The partitioner explains itself: for each op, where it went and, for every
// backend of higher priority that said no, why (the rule and the numbers);
// for each partition, its ops; and, in each backend's own section, the
// settings it planned under and what it planned (the Vulkan tensors'
// storage, packing and image extents). docs/partitioning.md describes the
// JSON form.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_REPORT_H
#define DUET_PARTITIONERS_COMMON_REPORT_H

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace duet {

/// A backend that did not take an op, and why.
struct Rejection {
  std::string backend;
  /// "<backend>: <rule and numbers>".
  std::string reason;
};

/// Where one op went.
struct OpDecision {
  /// The function the op is in.
  std::string function;
  /// The node name (the op's location when it is a name), or "#<index>".
  std::string node;
  /// Position among the placed ops of its function, from 0.
  int64_t index = 0;
  /// "aten.linear".
  std::string op;
  /// The backend that took it, or "portable".
  std::string backend;
  /// The partition it is in; -1 when portable.
  int64_t partition = -1;
  /// Every backend asked before the one that took it (all of them, for a
  /// portable op), in priority order; placed by cost, every backend that
  /// cannot run it.
  std::vector<Rejection> rejections;
  /// For an op its backend runs decomposed: the ops it becomes there.
  std::vector<std::string> decomposedInto;
  /// Placement by cost only: the estimated microseconds of the op on each
  /// backend that can run it, in the order asked, then on the portable
  /// kernels (partition calls and transfers are the partitions').
  std::vector<std::pair<std::string, double>> costsUs;
};

/// What became of one quantize, dequantize or quantized weight: absorbed by
/// the integer node of the op `into` (it has no node of its own), or kept,
/// for the reason `why`.
struct QuantizationNode {
  std::string node;
  std::string op;
  /// The partition it is in; -1 on the portable kernels.
  int64_t partition = -1;
  bool folded = false;
  /// The node of the op that computes it in integers, when folded.
  std::string into;
  std::string why;
};

/// One delegate partition.
struct PartitionInfo {
  int64_t id = 0;
  std::string function;
  std::string backend;
  /// Node names of its ops, in order (before legalization).
  std::vector<std::string> nodes;
  int64_t inputs = 0;
  int64_t outputs = 0;
  /// Layout conversions its backend's planner inserted (Vulkan's; 0 for a
  /// backend that plans none).
  int64_t layoutConversions = 0;
  /// Placement by cost only: the estimated microseconds of its ops, of its
  /// call and of its transfers, and the tensors that enter or leave it with
  /// their bytes; estimatedUs is -1 otherwise.
  double estimatedUs = -1;
  double callUs = 0;
  double transferUs = 0;
  int64_t transfers = 0;
  int64_t transferBytes = 0;
  /// Its quantize and dequantize nodes and quantized weights, as its
  /// backend's plan left them.
  std::vector<QuantizationNode> quantization;
};

/// How the ops were placed.
struct PlacementSummary {
  /// "priority" (the first backend that claims an op takes it) or "cost".
  std::string mode = "priority";
  /// Placement by cost only: where the costs come from (the profile and
  /// its "source"), the estimated time of the placement chosen and of the
  /// priority placement over the same backends, and the search's effort.
  std::string costsOrigin;
  std::string costsSource;
  double estimatedUs = 0;
  double priorityUs = 0;
  int64_t evaluations = 0;
  int64_t moves = 0;
  bool budgetReached = false;
};

/// What one backend adds to the report beside its ops and partitions. Every
/// backend of the build has a section in every report, asked for or not, so
/// that the fields of a report do not depend on --backends.
class ReportSection {
public:
  /// Where the fields of a section go, in this order.
  enum class Part {
    /// The options it was given that nothing else in the report shows,
    /// after "backends" ("enable_bf16").
    options,
    /// What it planned against, after every backend's options
    /// ("vulkan_limits"); in the table, a line under the backends.
    target,
    /// What it planned for its tensors, after the partitions
    /// ("vulkan_tensors"); in the table, a section at the end.
    plans,
  };

  explicit ReportSection(std::string backend) : backend(std::move(backend)) {}
  virtual ~ReportSection() = default;

  /// The backend's name.
  const std::string backend;
  /// Adds its fields of `part` to the report object.
  virtual void addJson(Part part, nlohmann::ordered_json &report) const = 0;
  /// Appends its lines of `part` to the table (`reportToTable`).
  virtual void addText(Part part, std::string &table) const = 0;
};

/// Everything the partitioner decided for one module.
struct PartitionReport {
  /// Backends in the priority order they were asked.
  std::vector<std::string> backends;
  PlacementSummary placement;
  /// The costs object of the compilation's target profile as JSON text
  /// (TargetCosts::toJson), whatever the placement; empty when no backend
  /// read one. The program keeps it for `duet-run tune`.
  std::string targetCostsJson;
  std::vector<OpDecision> ops;
  std::vector<PartitionInfo> partitions;
  /// Every quantize, dequantize and quantized weight of the program, in
  /// program order within each function, partitions' ones included.
  std::vector<QuantizationNode> quantization;
  /// One per backend of the build, in registration order (the order of the
  /// per-backend counts too).
  std::vector<std::shared_ptr<const ReportSection>> sections;
};

/// The report as JSON (docs/partitioning.md), two-space indented.
std::string reportToJson(const PartitionReport &report);

/// The report as a table for people (`--explain`): one line per op with its
/// backend and, indented below, the reasons of the backends that said no;
/// then the partitions and what each backend planned.
std::string reportToTable(const PartitionReport &report);

/// How many ops each backend took: every backend of the report's sections,
/// in their order, then "portable".
std::vector<std::pair<std::string, size_t>>
countByBackend(const PartitionReport &report);

/// The ops that fell to portable, one line each ("node (op): reason; reason"),
/// for `--strict`; empty when every op went to a delegate.
std::vector<std::string> portableOps(const PartitionReport &report);

} // namespace duet

#endif // DUET_PARTITIONERS_COMMON_REPORT_H
