// Vulkan calls failing on purpose (LoadOptions::faults.calls): each failure
// is one error naming the call, its result and what to do, of kind
// ErrorCode::failure (the tools' exit 1), and leaves the process able to load
// the same program again and run it to eager PyTorch's output.

#include "VulkanTestSupport.h"

#include "runtime/backends/CallFaults.h"
#include "runtime/backends/vulkan/VulkanApi.h"

#include <catch2/catch.hpp>

#include <string>

using namespace duet;
using namespace duet::test;
using runtime::BackendCall;

namespace {

constexpr const char *kFixture = "conv_bn_relu";

std::vector<uint8_t> compiled() {
  static const std::vector<uint8_t> program =
      compileFixture(std::string(kFixture) + ".training.pt2", {"vulkan"});
  return program;
}

rt::Status loadFailing(BackendCall call, uint32_t occurrence,
                       std::unique_ptr<rt::Runtime> &runtime) {
  rt::LoadOptions options;
  options.faults.calls = {{call, occurrence}};
  return load(compiled(), options, runtime);
}

rt::Status runOnFixture(rt::Runtime &runtime) {
  std::string notice;
  rt::Status status = runtime.setInputFromNpy(
      0, modelPath(std::string(kFixture) + ".input0.npy"), notice);
  REQUIRE(status.isOk());
  return runtime.run();
}

/// Checks that `status` failed with every part of `expected`, as a device
/// failure.
void expectFailure(const rt::Status &status,
                   const std::vector<std::string> &expected) {
  REQUIRE_FALSE(status.isOk());
  INFO(status.message());
  for (const std::string &part : expected)
    CHECK(status.message().find(part) != std::string::npos);
  CHECK(status.codeOr(ErrorCode::badInput) == ErrorCode::failure);
}

/// A load without faults, in the same process, runs and matches.
void expectCleanLoadRuns() {
  std::unique_ptr<rt::Runtime> runtime;
  rt::Status status = load(compiled(), false, runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  expectFixtureOutput(*runtime, kFixture);
}

} // namespace

TEST_CASE("a Vulkan allocation failing at load is reported, and the next "
          "load works",
          "[vulkan][faults]") {
  // The first arena (the tensors and weights), then the second.
  for (uint32_t occurrence : {1u, 2u}) {
    std::unique_ptr<rt::Runtime> runtime;
    expectFailure(
        loadFailing(BackendCall::vulkanAllocate, occurrence, runtime),
        {"initializing delegate 0 on vulkan: vulkan: vkAllocateMemory of ",
         "failed: VK_ERROR_OUT_OF_DEVICE_MEMORY (injected on purpose: "
         "vulkan.allocate:" +
             std::to_string(occurrence) + ")",
         "; the device is out of memory: close other programs using it",
         "DUET_VULKAN_DEVICE"});
    CHECK_FALSE(runtime);
  }
  expectCleanLoadRuns();
}

TEST_CASE("a Vulkan pipeline creation failing at load is reported, and the "
          "next load works",
          "[vulkan][faults]") {
  std::unique_ptr<rt::Runtime> runtime;
  expectFailure(loadFailing(BackendCall::vulkanPipeline, 1, runtime),
                {"initializing delegate 0 on vulkan: vulkan: "
                 "vkCreateComputePipelines for the ",
                 "failed: VK_ERROR_OUT_OF_HOST_MEMORY (injected on purpose: "
                 "vulkan.pipeline:1); the driver ran out of host memory"});
  expectCleanLoadRuns();
}

TEST_CASE("a Vulkan submission failing in a run fails that run only",
          "[vulkan][faults]") {
  // The second run's submission: the first run succeeds, the second fails,
  // the third runs again on the same program.
  std::unique_ptr<rt::Runtime> runtime;
  rt::Status status = loadFailing(BackendCall::vulkanSubmit, 2, runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(runOnFixture(*runtime).isOk());
  expectFailure(runOnFixture(*runtime),
                {"delegate 0 on vulkan: vulkan: vkQueueSubmit of the "
                 "delegate's commands (delegate 0, device '",
                 "failed: VK_ERROR_OUT_OF_HOST_MEMORY (injected on purpose: "
                 "vulkan.submit:2)"});
  expectFixtureOutput(*runtime, kFixture);
  expectCleanLoadRuns();
}

TEST_CASE("a Vulkan device lost in a run fails every program on it, and the "
          "next load opens the device anew",
          "[vulkan][faults]") {
  // `before` shares the device with the program that loses it.
  std::unique_ptr<rt::Runtime> before;
  REQUIRE(load(compiled(), false, before).isOk());
  std::unique_ptr<rt::Runtime> runtime;
  rt::Status status = loadFailing(BackendCall::vulkanDeviceLost, 1, runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  expectFailure(runOnFixture(*runtime),
                {"vkWaitForFences of the delegate's commands (delegate 0, "
                 "device '",
                 "failed: VK_ERROR_DEVICE_LOST (injected on purpose: "
                 "vulkan.device-lost:1); the device was lost",
                 "load the program again, which opens the device anew"});
  // Nothing more is submitted to the lost device, by either program.
  for (rt::Runtime *lost : {runtime.get(), before.get()})
    expectFailure(runOnFixture(*lost),
                  {"cannot submit the delegate's commands: device '",
                   "' was lost before (VK_ERROR_DEVICE_LOST)"});
  runtime.reset();
  before.reset();
  expectCleanLoadRuns();
}

// Every Vulkan object duet creates for a program (buffers, images, memory,
// pipelines, layouts, pools, fences) is destroyed with it, after a clean run
// and after each failure at load or run alike: liveVulkanObjects() returns
// to what the open device alone holds. LeakSanitizer cannot check this, as
// the driver's frames end its stacks (scripts/lsan.supp).
TEST_CASE("no Vulkan object outlives its program, whatever failed",
          "[vulkan][faults][leaks]") {
  // The device is opened by the first load and kept for the process.
  expectCleanLoadRuns();
  const int64_t deviceOnly = rt::vulkan::liveVulkanObjects();
  {
    std::unique_ptr<rt::Runtime> runtime;
    REQUIRE(load(compiled(), false, runtime).isOk());
    CHECK(rt::vulkan::liveVulkanObjects() > deviceOnly);
  }
  CHECK(rt::vulkan::liveVulkanObjects() == deviceOnly);
  expectCleanLoadRuns();
  CHECK(rt::vulkan::liveVulkanObjects() == deviceOnly);
  for (auto [call, occurrence] :
       {std::pair{BackendCall::vulkanAllocate, 1u},
        std::pair{BackendCall::vulkanAllocate, 2u},
        std::pair{BackendCall::vulkanPipeline, 1u},
        std::pair{BackendCall::vulkanPipeline, 3u},
        std::pair{BackendCall::vulkanSubmit, 1u}}) {
    INFO("fault " << static_cast<int>(call) << ":" << occurrence);
    {
      std::unique_ptr<rt::Runtime> runtime;
      rt::Status status = loadFailing(call, occurrence, runtime);
      if (status.isOk())
        CHECK_FALSE(runOnFixture(*runtime).isOk());
    }
    CHECK(rt::vulkan::liveVulkanObjects() == deviceOnly);
  }
}
