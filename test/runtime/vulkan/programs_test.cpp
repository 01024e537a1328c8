// Whole programs on the Vulkan device: the load-time limit checks on a
// detection head whose [1,84,8400] tensors only fit textures of 2100 texels,
// and the repeatability of one loaded program over many runs.

#include "VulkanTestSupport.h"

#include "runtime/backends/vulkan/Shaders.h"
#include "runtime/core/Npy.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace duet;
using namespace duet::test;

namespace {

/// Runs `runtime` on the fixture's stored input and compares with the stored
/// eager PyTorch output (fp32 tolerance of `duet run --expect`).
void expectFixtureOutput(rt::Runtime &runtime, const std::string &name) {
  std::string notice;
  rt::Status status =
      runtime.setInputFromNpy(0, modelPath(name + ".input0.npy"), notice);
  INFO(status.message());
  REQUIRE(status.isOk());
  status = runtime.run();
  INFO(status.message());
  REQUIRE(status.isOk());
  rt::NpyArray expected;
  REQUIRE(rt::readNpy(modelPath(name + ".output0.npy"), expected).isOk());
  std::vector<float> reference(
      reinterpret_cast<const float *>(expected.data.data()),
      reinterpret_cast<const float *>(expected.data.data()) +
          expected.data.size() / sizeof(float));
  std::string why;
  bool close =
      closeEnough(outputFloats(runtime, 0), reference, 1e-4, 1e-5, why);
  INFO(why);
  CHECK(close);
}

} // namespace

TEST_CASE("yolo_head compiled for 2048-texel textures runs, and fails to "
          "load under a lower device limit",
          "[vulkan][limits]") {
  std::vector<uint8_t> program =
      compileFixture("yolo_head.training.pt2", {"vulkan"},
                     std::array<int64_t, 3>{2048, 2048, 2048});

  SECTION("within the device's limits it matches eager PyTorch") {
    std::unique_ptr<rt::Runtime> runtime;
    rt::Status status = load(program, false, runtime);
    INFO(status.message());
    REQUIRE(status.isOk());
    expectFixtureOutput(*runtime, "yolo_head");
  }

  SECTION("a device whose 3-D images stop at 1024 texels refuses it") {
    // Its [1,84,6400] view is width-packed: (1600, 84, 1) texels.
    rt::LoadOptions options;
    options.vulkan.testMaxImageDimension3D = 1024;
    std::unique_ptr<rt::Runtime> runtime;
    rt::Status status = load(program, options, runtime);
    REQUIRE_FALSE(status.isOk());
    const std::string &message = status.message();
    INFO(message);
    CHECK(message.find("[1,84,6400]") != std::string::npos);
    CHECK(message.find("width-packed 3-D image of (1600,84,1) texels") !=
          std::string::npos);
    CHECK(message.find("maxImageDimension3D 1024") != std::string::npos);
    CHECK(message.find("--texture-limits 1024,1024,1024") != std::string::npos);
    CHECK(message.find("--target-profile") != std::string::npos);
  }

  SECTION("a device whose storage buffers are smaller refuses it") {
    // The [1,84,8400] concatenation is a 2822400-byte buffer.
    rt::LoadOptions options;
    options.vulkan.testMaxStorageBufferRange = 2000000;
    std::unique_ptr<rt::Runtime> runtime;
    rt::Status status = load(program, options, runtime);
    REQUIRE_FALSE(status.isOk());
    INFO(status.message());
    CHECK(status.message().find("maxStorageBufferRange 2000000") !=
          std::string::npos);
  }

  SECTION("a lowered limit names the test hook that lowered it") {
    rt::LoadOptions options;
    options.vulkan.testMaxImageDimension3D = 1024;
    std::unique_ptr<rt::Runtime> runtime;
    rt::Status status = load(program, options, runtime);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("by the test hook "
                                "DUET_VULKAN_TEST_MAX_IMAGE_3D") !=
          std::string::npos);
  }
}

