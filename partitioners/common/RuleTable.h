//===- RuleTable.h - the check() every rule table runs ----------*- C++ -*-===//
//
// A backend's rule table lists facts: per op a rule (RuleFacts and the
// backend's own), the ops it never runs with the reason, and the few facts
// that hold for every rule (TableFacts). RuleTable turns them into the
// backend's answer, the same way for every backend:
//
// - an op the backend never runs, or has no rule for, is refused as such;
// - a native op is checked for rank, constant weights and its predicate, in
//   that order, then by the backend's own tensor checks (element types,
//   storage);
// - a decomposed op is checked (its predicate, or everything a native op is,
//   as the table says), then decomposed on a copy and claimed only if every
//   piece passes the native checks.
//
// Reasons start with the backend's name ("vulkan: ...").
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_RULETABLE_H
#define DUET_PARTITIONERS_COMMON_RULETABLE_H

#include "partitioners/common/Legalize.h"
#include "partitioners/common/Rules.h"

#include "llvm/ADT/StringMap.h"

#include <utility>

namespace duet::partition {

/// What a table checks on an op it runs decomposed, before the pieces.
enum class DecomposedCheck {
  /// The rule's predicate only; element types are checked on the pieces
  /// (Vulkan: a boolean attention mask becomes an additive float constant).
  predicate,
  /// Everything a native op is checked for (XNNPACK: its bf16 gate is per
  /// op, the decomposed one's included).
  whole,
};

/// The facts of a table that hold for every rule in it.
struct TableFacts {
  /// The largest rank of an input or output the backend takes.
  int64_t maxRank;
  /// What an op without a rule lacks: "no <noRule> for aten.tanh".
  llvm::StringLiteral noRule;
  /// What a decomposed op lacks natively: "aten.silu has no <noOwnRule> of
  /// its own".
  llvm::StringLiteral noOwnRule;
  DecomposedCheck decomposed;
  /// Ops the backend never runs, each with the reason.
  llvm::ArrayRef<UnsupportedOp> unsupported;
  /// Whether a quantized weight (isQuantizedWeight) may stand for a
  /// constant weight: the backend reads its integers or dequantizes it at
  /// compile time.
  bool quantizedWeights = false;
};

/// A backend's rules over its table of `RuleT` (a RuleFacts with the
/// backend's own facts). The backend adds only its tensor checks.
template <typename RuleT> class RuleTable : public BackendRules {
public:
  Verdict check(mlir::Operation *op) final {
    const RuleT *rule = find(op->getName().getStringRef());
    std::string prefix = name().str() + ": ";
    if (!rule || rule->lowering == Lowering::Native) {
      if (auto why = whyNotNative(op))
        return Verdict::reject(prefix + *why);
      return Verdict::claim();
    }
    std::optional<std::string> why;
    if (facts.decomposed == DecomposedCheck::whole)
      why = whyNotRule(op, *rule);
    else if (rule->predicate)
      why = rule->predicate(op);
    if (why)
      return Verdict::reject(prefix + *why);
    Verdict verdict = Verdict::claim();
    if (auto why = decompositions.trial(
            op, name(),
            [&](mlir::Operation *piece) { return whyNotNative(piece); },
            verdict.decomposedInto))
      return Verdict::reject(*why);
    return verdict;
  }

  const llvm::StringSet<> &nativeOps() const final { return native; }

  mlir::LogicalResult legalize(DelegateOp delegate) final {
    return decompositions.legalize(delegate);
  }

  /// The rule for `op`, or nullptr.
  const RuleT *find(llvm::StringRef op) const { return rules.lookup(op); }

protected:
  RuleTable(mlir::MLIRContext *context, const TableFacts &facts,
            llvm::ArrayRef<RuleT> table)
      : facts(facts), native(nativeOf(table)), decompositions(context, native) {
    for (const RuleT &rule : table)
      rules[rule.op] = &rule;
  }

  /// The backend's checks of `op`, a native op of `rule` that passed rank,
  /// weights and predicate: element types and anything else about its
  /// tensors. Unprefixed; nothing when it can run.
  virtual std::optional<std::string> checkTensors(mlir::Operation *op,
                                                  const RuleT &rule) const = 0;

private:
  static llvm::StringSet<> nativeOf(llvm::ArrayRef<RuleT> table) {
    llvm::StringSet<> names;
    for (const RuleT &rule : table)
      if (rule.lowering == Lowering::Native)
        names.insert(rule.op);
    return names;
  }

  /// Rank, weight, predicate and tensor checks of `rule` on `op`.
  std::optional<std::string> whyNotRule(mlir::Operation *op,
                                        const RuleT &rule) const {
    if (auto why = checkMaxRank(op, facts.maxRank))
      return why;
    if (auto why = checkConstantOperands(op, rule.weights,
                                           facts.quantizedWeights))
      return why;
    if (rule.predicate)
      if (auto why = rule.predicate(op))
        return why;
    return checkTensors(op, rule);
  }

  /// Why `op` cannot run natively, unprefixed; nothing when it can.
  std::optional<std::string> whyNotNative(mlir::Operation *op) const {
    llvm::StringRef opName = op->getName().getStringRef();
    for (auto [name, why] : facts.unsupported)
      if (opName == name)
        return opName.str() + ": " + why.str();
    const RuleT *rule = find(opName);
    if (!rule)
      return "no " + facts.noRule.str() + " for " + opName.str();
    if (rule->lowering != Lowering::Native)
      return opName.str() + " has no " + facts.noOwnRule.str() + " of its own";
    return whyNotRule(op, *rule);
  }

  const TableFacts &facts;
  llvm::StringMap<const RuleT *> rules;
  llvm::StringSet<> native;
  Decomposer decompositions;
};

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_RULETABLE_H
