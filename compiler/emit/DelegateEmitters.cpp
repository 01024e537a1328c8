//===- DelegateEmitters.cpp - the delegate emitters of this build --------===//
//
// One entry per backend whose blobs this build can write. A backend is added
// here when its runtime delegate exists; the pipeline offers exactly these.
//
//===----------------------------------------------------------------------===//

#include "compiler/emit/DelegateEmitter.h"

namespace duet {

DelegateEmitter *findDelegateEmitter(Backend backend) {
  (void)backend;
  return nullptr;
}

} // namespace duet
