//===- runtime_options.h - choices made when loading ------------*- C++ -*-===//
//
// Part of duet's installed C++ API (include/duet/): the option groups of
// duet::runtime::LoadOptions (runtime.h) that the runtime's internals take as
// they are. Standard library only.
//
// The runtime reads no environment variable. duet's command-line tools
// (`duet`, `duet-run`) fill these fields from the variables named beside
// them (runtime/cli/Environment.cpp), and the runtime's messages name a field
// by its variable, which is how a person running the tools sets it.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_OPTIONS_H
#define DUET_RUNTIME_OPTIONS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace duet::runtime {

/// The device the Vulkan delegate runs on, and test hooks that make that
/// device look more limited than it is (docs/vulkan.md).
struct VulkanOptions {
  /// An index of `duet devices` or a part of a device's name
  /// (case-insensitive); empty: the first discrete GPU, else an integrated,
  /// virtual or CPU device. Tools: DUET_VULKAN_DEVICE.
  std::string device;
  /// Test hook: the maxImageDimension3D a load is checked against, when
  /// smaller than the device's (a limit is never raised); 0 keeps the
  /// device's. Tools: DUET_VULKAN_TEST_MAX_IMAGE_3D.
  uint32_t testMaxImageDimension3D = 0;
  /// Test hook: the same for maxStorageBufferRange. Tools:
  /// DUET_VULKAN_TEST_MAX_STORAGE_BUFFER_RANGE.
  uint64_t testMaxStorageBufferRange = 0;
  /// Test hook: load as on a device without RGBA16F storage images, which
  /// refuses a program compiled with --force-fp16. Tools:
  /// DUET_VULKAN_TEST_NO_FP16_IMAGES (set to any value).
  bool testNoFp16Images = false;
  /// Test hook: load a --force-fp16 program as on a device without
  /// shaderFloat16, whose convolutions and products then compute in fp32 on
  /// the fp16 images (with a notice). Tools: DUET_VULKAN_TEST_NO_FP16_MATH
  /// (set to any value).
  bool testNoFp16Math = false;
  /// Test hook: stage inputs and outputs through device buffers and
  /// transfer copies, as on a discrete GPU, whatever the device. Tools:
  /// DUET_VULKAN_TEST_DEVICE_STAGING (set to any value).
  bool testDeviceStaging = false;
  /// Test hook: read image inputs as sampled images (texelFetch), as on a
  /// GPU, on a CPU device too (lavapipe reads storage images otherwise).
  /// Tools: DUET_VULKAN_TEST_SAMPLED_INPUTS (set to any value).
  bool testSampledInputs = false;
  /// Test hook: run products of few tiles and long sums in depth parts, as
  /// on a GPU, on a CPU device too. Tools: DUET_VULKAN_TEST_DEPTH_PARTS (set
  /// to any value).
  bool testDepthParts = false;
  /// Diagnostic: give every op after a product its own dispatch instead of
  /// computing it in the product's epilogue (docs/vulkan.md), to compare
  /// times or to see whether an epilogue is at fault. Tools:
  /// DUET_VULKAN_NO_EPILOGUES (set to any value).
  bool noEpilogues = false;
  /// Diagnostic: give every view a product reads its own gather dispatch
  /// instead of the product reading the view's source through its map, and
  /// store every softmax instead of the matmul after it computing it from
  /// its input and statistics (docs/vulkan.md, operand views), to compare.
  /// Tools: DUET_VULKAN_NO_OPERAND_VIEWS (set to any value).
  bool noOperandViews = false;
  /// Diagnostic: copy the inputs and outputs between the model's memory
  /// and the delegate's staging buffers on the host, instead of the device
  /// reading and writing them in place where the driver can import host
  /// memory (VK_EXT_external_memory_host; docs/vulkan.md, Loading), to
  /// compare. Tools: DUET_VULKAN_NO_HOST_IMPORT (set to any value).
  bool noHostImport = false;
  /// Test hook: upload weights and constants through at most this many
  /// bytes of the device's upload ring at a time (rounded down to whole
  /// 4-byte words, at least one), as a model larger than the ring does; 0
  /// uses the whole ring (16 MiB). Tools: DUET_VULKAN_TEST_UPLOAD_PIECE_BYTES.
  uint64_t testUploadPieceBytes = 0;
  /// A folder for the pipeline cache: compiled pipelines are saved there
  /// (one file per device and driver, made with the folder when missing)
  /// and read back by later loads, which then skip most of the shader
  /// compilation. Empty: no cache on disk. A cache file that is corrupt or
  /// written by another device or driver, or a folder that cannot be
  /// written, never fails a load: `notice` says what was ignored. Tools:
  /// DUET_VULKAN_PIPELINE_CACHE (a folder, or `off`; unset: the folder `duet`
  /// under $XDG_CACHE_HOME, else under ~/.cache).
  std::string pipelineCacheDir;
  /// Told what the delegate did not do that a caller may want to know, such
  /// as a pipeline cache it ignored or could not save; null: nobody.
  std::function<void(const std::string &)> notice;
};

