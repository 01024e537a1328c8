//===- XnnDialect.h - XNNPACK layouts and subgraphs -------------*- C++ -*-===//
//
// The `xnn` dialect (XnnDialect.td) and the queries its writer
// (duet-xnnpack-layout) and its reader (the XNNPACK emitter) share.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNDIALECT_H
#define DUET_PARTITIONERS_XNNPACK_XNNDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "partitioners/xnnpack/XnnDialect.h.inc"
#include "partitioners/xnnpack/XnnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "partitioners/xnnpack/XnnAttrs.h.inc"

#define GET_OP_CLASSES
#include "partitioners/xnnpack/XnnOps.h.inc"

namespace duet::xnn {

/// `shape` with leading 1s up to rank 4, as broadcasting aligns it.
llvm::SmallVector<int64_t> expandTo4(llvm::ArrayRef<int64_t> shape);

/// Whether NCHW and NHWC put the elements of a 4-D `shape` in the same
/// order ([N,C,1,1], [N,1,H,W]), so that a change of layout is a reshape.
bool sameOrder(llvm::ArrayRef<int64_t> shape);

/// The layout `value` has in an XNNPACK partition: a partition input or a
/// constant is plain, a layout change's result has its `to`, an op's result
/// its `xnn.layout`; nothing for a result without one.
std::optional<Layout> layoutOf(mlir::Value value);

/// The `xnn.subgraph` of `op`, if it has one.
std::optional<int64_t> subgraphOf(mlir::Operation *op);

} // namespace duet::xnn

#endif // DUET_PARTITIONERS_XNNPACK_XNNDIALECT_H
