//===- CostModel.cpp - what an op and a transfer cost on each backend ---===//

#include "partitioners/common/CostModel.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace duet::partition {

namespace {

/// The sizes of a value of static ranked tensor type; none otherwise (an
/// absent operand counts as a scalar).
std::vector<int64_t> sizesOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return {};
  return {type.getShape().begin(), type.getShape().end()};
}

} // namespace

OpWork workOf(Operation *op) {
  std::vector<std::vector<int64_t>> inputs, outputs;
  for (Value operand : op->getOperands())
    inputs.push_back(sizesOf(operand));
  for (Value result : op->getResults())
    outputs.push_back(sizesOf(result));
  bool transposed = false;
  if (auto conv = dyn_cast<aten::ConvolutionOp>(op))
    transposed = conv.getTransposed();
  return rt::estimateWork(op->getName().getStringRef(), inputs, outputs,
                          transposed);
}

int64_t tensorBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, bits / 8);
}

namespace {

llvm::Error costError(llvm::StringRef origin, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "device profile " + origin + ": costs: " +
                                     message);
}

/// `object[key]`, a finite number >= 0 (> 0 when `positive`).
llvm::Expected<double> readNumber(const llvm::json::Object &object,
                                  llvm::StringRef key, llvm::StringRef where,
                                  llvm::StringRef origin, bool positive) {
  const llvm::json::Value *value = object.get(key);
  if (!value)
    return costError(origin, where + " has no \"" + key + "\"");
  std::optional<double> number = value->getAsNumber();
  if (!number || !std::isfinite(*number) || *number < 0 ||
      (positive && *number == 0))
    return costError(origin, where + "." + key + " must be a number " +
                                 (positive ? "> 0" : ">= 0"));
  return *number;
}

llvm::Expected<BackendCosts> parseBackend(const llvm::json::Object &object,
                                          llvm::StringRef backend,
                                          llvm::StringRef origin) {
  static constexpr llvm::StringLiteral kFixed[] = {
      "call_us", "op_us", "transfer_us", "transfer_bytes_per_us"};
  for (const auto &entry : object) {
    llvm::StringRef key = entry.first;
    bool known = llvm::is_contained(kFixed, key);
    for (size_t cls = 0; cls < kWorkClasses; ++cls)
      known |= key == rateKey(static_cast<WorkClass>(cls));
    if (!known)
      return costError(origin,
                       "unknown key \"" + key + "\" in \"" + backend +
                           "\"; a backend has call_us, op_us, transfer_us, "
                           "transfer_bytes_per_us, gemm_macs_per_us, "
                           "elementwise_per_us, reduce_per_us, data_per_us");
  }
  BackendCosts costs;
  double *fixed[] = {&costs.callUs, &costs.opUs, &costs.transferUs,
                     &costs.transferBytesPerUs};
  for (auto [key, field] : llvm::zip(kFixed, fixed)) {
    llvm::Expected<double> number =
        readNumber(object, key, backend, origin, /*positive=*/false);
    if (!number)
      return number.takeError();
    *field = *number;
  }
  for (size_t cls = 0; cls < kWorkClasses; ++cls) {
    llvm::Expected<double> rate =
        readNumber(object, rateKey(static_cast<WorkClass>(cls)), backend,
                   origin, /*positive=*/true);
    if (!rate)
      return rate.takeError();
    costs.unitsPerUs[cls] = *rate;
  }
  return costs;
}

} // namespace

llvm::Expected<TargetCosts> TargetCosts::parse(const llvm::json::Object &costs,
                                               llvm::StringRef origin) {
  TargetCosts target;
  target.origin_ = origin.str();
  for (const auto &entry : costs) {
    llvm::StringRef key = entry.first;
    if (key == "source") {
      std::optional<llvm::StringRef> text = entry.second.getAsString();
      if (!text || text->empty())
        return costError(origin, "\"source\" must be a non-empty string");
      target.source_ = text->str();
      continue;
    }
    const llvm::json::Object *backend = entry.second.getAsObject();
    if (!backend)
      return costError(origin, "\"" + key +
                                   "\" must be an object of a backend's "
                                   "costs (or the key \"source\")");
    llvm::Expected<BackendCosts> parsed = parseBackend(*backend, key, origin);
    if (!parsed)
      return parsed.takeError();
    target.backends_[key] = *parsed;
  }
  if (target.source_.empty())
    return costError(origin, "missing \"source\": say where the numbers "
                             "come from");
  return target;
}

const BackendCosts *TargetCosts::find(llvm::StringRef backend) const {
  auto it = backends_.find(backend);
  return it == backends_.end() ? nullptr : &it->second;
}

std::string TargetCosts::toJson() const {
  llvm::json::Object out;
  out["source"] = source_;
  for (const auto &entry : backends_) {
    const BackendCosts &costs = entry.second;
    llvm::json::Object backend;
    backend["call_us"] = costs.callUs;
    backend["op_us"] = costs.opUs;
    backend["transfer_us"] = costs.transferUs;
    backend["transfer_bytes_per_us"] = costs.transferBytesPerUs;
    for (size_t cls = 0; cls < kWorkClasses; ++cls)
      backend[rateKey(static_cast<WorkClass>(cls))] =
          costs.unitsPerUs[cls];
    out[entry.first()] = std::move(backend);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(out));
  return text;
}

double TargetCosts::opUs(const BackendCosts &costs, Operation *op) {
  return rt::estimateOpUs(costs, workOf(op));
}

double TargetCosts::transferUs(const BackendCosts &costs, int64_t bytes) {
  return rt::estimateTransferUs(costs, static_cast<uint64_t>(bytes));
}

} // namespace duet::partition