/// Timing the parts of a run (`duet bench --profile`). Off by default, and
/// off a run reads no clock.
struct ProfileOptions {
  /// Time each instruction of every run, and inside a delegate each step its
  /// backend can time apart (XNNPACK: host copies and subgraph runtimes);
  /// duet::rt::Runtime::profile() gives the latest run's times. The
  /// installed API (runtime.h) does not take this group yet.
  bool enabled = false;
  /// When set, a load calls it with the time of each of its phases, in
  /// order: the program read and checked, then each delegate's (a Vulkan
  /// delegate's device open, plan, memory, pipelines, descriptor sets,
  /// upload; an XNNPACK delegate's whole preparation). `duet bench` prints
  /// them. Nothing is timed apart when it is null.
  std::function<void(const std::string &phase, double ms)> loadPhase;
};

/// How a planted fault makes a node's result wrong (NodeFault).
enum class FaultKind : uint8_t {
  /// Adds NodeFault::value to every element.
  add,
  /// Sets every element to 0.
  zero,
  /// Sets every element to NaN.
  nan,
};

/// One node of the program whose result is made wrong where it is computed:
/// inside its delegate (XNNPACK: a node added after the node's own; Vulkan: a
/// dispatch after the node's, on its tensor) or after its portable kernel,
/// so that every op reading it sees the wrong value (`--inject-fault`).
struct NodeFault {
  /// The .pt2 node name (KernelCall::node, `duet inspect --json`'s "node").
  /// A node the compiler decomposed into several ops is faulted at the last
  /// of them, the op that writes the node's result.
  std::string node;
  FaultKind kind = FaultKind::add;
  /// FaultKind::add: what is added.
  double value = 0;
};

/// A call at a backend's edge that a load makes fail on purpose
/// (BackendCallFault), with the result a failing driver or library gives
/// (docs/reliability.md, "Faults at the backend's edge").
enum class BackendCall : uint8_t {
  /// A Vulkan delegate's memory allocations at load (vkAllocateMemory of its
  /// arenas): VK_ERROR_OUT_OF_DEVICE_MEMORY.
  vulkanAllocate,
  /// A Vulkan delegate's pipeline creations at load
  /// (vkCreateComputePipelines): VK_ERROR_OUT_OF_HOST_MEMORY.
  vulkanPipeline,
  /// A Vulkan delegate's submissions of its run commands, one per run
  /// (vkQueueSubmit): VK_ERROR_OUT_OF_HOST_MEMORY. The run fails; the next
  /// one may succeed.
  vulkanSubmit,
  /// The wait for a Vulkan delegate's run commands, one per run
  /// (vkWaitForFences, after the commands ran): VK_ERROR_DEVICE_LOST. The
  /// device is then treated as lost: every delegate on it fails its runs,
  /// and the next load opens the device anew.
  vulkanDeviceLost,
  /// An XNNPACK delegate's runtime creations at load, one per subgraph
  /// (xnn_create_runtime_v2, after the subgraph is defined):
  /// xnn_status_out_of_memory.
  xnnpackCreate,
  /// An XNNPACK delegate's runtime setups in runs (xnn_setup_runtime, made
  /// in a run whose memory addresses changed: the first):
  /// xnn_status_out_of_memory. The run fails; the next one sets up again.
  xnnpackSetup,
};

/// One call made to fail: the `occurrence`-th call of its kind of each
/// delegate of its backend (counting from 1), counted from the delegate's
/// load. A call made fewer times fails nothing.
struct BackendCallFault {
  BackendCall call = BackendCall::vulkanAllocate;
  uint32_t occurrence = 1;
};

/// Faults planted on purpose, to show that a checking tool catches them
/// (`duet-run replay --inject-nondeterminism`, `duet-run bisect
/// --inject-fault`), or that a failing backend call is reported cleanly
/// (`--fail-call`). All off by default.
struct FaultOptions {
  /// When K > 0, every K-th successful run of a loaded program (the runs
  /// numbered K-1, 2K-1, 3K-1, ... counting from 0) adds 1 to the first
  /// element of each floating-point output it computed, as a run that went
  /// wrong would: N runs give floor(N / K) such runs. Where 1 is below the
  /// element's precision (a large fp16 value) it moves to the next value up;
  /// an infinity or NaN, integer and bool outputs are left as they are.
  uint32_t nondeterminismPeriod = 0;
  /// Nodes whose every run's result is wrong. Loading fails, naming the
  /// node, when no op of the program computes it or when its delegate keeps
  /// no value of its own for it (an op fused into the node after it).
  std::vector<NodeFault> nodes;
  /// Backend calls that fail (BackendCallFault), each reported as the
  /// failing call would be: an error naming the backend, the call, its
  /// result and what to do.
  std::vector<BackendCallFault> calls;
};

} // namespace duet::runtime

#endif // DUET_RUNTIME_OPTIONS_H
