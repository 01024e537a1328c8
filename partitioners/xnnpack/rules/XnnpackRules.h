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

#include "partitioners/common/RuleTable.h"

namespace duet::partition {

/// XNN_MAX_TENSOR_DIMS of the XNNPACK duet links.
constexpr int64_t kXnnpackMaxRank = 6;

/// One entry of the XNNPACK rule table. Its weights are packed by the
/// nodes that read them.
struct XnnpackRule : RuleFacts {
  /// The `xnn_define_*` node(s) a native op becomes.
  llvm::StringLiteral node;
  /// Whether the op may be bf16 under enable-bf16: this XNNPACK has no bf16
  /// type, so the delegate converts bf16 to fp32 at the partition boundary
  /// and computes in fp32; ops whose XNNPACK path cannot do that stay out.
  bool bf16;
  /// Whether the op may be fp16: this XNNPACK's subgraph nodes compute fp32
  /// only, except convert, which converts between fp32 and fp16.
  bool fp16;
};

/// The XNNPACK backend's rules.
class XnnpackRules : public RuleTable<XnnpackRule> {
public:
  XnnpackRules(mlir::MLIRContext *context, bool enableBf16);

  DelegateKind kind() const override { return DelegateKind::xnnpack; }

  /// The whole table, for documentation and tests.
  static llvm::ArrayRef<XnnpackRule> table();
  /// Ops the backend never runs, each with the reason, for documentation.
  static llvm::ArrayRef<UnsupportedOp> unsupportedOps();
  /// Whether the node `op` becomes takes output bounds (its xnn_define_*
  /// call has output_min and output_max), so that an activation after it
  /// can be folded into it.
  static bool takesOutputBounds(mlir::Operation *op);

private:
  /// Empty tensors, then the element types: fp16 and bf16 as `rule` and
  /// enable-bf16 allow.
  std::optional<std::string>
  checkTensors(mlir::Operation *op, const XnnpackRule &rule) const override;

  bool enableBf16;
};

} // namespace duet::partition

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKRULES_H
