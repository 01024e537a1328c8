//===- CostModel.h - what an op and a transfer cost on each backend -*- C++ -*-===//
//
// Placement by cost (docs/partitioning.md, "Placement by cost") needs, for
// each op and each backend that can run it, an estimated time, and for each
// tensor that crosses a partition's boundary the time to move it. The model
// is analytical: an op's work is counted in one of four units (multiply-adds
// for the matrix products, elements for the rest), and a backend states how
// many of each unit it does per microsecond, what a call of one of its
// partitions costs, what each op (dispatch, node, kernel call) costs on top
// of its work, and what a tensor crossing costs. The numbers come from the
// target profile's "costs" object (docs/profiles.md), written by hand from
// measurements or by `duet-run tune`.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_COSTMODEL_H
#define DUET_PARTITIONERS_COMMON_COSTMODEL_H

#include "runtime/core/OpWork.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>

namespace llvm::json {
class Object;
} // namespace llvm::json

namespace mlir {
class Operation;
class Value;
} // namespace mlir

namespace duet::partition {

/// What an op's work is counted in, and how much (runtime/core/OpWork.h,
/// shared with `duet-run tune`).
using rt::kWorkClasses;
using rt::OpWork;
using rt::WorkClass;

/// The JSON key of a class's rate ("gemm_macs_per_us").
inline llvm::StringRef rateKey(WorkClass cls) {
  std::string_view key = rt::workRateKey(cls);
  return {key.data(), key.size()};
}

/// The work of `op`, from its static shapes.
OpWork workOf(mlir::Operation *op);

/// The bytes of a value of ranked tensor type (0 for anything else).
int64_t tensorBytes(mlir::Value value);

/// The costs of one backend (runtime/core/OpWork.h).
using rt::BackendCosts;

/// The costs of every backend for one target, and where they come from.
class TargetCosts {
public:
  /// The "costs" object of a profile; `origin` names the profile in errors.
  /// Its keys are "source" (required) and one object per backend, each with
  /// exactly the keys of BackendCosts (docs/profiles.md).
  static llvm::Expected<TargetCosts> parse(const llvm::json::Object &costs,
                                           llvm::StringRef origin);

  /// Where the numbers come from.
  const std::string &source() const { return source_; }
  /// The profile they were read from ("profile lavapipe (built-in)").
  const std::string &origin() const { return origin_; }
  void setOrigin(std::string origin) { origin_ = std::move(origin); }

  /// The costs of `backend` ("vulkan", "xnnpack", "portable"), or nullptr.
  const BackendCosts *find(llvm::StringRef backend) const;

  /// The "costs" object these were parsed from, as JSON text (the program
  /// keeps it, for `duet-run tune` to start from).
  std::string toJson() const;

  /// Estimated microseconds of `op` on `costs`' backend, per-op cost
  /// included.
  static double opUs(const BackendCosts &costs, mlir::Operation *op);
  /// Estimated microseconds of moving `bytes` into or out of a partition.
  static double transferUs(const BackendCosts &costs, int64_t bytes);

private:
  std::string source_;
  std::string origin_;
  llvm::StringMap<BackendCosts> backends_;
};

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_COSTMODEL_H
