//===- VulkanDelegate.h - a Vulkan partition ready to run -------*- C++ -*-===//
//
// Everything a partition needs on the device, made once at load: one memory
// arena for its tensors (RGBA32F images and storage buffers) and weights, a
// host-visible arena for the parameter blocks and the staging buffers, the
// pipelines (through the device's VkPipelineCache), one descriptor set per
// dispatch, and the command buffer, recorded once with its barriers. A run
// converts the inputs into staging, submits that command buffer, waits, and
// converts the outputs back.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_VULKAN_VULKANDELEGATE_H
#define DUET_RUNTIME_BACKENDS_VULKAN_VULKANDELEGATE_H

#include "runtime/backends/CallFaults.h"
#include "runtime/backends/vulkan/DispatchPlan.h"
#include "runtime/core/Backend.h"

#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace duet::rt::vulkan {

class VulkanDelegate : public PreparedDelegate {
public:
  /// Loads delegate `index` of `program` onto `device`.
  static Status create(std::shared_ptr<Device> device, const Program &program,
                       uint32_t index, ByteSpan blob, const DelegateIo &io,
                       std::unique_ptr<VulkanDelegate> &delegate);
  ~VulkanDelegate() override;

  /// Runs the partition on host tensors in the DelegateCall's order.
  Status execute(const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs);

  const DispatchPlan &plan() const { return plan_; }
  /// Whether its convolutions and products compute in fp16: a --force-fp16
  /// program on a device with shaderFloat16.
  bool computesInFp16() const { return fp16Math_; }

  /// Under LoadOptions::observer: the delegate-internal tensors, staged out
  /// after every run (StagingBuffer::Use::observed), and read from there.
  std::vector<int32_t> observableTensors() const override;
  Status readObserved(int32_t id, const TensorView &out) const override;
  /// Under LoadOptions::profile: each run dispatch of the latest run, timed
  /// by the device's timestamps around it.
  void profileParts(std::vector<ProfilePart> &parts) const override {
    parts = dispatchTimes_;
  }

private:
  /// A buffer or an image bound into one of the arenas.
  struct Resource {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceSize bytes = 0;
    /// Host arenas: where its bytes are mapped.
    uint8_t *mapped = nullptr;
    /// Where it is bound, for telling which dispatches touch the same
    /// bytes (tensors share memory by lifetime).
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize offset = 0, extent = 0;
  };
  /// One allocation holding several resources.
  struct Arena {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void *mapped = nullptr;
  };
  using PipelineKey = std::tuple<ShaderFamily, bool, bool>;
  struct Layouts {
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout set = VK_NULL_HANDLE;
    VkPipelineLayout pipeline = VK_NULL_HANDLE;
  };

  VulkanDelegate(std::shared_ptr<Device> device, const Program &program,
                 uint32_t index)
      : device_(std::move(device)), program_(program), index_(index),
        faults_(program.options().faults) {}

