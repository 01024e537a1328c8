//===- AtenDialect.cpp - registration of the aten dialect ----------------===//

#include "dialects/aten/AtenDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace duet::aten;

#include "dialects/aten/AtenDialect.cpp.inc"
#include "dialects/aten/AtenEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/aten/AtenAttrs.cpp.inc"

void AtenDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/aten/AtenOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/aten/AtenAttrs.cpp.inc"
      >();
}
