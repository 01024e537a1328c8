//===- ProfileSummary.h - where a bench's time goes -------------*- C++ -*-===//
//
// `duet bench --profile` and `duet-run bench --profile`: the runtime's profile
// of each timed run (Runtime::profile) gathered, then the median time of each
// instruction and of each part a delegate timed inside it, as a percentage of
// the sum of the instructions' medians, most time first.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_PROFILESUMMARY_H
#define DUET_RUNTIME_CLI_PROFILESUMMARY_H

#include "runtime/core/Profile.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace duet::cli {

/// The median of `values` (not empty).
double median(std::vector<double> values);

class ProfileSummary {
public:
  /// Adds the profile of one timed run; every run of a program has the same
  /// entries and parts.
  void add(const std::vector<rt::ProfileEntry> &run);

  /// The table printed after bench's line: one row per instruction, its
  /// parts indented under it.
  std::string text() const;
  /// The same rows as bench's JSON "profile" array: objects with
  /// instruction, kind, name, node, median_ms, percent and parts (objects
  /// with name, median_ms, percent).
  nlohmann::ordered_json json() const;

private:
  struct Row {
    std::string name;
    double ms = 0;
    double percent = 0;
  };
  struct InstructionRow {
    rt::ProfileEntry entry;
    Row row;
    std::vector<Row> parts;
  };
  /// The rows, medians and percentages computed, sorted by time.
  std::vector<InstructionRow> rows() const;

  std::vector<rt::ProfileEntry> first_;
  /// Times by entry, and by entry and part, one per run.
  std::vector<std::vector<double>> entryMs_;
  std::vector<std::vector<std::vector<double>>> partMs_;
  size_t runs_ = 0;
};

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_PROFILESUMMARY_H
