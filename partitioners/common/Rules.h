//===- Rules.h - what every backend's rule table is made of -----*- C++ -*-===//
//
// The vocabulary shared by the per-backend rule tables
// (partitioners/<backend>/): element-type sets, how an op is lowered, the facts
// every rule states, the verdict a backend gives for an op, and the checks
// every table applies the same way (rank, element types, constant weights).
// Each backend keeps its own table; this file only holds what they have in
// common, so no check is written twice. RuleTable.h is the check() every table
// runs.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_RULES_H
#define DUET_PARTITIONERS_COMMON_RULES_H

#include "dialects/duet/DuetDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace duet::partition {

/// The static shape of a value of ranked tensor type.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value value) {
  return llvm::cast<mlir::RankedTensorType>(value.getType()).getShape();
}

/// A set of element types, one bit each.
using DTypeSet = uint16_t;
enum DTypeBit : DTypeSet {
  kF32 = 1 << 0,
  kF16 = 1 << 1,
  kBF16 = 1 << 2,
  kF64 = 1 << 3,
  kI1 = 1 << 4,
  kI8 = 1 << 5,
  kU8 = 1 << 6,
  kI16 = 1 << 7,
  kI32 = 1 << 8,
  kI64 = 1 << 9,
};

/// The bit of an element type; 0 for a type no rule can name.
DTypeSet dtypeBit(mlir::Type elementType);

/// "f32, f16": the members of `set`, in a fixed order.
std::string formatDTypes(DTypeSet set);

/// How a backend runs an op it claims.
enum class Lowering {
  /// The backend has a kernel for the op itself; legalization leaves it whole.
  Native,
  /// The decomposition library rewrites the op inside the partition into ops
  /// the backend runs natively. Claiming it requires that the rewrite lands
  /// entirely on such ops, which the backend checks on a copy.
  Decomposed,
};

/// An argument predicate of a rule: nothing when `op` satisfies it, else what
/// is wrong, naming the argument and its value (without the backend prefix).
using Predicate = std::optional<std::string> (*)(mlir::Operation *op);

/// Operand masks of the weights a rule names (bit i: operand i).
constexpr unsigned kNoWeights = 0;
/// weight (operand 1) and bias (operand 2).
constexpr unsigned kWeightAndBias = 0b110;
/// running_mean, running_var, weight, bias (operands 1 to 4).
constexpr unsigned kNormParams = 0b11110;
/// The integer index (operand 1) of gather and index_select.
constexpr unsigned kIndexOperand = 0b10;

/// The dialect names of `Ops`, as a decomposed rule lists its pieces: an op
/// misspelled here is a compile error.
template <typename... Ops>
inline constexpr llvm::StringLiteral kOpNames[] = {Ops::getOperationName()...};

/// An op a backend never runs, with the reason.
using UnsupportedOp = std::pair<llvm::StringLiteral, llvm::StringLiteral>;
template <typename Op> constexpr UnsupportedOp never(llvm::StringLiteral why) {
  return {Op::getOperationName(), why};
}

/// What every rule of every table states about its op; a table's rule type
/// derives from it and adds the backend's own facts.
struct RuleFacts {
  llvm::StringLiteral op;
  Lowering lowering;
  /// Operands (bit i: operand i) that must be constants: weights the backend
  /// packs at load.
  unsigned weights;
  /// Argument predicate, or null.
  Predicate predicate;
  /// For a decomposed op: the native ops the decomposition produces.
  llvm::ArrayRef<llvm::StringLiteral> decomposesInto;
};

/// A backend's answer for one op.
struct Verdict {
  bool claimed = false;
  /// Why the backend said no: "<backend>: <rule and numbers>".
  std::string reason;
  /// For an op claimed through decomposition: the native ops it becomes.
  llvm::SmallVector<std::string> decomposedInto;

  static Verdict claim() { return {true, {}, {}}; }
  static Verdict reject(std::string reason) {
    return {false, std::move(reason), {}};
  }
};

