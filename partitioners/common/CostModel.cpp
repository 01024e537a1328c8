//===- CostModel.cpp - what an op and a transfer cost on each backend ---===//

#include "partitioners/common/CostModel.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace duet::partition {

namespace {

/// The elements of a value of static ranked tensor type; 0 otherwise.
double elementsOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  return static_cast<double>(type.getNumElements());
}

double largestTensor(Operation *op) {
  double most = 0;
  for (Value value : op->getOperands())
    most = std::max(most, elementsOf(value));
  for (Value value : op->getResults())
    most = std::max(most, elementsOf(value));
  return most;
}

/// The size of dim `dim` (from the back when negative) of `value`, or 1.
double dimOf(Value value, int64_t dim) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() == 0)
    return 1;
  int64_t rank = type.getRank();
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank || ShapedType::isDynamic(type.getDimSize(dim)))
    return 1;
  return static_cast<double>(type.getDimSize(dim));
}

/// Multiply-adds of a convolution: each output element sums Cin/groups
/// times the window (the weight's dims from 1); a transposed one scatters
/// each input element over Cout/groups times the window instead.
double convolutionMacs(aten::ConvolutionOp conv) {
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  double perElement = 1;
  for (int64_t size : weight.getShape().drop_front())
    perElement *= static_cast<double>(size);
  return (conv.getTransposed() ? elementsOf(conv.getInput())
                               : elementsOf(conv.getResult())) *
         perElement;
}

} // namespace

llvm::StringRef workRateKey(WorkClass cls) {
  switch (cls) {
  case WorkClass::gemm:
    return "gemm_macs_per_us";
  case WorkClass::elementwise:
    return "elementwise_per_us";
  case WorkClass::reduce:
    return "reduce_per_us";
  case WorkClass::data:
    return "data_per_us";
  }
  llvm_unreachable("a work class without a key");
}

OpWork workOf(Operation *op) {
  using namespace aten;
  if (auto conv = dyn_cast<ConvolutionOp>(op))
    return {WorkClass::gemm, convolutionMacs(conv)};
  // Output elements times the reduced dim: the last dim of the first
  // operand (linear's input, addmm's mat1, a matrix product's self).
  if (auto addmm = dyn_cast<AddmmOp>(op))
    return {WorkClass::gemm, elementsOf(op->getResult(0)) *
                                 dimOf(addmm.getMat1(), -1)};
  if (isa<LinearOp, MmOp, BmmOp, MatmulOp>(op))
    return {WorkClass::gemm,
            elementsOf(op->getResult(0)) * dimOf(op->getOperand(0), -1)};
  // Scores (L x S per batch and head, each a D-long dot product) and the
  // weighted sum of the values (L x D, each S long): 2 * |query| * S.
  if (auto sdpa = dyn_cast<ScaledDotProductAttentionOp>(op))
    return {WorkClass::gemm,
            2 * elementsOf(sdpa.getQuery()) * dimOf(sdpa.getKey(), -2)};
  if (isa<MeanOp, SumOp, AmaxOp, AnyOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp,
          CumsumOp, AdaptiveAvgPool2dOp, AvgPool2dOp, MaxPool2dOp>(op))
    return {WorkClass::reduce, largestTensor(op)};
  if (isa<ViewOp, PermuteOp, ExpandOp, RepeatOp, SliceOp, SelectOp,
          ConstantPadNdOp, CloneOp, CatOp, SplitWithSizesOp,
          UpsampleNearest2dOp, UpsampleBilinear2dOp, EmbeddingOp, GatherOp,
          IndexSelectOp>(op))
    return {WorkClass::data, largestTensor(op)};
  return {WorkClass::elementwise, largestTensor(op)};
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
      known |= key == workRateKey(static_cast<WorkClass>(cls));
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
        readNumber(object, workRateKey(static_cast<WorkClass>(cls)), backend,
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

double TargetCosts::opUs(const BackendCosts &costs, Operation *op) {
  OpWork work = workOf(op);
  return costs.opUs + work.units / costs.unitsPerUs[size_t(work.cls)];
}

double TargetCosts::transferUs(const BackendCosts &costs, int64_t bytes) {
  double perByte = costs.transferBytesPerUs > 0
                       ? static_cast<double>(bytes) / costs.transferBytesPerUs
                       : 0;
  return costs.transferUs + perByte;
}

} // namespace duet::partition
