//===- HigherOrderOps.cpp - the higher-order ops duet inlines -------------===//

#include "compiler/import/HigherOrderOps.h"

#include "compiler/import/ImportError.h"

#include "llvm/ADT/Twine.h"

using namespace duet::import;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace {

constexpr StringRef kPrefix = "torch.ops.higher_order.";

/// Schema ScalarType numbers autocast's dtype argument takes.
constexpr int64_t kHalf = 6, kFloat = 7, kBFloat16 = 13;

std::string dtypeName(int64_t dtype) {
  switch (dtype) {
  case kHalf:
    return "float16";
  case kFloat:
    return "float32";
  case kBFloat16:
    return "bfloat16";
  default:
    return "dtype " + std::to_string(dtype) + " (schema ScalarType)";
  }
}

/// The value of union case `kase` (`as_bool`) of `arg`.
Expected<JsonView> unionValue(const JsonView &arg, StringRef kase) {
  DUET_TRY(got, arg.unionCase());
  if (got.first != kase)
    return arg.typeError(kase);
  return got.second;
}

/// wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph, ...).
Error checkAutocast(const RegionCall &call,
                    llvm::ArrayRef<mlir::RankedTensorType> regionTypes) {
  if (call.params.size() != 4)
    return importError("expected 4 arguments before the graph (device_type, "
                       "dtype, enabled, cache_enabled), got " +
                       Twine(call.params.size()));
  DUET_TRY(enabledArg, unionValue(call.params[2], "as_bool"));
  DUET_TRY(enabled, enabledArg.boolean());
  if (!enabled)
    return Error::success();
  DUET_TRY(deviceArg, unionValue(call.params[0], "as_string"));
  DUET_TRY(device, deviceArg.string());
  // No dtype: the device's default, torch.get_autocast_dtype().
  int64_t dtype = device == "cpu" ? kBFloat16 : kHalf;
  auto dtypeCase = call.params[1].tryUnionCase();
  if (!dtypeCase || dtypeCase->first != "as_none") {
    DUET_TRY(dtypeArg, unionValue(call.params[1], "as_scalar_type"));
    DUET_TRY(code, dtypeArg.integer());
    dtype = code;
  }
  // Autocast casts the operands of some ops to its dtype (and of others to
  // float32): over float32 tensors, autocast to float32 casts nothing.
  bool float32Only = llvm::all_of(regionTypes, [](mlir::RankedTensorType t) {
    return !llvm::isa<mlir::FloatType>(t.getElementType()) ||
           t.getElementType().isF32();
  });
  if (dtype == kFloat && float32Only)
    return Error::success();
  return unsupportedError(
      "an enabled autocast region (device '" + device + "', dtype " +
      dtypeName(dtype) + ") changes the dtypes its ops compute in, and duet " +
      "runs a region as written, without autocast's casts; disable it in " +
      "forward() (torch.autocast(..., enabled=False)) or cast explicitly, or " +
      "export after ep.run_decompositions(), which writes autocast's casts " +
      "as ops");
}

} // namespace

bool duet::import::isHigherOrder(StringRef target) {
  return target.starts_with(kPrefix);
}

bool duet::import::isInlinedHigherOrder(StringRef target) {
  return target == "torch.ops.higher_order.wrap_with_autocast" ||
         target == "torch.ops.higher_order.wrap_with_set_grad_enabled";
}

StringRef duet::import::inlinedHigherOrderOps() {
  return "wrap_with_autocast and wrap_with_set_grad_enabled";
}

Expected<RegionCall> duet::import::readRegionCall(const JsonView &node) {
  DUET_TRY(inputsField, node.field("inputs"));
  DUET_TRY(inputs, inputsField.elements());
  std::vector<JsonView> params, operands;
  std::optional<JsonView> graph;
  for (const JsonView &input : inputs) {
    DUET_TRY(arg, input.field("arg"));
    auto kase = arg.tryUnionCase();
    if (!kase || kase->first != "as_graph") {
      (graph ? operands : params).push_back(arg);
      continue;
    }
    if (graph)
      return importError(input.path() +
                         ": a second submodule graph; expected one");
    DUET_TRY(body, kase->second.field("graph"));
    graph = body;
  }
  if (!graph)
    return importError(inputsField.path() + " holds no submodule graph");
  return RegionCall{std::move(params), *graph, std::move(operands)};
}

Error duet::import::checkRegion(
    StringRef target, const RegionCall &call,
    llvm::ArrayRef<mlir::RankedTensorType> regionTypes) {
  // Grad mode changes nothing an inference program computes.
  if (target == "torch.ops.higher_order.wrap_with_autocast")
    return checkAutocast(call, regionTypes);
  return Error::success();
}
