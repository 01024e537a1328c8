//===- DecomposedTargets.h - ATen targets written as core ops ---*- C++ -*-===//
//
// ATen ops outside the aten dialect that a few of its ops compute exactly, as
// PyTorch's own decomposition table writes them: the builders of
// DecomposedMath.cpp (arithmetic, statistics, normalizations, activations,
// constants), of DecomposedData.cpp (windows, padding, pooling along one
// dim, repeats, einsum) and of ScanTargets.cpp (running reductions). Each
// checks first that the node is a form it covers and names the argument
// otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_DECOMPOSEDTARGETS_H
#define DUET_COMPILER_IMPORT_DECOMPOSEDTARGETS_H

#include "compiler/import/NodeContext.h"

namespace duet::import {

//===--- DecomposedMath.cpp ---------------------------------------------===//

/// Whether the op's result is floating-point: the reductions and
/// transcendental functions compute in float. Otherwise the node fails,
/// naming `what`.
bool requireFloatResult(NodeContext &ctx, mlir::RankedTensorType type,
                        llvm::StringRef what);

/// The vector norm of order `ord` of `x` over `dims` (every dim when empty):
/// 0 counts the nonzero elements, ±inf takes the largest or smallest
/// magnitude, p the p-th root of the sum of |x|^p. `x` is float.
mlir::Value vectorNorm(NodeContext &ctx, mlir::Value x, double ord,
                       llvm::ArrayRef<int64_t> dims, bool keepdim);
/// dist(a, b, p): vectorNorm(a - b, p).
void buildDist(NodeContext &ctx);

/// The maximum (largest) or minimum of `x` over `dims` (every dim when
/// empty), in any element type; integers and booleans exactly, in int64.
mlir::Value extremum(NodeContext &ctx, mlir::Value x,
                     llvm::ArrayRef<int64_t> dims, bool keepdim, bool largest);

/// beta·self + alpha·product (the node's `beta` and `alpha`), `self`
/// broadcast to the result; integers exact. beta = 0 ignores self.
void emitScaledSum(NodeContext &ctx, mlir::RankedTensorType type,
                   mlir::Value self, mlir::Value product, llvm::StringRef what);
/// baddbmm: beta·self + alpha·(batch1 @ batch2); addbmm sums the batch's
/// products; addmv: beta·self + alpha·(mat @ vec).
void buildBaddbmm(NodeContext &ctx);
void buildAddbmm(NodeContext &ctx);
void buildAddmv(NodeContext &ctx);
/// addcmul and addcdiv: self + value·(tensor1 ∘ tensor2).
void buildAddcmul(NodeContext &ctx);
void buildAddcdiv(NodeContext &ctx);
/// var and std: `.dim` (unbiased), `.correction`, `.default`.
void buildVarDim(NodeContext &ctx);
void buildVarCorrection(NodeContext &ctx);
void buildVarAll(NodeContext &ctx);
void buildStdDim(NodeContext &ctx);
void buildStdCorrection(NodeContext &ctx);
void buildStdAll(NodeContext &ctx);
/// Batch norm over the batch's own statistics (training=True without
/// running statistics): a normalization, not a statistics update.
void emitBatchStatisticsNorm(NodeContext &ctx, mlir::Value input,
                             mlir::Value weight, mlir::Value bias, double eps);
/// _native_batch_norm_legit.no_stats.
void buildBatchNormNoStats(NodeContext &ctx);
/// instance_norm with use_input_stats: group norm with one group per
/// channel (OpTable.cpp takes the running-statistics form to batch norm).
void buildInstanceNorm(NodeContext &ctx);
/// rms_norm: x / sqrt(mean(x²) + eps) · weight.
void buildRmsNorm(NodeContext &ctx);
/// logsumexp over dims.
void buildLogsumexp(NodeContext &ctx);
/// amin and min.dim (values): -amax(-x).
void buildAmin(NodeContext &ctx);
void buildMinDim(NodeContext &ctx);
/// max.default and min.default: the extreme of every element.
void buildMaxAll(NodeContext &ctx);
void buildMinAll(NodeContext &ctx);
/// Activations written with the elementwise ops.
/// Elementwise ops outside the core set: exp2, erfc, fmax and fmin, hypot,
/// round.decimals.
void buildExp2(NodeContext &ctx);
void buildErfc(NodeContext &ctx);
void buildFmaxFmin(NodeContext &ctx, bool largest);
void buildHypot(NodeContext &ctx);
void buildRoundDecimals(NodeContext &ctx);
/// bitwise_left_shift / bitwise_right_shift (and `<<`, `>>`) of integers.
void buildBitShift(NodeContext &ctx, bool left);
/// ldexp: x · 2^e.
void buildLdexp(NodeContext &ctx);
/// signbit and copysign (a NaN's sign bit reads as positive).
void buildSignbit(NodeContext &ctx);
void buildCopysign(NodeContext &ctx);
/// xlogy.Tensor and logit.
void buildXlogy(NodeContext &ctx);
void buildLogit(NodeContext &ctx);
void buildSoftplus(NodeContext &ctx);
void buildMish(NodeContext &ctx);
void buildLogSigmoid(NodeContext &ctx);
void buildPrelu(NodeContext &ctx);
void buildGlu(NodeContext &ctx);
void buildThreshold(NodeContext &ctx);
void buildSoftshrink(NodeContext &ctx);
void buildSelu(NodeContext &ctx);
void buildCelu(NodeContext &ctx);
/// eye.default and eye.m: a constant.
void buildEye(NodeContext &ctx);
/// fill.Scalar and fill.Tensor: self's shape filled with the value.
void buildFill(NodeContext &ctx);
/// copy: `src` in `self`'s shape and type.
void buildCopy(NodeContext &ctx);

//===--- DecomposedData.cpp ---------------------------------------------===//

/// roll over the given dims, or over the flattened tensor.
void buildRoll(NodeContext &ctx);
/// flip over the given dims.
void buildFlip(NodeContext &ctx);
/// Tensor.unfold(dimension, size, step): windows as a new last dim.
void buildUnfold(NodeContext &ctx);
/// im2col (F.unfold): [N, C·kh·kw, L] patches.
void buildIm2col(NodeContext &ctx);
/// pad.default in every mode, and the reflection, replication and
/// circular pads.
void buildPad(NodeContext &ctx);
void buildReflectionPad(NodeContext &ctx);
void buildReplicationPad(NodeContext &ctx);
void buildCircularPad(NodeContext &ctx);
/// Pooling along the last dim, through the 2-D ops.
void buildAdaptiveAvgPool1d(NodeContext &ctx);
void buildAvgPool1d(NodeContext &ctx);
void buildMaxPool1d(NodeContext &ctx);
/// adaptive_max_pool2d (values): the maxima of each window, rows then
/// columns.
void buildAdaptiveMaxPool2d(NodeContext &ctx);
/// repeat_interleave.self_int.
void buildRepeatInterleave(NodeContext &ctx);
/// tile: repeat with leading ones.
void buildTile(NodeContext &ctx);
/// tril and triu (lower: tril).
void buildTriangle(NodeContext &ctx, bool lower);
/// pixel_shuffle and pixel_unshuffle.
void buildPixelShuffle(NodeContext &ctx, bool shuffle);
/// histc: a histogram of a float tensor over fixed or data bounds.
void buildHistc(NodeContext &ctx);
/// _embedding_bag and _embedding_bag_forward_only: sum, mean or max bags.
void buildEmbeddingBag(NodeContext &ctx);
/// narrow: a slice of `length` from `start`.
void buildNarrow(NodeContext &ctx);
/// slice_scatter and select_scatter: self with a slice replaced by src, one
/// gather from cat(self, src).
void buildSliceScatter(NodeContext &ctx);
/// Sets the node's result to `self` with the positions `start, start + step,
/// ...` along `dim` (as many as `src` holds there) replaced by `src`: one
/// gather from cat(self, src). `start` is non-negative.
void emitSliceScatter(NodeContext &ctx, mlir::Value self, mlir::Value src,
                      int64_t dim, int64_t start, int64_t step);
void buildSelectScatter(NodeContext &ctx);
/// avg_pool3d, max_pool3d_with_indices (values only) and
/// _adaptive_avg_pool3d: a 2-D pooling over each depth's plane, then one
/// over depth, exact for maxima and averages (their windows and divisors
/// are products over the dims).
void buildAvgPool3d(NodeContext &ctx);
void buildMaxPool3d(NodeContext &ctx);
void buildAdaptiveAvgPool3d(NodeContext &ctx);
/// _cdist_forward and _pdist_forward: p-norm distances from the rows'
/// differences (p = 1, 2, inf and any positive p).
void buildCdist(NodeContext &ctx);
void buildPdist(NodeContext &ctx);
/// col2im (F.fold): each column's kernel taps summed into the padded output
/// where im2col reads them, one scatter-add, then the padding cut.
void buildCol2im(NodeContext &ctx);
/// masked_scatter: the mask's k-th true element (row-major) takes source's
/// k-th element, found by a running count of the mask and one gather.
void buildMaskedScatter(NodeContext &ctx);
/// diagonal(offset, dim1, dim2): the two dims flattened last and gathered.
void buildDiagonal(NodeContext &ctx);
/// meshgrid (ij or xy indexing): each operand viewed along its axis of the
/// grid and expanded.
void buildMeshgrid(NodeContext &ctx);
/// einsum of one or two operands, without repeated indices in an operand.
void buildEinsum(NodeContext &ctx);

//===--- ScanTargets.cpp ------------------------------------------------===//

/// cumprod, cummax and cummin (values and indices), logcumsumexp: running
/// reductions along `dim`, as log2(n) shift-and-combine steps.
void buildCumprod(NodeContext &ctx);
void buildCummax(NodeContext &ctx);
void buildCummin(NodeContext &ctx);
void buildLogcumsumexp(NodeContext &ctx);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_DECOMPOSEDTARGETS_H
