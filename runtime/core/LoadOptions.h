//===- LoadOptions.h - how a program is loaded ------------------*- C++ -*-===//
//
// The choices a caller makes when loading a program: reference mode, where
// backends and kernels come from, threads, the Vulkan device and its test
// hooks, planted faults. The runtime reads no environment; duet's tools
// translate their environment variables into these fields
// (runtime/cli/Environment.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_LOADOPTIONS_H
#define DUET_RUNTIME_CORE_LOADOPTIONS_H

#include "duet/runtime_options.h"
#include "runtime/core/Kernel.h"

#include <functional>
#include <string_view>

namespace duet::rt {

class BackendRegistry;

/// Finds the portable kernel of an op; nullptr when there is none.
using KernelLookup = std::function<KernelFn(std::string_view opName)>;

/// Given a tensor a run computed, right after the step that computed it
/// (LoadOptions::observer). The view is valid during the call only.
using TensorObserver = std::function<void(int32_t id, const TensorView &value)>;

struct LoadOptions {
  /// Run each delegate's recorded aten ops on the portable kernels instead of
  /// its backend (`duet run --reference`). Backends need not be registered.
  bool reference = false;
  /// The backends delegates run on; nullptr means defaultBackends(). The
  /// registry must outlive the program.
  const BackendRegistry *backends = nullptr;
  /// Where kernels come from; empty means findKernel (runtime/kernels).
  /// Kernel calls are checked against the portable kernels' declarations
  /// (checkKernelCall) only when this is empty: another lookup's kernels
  /// check their own calls.
  KernelLookup kernels;
  /// Load only to look at the program (`duet inspect`): skip the checks
  /// that ask this runtime for kernels and backends. Such a program cannot
  /// be executed.
  bool inspectOnly = false;
  /// The most work one run may take, in OpWork.h's workBound steps; 0:
  /// kDefaultMaxWork (Limits.h). A program over it is refused at load,
  /// naming the op that takes the most. Tools: --max-work.
  double maxWork = 0;
  /// Threads the CPU work (XNNPACK delegates and the portable kernels,
  /// runtime/core/Parallel.h) may use; 0: one per CPU this process may run
  /// on (usableCpuCount).
  unsigned threads = 0;
  /// Run every node of an XNNPACK partition in XNNPACK, also the qint8
  /// convolutions duet's own kernel computes on a CPU with AVX-512 VNNI
  /// (the same values, faster), to compare times. Tools: DUET_XNNPACK_ONLY
  /// (set to any value).
  bool xnnpackOnly = false;
  /// The Vulkan delegate's device and test hooks (include/duet/
  /// runtime_options.h).
  runtime::VulkanOptions vulkan;
  /// Timing the parts of each run (include/duet/runtime_options.h).
  runtime::ProfileOptions profile;
  /// Faults planted on purpose: the node faults where their nodes are
  /// computed (Faults.h), the nondeterminism in Runtime::run.
  runtime::FaultOptions faults;
  /// When set, every run calls it with each tensor a step computed, right
  /// after that step: the results of kernel calls, the outputs of delegate
  /// calls, and inside a delegate partition each value its backend computes
  /// apart (PreparedDelegate::observableTensors), which backends then keep
  /// where it can be read. For tools that compare a run op by op (`duet-run
  /// bisect`); runs are slower.
  TensorObserver observer;
};

/// The CPUs this process may run on (its sched_getaffinity mask, which
/// taskset, cgroup cpusets and container limits narrow), at least 1: the
/// thread count LoadOptions::threads = 0 stands for. One thread per online
/// CPU would oversubscribe a process pinned to fewer.
unsigned usableCpuCount();

/// The environment variables duet's tools read into LoadOptions::vulkan,
/// spelled once for the reader (runtime/cli/Environment.cpp) and for the
/// messages that name the options.
inline constexpr const char *kVulkanDeviceVariable = "DUET_VULKAN_DEVICE";
inline constexpr const char *kVulkanPipelineCacheVariable =
    "DUET_VULKAN_PIPELINE_CACHE";
inline constexpr const char *kVulkanTestMaxImage3DVariable =
    "DUET_VULKAN_TEST_MAX_IMAGE_3D";
inline constexpr const char *kVulkanTestMaxBufferRangeVariable =
    "DUET_VULKAN_TEST_MAX_STORAGE_BUFFER_RANGE";
inline constexpr const char *kVulkanTestNoFp16ImagesVariable =
    "DUET_VULKAN_TEST_NO_FP16_IMAGES";
inline constexpr const char *kVulkanTestNoFp16MathVariable =
    "DUET_VULKAN_TEST_NO_FP16_MATH";
inline constexpr const char *kVulkanTestDeviceStagingVariable =
    "DUET_VULKAN_TEST_DEVICE_STAGING";
inline constexpr const char *kVulkanTestSampledInputsVariable =
    "DUET_VULKAN_TEST_SAMPLED_INPUTS";
inline constexpr const char *kVulkanTestDepthPartsVariable =
    "DUET_VULKAN_TEST_DEPTH_PARTS";
inline constexpr const char *kXnnpackOnlyVariable = "DUET_XNNPACK_ONLY";
inline constexpr const char *kVulkanNoEpiloguesVariable =
    "DUET_VULKAN_NO_EPILOGUES";
inline constexpr const char *kVulkanNoOperandViewsVariable =
    "DUET_VULKAN_NO_OPERAND_VIEWS";
inline constexpr const char *kVulkanNoHostImportVariable =
    "DUET_VULKAN_NO_HOST_IMPORT";
inline constexpr const char *kVulkanTestUploadPieceBytesVariable =
    "DUET_VULKAN_TEST_UPLOAD_PIECE_BYTES";

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_LOADOPTIONS_H
