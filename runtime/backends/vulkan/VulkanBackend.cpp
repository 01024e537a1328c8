//===- VulkanBackend.cpp - the Vulkan delegate backend --------------------===//

#include "runtime/backends/vulkan/VulkanBackend.h"

#include "runtime/backends/vulkan/VulkanDelegate.h"

namespace duet::rt {
namespace {

class VulkanBackend : public Backend {
public:
  std::string_view name() const override { return "vulkan"; }

  Status init(const Program &program, uint32_t index, ByteSpan blob,
              std::unique_ptr<PreparedDelegate> &prepared) override {
    std::shared_ptr<vulkan::Device> device;
    DUET_RETURN_IF_ERROR(vulkan::Device::shared(device));
    std::unique_ptr<vulkan::VulkanDelegate> delegate;
    DUET_RETURN_IF_ERROR(vulkan::VulkanDelegate::create(
        std::move(device), program, index, blob, delegate));
    prepared = std::move(delegate);
    return Status::ok();
  }

  Status execute(PreparedDelegate &delegate,
                 const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs) override {
    return static_cast<vulkan::VulkanDelegate &>(delegate).execute(inputs,
                                                                   outputs);
  }
};

} // namespace

std::shared_ptr<Backend> makeVulkanBackend() {
  return std::make_shared<VulkanBackend>();
}

} // namespace duet::rt
