//===- Backends.cpp - the delegate backends of the compiler ---------------===//
//
// The registration list: one entry per backend (partitioners/<backend>/,
// whose folder partitioners/CMakeLists.txt lists too), in the default
// priority order. Nothing else outside a backend's folder names it.
//
//===----------------------------------------------------------------------===//

#include "partitioners/common/BackendLowering.h"
#include "partitioners/vulkan/lowering/VulkanLowering.h"
#include "partitioners/xnnpack/lowering/XnnpackLowering.h"

namespace duet::partition {

llvm::ArrayRef<const BackendLowering *> backendLowerings() {
  static const BackendLowering *const kBackends[] = {&vulkanBackend(),
                                                     &xnnpackBackend()};
  return kBackends;
}

} // namespace duet::partition
