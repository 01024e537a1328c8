//===- Backends.cpp - the delegate backends of the compiler ---------------===//
//
// The registration list: one entry per backend (partitioners/<backend>/,
// whose folder partitioners/CMakeLists.txt lists too), in the default
// priority order. Nothing else outside a backend's folder names it.
//
//===----------------------------------------------------------------------===//

#include "partitioners/common/DelegateBackend.h"
#include "partitioners/vulkan/VulkanBackend.h"
#include "partitioners/xnnpack/XnnpackBackend.h"

namespace duet::partition {

llvm::ArrayRef<const DelegateBackend *> delegateBackends() {
  static const DelegateBackend *const kBackends[] = {&vulkanBackend(),
                                                     &xnnpackBackend()};
  return kBackends;
}

} // namespace duet::partition
