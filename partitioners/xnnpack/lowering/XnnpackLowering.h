//===- XnnpackLowering.h - the XNNPACK backend, compiler side ---*- C++ -*-===//
//
// The registration of the XNNPACK delegate with the compiler: its option
// (enable-bf16), its rule table (XnnpackRules.h), the `xnn` dialect and the
// duet-xnnpack-layout pass that lowers its partitions (XnnpackLayout.h), the
// fusion parameters, the blob writer (XnnpackEmitter.h) and the rows of
// docs/ops.md.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNPACKLOWERING_H
#define DUET_PARTITIONERS_XNNPACK_XNNPACKLOWERING_H

#include "partitioners/common/BackendLowering.h"

namespace duet::partition {

/// The XNNPACK backend.
const BackendLowering &xnnpackBackend();

/// Registers duet-xnnpack-layout (XnnpackPasses.cpp).
void registerXnnpackPasses();
/// Adds duet-xnnpack-layout to `pm`.
void addXnnpackLayoutPass(mlir::OpPassManager &pm);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKLOWERING_H
