//===- DuetDialect.h - the duet dialect -------------------------*- C++ -*-===//

#ifndef DUET_DIALECTS_DUET_DUETDIALECT_H
#define DUET_DIALECTS_DUET_DUETDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/duet/DuetDialect.h.inc"
#include "dialects/duet/DuetEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/duet/DuetAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/duet/DuetOps.h.inc"

#endif // DUET_DIALECTS_DUET_DUETDIALECT_H
