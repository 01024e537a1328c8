//===- Report.h - every placement decision and its reasons ------*- C++ -*-===//
//
// The partitioner explains itself: for each op, where it went and, for every
// backend of higher priority that said no, why (the rule and the numbers);
// for each partition, its ops; for each Vulkan tensor, its storage, packing
// and image extents. docs/partitioning.md describes the JSON form.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_REPORT_H
#define DUET_PARTITIONERS_COMMON_REPORT_H

#include <array>
#include <cstdint>
#include <string>
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
  /// "vulkan", "xnnpack" or "portable".
  std::string backend;
  /// The partition it is in; -1 when portable.
  int64_t partition = -1;
  /// Every backend asked before the one that took it (all of them, for a
  /// portable op), in priority order.
  std::vector<Rejection> rejections;
  /// For an op its backend runs decomposed: the ops it becomes there.
  std::vector<std::string> decomposedInto;
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
  /// Layout conversions the Vulkan planner inserted (0 for XNNPACK).
  int64_t layoutConversions = 0;
};

/// The placement of one tensor inside a Vulkan partition.
struct TensorPlacement {
  int64_t partition = 0;
  /// The node that produces it (an outer value's name for a partition
  /// input), with "#<result>" for an op of several results.
  std::string tensor;
  /// The op that produces it inside the partition ("input" for a partition
  /// input, "duet.layout_convert" for a conversion).
  std::string producer;
  std::vector<int64_t> shape;
  std::string dtype;
  /// "texture3d" or "buffer".
  std::string storage;
  /// "width_packed", "height_packed", "channels_packed" or "contiguous".
  std::string packing;
  /// Image extents [x, y, z] in texels; empty for a buffer.
  std::vector<int64_t> extents;
  /// Size in bytes as a buffer (elements times element size).
  int64_t bytes = 0;
};

/// Everything the partitioner decided for one module.
struct PartitionReport {
  /// Backends in the priority order they were asked.
  std::vector<std::string> backends;
  bool enableBf16 = false;
  /// The Vulkan limits planned against.
  std::array<int64_t, 3> textureLimits = {0, 0, 0};
  int64_t maxStorageBufferRange = 0;
  std::string limitsOrigin;
  std::vector<OpDecision> ops;
  std::vector<PartitionInfo> partitions;
  std::vector<TensorPlacement> vulkanTensors;
};

/// The report as JSON (docs/partitioning.md), two-space indented.
std::string reportToJson(const PartitionReport &report);

/// The report as a table for people (`--explain`): one line per op with its
/// backend and, indented below, the reasons of the backends that said no;
/// then the partitions and the Vulkan tensors.
std::string reportToTable(const PartitionReport &report);

/// How many ops each backend took.
struct BackendCounts {
  size_t vulkan = 0;
  size_t xnnpack = 0;
  size_t portable = 0;
};
BackendCounts countByBackend(const PartitionReport &report);

/// The ops that fell to portable, one line each ("node (op): reason; reason"),
/// for `--strict`; empty when every op went to a delegate.
std::vector<std::string> portableOps(const PartitionReport &report);

} // namespace duet

#endif // DUET_PARTITIONERS_COMMON_REPORT_H
