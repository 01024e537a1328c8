// Whole programs on the Vulkan device: the load-time limit checks on a
// detection head whose [1,84,8400] tensors only fit textures of 2100 texels,
// and the repeatability of one loaded program over many runs.

#include "VulkanTestSupport.h"

#include "runtime/backends/vulkan/Shaders.h"
#include "runtime/backends/vulkan/VulkanDevice.h"
#include "runtime/core/Npy.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace duet;
using namespace duet::test;

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

  SECTION("a device whose 3-D images stop at 128 texels refuses it") {
    // Its input is channels-packed: (160, 160, 1) texels. (Its [1,84,6400]
    // view of (1600, 84, 1) texels is inside a chain of movements, which
    // one strided gather computes: the device never holds it.)
    rt::LoadOptions options;
    options.vulkan.testMaxImageDimension3D = 128;
    std::unique_ptr<rt::Runtime> runtime;
    rt::Status status = load(program, options, runtime);
    REQUIRE_FALSE(status.isOk());
    const std::string &message = status.message();
    INFO(message);
    CHECK(message.find("[1,3,160,160]") != std::string::npos);
    CHECK(message.find("channels-packed 3-D image of (160,160,1) texels") !=
          std::string::npos);
    CHECK(message.find("maxImageDimension3D 128") != std::string::npos);
    CHECK(message.find("--texture-limits 128,128,128") != std::string::npos);
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
    options.vulkan.testMaxImageDimension3D = 128;
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

/// Runs `vulkan`, loaded from `compiled`, and the portable kernels on the
/// inputs of `seed`, and compares each of their outputs.
void expectReference(rt::Runtime &vulkan, const Compiled &compiled,
                     uint32_t seed, double rtol, double atol) {
  std::unique_ptr<rt::Runtime> reference;
  REQUIRE(load(compiled.program, true, reference).isOk());
  setRandomInputs(vulkan, seed);
  setRandomInputs(*reference, seed);
  rt::Status status = vulkan.run();
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(reference->run().isOk());
  REQUIRE(vulkan.outputCount() == reference->outputCount());
  for (size_t output = 0; output < vulkan.outputCount(); ++output) {
    std::string why;
    bool close = closeEnough(outputFloats(vulkan, output),
                             outputFloats(*reference, output), rtol, atol, why);
    INFO("output " << output << ": " << why);
    CHECK(close);
  }
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

TEST_CASE("--force-fp16 images hold the nearest fp16 value, ties to even",
          "[vulkan][fp16]") {
  // Each value goes fp32 -> image (the input's staging dispatch) -> neg ->
  // image -> fp32. A driver's own conversion may truncate (lavapipe's does),
  // which this catches at every value that is not an fp16 already: 1 +
  // 7/8 ulp would stay 1. Ties go to the even neighbour; a finite value
  // beyond 65504 after rounding saturates to ±65504 (a finite result stays
  // finite), below half of 2^-24 is a zero; infinities stay infinite.
  const float ulp = std::ldexp(1.0f, -10);
  std::vector<float> values = {1.0f + ulp / 8,     1.0f + ulp / 2,
                               1.0f + 3 * ulp / 8, 1.0f + 5 * ulp / 8,
                               1.0f + 7 * ulp / 8, 1.0f + 3 * ulp / 2,
                               -2.0f - 3 * ulp,    0.1f,
                               1.0e-6f,            3.0e-8f,
                               2.9e-8f,            6.1e-5f,
                               65519.0f,           65520.0f,
                               -1.0e30f,           -INFINITY};
  std::string mlir = R"(
func.func @main(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = aten.neg %x : tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
})";
  Compiled compiled = compileMlir(mlir, {}, true, /*forceFp16=*/true);
  std::unique_ptr<rt::Runtime> runtime;
  rt::Status status = load(compiled.program, false, runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  rt::TensorView input;
  input.dtype = rt::DType::f32;
  input.sizes = {1, 16};
  input.data = values.data();
  REQUIRE(runtime->setInput(0, input).isOk());
  REQUIRE(runtime->run().isOk());
  std::vector<float> out = outputFloats(*runtime, 0);
  REQUIRE(out.size() == values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    INFO("input " << values[i]);
    // floatToHalf rounds to nearest even (the host's F16C or its own code);
    // the image saturates what it would round to an infinity.
    float half = rt::halfToFloat(rt::floatToHalf(values[i]));
    if (std::isfinite(values[i]))
      half = std::clamp(half, -65504.0f, 65504.0f);
    CHECK(out[i] == -half);
  }
  CHECK(out[13] == -65504.0f);
  CHECK(out[14] == 65504.0f);
  CHECK(out[15] == INFINITY);
  // The cases above hold what they say.
  CHECK(rt::halfToFloat(rt::floatToHalf(1.0f + ulp / 2)) == 1.0f);
  CHECK(rt::halfToFloat(rt::floatToHalf(1.0f + 3 * ulp / 2)) == 1.0f + 2 * ulp);
  CHECK(std::isinf(rt::halfToFloat(rt::floatToHalf(65520.0f))));
  CHECK(rt::halfToFloat(rt::floatToHalf(65519.0f)) == 65504.0f);
}

TEST_CASE("the tensors of a run share device memory by lifetime",
          "[vulkan][memory]") {
  // A chain of six element-wise ops on 1 MiB tensors: at most three are
  // alive at once (an op's input and output, and the input read again at
  // the end), so they fit in far less than six apart; and the values are
  // still right where each op overwrites memory an earlier tensor used.
  std::string mlir = R"(
func.func @main(%x: tensor<1x64x64x64xf32>) -> tensor<1x64x64x64xf32> {
  %0 = aten.neg %x : tensor<1x64x64x64xf32>
  %1 = aten.relu %0 : tensor<1x64x64x64xf32>
  %2 = aten.neg %1 : tensor<1x64x64x64xf32>
  %3 = aten.sigmoid %2 : tensor<1x64x64x64xf32>
  %4 = aten.neg %3 : tensor<1x64x64x64xf32>
  %5 = aten.add %4, %x : tensor<1x64x64x64xf32>, tensor<1x64x64x64xf32> -> tensor<1x64x64x64xf32>
  return %5 : tensor<1x64x64x64xf32>
})";
  Compiled compiled = compileMlir(mlir);
  std::vector<std::string> phases;
  rt::LoadOptions options;
  options.profile.loadPhase = [&](const std::string &phase, double) {
    phases.push_back(phase);
  };
  std::unique_ptr<rt::Runtime> vulkan;
  rt::Status status = load(compiled.program, options, vulkan);
  INFO(status.message());
  REQUIRE(status.isOk());
  double shared = -1, apart = -1;
  for (const std::string &phase : phases) {
    size_t at = phase.find("share ");
    if (at != std::string::npos)
      std::sscanf(phase.c_str() + at, "share %lf MiB by lifetime, %lf MiB apart",
                  &shared, &apart);
  }
  INFO("phases: " << phases.size());
  REQUIRE(apart > 0);
  CHECK(apart >= 6.0);
  CHECK(shared <= apart / 2);

  for (uint32_t seed : {11u, 12u})
    expectReference(*vulkan, compiled, seed, 1e-4, 1e-5);
}

TEST_CASE("the device reads its inputs and writes its outputs in the "
          "model's memory",
          "[vulkan][memory]") {
  // Two delegates around a convolution that one-texel limits leave to the
  // portable kernels: the first writes a model output that the convolution
  // also reads, the second reads the convolution's result and a model
  // input. Sizes of 105 and 280 floats put several tensors on one page, so
  // that the pages of one import hold several buffers at their offsets.
  Compiled compiled = compileMlir(expandConstants(R"(
func.func @main(%x: tensor<1x3x5x7xf32>, %y: tensor<1x8x5x7xf32>) -> (tensor<1x3x5x7xf32>, tensor<1x8x5x7xf32>) {
  %w = arith.constant @W(8x3x3x3)
  %0 = aten.neg %x : tensor<1x3x5x7xf32>
  %1 = aten.convolution %0, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x5x7xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x5x7xf32>
  %2 = aten.sigmoid %1 : tensor<1x8x5x7xf32>
  %3 = aten.add %2, %y : tensor<1x8x5x7xf32>, tensor<1x8x5x7xf32> -> tensor<1x8x5x7xf32>
  return %0, %3 : tensor<1x3x5x7xf32>, tensor<1x8x5x7xf32>
})"),
                                  std::array<int64_t, 3>{1, 1, 1});
  // Whether the device imports host memory, and whether it is lavapipe
  // (a CPU device), which imports every one of these tensors; another
  // driver may refuse some (a page two delegates import, say), whose
  // copies then stay on the host.
  std::shared_ptr<rt::vulkan::Device> device;
  REQUIRE(rt::vulkan::Device::shared("", device).isOk());
  const bool imports = device->info().hostImportAlignment != 0;
  const bool lavapipe =
      device->info().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  // Runs the program loaded with `import` and `deviceStaging` on two inputs
  // in turn; the outputs of both runs, after checking that the inputs are
  // as set and how many of each delegate's inputs and outputs it says are
  // read and written in place.
  auto outputs = [&](bool import, bool deviceStaging) {
    INFO("host import " << import << ", device staging " << deviceStaging);
    std::vector<std::string> places;
    rt::LoadOptions options;
    options.vulkan.noHostImport = !import;
    options.vulkan.testDeviceStaging = deviceStaging;
    options.profile.loadPhase = [&](const std::string &phase, double) {
      if (phase.find("read and written in place") != std::string::npos)
        places.push_back(phase);
    };
    std::unique_ptr<rt::Runtime> vulkan;
    rt::Status status = load(compiled.program, options, vulkan);
    INFO(status.message());
    REQUIRE(status.isOk());
    REQUIRE(places.size() == 2);
    for (const std::string &phase : places) {
      INFO(phase);
      int inPlace = -1, all = -1;
      size_t at = phase.find("; ", phase.find("apart"));
      REQUIRE(at != std::string::npos);
      REQUIRE(std::sscanf(phase.c_str() + at, "; %d of %d", &inPlace, &all) ==
              2);
      CHECK(all >= 2);
      if (!import || !imports)
        CHECK(inPlace == 0);
      else if (lavapipe)
        CHECK(inPlace == all);
      else
        CHECK(inPlace > 0);
    }
    std::vector<float> result;
    for (uint32_t seed : {3u, 4u}) {
      setRandomInputs(*vulkan, seed);
      std::vector<std::vector<float>> inputs;
      for (int32_t id : vulkan->program().inputs()) {
        rt::TensorView view = vulkan->tensorView(id);
        inputs.emplace_back(view.as<float>(), view.as<float>() + view.numel());
      }
      status = vulkan->run();
      INFO(status.message());
      REQUIRE(status.isOk());
      for (size_t i = 0; i < inputs.size(); ++i) {
        rt::TensorView view = vulkan->tensorView(vulkan->program().inputs()[i]);
        CHECK(std::memcmp(view.data, inputs[i].data(),
                          inputs[i].size() * sizeof(float)) == 0);
      }
      for (size_t o = 0; o < vulkan->outputCount(); ++o) {
        std::vector<float> values = outputFloats(*vulkan, o);
        result.insert(result.end(), values.begin(), values.end());
      }
      expectReference(*vulkan, compiled, seed, 1e-4, 1e-5);
    }
    return result;
  };
  std::vector<float> copied = outputs(false, false);
  CHECK(outputs(true, false) == copied);
  CHECK(outputs(true, true) == copied);
  CHECK(outputs(false, true) == copied);
}

TEST_CASE("a dispatch waits only for the dispatches whose results it needs",
          "[vulkan][barriers]") {
  // Three ops read only the input: none waits for another, while the adds
  // each wait for what they read, and a chain waits at every step. The
  // values are right in both.
  auto waits = [](const std::string &mlir) {
    Compiled compiled = compileMlir(mlir);
    std::string recorded;
    rt::LoadOptions options;
    options.profile.loadPhase = [&](const std::string &phase, double) {
      if (phase.find("run commands recorded") != std::string::npos)
        recorded = phase;
    };
    std::unique_ptr<rt::Runtime> vulkan;
    rt::Status status = load(compiled.program, options, vulkan);
    INFO(status.message());
    REQUIRE(status.isOk());
    expectReference(*vulkan, compiled, 5, 1e-4, 1e-5);
    size_t dispatches = 0, waiting = 0;
    size_t at = recorded.find('(');
    REQUIRE(at != std::string::npos);
    REQUIRE(std::sscanf(recorded.c_str() + at, "(%zu dispatches, %zu waiting",
                        &dispatches, &waiting) == 2);
    return std::make_pair(dispatches, waiting);
  };
  // staging in, neg, relu, sigmoid, add, add, staging out.
  auto [branchDispatches, branchWaits] = waits(R"(
func.func @main(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %0 = aten.neg %x : tensor<1x8x16x16xf32>
  %1 = aten.relu %x : tensor<1x8x16x16xf32>
  %2 = aten.sigmoid %x : tensor<1x8x16x16xf32>
  %3 = aten.add %0, %1 : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
  %4 = aten.add %3, %2 : tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32>
  return %4 : tensor<1x8x16x16xf32>
})");
  CHECK(branchDispatches == 7);
  // neg waits for the staging; relu and sigmoid do not wait for neg (unless
  // one's output shares bytes with a tensor still read, which the lifetimes
  // rule out); each add and the staging out wait.
  CHECK(branchWaits == 4);
  auto [chainDispatches, chainWaits] = waits(R"(
func.func @main(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %0 = aten.neg %x : tensor<1x8x16x16xf32>
  %1 = aten.relu %0 : tensor<1x8x16x16xf32>
  %2 = aten.sigmoid %1 : tensor<1x8x16x16xf32>
  return %2 : tensor<1x8x16x16xf32>
})");
  CHECK(chainDispatches == 5);
  CHECK(chainWaits == chainDispatches - 1);
}

TEST_CASE("under --force-fp16 products of few tiles of long sums split them",
          "[vulkan][fp16]") {
  // 2040 rows by 250 features are 512 small tiles, 301 deep; the matmul's
  // 16 layers of 17 by 2 tiles are 544, 270 deep (off a multiple of the two
  // groups' 32, so the second group's last slice is past the depth), its
  // 62 columns off 4: on a device with shaderFloat16 (lavapipe has it) both
  // take the split kernel, whose fp16 arithmetic build matches the portable
  // kernels within the fp16 tolerance; computing in fp32 they keep the
  // small tile.
  std::string mlir = expandConstants(R"(
func.func @main(%x: tensor<2040x301xf32>, %a: tensor<16x520x270xf32>, %b: tensor<16x270x62xf32>) -> (tensor<2040x250xf32>, tensor<16x520x62xf32>) {
  %w = arith.constant @W(250x301)
  %0 = aten.linear %x, %w : (tensor<2040x301xf32>, tensor<250x301xf32>) -> tensor<2040x250xf32>
  %1 = aten.matmul %a, %b : (tensor<16x520x270xf32>, tensor<16x270x62xf32>) -> tensor<16x520x62xf32>
  return %0, %1 : tensor<2040x250xf32>, tensor<16x520x62xf32>
})");
  // fp32; fp16; fp16 images computed in fp32 (the test hook for a device
  // without shaderFloat16), where the products do not split either.
  for (int mode = 0; mode < 3; ++mode) {
    SECTION(mode == 0 ? "fp32" : mode == 1 ? "fp16" : "fp16 images, fp32 math") {
      bool fp16 = mode > 0, splits = mode == 1;
      Compiled compiled = compileMlir(mlir, {}, true, fp16);
      rt::LoadOptions options;
      options.profile.enabled = true;
      options.vulkan.testNoFp16Math = mode == 2;
      std::unique_ptr<rt::Runtime> vulkan;
      rt::Status status = load(compiled.program, options, vulkan);
      INFO(status.message());
      REQUIRE(status.isOk());
      expectReference(*vulkan, compiled, 9, fp16 ? 1e-2 : 1e-4,
                      fp16 ? 1e-2 : 1e-5);
      std::string parts;
      for (const rt::ProfileEntry &entry : vulkan->profile())
        for (const rt::ProfilePart &part : entry.parts)
          parts += part.name + "\n";
      INFO(parts);
      CHECK((parts.find("matmul_linear_tiled_split aten.linear") !=
             std::string::npos) == splits);
      CHECK((parts.find("matmul_linear_tiled aten.linear") !=
             std::string::npos) == !splits);
      CHECK((parts.find("matmul_tiled_split aten.matmul") !=
             std::string::npos) == splits);
      CHECK((parts.find("matmul_tiled aten.matmul") != std::string::npos) ==
            !splits);
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
       {ShaderFamily::ConvolutionTexel, ShaderFamily::ConvolutionTiled,
        ShaderFamily::ConvolutionTiledBig, ShaderFamily::MatMulLinearTexel,
        ShaderFamily::MatMulTexel, ShaderFamily::MatMulLinearTexelTiled,
        ShaderFamily::MatMulLinearTexelBig, ShaderFamily::MatMulTexelTiled,
        ShaderFamily::MatMulTexelBig, ShaderFamily::MatMulLinearTexelSplit,
        ShaderFamily::MatMulTexelSplit}) {
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
