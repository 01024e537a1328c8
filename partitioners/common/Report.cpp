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

} // namespace

std::string reportToJson(const PartitionReport &report) {
  ordered_json out;
  out["backends"] = report.backends;
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
  for (const PartitionInfo &partition : report.partitions)
    partitions.push_back({{"id", partition.id},
                          {"function", partition.function},
                          {"backend", partition.backend},
                          {"nodes", partition.nodes},
                          {"inputs", partition.inputs},
                          {"outputs", partition.outputs},
                          {"layout_conversions", partition.layoutConversions}});
  out["partitions"] = std::move(partitions);
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
  os << "backends (in priority order): ";
  for (size_t i = 0; i < report.backends.size(); ++i)
    os << (i ? ", " : "") << report.backends[i];
  os << "\n";
  addParts(ReportSection::Part::target);
  os << "\n";
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
    lines.push_back(std::move(line));
  }
  return lines;
}

} // namespace duet
