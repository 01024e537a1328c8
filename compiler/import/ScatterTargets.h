//===- ScatterTargets.h - writes at an index, as aten.scatter ---*- C++ -*-===//
//
// The targets that write elements of one tensor into another at an index:
// scatter (src, value, reduce), scatter_add, scatter_reduce, index_copy,
// index_add and index_put, each one aten.scatter (ScatterTargets.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_SCATTERTARGETS_H
#define DUET_COMPILER_IMPORT_SCATTERTARGETS_H

#include "compiler/import/NodeContext.h"

namespace duet::import {

/// scatter.src and scatter.value, and scatter.reduce / scatter.value_reduce
/// ("add", "multiply").
void buildScatter(NodeContext &ctx);
/// scatter_add: a sum scatter.
void buildScatterAdd(NodeContext &ctx);
/// scatter_reduce.two: sum, prod, mean, amax or amin, include_self or not.
void buildScatterReduce(NodeContext &ctx);
/// index_copy and index_add (alpha · source): rows along dim at a 1-D index.
void buildIndexCopy(NodeContext &ctx);
void buildIndexAdd(NodeContext &ctx);
/// index_reduce (prod, mean, amax, amin; include_self or not): rows of
/// `source` combined into `self` at `index` along `dim`.
void buildIndexReduce(NodeContext &ctx);
/// put: `source` written (or added) at flat positions of `self`.
void buildPut(NodeContext &ctx);
/// index_put: integer index tensors on consecutive dims (accumulated or
/// not), or one boolean mask with a single value (a masked fill).
void buildIndexPut(NodeContext &ctx);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_SCATTERTARGETS_H
