//===- ShapeRules.h - the result shapes of the aten ops ---------*- C++ -*-===//
//
// One function per shape rule. An op's verifier, its type inference
// (inferReturnTypes) and every builder that makes it outside verified IR (the
// importer) compute its result shape here and nowhere else; builders on
// verified IR (the passes) use the inferring builders ODS generates from it.
// Sizes come from imported files, so every rule checks its arithmetic and
// reports what is wrong instead of wrapping around.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_DIALECTS_ATEN_SHAPERULES_H
#define DUET_DIALECTS_ATEN_SHAPERULES_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace duet::aten {

using ResultShape = llvm::SmallVector<int64_t, 6>;

/// Where a shape rule reports what is wrong, in the words of the op's
/// verifier ("'aten.mm' op operands [2, 3] and [4, 5] do not multiply"): on
/// the op being verified, at the location of an op whose type is being
/// inferred, or nowhere (inference without a location).
class ShapeReport {
public:
  ShapeReport(mlir::Operation *op) : op(op) {}
  ShapeReport(std::optional<mlir::Location> location, llvm::StringRef opName)
      : location(location), opName(opName) {}

  mlir::InFlightDiagnostic error() const;

private:
  mlir::Operation *op = nullptr;
  std::optional<mlir::Location> location;
  llvm::StringRef opName;
};

/// NumPy broadcasting of two shapes.
mlir::FailureOr<ResultShape> broadcastShape(llvm::ArrayRef<int64_t> a,
                                            llvm::ArrayRef<int64_t> b,
                                            const ShapeReport &report);

/// A reduction of `in` over `dims` (every dim when empty), reduced dims kept
/// as 1 with `keepdim`; each dim in [0, rank) and given once.
mlir::FailureOr<ResultShape> reductionShape(llvm::ArrayRef<int64_t> in,
                                            llvm::ArrayRef<int64_t> dims,
                                            bool keepdim,
                                            const ShapeReport &report);

/// `in` with its dims reordered: result dim i is input dim dims[i].
mlir::FailureOr<ResultShape> permuteShape(llvm::ArrayRef<int64_t> in,
                                          llvm::ArrayRef<int64_t> dims,
                                          const ShapeReport &report);

/// The names a matrix product's errors give its operands: the rank checks'
/// ("self", "other") and the prefixes of the mismatch message ("operands ",
/// "": "operands [2, 3] and [4, 5] do not multiply").
struct ProductNames {
  llvm::StringRef lhs = "self", rhs = "other";
  llvm::StringRef lhsPrefix = "operands ", rhsPrefix = "";
};

/// `[n, k] @ [k, m]`.
mlir::FailureOr<ResultShape> mmShape(llvm::ArrayRef<int64_t> a,
                                     llvm::ArrayRef<int64_t> b,
                                     const ShapeReport &report,
                                     const ProductNames &names = {});
/// `[b, n, k] @ [b, k, m]`.
mlir::FailureOr<ResultShape> bmmShape(llvm::ArrayRef<int64_t> a,
                                      llvm::ArrayRef<int64_t> b,
                                      const ShapeReport &report);
/// `matmul` with NumPy semantics: 1-D operands, broadcast batch dims.
mlir::FailureOr<ResultShape> matmulShape(llvm::ArrayRef<int64_t> a,
                                         llvm::ArrayRef<int64_t> b,
                                         const ShapeReport &report);
/// `linear`: `[..., in]` by a weight `[out, in]`.
mlir::FailureOr<ResultShape> linearShape(llvm::ArrayRef<int64_t> input,
                                         llvm::ArrayRef<int64_t> weight,
                                         const ShapeReport &report);

/// The attributes of `aten.convolution`.
struct ConvolutionAttrs {
  llvm::ArrayRef<int64_t> stride, padding, dilation, outputPadding;
  int64_t groups = 1;
  bool transposed = false;
};

/// `aten.convolution`: input `[N, C, spatial...]` (1 to 3 spatial dims) by
/// weight `[Cout, C/groups, k...]` (`[C, Cout/groups, k...]` transposed).
mlir::FailureOr<ResultShape> convolutionShape(llvm::ArrayRef<int64_t> input,
                                              llvm::ArrayRef<int64_t> weight,
                                              const ConvolutionAttrs &attrs,
                                              const ShapeReport &report);

/// The window of a 2-D pooling op.
struct PoolWindow {
  llvm::ArrayRef<int64_t> kernel, stride, padding, dilation;
  bool ceilMode = false;
};

/// `aten.avg_pool2d` and `aten.max_pool2d` on `[C, H, W]` or `[N, C, H, W]`,
/// as PyTorch sizes them (ceil mode's last window starts inside the input).
mlir::FailureOr<ResultShape> poolShape(llvm::ArrayRef<int64_t> input,
                                       const PoolWindow &window,
                                       const ShapeReport &report);

