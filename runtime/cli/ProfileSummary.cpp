//===- ProfileSummary.cpp - where a bench's time goes ---------------------===//

#include "runtime/cli/ProfileSummary.h"

#include "runtime/cli/PrintableText.h"

#include <fmt/core.h>

#include <algorithm>

namespace duet::cli {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void ProfileSummary::add(const std::vector<rt::ProfileEntry> &run) {
  if (runs_++ == 0) {
    first_ = run;
    entryMs_.resize(run.size());
    partMs_.resize(run.size());
    for (size_t e = 0; e < run.size(); ++e)
      partMs_[e].resize(run[e].parts.size());
  }
  for (size_t e = 0; e < run.size() && e < entryMs_.size(); ++e) {
    entryMs_[e].push_back(run[e].ms);
    const std::vector<rt::ProfilePart> &parts = run[e].parts;
    for (size_t p = 0; p < parts.size() && p < partMs_[e].size(); ++p)
      partMs_[e][p].push_back(parts[p].ms);
  }
}

std::vector<ProfileSummary::InstructionRow> ProfileSummary::rows() const {
  std::vector<InstructionRow> rows;
  double total = 0;
  for (size_t e = 0; e < first_.size(); ++e) {
    InstructionRow row;
    row.entry = first_[e];
    row.entry.parts.clear();
    row.entry.name = printableName(row.entry.name);
    row.entry.node = printableName(row.entry.node);
    row.row.ms = entryMs_[e].empty() ? 0 : median(entryMs_[e]);
    total += row.row.ms;
    for (size_t p = 0; p < partMs_[e].size(); ++p)
      row.parts.push_back({first_[e].parts[p].name,
                           partMs_[e][p].empty() ? 0 : median(partMs_[e][p]),
                           0});
    rows.push_back(std::move(row));
  }
  auto byTime = [](const Row &a, const Row &b) { return a.ms > b.ms; };
  for (InstructionRow &row : rows) {
    row.row.percent = total > 0 ? 100 * row.row.ms / total : 0;
    for (Row &part : row.parts)
      part.percent = total > 0 ? 100 * part.ms / total : 0;
    std::stable_sort(row.parts.begin(), row.parts.end(), byTime);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const InstructionRow &a, const InstructionRow &b) {
                     return byTime(a.row, b.row);
                   });
  return rows;
}

std::string ProfileSummary::text() const {
  std::vector<InstructionRow> all = rows();
  double total = 0;
  for (const InstructionRow &row : all)
    total += row.row.ms;
  std::string out = fmt::format(
      "profile: median of {} runs per instruction, {:.3f} ms in all\n"
      "{:>9} {:>7}  instruction\n",
      runs_, total, "ms", "%");
  for (const InstructionRow &row : all) {
    const rt::ProfileEntry &entry = row.entry;
    std::string node =
        entry.node.empty() ? "" : fmt::format(" ({})", entry.node);
    out += fmt::format("{:9.3f} {:6.1f}%  {} {} {}{}\n", row.row.ms,
                       row.row.percent, entry.instruction, entry.kind,
                       entry.name, node);
    for (const Row &part : row.parts)
      out += fmt::format("{:9.3f} {:6.1f}%      {}\n", part.ms, part.percent,
                         part.name);
  }
  return out;
}

nlohmann::ordered_json ProfileSummary::json() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const InstructionRow &row : rows()) {
    nlohmann::ordered_json item;
    item["instruction"] = row.entry.instruction;
    item["kind"] = row.entry.kind;
    item["name"] = row.entry.name;
    item["node"] = row.entry.node;
    item["median_ms"] = row.row.ms;
    item["percent"] = row.row.percent;
    nlohmann::ordered_json parts = nlohmann::ordered_json::array();
    for (const Row &part : row.parts)
      parts.push_back({{"name", part.name},
                       {"median_ms", part.ms},
                       {"percent", part.percent}});
    item["parts"] = std::move(parts);
    out.push_back(std::move(item));
  }
  return out;
}

} // namespace duet::cli