TEST_CASE("yolo_head compiled for lavapipe keeps its head in textures",
          "[vulkan][limits]") {
  // With 4096-texel limits the [1,84,8400] tensors are width-packed
  // (2100, 84, 1) images: the concatenation and split run on textures.
  std::vector<uint8_t> program =
      compileFixture("yolo_head.aten.pt2", {"vulkan"},
                     std::array<int64_t, 3>{4096, 4096, 4096});
  std::unique_ptr<rt::Runtime> runtime;
  rt::Status status = load(program, false, runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  bool wideTexture = false;
  for (const rt::TensorInfo &tensor : runtime->program().tensors())
    if (tensor.placement && tensor.placement->backend == "vulkan" &&
        tensor.placement->storage == rt::Storage::texture3d &&
        tensor.placement->extents[0] == 2100)
      wideTexture = true;
  CHECK(wideTexture);
  expectFixtureOutput(*runtime, "yolo_head");
}

TEST_CASE("200 runs of one loaded program give bit-identical outputs",
          "[vulkan][determinism]") {
  for (const char *fixture :
       {"transformer_block.training.pt2", "mobilenet_block.training.pt2"}) {
    SECTION(fixture) {
      std::vector<uint8_t> program = compileFixture(fixture, {"vulkan"});
      std::unique_ptr<rt::Runtime> runtime;
      rt::Status status = load(program, false, runtime);
      INFO(status.message());
      REQUIRE(status.isOk());
      setRandomInputs(*runtime, 3);
      REQUIRE(runtime->run().isOk());
      rt::TensorView first = runtime->output(0);
      std::vector<uint8_t> expected(first.bytes());
      std::memcpy(expected.data(), first.data, expected.size());
      int differing = 0;
      for (int run = 1; run < 200; ++run) {
        // The arena may reuse an input's memory once it is read: inputs
        // are set before every run.
        setRandomInputs(*runtime, 3);
        REQUIRE(runtime->run().isOk());
        rt::TensorView again = runtime->output(0);
        differing +=
            std::memcmp(again.data, expected.data(), expected.size()) != 0;
      }
      CHECK(differing == 0);
    }
  }
}

TEST_CASE("Vulkan tensors record their placement in the program",
          "[vulkan][placement]") {
  std::vector<uint8_t> program =
      compileFixture("conv_bn_relu.training.pt2", {"vulkan"});
  std::unique_ptr<rt::Runtime> runtime;
  REQUIRE(load(program, false, runtime).isOk());
  int textures = 0;
  for (const rt::TensorInfo &tensor : runtime->program().tensors()) {
    if (!tensor.placement)
      continue;
    CHECK(tensor.placement->backend == "vulkan");
    if (tensor.placement->storage == rt::Storage::texture3d) {
      ++textures;
      CHECK(tensor.placement->layout != rt::Layout::contiguous);
      CHECK(tensor.placement->extents[0] > 0);
    }
  }
  CHECK(textures > 0);
}

TEST_CASE("--force-fp16 clamps constants in images to the fp16 range",
          "[vulkan][fp16]") {
  // The constant is read as a tensor, so it is uploaded into an RGBA16F
  // image: 1e6 and 7e4 are beyond fp16 and end as 65504, 0.1 rounds to the
  // nearest fp16. Adding zeros shows what the image holds. (lavapipe's image
  // store saturates as well; the host-side clamp makes this hold on drivers
  // whose conversion gives infinity, which Vulkan allows.)
  std::string mlir = R"(
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %c = arith.constant dense<[[1.0e+06, -1.0e+06, 7.0e+04, 1.0e-01]]> : tensor<1x4xf32>
  %0 = aten.add %x, %c : tensor<1x4xf32>, tensor<1x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
})";
  for (bool fp16 : {false, true}) {
    SECTION(fp16 ? "rgba16f" : "rgba32f") {
      Compiled compiled = compileMlir(mlir, {}, true, fp16);
      std::unique_ptr<rt::Runtime> runtime;
      rt::Status status = load(compiled.program, false, runtime);
      INFO(status.message());
      REQUIRE(status.isOk());
      std::vector<float> zeros(4, 0.0f);
      rt::TensorView input;
      input.dtype = rt::DType::f32;
      input.sizes = {1, 4};
      input.data = zeros.data();
      REQUIRE(runtime->setInput(0, input).isOk());
      REQUIRE(runtime->run().isOk());
      std::vector<float> out = outputFloats(*runtime, 0);
      std::vector<float> expected =
          fp16 ? std::vector<float>{65504.0f, -65504.0f, 65504.0f,
                                    rt::halfToFloat(rt::floatToHalf(0.1f))}
               : std::vector<float>{1.0e6f, -1.0e6f, 7.0e4f, 0.1f};
      CHECK(out == expected);
    }
  }
}

namespace vk = duet::rt::vulkan;

TEST_CASE("the convolution and product kernels have fp16 arithmetic builds",
          "[vulkan][fp16]") {
  // -DFP16_MATH builds, chosen for --force-fp16 programs on a device with
  // shaderFloat16; other families compute in fp32 on fp16 images.
  using vk::ShaderFamily;
  for (ShaderFamily family :
       {ShaderFamily::ConvolutionTexel, ShaderFamily::MatMulLinearTexel,
        ShaderFamily::MatMulTexel, ShaderFamily::MatMulLinearTexelTiled,
        ShaderFamily::MatMulLinearTexelBig, ShaderFamily::MatMulTexelTiled,
        ShaderFamily::MatMulTexelBig}) {
    INFO(vk::shaderName(family));
    CHECK(vk::hasFp16Math(family));
    vk::ShaderCode math = vk::shaderCode(family, false, false, true, true);
    vk::ShaderCode storage = vk::shaderCode(family, false, false, true, false);
    REQUIRE(math.words);
    REQUIRE(storage.words);
    CHECK(math.fp16Math);
    CHECK_FALSE(storage.fp16Math);
    CHECK(math.words != storage.words);
    // fp32 images never compute in fp16.
    CHECK_FALSE(vk::shaderCode(family, false, false, false, true).fp16Math);
  }
  CHECK_FALSE(vk::hasFp16Math(ShaderFamily::Unary));
  vk::ShaderCode unary =
      vk::shaderCode(ShaderFamily::Unary, false, false, true, true);
  REQUIRE(unary.words);
  CHECK_FALSE(unary.fp16Math);
}
