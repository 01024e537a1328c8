//===- Report.cpp - the partition report as JSON and as a table -----------===//
//
// JSON goes through nlohmann/json, as every report of the project does. Only
// objects are built here, nothing is parsed, so nothing throws (the compiler
// is built without exceptions).
//
//===----------------------------------------------------------------------===//

#include "partitioners/common/Report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace duet {

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json opToJson(const OpDecision &op) {
  ordered_json out;
  out["function"] = op.function;
  out["node"] = op.node;
  out["index"] = op.index;
  out["op"] = op.op;
  out["backend"] = op.backend;
  out["partition"] = op.partition;
  ordered_json rejections = ordered_json::array();
  for (const Rejection &rejection : op.rejections)
    rejections.push_back(
        {{"backend", rejection.backend}, {"reason", rejection.reason}});
  out["rejections"] = std::move(rejections);
  if (!op.decomposedInto.empty())
    out["decomposed_into"] = op.decomposedInto;
  return out;
}

ordered_json tensorToJson(const TensorPlacement &tensor) {
  ordered_json out;
  out["partition"] = tensor.partition;
  out["tensor"] = tensor.tensor;
  out["producer"] = tensor.producer;
  out["shape"] = tensor.shape;
  out["dtype"] = tensor.dtype;
  out["storage"] = tensor.storage;
  out["packing"] = tensor.packing;
  if (!tensor.extents.empty())
    out["extents"] = tensor.extents;
  out["bytes"] = tensor.bytes;
  return out;
}

std::string join(const std::vector<int64_t> &values, const char *separator) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? separator : "") + std::to_string(values[i]);
  return out;
}

} // namespace

std::string reportToJson(const PartitionReport &report) {
  ordered_json out;
  out["backends"] = report.backends;
  out["enable_bf16"] = report.enableBf16;
  out["vulkan_limits"] = {
      {"max_image_extent", report.textureLimits},
      {"max_storage_buffer_range", report.maxStorageBufferRange},
      {"origin", report.limitsOrigin}};

  int64_t counts[3] = {0, 0, 0};
  ordered_json ops = ordered_json::array();
  for (const OpDecision &op : report.ops) {
    ops.push_back(opToJson(op));
    counts[op.backend == "vulkan" ? 0 : op.backend == "xnnpack" ? 1 : 2]++;
  }
  out["summary"] = {{"ops", report.ops.size()},
                    {"vulkan", counts[0]},
                    {"xnnpack", counts[1]},
                    {"portable", counts[2]},
                    {"partitions", report.partitions.size()}};
  out["ops"] = std::move(ops);

  ordered_json partitions = ordered_json::array();
  for (const PartitionInfo &partition : report.partitions)
    partitions.push_back({{"id", partition.id},
                          {"function", partition.function},
                          {"backend", partition.backend},
                          {"nodes", partition.nodes},
                          {"inputs", partition.inputs},
                          {"outputs", partition.outputs},
                          {"layout_conversions", partition.layoutConversions}});
  out["partitions"] = std::move(partitions);

  ordered_json tensors = ordered_json::array();
  for (const TensorPlacement &tensor : report.vulkanTensors)
    tensors.push_back(tensorToJson(tensor));
  out["vulkan_tensors"] = std::move(tensors);
  // Names come from the model (node names, locations) and need not be
  // UTF-8; dump() would throw on one, which without exceptions aborts, so
  // an invalid sequence is written as U+FFFD instead.
  return out.dump(2, ' ', /*ensure_ascii=*/false,
                  ordered_json::error_handler_t::replace) +
         "\n";
}

std::string reportToTable(const PartitionReport &report) {
  std::ostringstream os;
  size_t nodeWidth = 4, opWidth = 2;
  for (const OpDecision &op : report.ops) {
    nodeWidth = std::max(nodeWidth, op.node.size());
    opWidth = std::max(opWidth, op.op.size());
  }
  auto pad = [](const std::string &text, size_t width) {
    return text +
           std::string(width > text.size() ? width - text.size() : 0, ' ');
  };
  os << "backends (in priority order): ";
  for (size_t i = 0; i < report.backends.size(); ++i)
    os << (i ? ", " : "") << report.backends[i];
  os << "\nvulkan limits: image extent (" << report.textureLimits[0] << ","
     << report.textureLimits[1] << "," << report.textureLimits[2]
     << "), storage buffer " << report.maxStorageBufferRange << " bytes; "
     << report.limitsOrigin << "\n\n";
  os << pad("node", nodeWidth) << "  " << pad("op", opWidth)
     << "  backend   partition\n";
  for (const OpDecision &op : report.ops) {
    os << pad(op.node, nodeWidth) << "  " << pad(op.op, opWidth) << "  "
       << pad(op.backend, 8) << "  "
       << (op.partition >= 0 ? std::to_string(op.partition) : "-") << "\n";
    if (!op.decomposedInto.empty()) {
      os << "    runs as:";
      for (const std::string &piece : op.decomposedInto)
        os << " " << piece;
      os << "\n";
    }
    for (const Rejection &rejection : op.rejections)
      os << "    - " << rejection.reason << "\n";
  }
  os << "\npartitions:\n";
  if (report.partitions.empty())
    os << "  none\n";
  for (const PartitionInfo &partition : report.partitions) {
    os << "  " << partition.id << " " << partition.backend << " in @"
       << partition.function << ": " << partition.nodes.size() << " ops, "
       << partition.inputs << " inputs, " << partition.outputs << " outputs";
    if (partition.layoutConversions)
      os << ", " << partition.layoutConversions << " layout conversions";
    os << "\n";
  }
  if (!report.vulkanTensors.empty()) {
    os << "\nvulkan tensors:\n";
    for (const TensorPlacement &tensor : report.vulkanTensors) {
      os << "  " << tensor.partition << " " << tensor.tensor << " ("
         << tensor.producer << ") [" << join(tensor.shape, ",") << "] "
         << tensor.dtype << ": " << tensor.storage;
      if (tensor.extents.empty())
        os << ", " << tensor.bytes << " bytes\n";
      else
        os << " " << tensor.packing << " (" << join(tensor.extents, ",")
           << ")\n";
    }
  }
  return os.str();
}

BackendCounts countByBackend(const PartitionReport &report) {
  BackendCounts counts;
  for (const OpDecision &op : report.ops) {
    if (op.backend == "vulkan")
      ++counts.vulkan;
    else if (op.backend == "xnnpack")
      ++counts.xnnpack;
    else
      ++counts.portable;
  }
  return counts;
}

std::vector<std::string> portableOps(const PartitionReport &report) {
  std::vector<std::string> lines;
  for (const OpDecision &op : report.ops) {
    if (op.backend != "portable")
      continue;
    std::string line = op.node + " (" + op.op + ")";
    for (size_t i = 0; i < op.rejections.size(); ++i)
      line += (i ? "; " : ": ") + op.rejections[i].reason;
    lines.push_back(std::move(line));
  }
  return lines;
}

} // namespace duet
