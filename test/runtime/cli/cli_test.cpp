//===- cli_test.cpp - the tools' environment, differences and hash -------===//

#include "runtime/cli/Environment.h"
#include "runtime/cli/TensorDifference.h"
#include "runtime/core/Fnv1a.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace duet;
using namespace duet::cli;

namespace {

/// Sets an environment variable for the life of the object.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    setenv(name, value, 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

private:
  const char *name_;
};

rt::TensorView floats(std::vector<float> &values) {
  rt::TensorView view;
  view.dtype = rt::DType::f32;
  view.sizes = {static_cast<int64_t>(values.size())};
  view.data = values.data();
  return view;
}

} // namespace

TEST_CASE("the tools translate the Vulkan variables into load options",
          "[cli][environment]") {
  SECTION("unset, the options keep their defaults") {
    for (const char *name :
         {rt::kVulkanDeviceVariable, rt::kVulkanTestMaxImage3DVariable,
          rt::kVulkanTestMaxBufferRangeVariable,
          rt::kVulkanTestNoFp16ImagesVariable,
          rt::kVulkanTestDeviceStagingVariable,
          rt::kVulkanTestSampledInputsVariable,
          rt::kVulkanTestDepthPartsVariable,
          rt::kVulkanTestUploadPieceBytesVariable})
      unsetenv(name);
    rt::LoadOptions options;
    REQUIRE(readBackendEnvironment(options).isOk());
    CHECK(options.vulkan.device.empty());
    CHECK(options.vulkan.testMaxImageDimension3D == 0);
    CHECK(options.vulkan.testMaxStorageBufferRange == 0);
    CHECK_FALSE(options.vulkan.testNoFp16Images);
    CHECK_FALSE(options.vulkan.testDeviceStaging);
    CHECK_FALSE(options.vulkan.testSampledInputs);
    CHECK_FALSE(options.vulkan.testDepthParts);
    CHECK(options.vulkan.testUploadPieceBytes == 0);
  }
  SECTION("each variable sets its field") {
    ScopedEnv device(rt::kVulkanDeviceVariable, "llvmpipe");
    ScopedEnv image(rt::kVulkanTestMaxImage3DVariable, "1024");
    ScopedEnv buffer(rt::kVulkanTestMaxBufferRangeVariable, "5000000000");
    ScopedEnv fp16(rt::kVulkanTestNoFp16ImagesVariable, "");
    ScopedEnv staging(rt::kVulkanTestDeviceStagingVariable, "1");
    ScopedEnv sampled(rt::kVulkanTestSampledInputsVariable, "1");
    ScopedEnv parts(rt::kVulkanTestDepthPartsVariable, "1");
    ScopedEnv piece(rt::kVulkanTestUploadPieceBytesVariable, "4100");
    rt::LoadOptions options;
    REQUIRE(readBackendEnvironment(options).isOk());
    CHECK(options.vulkan.device == "llvmpipe");
    CHECK(options.vulkan.testMaxImageDimension3D == 1024);
    CHECK(options.vulkan.testMaxStorageBufferRange == 5000000000ull);
    CHECK(options.vulkan.testNoFp16Images);
    CHECK(options.vulkan.testDeviceStaging);
    CHECK(options.vulkan.testSampledInputs);
    CHECK(options.vulkan.testDepthParts);
    CHECK(options.vulkan.testUploadPieceBytes == 4100);
  }
  SECTION("a test hook that is not a positive whole number is an error, not "
          "ignored") {
    for (const char *bad : {"lots", "0", "-5", "12x", "5000000000"}) {
      ScopedEnv image(rt::kVulkanTestMaxImage3DVariable, bad);
      rt::LoadOptions options;
      rt::Status status = readBackendEnvironment(options);
      INFO(bad);
      REQUIRE_FALSE(status.isOk());
      CHECK(status.message().find(
                "DUET_VULKAN_TEST_MAX_IMAGE_3D=" + std::string(bad) +
                " must be a positive whole number") != std::string::npos);
    }
  }
}

// |[1, 2, 3] - [1, 2.5, 1]| is [0, 0.5, 2]; max |b| is 2.5.
TEST_CASE("differences of tensors", "[cli][difference]") {
  std::vector<float> a = {1, 2, 3}, b = {1, 2.5f, 1};
  Difference d = difference(floats(a), floats(b));
  CHECK(d.maxAbs == 2);
  CHECK(d.maxOfSecond == 2.5);
  CHECK_FALSE(d.nan);
  CHECK(d.worst() == 2);

  SECTION("equal infinities and NaN against NaN do not differ") {
    float inf = std::numeric_limits<float>::infinity();
    float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> x = {inf, nan, -inf}, y = {inf, nan, -inf};
    Difference same = difference(floats(x), floats(y));
    CHECK(same.maxAbs == 0);
    CHECK_FALSE(same.nan);
  }
  SECTION("a NaN against a number is the worst difference") {
    std::vector<float> x = {std::numeric_limits<float>::quiet_NaN()}, y = {1};
    Difference apart = difference(floats(x), floats(y));
    CHECK(apart.nan);
    CHECK(std::isinf(apart.worst()));
  }
}

// The per-element rule bounds each element by its own reference value: the
// 0.01 next to a 100 is outside, though the whole-output bound
// (1e-4 * 100 + 1e-5) would have let it pass.
TEST_CASE("closeness is per element", "[cli][difference]") {
  std::vector<float> ref = {100, 0.01f, -3}, got = {100.005f, 0.0109f, -3};
  Closeness c = closeness(floats(got), floats(ref), 1e-4, 1e-5);
  CHECK(c.elements == 3);
  CHECK(c.outside == 1);
  CHECK(c.worst == 1);
  CHECK_FALSE(c.ok());
  CHECK(describeCloseness(c, {3}).find("1 of 3 outside, the worst at [1]") == 0);
  // Loosened to 1e-3 absolute, the same values are within.
  CHECK(closeness(floats(got), floats(ref), 1e-4, 1e-3).ok());
  CHECK(describeCloseness(closeness(floats(got), floats(ref), 1e-4, 1e-3), {3}) ==
        "all 3 within");

  SECTION("a NaN or a finite value against an infinity is outside") {
    float inf = std::numeric_limits<float>::infinity();
    float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> x = {nan, 1, inf, nan}, y = {1, inf, inf, nan};
    Closeness apart = closeness(floats(x), floats(y), 1, 1);
    CHECK(apart.outside == 2);
    CHECK(apart.worst == 0);
  }
  SECTION("the worst element's index has one entry per dimension") {
    std::vector<float> x(6, 0), y(6, 0);
    x[4] = 1;
    Closeness c = closeness(floats(x), floats(y), 0, 0.5);
    CHECK(describeCloseness(c, {2, 3}).find("the worst at [1, 1]: 1 for 0") !=
          std::string::npos);
  }
}

// The test vectors of the FNV reference (fnv_test.c: "", "a", "foobar").
TEST_CASE("FNV-1a 64 matches the reference vectors", "[cli][hash]") {
  CHECK(rt::fnv1a("", 0) == 0xcbf29ce484222325ull);
  CHECK(rt::fnv1a("a", 1) == 0xaf63dc4c8601ec8cull);
  CHECK(rt::fnv1a("foobar", 6) == 0x85944171f73967e8ull);
  // Hashing in two pieces is hashing the whole.
  CHECK(rt::fnv1a("bar", 3, rt::fnv1a("foo", 3)) == rt::fnv1a("foobar", 6));
}
