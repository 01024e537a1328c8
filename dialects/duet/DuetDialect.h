//===- DuetDialect.h - the duet dialect -------------------------*- C++ -*-===//

#ifndef DUET_DIALECTS_DUET_DUETDIALECT_H
#define DUET_DIALECTS_DUET_DUETDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/duet/DuetDialect.h.inc"
#include "dialects/duet/DuetEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/duet/DuetAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/duet/DuetOps.h.inc"

namespace duet {

/// The extents `[x, y, z]` in texels of a tensor of `shape` stored as a 3-D
/// image packed along `packing` (width, height or channels; not contiguous).
/// For sizes `(..., N, C, H, W)`, missing dims being 1 and N counting only
/// for rank 4, four elements share a texel along the packed dim:
/// width-packed `(ceil(W/4), H, C*N)`, height-packed `(W, ceil(H/4), C*N)`,
/// channels-packed `(W, H, ceil(C/4)*N)`. Only defined for rank <= 4.
llvm::SmallVector<int64_t, 3> textureExtents(llvm::ArrayRef<int64_t> shape,
                                             PackedDim packing);

} // namespace duet

#endif // DUET_DIALECTS_DUET_DUETDIALECT_H
