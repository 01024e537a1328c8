//===- Rules.cpp - checks shared by the backend rule tables ---------------===//

#include "partitioners/common/Rules.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace duet::partition {

DTypeSet dtypeBit(Type type) {
  if (type.isF32())
    return kF32;
  if (type.isF16())
    return kF16;
  if (type.isBF16())
    return kBF16;
  if (type.isF64())
    return kF64;
  if (type.isInteger(1))
    return kI1;
  if (type.isUnsignedInteger(8))
    return kU8;
  if (type.isInteger(8))
    return kI8;
  if (type.isInteger(16))
    return kI16;
  if (type.isInteger(32))
    return kI32;
  if (type.isInteger(64))
    return kI64;
  return 0;
}

std::string formatDTypes(DTypeSet set) {
  static constexpr std::pair<DTypeBit, const char *> kNames[] = {
      {kF32, "f32"}, {kF16, "f16"}, {kBF16, "bf16"}, {kF64, "f64"},
      {kI1, "i1"},   {kI8, "i8"},   {kU8, "ui8"},    {kI16, "i16"},
      {kI32, "i32"}, {kI64, "i64"}};
  std::string out;
  for (auto [bit, name] : kNames) {
    if (!(set & bit))
      continue;
    if (!out.empty())
      out += ", ";
    out += name;
  }
  return out.empty() ? "none" : out;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string out = "[";
  llvm::raw_string_ostream os(out);
  llvm::interleave(shape, os, ",");
  os << "]";
  return out;
}

std::string tensorName(bool isResult, unsigned index) {
  return (isResult ? "output " : "input ") + std::to_string(index);
}

namespace {
/// Calls `fn(isResult, index, type)` on every ranked tensor input and output
/// of `op`, inputs first, until it returns a reason.
std::optional<std::string>
forEachTensor(Operation *op,
              llvm::function_ref<std::optional<std::string>(bool, unsigned,
                                                            RankedTensorType)>
                  fn) {
  for (auto [index, type] : llvm::enumerate(op->getOperandTypes()))
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (auto reason = fn(false, index, tensor))
        return reason;
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (auto reason = fn(true, index, tensor))
        return reason;
  return std::nullopt;
}
} // namespace

std::optional<std::string> checkMaxRank(Operation *op, int64_t maxRank) {
  return forEachTensor(op,
                       [&](bool isResult, unsigned index, RankedTensorType type)
                           -> std::optional<std::string> {
                         if (type.getRank() <= maxRank)
                           return std::nullopt;
                         return "rank " + std::to_string(type.getRank()) +
                                " > " + std::to_string(maxRank) + " (" +
                                tensorName(isResult, index) + ")";
                       });
}

std::optional<std::string> checkNotEmpty(Operation *op, StringRef why) {
  return forEachTensor(
      op,
      [&](bool isResult, unsigned index,
          RankedTensorType type) -> std::optional<std::string> {
        if (!llvm::is_contained(type.getShape(), 0))
          return std::nullopt;
        return "empty tensor " + formatShape(type.getShape()) + " (" +
               tensorName(isResult, index) + "): " + why.str();
      });
}

std::optional<std::string> checkDTypes(Operation *op, DTypeSet allowed,
                                       unsigned skippedOperands) {
  return forEachTensor(
      op,
      [&](bool isResult, unsigned index,
          RankedTensorType type) -> std::optional<std::string> {
        if ((dtypeBit(type.getElementType()) & allowed) ||
            (!isResult && (skippedOperands >> index & 1)))
          return std::nullopt;
        std::string element;
        llvm::raw_string_ostream os(element);
        os << type.getElementType();
        return "dtype " + element + " (" + tensorName(isResult, index) +
               ") not accepted by " + op->getName().getStringRef().str() +
               " (accepts " + formatDTypes(allowed) + ")";
      });
}

bool isConstant(Value value) { return matchPattern(value, m_Constant()); }

bool isQuantizedWeightOp(Operation *op) {
  if (!op ||
      !isa<aten::DequantizePerChannelOp, aten::DequantizePerTensorOp>(op) ||
      op->getResult(0).use_empty() ||
      !llvm::all_of(op->getOperands(),
                    [](Value operand) { return isConstant(operand); }))
    return false;
  // Read only as the weight of a convolution or linear.
  return llvm::all_of(op->getResult(0).getUses(), [](OpOperand &use) {
    return use.getOperandNumber() == 1 &&
           isa<aten::ConvolutionOp, aten::LinearOp>(use.getOwner());
  });
}

bool isQuantizationOp(Operation *op) {
  return isa<aten::QuantizePerTensorOp, aten::DequantizePerTensorOp,
             aten::QuantizePerChannelOp, aten::DequantizePerChannelOp,
             aten::ChooseQparamsOp, aten::QuantizePerTensorDynamicOp,
             aten::DequantizePerTensorDynamicOp>(op);
}

bool isQuantizedWeight(Value value) {
  return isQuantizedWeightOp(value.getDefiningOp());
}

std::optional<std::string> checkConstantOperands(Operation *op,
                                                 unsigned operandMask,
                                                 bool quantizedWeights) {
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    if (!(operandMask >> index & 1) || isConstant(operand) ||
        (quantizedWeights && isQuantizedWeight(operand)))
      continue;
    // An integer operand of an op on float tensors is an index (gather).
    if (auto type = dyn_cast<RankedTensorType>(operand.getType());
        type && isa<IntegerType>(type.getElementType()))
      return "index (" + tensorName(false, index) +
             ") is computed at run time; the backend takes an integer "
             "index only as a constant, packed at load";
    return "weight (" + tensorName(false, index) +
           ") is not a constant; weights are packed at load";
  }
  return std::nullopt;
}

namespace {
/// "constant operands 1, 2" for a set of operands that must be constants.
std::string describeWeights(unsigned mask) {
  std::string list;
  unsigned count = 0;
  for (unsigned bit = 0; bit < 32; ++bit)
    if (mask & (1u << bit)) {
      list += (list.empty() ? "" : ", ") + std::to_string(bit);
      ++count;
    }
  return (count == 1 ? "constant operand " : "constant operands ") + list;
}
} // namespace

OpDoc describeRule(const RuleFacts &rule, std::string nativeDetail) {
  OpDoc doc;
  doc.op = rule.op;
  doc.lowering = rule.lowering;
  doc.conditional = rule.predicate != nullptr;
  if (rule.lowering == Lowering::Decomposed) {
    doc.detail = "as ";
    llvm::raw_string_ostream os(doc.detail);
    llvm::interleave(rule.decomposesInto, os, ", ");
  } else {
    doc.detail = std::move(nativeDetail);
  }
  if (rule.weights)
    doc.detail += "; " + describeWeights(rule.weights);
  return doc;
}

bool touchesDTypes(Operation *op, DTypeSet set) {
  auto inSet = [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && (dtypeBit(tensor.getElementType()) & set);
  };
  return llvm::any_of(op->getOperandTypes(), inSet) ||
         llvm::any_of(op->getResultTypes(), inSet);
}

} // namespace duet::partition
