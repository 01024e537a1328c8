//===- AtenDialect.h - the aten dialect -------------------------*- C++ -*-===//

#ifndef DUET_DIALECTS_ATEN_ATENDIALECT_H
#define DUET_DIALECTS_ATEN_ATENDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/aten/ShapeRules.h"

#include "dialects/aten/AtenDialect.h.inc"
#include "dialects/aten/AtenEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/aten/AtenAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/aten/AtenOps.h.inc"

#endif // DUET_DIALECTS_ATEN_ATENDIALECT_H
