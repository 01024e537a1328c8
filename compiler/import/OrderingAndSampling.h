//===- OrderingAndSampling.h - topk, sorts, grid sampling -------*- C++ -*-===//
//
// Builders of the targets that map onto aten.topk, aten.grid_sampler_2d and
// aten.pow_tensor (OrderingAndSampling.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_ORDERINGANDSAMPLING_H
#define DUET_COMPILER_IMPORT_ORDERINGANDSAMPLING_H

#include "compiler/import/NodeContext.h"

namespace duet::import {

/// topk.default: the k extreme values along dim and their indices.
void buildTopk(NodeContext &ctx);
/// sort.default and sort.stable (always stable): values and indices.
void buildSort(NodeContext &ctx);
/// argsort.default and argsort.stable: the indices of a stable sort.
void buildArgsort(NodeContext &ctx);
/// kthvalue: the k-th smallest along dim (NaN largest) and its index.
void buildKthvalue(NodeContext &ctx);
/// median and nanmedian, over every element (.default: the value) or along
/// dim (.dim: value and index): the lower middle of the sorted line; median
/// gives a line's NaN where it has one, nanmedian leaves NaN out.
void buildMedian(NodeContext &ctx, bool ignoreNan);
/// searchsorted (.Tensor, .Scalar; side, sorter) and bucketize (.Tensor,
/// .Scalar): the position of each value in its sorted line, by comparing it
/// with the whole line.
void buildSearchSorted(NodeContext &ctx);
void buildBucketize(NodeContext &ctx);
/// argmax and argmin: the index of the first extreme.
void buildArgmax(NodeContext &ctx);
void buildArgmin(NodeContext &ctx);
/// Output 1 of max.dim (largest) and min.dim: the indices of the extremes.
void buildExtremeIndices(NodeContext &ctx, bool largest);
/// The index along the last dim of `x` of its first maximum (a NaN first),
/// that dim kept with size 1; int64.
mlir::Value argmaxLastDim(NodeContext &ctx, mlir::Value x);
/// grid_sampler and grid_sampler_2d, bilinear or nearest.
void buildGridSampler(NodeContext &ctx);
/// pow.Tensor_Tensor, and pow.Scalar for a base that is not positive.
void buildPowTensor(NodeContext &ctx);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_ORDERINGANDSAMPLING_H