  /// `io`: the host tensors every run is given (Backend::init).
  Status load(ByteSpan blob, const DelegateIo &io);
  /// The bytes of staging buffer `i`: its tensor's elements in fp32.
  VkDeviceSize stagingBytes(size_t i) const;
  Status createBuffer(VkDeviceSize bytes, VkBufferUsageFlags usage,
                      Resource &resource);
  Status createImage(const PlannedTensor &tensor, Resource &resource);
  /// The format of every image: RGBA16F under --force-fp16, else RGBA32F.
  /// See computesInFp16().
  bool fp16Math_ = false;
  VkFormat textureFormat() const {
    return plan_.fp16Images ? VK_FORMAT_R16G16B16A16_SFLOAT
                            : VK_FORMAT_R32G32B32A32_SFLOAT;
  }
  /// What the resources of a bindArena take: `shared` in the arena, `apart`
  /// each in memory of its own.
  struct ArenaBytes {
    VkDeviceSize shared = 0, apart = 0;
  };
  /// Allocates an arena for `resources` (with `required` memory properties,
  /// preferring `preferred`; one per memory type) and binds them into it.
  /// With `lifetimes` (per resource, the first and last run dispatch that
  /// uses it) two share bytes where their lifetimes do not overlap, and an
  /// image that shares bytes gets a transition from UNDEFINED before its
  /// first dispatch (freshImages_); without, none share.
  Status bindArena(const std::vector<Resource *> &resources,
                   VkMemoryPropertyFlags required,
                   VkMemoryPropertyFlags preferred, const char *what,
                   const std::vector<std::pair<size_t, size_t>> &lifetimes = {},
                   ArenaBytes *bytes = nullptr);
  /// Makes the staging buffers of the inputs and outputs that `io` holds in
  /// fp32 inside its extent buffers on that memory itself, imported
  /// (VK_EXT_external_memory_host), so that the device reads and writes them
  /// in place and a run copies nothing on the host; the others keep the
  /// staging buffers load() makes. Not an error where the device cannot.
  Status importHostIo(const DelegateIo &io);
  Status createPipelines();
  Status createDescriptorSets();
  Status uploadAndPrepare(LoadPhaseClock &clock);
  Status recordRun();
  /// Under LoadOptions::profile, on a queue that writes timestamps: the
  /// query pool recordRun writes one timestamp into before the dispatches
  /// and one after each, and the parts they time.
  Status prepareProfile();
  /// Reads the latest run's timestamps into dispatchTimes_.
  Status readTimestamps();
  /// Submits `commands` and waits for them. A device lost then, or before,
  /// is marked so (Device::markLost) and fails every later submission.
  Status submit(VkCommandBuffer commands, const char *what);
  /// Makes the Vulkan call `make` unless LoadOptions::faults.calls fails
  /// this one of `call`: then `injected` is its result, and `note` says so.
  template <typename Make>
  VkResult faultable(runtime::BackendCall call, VkResult injected,
                     std::string &note, Make &&make) {
    if (!faults_.fails(call))
      return make();
    note = faults_.injected(call);
    return injected;
  }
  Resource &resourceOf(Ref ref);
  /// Records `dispatches` with the barriers between them they need;
  /// returns how many dispatches wait for the ones before them.
  size_t recordDispatches(VkCommandBuffer commands,
                          const std::vector<Dispatch> &dispatches,
                          size_t firstSet);

  std::shared_ptr<Device> device_;
  const Program &program_;
  uint32_t index_;
  /// Its calls, counted against LoadOptions::faults.calls.
  CallFaults faults_;
  DispatchPlan plan_;

  std::vector<Resource> tensors_, weights_, staging_;
  /// Per staging buffer of an input or output, on a discrete GPU: a device
  /// buffer the dispatches read or write instead, copied from or to the
  /// host one by the transfer engine at the start or end of a run (a
  /// shader's reads and writes across the bus are far slower); empty
  /// otherwise (no buffer).
  std::vector<Resource> stagingOnDevice_;
  /// Per staging buffer: whether it is the model's own memory, imported
  /// (importHostIo), and that memory.
  std::vector<bool> inPlace_;
  std::vector<VkDeviceMemory> imported_;
  Resource dummy_, params_;
  /// Whether image inputs are sampled images (the -DSAMPLED_INPUTS builds):
  /// on every device but a CPU one (lavapipe), or by the test hook.
  bool sampledInputs_ = false;
  VkSampler sampler_ = VK_NULL_HANDLE;
  VkDeviceSize paramsStride_ = 0;
  std::vector<Arena> arenas_;
  /// Per run dispatch: the images first used by it whose bytes another
  /// tensor of the run uses too (before or after), moved from UNDEFINED to
  /// GENERAL in every run before it writes them.
  std::vector<std::vector<VkImage>> freshImages_;
  /// arenas_ from this one on hold what only the load needs.
  size_t loadArenas_ = 0;
  std::map<PipelineKey, Layouts> layouts_;
  std::map<std::pair<PipelineKey, std::array<int32_t, 7>>, VkPipeline>
      pipelines_;
  /// Per dispatch (load dispatches first): its pipeline and layout.
  std::vector<std::pair<VkPipeline, VkPipelineLayout>> bound_;
  VkDescriptorPool descriptorPool_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets_;
  VkCommandPool commandPool_ = VK_NULL_HANDLE;
  VkCommandBuffer runCommands_ = VK_NULL_HANDLE;
  /// Of the run's dispatches, those that wait for the ones before them.
  size_t runWaits_ = 0;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool timestamps_ = VK_NULL_HANDLE;
  std::vector<ProfilePart> dispatchTimes_;
};

} // namespace duet::rt::vulkan

#endif // DUET_RUNTIME_BACKENDS_VULKAN_VULKANDELEGATE_H
