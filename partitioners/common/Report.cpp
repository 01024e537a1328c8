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
#include <cmath>
#include <sstream>

namespace duet {

namespace {

using ordered_json = nlohmann::ordered_json;

/// Estimates to three significant digits: more would be noise.
double roundUs(double us) {
  if (us <= 0)
    return 0;
  double scale = std::pow(10.0, 2 - std::floor(std::log10(us)));
  return std::round(us * scale) / scale;
}

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
  if (!op.costsUs.empty()) {
    ordered_json costs;
    for (const auto &[backend, us] : op.costsUs)
      costs[backend] = roundUs(us);
    out["estimated_us"] = std::move(costs);
  }
  return out;
}

ordered_json placementToJson(const PlacementSummary &placement) {
  ordered_json out;
  out["mode"] = placement.mode;
  out["costs"] = placement.costsOrigin;
  out["costs_source"] = placement.costsSource;
  out["estimated_us"] = roundUs(placement.estimatedUs);
  out["priority_estimated_us"] = roundUs(placement.priorityUs);
  out["search"] = {{"evaluations", placement.evaluations},
                   {"moves", placement.moves},
                   {"budget_reached", placement.budgetReached}};
  return out;
}

/// "12.3": microseconds as the table prints them.
std::string usText(double us) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(us < 10 ? 2 : 1);
  os << us;
  return os.str();
}

} // namespace

std::string reportToJson(const PartitionReport &report) {
  ordered_json out;
  out["backends"] = report.backends;
  if (report.placement.mode == "cost")
    out["placement"] = placementToJson(report.placement);
  auto addParts = [&](ReportSection::Part part) {
    for (const auto &section : report.sections)
      section->addJson(part, out);
  };
  addParts(ReportSection::Part::options);
  addParts(ReportSection::Part::target);

  ordered_json ops = ordered_json::array();
  for (const OpDecision &op : report.ops)
    ops.push_back(opToJson(op));
  ordered_json summary;
  summary["ops"] = report.ops.size();
  for (const auto &[backend, count] : countByBackend(report))
    summary[backend] = count;
  summary["partitions"] = report.partitions.size();
  out["summary"] = std::move(summary);
  out["ops"] = std::move(ops);

  ordered_json partitions = ordered_json::array();
  for (const PartitionInfo &partition : report.partitions) {
    ordered_json entry = {{"id", partition.id},
                          {"function", partition.function},
                          {"backend", partition.backend},
                          {"nodes", partition.nodes},
                          {"inputs", partition.inputs},
                          {"outputs", partition.outputs},
                          {"layout_conversions", partition.layoutConversions}};
    if (partition.estimatedUs >= 0) {
      entry["estimated_us"] = roundUs(partition.estimatedUs);
      entry["call_us"] = roundUs(partition.callUs);
      entry["transfer_us"] = roundUs(partition.transferUs);
      entry["transfers"] = partition.transfers;
      entry["transfer_bytes"] = partition.transferBytes;
    }
    partitions.push_back(std::move(entry));
  }
  out["partitions"] = std::move(partitions);
  if (!report.quantization.empty()) {
    ordered_json nodes = ordered_json::array();
    for (const QuantizationNode &node : report.quantization) {
      ordered_json entry = {{"node", node.node},
                            {"op", node.op},
                            {"partition", node.partition},
                            {"folded", node.folded}};
      if (node.folded)
        entry["into"] = node.into;
      else
        entry["why"] = node.why;
      nodes.push_back(std::move(entry));
    }
    out["quantization"] = std::move(nodes);
  }
  addParts(ReportSection::Part::plans);
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
  auto addParts = [&](ReportSection::Part part) {
    std::string text;
    for (const auto &section : report.sections)
      section->addText(part, text);
    os << text;
  };
  bool byCost = report.placement.mode == "cost";
  os << (byCost ? "backends (placed by estimated cost): "
                : "backends (in priority order): ");
  for (size_t i = 0; i < report.backends.size(); ++i)
    os << (i ? ", " : "") << report.backends[i];
  os << "\n";
  if (byCost) {
    const PlacementSummary &placement = report.placement;
    os << "costs: " << placement.costsOrigin << "\n"
       << "estimated: " << usText(placement.estimatedUs)
       << " us (priority placement: " << usText(placement.priorityUs)
       << " us; " << placement.moves << " moves in "
       << placement.evaluations << " estimates"
       << (placement.budgetReached ? ", search budget reached" : "")
       << ")\n";
  }
  addParts(ReportSection::Part::target);
  os << "\n";
  os << pad("node", nodeWidth) << "  " << pad("op", opWidth)
     << "  backend   partition\n";
  for (const OpDecision &op : report.ops) {
    os << pad(op.node, nodeWidth) << "  " << pad(op.op, opWidth) << "  "
       << pad(op.backend, 8) << "  "
       << (op.partition >= 0 ? std::to_string(op.partition) : "-") << "\n";
    if (!op.costsUs.empty()) {
      os << "    estimated:";
      for (const auto &[backend, us] : op.costsUs)
        os << " " << backend << " " << usText(us) << " us";
      os << "\n";
    }
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
    if (partition.estimatedUs >= 0)
      os << "; estimated " << usText(partition.estimatedUs) << " us (call "
         << usText(partition.callUs) << ", " << partition.transfers
         << " transfers of " << partition.transferBytes << " bytes "
         << usText(partition.transferUs) << ")";
    os << "\n";
  }
  if (!report.quantization.empty()) {
    size_t folded = 0;
    for (const QuantizationNode &node : report.quantization)
      folded += node.folded;
    os << "\nquantization: " << folded << " of " << report.quantization.size()
       << " quantize/dequantize nodes folded into integer ops\n";
    for (const QuantizationNode &node : report.quantization) {
      os << "  " << node.node << " (" << node.op << "): ";
      if (node.folded)
        os << "folded into " << node.into << "\n";
      else
        os << "kept" << (node.partition < 0 ? " (portable)" : "") << ": "
           << node.why << "\n";
    }
  }
  addParts(ReportSection::Part::plans);
  return os.str();
}

std::vector<std::pair<std::string, size_t>>
countByBackend(const PartitionReport &report) {
  std::vector<std::pair<std::string, size_t>> counts;
  for (const auto &section : report.sections)
    counts.emplace_back(section->backend, 0);
  counts.emplace_back("portable", 0);
  for (const OpDecision &op : report.ops)
    for (auto &[backend, count] : counts)
      count += op.backend == backend;
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
    // Placed by cost, an op some backend could run may still be portable.
    if (op.costsUs.size() > 1) {
      line += op.rejections.empty() ? ": " : "; ";
      line += "cheaper on the portable kernels:";
      for (const auto &[backend, us] : op.costsUs)
        line += " " + backend + " " + usText(us) + " us";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

} // namespace duet
