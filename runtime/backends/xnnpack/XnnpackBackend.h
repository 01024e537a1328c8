//===- XnnpackBackend.h - the XNNPACK CPU delegate --------------*- C++ -*-===//
//
// The "xnnpack" backend runs the delegates the compiler's XnnpackEmitter
// wrote (runtime/schema/xnnpack.fbs) on Debian's XNNPACK: one XNNPACK runtime
// per subgraph of a blob, created at load, on a pthreadpool of
// LoadOptions::threads threads that every delegate of a program shares.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_XNNPACK_XNNPACKBACKEND_H
#define DUET_RUNTIME_BACKENDS_XNNPACK_XNNPACKBACKEND_H

#include "runtime/core/Backend.h"

#include <memory>

namespace duet::rt {

/// A new XNNPACK backend, to add to a BackendRegistry.
std::shared_ptr<Backend> makeXnnpackBackend();

} // namespace duet::rt

#endif // DUET_RUNTIME_BACKENDS_XNNPACK_XNNPACKBACKEND_H