/// A delegate backend as the partitioner sees it: one rule table behind it.
class BackendRules {
public:
  virtual ~BackendRules() = default;
  /// The backend, as the dialect's `duet.delegate` names it.
  virtual DelegateKind kind() const = 0;
  /// Its name, as the dialect spells it.
  llvm::StringRef name() const { return stringifyDelegateKind(kind()); }
  /// Whether this backend can run `op`, natively or through decomposition.
  virtual Verdict check(mlir::Operation *op) = 0;
  /// The names of the ops this backend runs natively: legalization inside
  /// its partitions never decomposes them.
  virtual const llvm::StringSet<> &nativeOps() const = 0;
  /// Decomposes, in place, the ops of `delegate` (one of this backend's
  /// partitions) that the backend does not run natively.
  virtual mlir::LogicalResult legalize(DelegateOp delegate) = 0;
};

/// How a backend runs one op, for the ops table of docs/ops.md.
struct OpDoc {
  llvm::StringRef op;
  /// How it runs there; nothing for an op the backend never runs, when
  /// `detail` says why.
  std::optional<Lowering> lowering;
  /// The rule has an argument predicate: some calls of the op are refused.
  bool conditional = false;
  std::string detail;
};

/// The row of `rule`: its lowering and predicate, and as detail
/// `nativeDetail` (a native op: what runs it) or the pieces of a
/// decomposition, then its constant operands.
OpDoc describeRule(const RuleFacts &rule, std::string nativeDetail);

//===----------------------------------------------------------------------===//
// Checks every table applies
//===----------------------------------------------------------------------===//

/// "[1,84,8400]".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// "input 1" or "output 0": how reasons name a tensor of an op.
std::string tensorName(bool isResult, unsigned index);

/// The first input or output of `op` whose rank exceeds `maxRank`:
/// "rank 8 > 6 (input 0)".
std::optional<std::string> checkMaxRank(mlir::Operation *op, int64_t maxRank);

/// The first input or output of `op` without elements, with the backend's
/// reason `why`: "empty tensor [1,2,0,4] (input 0): <why>".
std::optional<std::string> checkNotEmpty(mlir::Operation *op,
                                         llvm::StringRef why);

/// The first input or output of `op` whose element type is not in `allowed`:
/// "dtype i64 (input 1) not accepted by aten.add (accepts f32, f16)".
/// Operands in `skippedOperands` (bit i: operand i) are not checked: weights
/// the backend converts itself (an integer index).
std::optional<std::string> checkDTypes(mlir::Operation *op, DTypeSet allowed,
                                       unsigned skippedOperands = 0);

/// Whether `value` is produced by a constant op (weights, folded scalars).
bool isConstant(mlir::Value value);

/// Whether `op` is a quantized weight: a dequantize (per channel or per
/// tensor) whose operands are all constants and whose every reader reads it
/// as the weight of a convolution or linear. Like a constant it is not
/// placed: every partition that reads it gets a copy of it and its
/// constants, and a backend that runs its reader in integers reads the
/// integers themselves (docs/quantization.md); what no partition reads runs
/// on the portable kernels.
bool isQuantizedWeightOp(mlir::Operation *op);
/// Whether `op` is a quantize or dequantize op (per tensor or per channel,
/// static or dynamic) or the choose_qparams of a dynamic one.
bool isQuantizationOp(mlir::Operation *op);
/// Whether `value` is the result of a quantized weight.
bool isQuantizedWeight(mlir::Value value);

/// The first operand in `operandMask` (bit i: operand i) that is present but
/// not a constant: "weight (input 1) is not a constant", or for an integer
/// operand "index (input 1) is computed at run time".
/// With `quantizedWeights`, a quantized weight counts as a constant.
std::optional<std::string> checkConstantOperands(mlir::Operation *op,
                                                 unsigned operandMask,
                                                 bool quantizedWeights = false);

/// Whether an input or output of `op` has an element type in `set`.
bool touchesDTypes(mlir::Operation *op, DTypeSet set);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_RULES_H
