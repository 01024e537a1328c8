//===- DelegateEmitters.cpp - the delegate emitters of this build --------===//
//
// One entry per backend whose blobs this build can write. A backend is added
// here when its runtime delegate exists; the pipeline offers exactly these.
//
//===----------------------------------------------------------------------===//

#include "compiler/emit/DelegateEmitter.h"
#include "compiler/emit/VulkanEmitter.h"
#include "compiler/emit/XnnpackEmitter.h"

namespace duet {

DelegateEmitter *findDelegateEmitter(Backend backend) {
  if (backend == Backend::vulkan)
    return &vulkanEmitter();
  if (backend == Backend::xnnpack)
    return &xnnpackEmitter();
  return nullptr;
}

} // namespace duet
