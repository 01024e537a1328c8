//===- XnnpackRules.h - what the XNNPACK delegate runs ----------*- C++ -*-===//
//
// The one place that knows which ops the XNNPACK delegate runs, for the
// XNNPACK this project builds against (Debian's 2022 snapshot, subgraph API):
// per op, the subgraph node it becomes, whether bf16 is allowed under
// enable-bf16, which operands must be constants, argument predicates, and
// for decomposed ops the native ops they become.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNPACKRULES_H
#define DUET_PARTITIONERS_XNNPACK_XNNPACKRULES_H

#include "partitioners/common/Legalize.h"
#include "partitioners/common/Rules.h"

#include "llvm/ADT/StringMap.h"

namespace duet::partition {

/// XNN_MAX_TENSOR_DIMS of the XNNPACK duet links.
constexpr int64_t kXnnpackMaxRank = 6;

/// One entry of the XNNPACK rule table.
struct XnnpackRule {
  llvm::StringLiteral op;
  Lowering lowering;
  /// The `xnn_define_*` node(s) a native op becomes.
  llvm::StringLiteral node;
  /// Whether the op may be bf16 under enable-bf16: this XNNPACK has no bf16
  /// type, so the delegate converts bf16 to fp32 at the partition boundary
  /// and computes in fp32; ops whose XNNPACK path cannot do that stay out.
  bool bf16;
  /// Whether the op may be fp16: this XNNPACK's subgraph nodes compute fp32
  /// only, except convert, which converts between fp32 and fp16.
  bool fp16;
  /// Operands (bit i: operand i) that must be constants (packed weights).
  unsigned weights;
  /// Argument predicate, or null.
  Predicate predicate;
  /// For a decomposed op: the native ops the decomposition produces.
  llvm::ArrayRef<llvm::StringLiteral> decomposesInto;
};

/// The XNNPACK backend's rules.
class XnnpackRules : public BackendRules {
public:
  XnnpackRules(mlir::MLIRContext *context, bool enableBf16);

  Backend kind() const override { return Backend::xnnpack; }
  Verdict check(mlir::Operation *op) override;
  const llvm::StringSet<> &nativeOps() const override { return native; }
  Decomposer &decomposer() { return decompositions; }

  /// The whole table, for documentation and tests.
  static llvm::ArrayRef<XnnpackRule> table();
  /// Ops the backend never runs, each with the reason, for documentation.
  static llvm::ArrayRef<std::pair<llvm::StringLiteral, llvm::StringLiteral>>
  unsupportedOps();
  /// Whether the node `op` becomes takes output bounds (its xnn_define_*
  /// call has output_min and output_max), so that an activation after it
  /// can be folded into it.
  static bool takesOutputBounds(mlir::Operation *op);

private:
  /// Rank, element type and predicate checks of `rule` on `op`.
  std::optional<std::string> whyNot(mlir::Operation *op,
                                    const XnnpackRule &rule) const;
  /// Why `op` cannot run natively, unprefixed; nothing when it can.
  std::optional<std::string> whyNotNative(mlir::Operation *op) const;

  bool enableBf16;
  llvm::StringMap<const XnnpackRule *> rules;
  llvm::StringSet<> native;
  Decomposer decompositions;
};

} // namespace duet::partition

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKRULES_H