/// `aten.repeat`: `repeats` has an entry per result dim, at least one per
/// input dim.
mlir::FailureOr<ResultShape> repeatShape(llvm::ArrayRef<int64_t> in,
                                         llvm::ArrayRef<int64_t> repeats,
                                         const ShapeReport &report);
/// `aten.slice` of `in` along `dim` (normalized), start <= end within it.
mlir::FailureOr<ResultShape> sliceShape(llvm::ArrayRef<int64_t> in, int64_t dim,
                                        int64_t start, int64_t end,
                                        int64_t step,
                                        const ShapeReport &report);
/// `aten.select`: `in` without `dim`.
mlir::FailureOr<ResultShape> selectShape(llvm::ArrayRef<int64_t> in,
                                         int64_t dim, int64_t index,
                                         const ShapeReport &report);
/// `aten.constant_pad_nd`: (before, after) pairs from the last dim back.
mlir::FailureOr<ResultShape> padShape(llvm::ArrayRef<int64_t> in,
                                      llvm::ArrayRef<int64_t> pad,
                                      const ShapeReport &report);
/// `aten.cat` of tensors of `shapes` along `dim`.
mlir::FailureOr<ResultShape>
catShape(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes, int64_t dim,
         const ShapeReport &report);

/// `aten.topk`'s values and indices: `in` with `k` along `dim`.
mlir::FailureOr<ResultShape> topkShape(llvm::ArrayRef<int64_t> in, int64_t k,
                                       int64_t dim, const ShapeReport &report);
/// `aten.embedding`: the indices' shape and the row width of a 2-D weight.
mlir::FailureOr<ResultShape> embeddingShape(llvm::ArrayRef<int64_t> weight,
                                            llvm::ArrayRef<int64_t> indices,
                                            const ShapeReport &report);
/// `aten.gather`: the index's shape, within `in` off `dim`.
mlir::FailureOr<ResultShape> gatherShape(llvm::ArrayRef<int64_t> in,
                                         llvm::ArrayRef<int64_t> index,
                                         int64_t dim,
                                         const ShapeReport &report);
/// `aten.index_select`: `in` with dim `dim` the index's length (a 0-d or
/// 1-D index).
mlir::FailureOr<ResultShape> indexSelectShape(llvm::ArrayRef<int64_t> in,
                                              llvm::ArrayRef<int64_t> index,
                                              int64_t dim,
                                              const ShapeReport &report);

/// An optional operand's shape, with the name its errors give it.
struct NamedShape {
  llvm::StringRef name;
  std::optional<llvm::ArrayRef<int64_t>> shape;
};

/// `aten.batch_norm`: `[N, C, ...]`, each present per-channel parameter
/// `[C]`; the input's shape.
mlir::FailureOr<ResultShape>
batchNormShape(llvm::ArrayRef<int64_t> in,
               llvm::ArrayRef<NamedShape> perChannel,
               const ShapeReport &report);
/// `aten.layer_norm`: `normalized` the trailing dims of `in`, the present
/// affine terms shaped as it; the input's shape.
mlir::FailureOr<ResultShape> layerNormShape(llvm::ArrayRef<int64_t> in,
                                            llvm::ArrayRef<int64_t> normalized,
                                            llvm::ArrayRef<NamedShape> affine,
                                            const ShapeReport &report);
/// `aten.split_with_sizes`: one shape per size, `in` with `dim` that size;
/// the sizes, one per result, add up to the dim.
mlir::FailureOr<llvm::SmallVector<ResultShape>>
splitShapes(llvm::ArrayRef<int64_t> in, int64_t dim,
            llvm::ArrayRef<int64_t> sizes, size_t results,
            const ShapeReport &report);
/// `aten.grid_sampler_2d`: `[N, C, H, W]` sampled at `[N, Ho, Wo, 2]`.
mlir::FailureOr<ResultShape> gridSamplerShape(llvm::ArrayRef<int64_t> in,
                                              llvm::ArrayRef<int64_t> grid,
                                              const ShapeReport &report);
/// `aten.scatter`: self's shape; index no larger than src, nor than self off
/// `dim`, all of one rank.
mlir::FailureOr<ResultShape> scatterShape(llvm::ArrayRef<int64_t> self,
                                          llvm::ArrayRef<int64_t> index,
                                          llvm::ArrayRef<int64_t> src,
                                          int64_t dim,
                                          const ShapeReport &report);
/// `aten.scaled_dot_product_attention`: `[..., L, E]`, `[..., S, E]`,
/// `[..., S, Ev]` give `[..., L, Ev]`; a mask broadcasts to the scores
/// `[..., L, S]`, and one entry's `L·S` scores are at most `maxScores`.
mlir::FailureOr<ResultShape>
attentionShape(llvm::ArrayRef<int64_t> q, llvm::ArrayRef<int64_t> k,
               llvm::ArrayRef<int64_t> v,
               std::optional<llvm::ArrayRef<int64_t>> mask, int64_t maxScores,
               const ShapeReport &report);

/// "[2, 3, 4]".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace duet::aten

#endif // DUET_DIALECTS_ATEN_SHAPERULES_H
