//===- BuiltinBackends.cpp - the delegate backends of this build ----------===//
//
// Each backend the build has (runtime/backends/<name>, switched by
// DUET_WITH_<NAME> in CMake) is added here, in the default priority order.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Backend.h"

#if DUET_HAVE_VULKAN
#include "runtime/backends/vulkan/VulkanBackend.h"
#endif
#if DUET_HAVE_XNNPACK
#include "runtime/backends/xnnpack/XnnpackBackend.h"
#endif

namespace duet::rt {

void addBuiltinBackends(BackendRegistry &registry) {
  // A fresh registry holds no name yet, so the additions cannot fail.
#if DUET_HAVE_VULKAN
  (void)registry.add(makeVulkanBackend());
#endif
#if DUET_HAVE_XNNPACK
  (void)registry.add(makeXnnpackBackend());
#endif
  (void)registry;
}

} // namespace duet::rt
