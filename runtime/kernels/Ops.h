//===- Ops.h - the bodies of the portable kernels ---------------*- C++ -*-===//
//
// Internal to the portable kernels. Each body runs one aten op on a
// KernelContext whose operand counts Registry.cpp has checked and whose
// float16/bfloat16 operands it has widened to float32 (for the ops it lists
// as computing in float). Bodies check everything else: dtypes, ranks,
// attribute values, and that every size agrees before touching memory; the
// loader runs them once in checking mode (KernelContext::checking), where
// they return after those checks, so a malformed call is refused at load.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_KERNELS_OPS_H
#define DUET_RUNTIME_KERNELS_OPS_H

#include "runtime/kernels/KernelSupport.h"

namespace duet::rt::portable {

using KernelBody = Status (*)(const KernelContext &ctx);

// One body per aten op, named after its mnemonic in lowerCamelCase
// (adaptive_avg_pool2d: adaptiveAvgPool2d) and defined in the file of its
// family (Unary.cpp, Binary.cpp, DataMovement.cpp, ...). The declarations are
// derived from AtenOps.td, so an op without a body fails to link.
#include "dialects/aten/AtenKernelDecls.inc"

} // namespace duet::rt::portable

#endif // DUET_RUNTIME_KERNELS_OPS_H
