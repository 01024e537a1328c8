//===- Compose.h - small op writers the target builders share --*- C++ -*-===//
//
// The builders that write one ATen target as several aten ops need the same
// few pieces: a view to a shape, a 0-d constant, a broadcasting add or
// multiply, a constant index tensor. They live here once.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_COMPOSE_H
#define DUET_COMPILER_IMPORT_COMPOSE_H

#include "compiler/import/NodeContext.h"
#include "dialects/aten/ShapeRules.h"

#include <utility>

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace duet::import::compose {

inline mlir::RankedTensorType typeOf(mlir::Value v) {
  return NodeContext::typeOf(v);
}

/// `v` viewed as `shape` (itself when it already has it; null when `v` is,
/// after a failure).
mlir::Value view(NodeContext &ctx, mlir::Value v,
                 llvm::ArrayRef<int64_t> shape);

/// `value` converted to the element type of `result` (PyTorch's promotion,
/// which the recorded result type holds).
mlir::Value operandAs(NodeContext &ctx, mlir::Value value,
                      mlir::RankedTensorType result);

/// Argument `name` of an elementwise op, converted to the element type of
/// the op's recorded result, which `type` receives; null after an error.
mlir::Value unaryOperand(NodeContext &ctx, mlir::RankedTensorType &type,
                         llvm::StringRef name = "self");

/// The operands of a binary op, `lhs` and `rhs`: tensors, or Python numbers
/// as 0-d constants, converted to the element type of the op's recorded
/// result (PyTorch's type promotion), which `type` receives; nulls after an
/// error.
std::pair<mlir::Value, mlir::Value>
binaryOperands(NodeContext &ctx, mlir::RankedTensorType &type,
               llvm::StringRef lhs = "self", llvm::StringRef rhs = "other");

/// 0-d constants of `element`.
mlir::Value scalarOf(NodeContext &ctx, mlir::Type element, Scalar value);
mlir::Value integerOf(NodeContext &ctx, mlir::Type element, int64_t v);
mlir::Value realOf(NodeContext &ctx, mlir::Type element, double v);

/// Whether each element of `x` is NaN (`x != x`; never, for an integer).
mlir::Value isNan(NodeContext &ctx, mlir::Value x);

/// `x` in reverse order, its own inverse: `-x` for a float, `~x = -1 - x`
/// for an integer, which, unlike `-x`, does not overflow at the lowest value.
/// The smallest of `x` is then the largest of `reverseOrder(x)`.
mlir::Value reverseOrder(NodeContext &ctx, mlir::Value x);

/// Broadcasting elementwise ops in `a`'s element type.
mlir::Value add(NodeContext &ctx, mlir::Value a, mlir::Value b,
                double alpha = 1.0);
mlir::Value sub(NodeContext &ctx, mlir::Value a, mlir::Value b);
mlir::Value mul(NodeContext &ctx, mlir::Value a, mlir::Value b);
mlir::Value div(NodeContext &ctx, mlir::Value a, mlir::Value b);

/// The largest index tensor a builder writes as a constant: beyond it the
/// shape is not a model's but a corrupt one.
constexpr int64_t kMaxIndexConstant = int64_t(1) << 24;

/// Whether `count` indices fit a constant index; else the node fails naming
/// `what`.
bool checkIndexCount(NodeContext &ctx, int64_t count, llvm::StringRef what);

/// A 1-D int64 constant.
mlir::Value indexConstant(NodeContext &ctx, llvm::ArrayRef<int64_t> values);

/// `index` with each negative entry counted from the end of a dim of `size`,
/// as advanced indexing and put do (index_select itself refuses negatives).
mlir::Value wrapNegative(NodeContext &ctx, mlir::Value index, int64_t size);

/// index_select of `v` along `dim` by a 0-d or 1-D integer `index`; null
/// after a failure, which names the rule's reason.
mlir::Value indexSelect(NodeContext &ctx, mlir::Value v, mlir::Value index,
                        int64_t dim);

/// index_select of `v` along `dim` by constant `indices`.
mlir::Value selectIndices(NodeContext &ctx, mlir::Value v, int64_t dim,
                          llvm::ArrayRef<int64_t> indices);

/// A reduction (mean, sum, amax) of `v` over `dims`.
template <typename OpT>
mlir::Value reduce(NodeContext &ctx, mlir::Value v,
                   llvm::ArrayRef<int64_t> dims, bool keepdim);

/// `value` converted to the element type of `result`, when it has the
/// result's shape, as the input of a shape-keeping op (a normalization) must;
/// else null, and the node fails naming `what`.
mlir::Value sameShapeOperand(NodeContext &ctx, mlir::Value value,
                             mlir::RankedTensorType result,
                             llvm::StringRef what);

/// `a @ b` of integer matrices (`[n, k] @ [k, m]`, or with one batch dim)
/// exactly, in int64 wrapping as PyTorch's integers do, converted to
/// `type`'s element; null after a failure.
mlir::Value integerMatrixProduct(NodeContext &ctx, mlir::Value a, mlir::Value b,
                                 mlir::RankedTensorType type);

/// The batched product `[b, n, k] @ [b, k, m]` (aten.bmm).
mlir::Value bmm(NodeContext &ctx, mlir::Value a, mlir::Value b);

/// `v` permuted so that result dim i is `v`'s dim `dims[i]`.
mlir::Value permute(NodeContext &ctx, mlir::Value v,
                    llvm::ArrayRef<int64_t> dims);

/// `v`'s elements start, start + step, ... below end along `dim`
/// (aten.slice); null after a failure, which names the rule's reason.
mlir::Value slice(NodeContext &ctx, mlir::Value v, int64_t dim, int64_t start,
                  int64_t end, int64_t step = 1);

/// Whether 2-D pooling of a tensor shaped `in` by `window` gives `out` by the
/// pooling ops' shape rule, which checks every size; else the node fails
/// with the rule's words. A builder that writes pooling by other ops checks
/// this first, so its own window arithmetic stays in range.
bool checkPooling(NodeContext &ctx, llvm::ArrayRef<int64_t> in,
                  const duet::aten::PoolWindow &window,
                  llvm::ArrayRef<int64_t> out);

/// `values` concatenated along `dim` (aten.cat).
mlir::Value cat(NodeContext &ctx, mlir::ValueRange values, int64_t dim);

/// `v` padded with `value` (aten.constant_pad_nd): `pad` holds (before,
/// after) pairs from the last dim back.
mlir::Value pad(NodeContext &ctx, mlir::Value v, llvm::ArrayRef<int64_t> pad,
                double value = 0);

/// Outputs past the first are statistics training saves: a node that reads
/// one fails with a reason naming `op`.
void markStatisticsUnavailable(NodeContext &ctx, llvm::StringRef op);

} // namespace duet::import::compose

#endif // DUET_COMPILER_IMPORT_COMPOSE_H
