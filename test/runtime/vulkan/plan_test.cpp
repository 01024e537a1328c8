// Loading a Vulkan blob without a device: what the dispatch plan makes of a
// good blob, and the errors a damaged one gives instead of out-of-bounds
// reads on the device. Device selection is checked on made-up device lists.

#include "VulkanTestSupport.h"

#include "runtime/backends/vulkan/DispatchPlan.h"
#include "runtime/schema/vulkan_generated.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

using namespace duet;
using namespace duet::test;
namespace vk = duet::rt::vulkan;
namespace sc = duet::vulkan::schema;

namespace {

/// A device with lavapipe's limits, so plans need no Vulkan at all.
vk::PhysicalDeviceInfo fakeDevice() {
  vk::PhysicalDeviceInfo device;
  device.name = "test device";
  device.limits.maxImageDimension3D = 4096;
  device.limits.maxStorageBufferRange = 134217728;
  device.limits.maxComputeWorkGroupCount = {65535, 65535, 65535};
  return device;
}

struct Loaded {
  std::vector<uint8_t> file;
  std::unique_ptr<rt::Program> program;
  std::vector<uint8_t> blob;
};

Loaded loadForPlanning(const std::string &mlir,
                       rt::LoadOptions options = rt::LoadOptions(),
                       bool fp16 = false) {
  Loaded loaded;
  loaded.file = compileMlir(mlir, {}, true, fp16).program;
  options.inspectOnly = true;
  rt::Status status = rt::Program::loadFromBytes(
      loaded.file.data(), loaded.file.size(), "test", options, loaded.program);
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(loaded.program->delegates().size() == 1);
  const rt::ByteSpan &blob = loaded.program->delegates()[0].blob;
  loaded.blob.assign(blob.data, blob.data + blob.size);
  return loaded;
}

rt::Status plan(const Loaded &loaded, const std::vector<uint8_t> &blob,
                vk::DispatchPlan &out, uint32_t maxImage = 4096,
                VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER) {
  vk::PhysicalDeviceInfo device = fakeDevice();
  device.deviceType = type;
  vk::DeviceLimits limits = device.limits;
  limits.maxImageDimension3D = maxImage;
  return vk::buildDispatchPlan(*loaded.program, 0, {blob.data(), blob.size()},
                               device, limits, out);
}

const char *kConvReluMlir = R"(
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = aten.relu %0 : tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
})";

} // namespace

TEST_CASE("a convolution with a relu plans as one fused dispatch",
          "[vulkan][plan]") {
  Loaded loaded = loadForPlanning(kConvReluMlir);
  vk::DispatchPlan out;
  rt::Status status = plan(loaded, loaded.blob, out);
  INFO(status.message());
  REQUIRE(status.isOk());
  // Staging in, the convolution with its clamp, staging out.
  REQUIRE(out.runDispatches.size() == 3);
  CHECK(out.runDispatches[1].family == vk::ShaderFamily::ConvolutionTexel);
  CHECK(out.runDispatches[1].params.farg[0][0] == 0.0f);
  // The texel kernel reads its weight as a texture packed at load, not as a
  // weight buffer.
  CHECK(out.weights.empty());
  REQUIRE(out.tensors.size() == 3);
  CHECK(out.tensors[0].texture);
  CHECK(out.tensors[0].packing == rt::Layout::channelsPacked);
  const vk::PlannedTensor &packed = out.tensors[2];
  CHECK(packed.role == vk::PlannedTensor::Role::constant);
  CHECK(packed.sizes == std::vector<int64_t>{4, 3, 9});
  CHECK(packed.packing == rt::Layout::heightPacked);
  CHECK(packed.extents == std::array<uint32_t, 3>{9, 1, 4});
  CHECK(out.runDispatches[1].inputs[1].kind == vk::Ref::Kind::tensor);
  CHECK(out.runDispatches[1].inputs[1].index == 2);
  REQUIRE(out.loadDispatches.size() == 1);
  CHECK(out.loadDispatches[0].op == "packing a weight");
}

// Named nodes (the importer's name locations): a convolution whose relu is
// folded into it, then a sigmoid.
const char *kNamedMlir = R"(
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> loc("conv")
  %1 = aten.relu %0 : tensor<1x4x8x8xf32> loc("relu")
  %2 = aten.sigmoid %1 : tensor<1x4x8x8xf32> loc("sigmoid")
  return %2 : tensor<1x4x8x8xf32>
})";

// A fault (LoadOptions::faults.nodes) is one dispatch of fault.comp right
// after its op's, on its tensor in place, computing x * a + b: (1, NaN) for
// nan, (0, 0) for zero, (1, VALUE) for add.
TEST_CASE("a planted fault is a dispatch after its op's", "[vulkan][plan]") {
  struct Case {
    duet::runtime::FaultKind kind;
    float a, b;
  };
  for (Case c : {Case{duet::runtime::FaultKind::nan, 1.f, NAN},
                 Case{duet::runtime::FaultKind::zero, 0.f, 0.f},
                 Case{duet::runtime::FaultKind::add, 1.f, 2.5f}}) {
    rt::LoadOptions options;
    options.faults.nodes = {{"relu", c.kind, 2.5}};
    Loaded loaded = loadForPlanning(kNamedMlir, options);
    vk::DispatchPlan out;
    rt::Status status = plan(loaded, loaded.blob, out);
    INFO(status.message());
    REQUIRE(status.isOk());
    // Staging in, the convolution (writing relu's tensor), the fault, the
    // sigmoid, staging out.
    REQUIRE(out.runDispatches.size() == 5);
    CHECK(out.runDispatches[1].family == vk::ShaderFamily::ConvolutionTexel);
    const vk::Dispatch &fault = out.runDispatches[2];
    CHECK(fault.family == vk::ShaderFamily::Fault);
    CHECK(fault.output.index == out.runDispatches[1].output.index);
    CHECK(fault.inputs[0].kind == vk::Ref::Kind::none);
    CHECK(fault.params.farg[0][0] == c.a);
    if (std::isnan(c.b))
      CHECK(std::isnan(fault.params.farg[0][1]));
    else
      CHECK(fault.params.farg[0][1] == c.b);
    CHECK(out.runDispatches[3].family == vk::ShaderFamily::Unary);
  }
}

// The convolution has no tensor of its own: its relu is folded into it. The
// error names the node to plant the fault at instead.
TEST_CASE("a fault at a fused op names the node it is fused into",
          "[vulkan][plan]") {
  rt::LoadOptions options;
  options.faults.nodes = {{"conv", duet::runtime::FaultKind::nan, 0}};
  Loaded loaded = loadForPlanning(kNamedMlir, options);
  vk::DispatchPlan out;
  CHECK(plan(loaded, loaded.blob, out).message() ==
        "fault 'nan' at node 'conv' (aten.convolution): the vulkan delegate 0 "
        "computes no tensor of its own for it (its op is fused into a later "
        "op's dispatch, as an activation folded into a convolution is); plant "
        "the fault at node 'relu' (aten.relu), which computes the fused "
        "result");
}

// With an observer, each delegate-internal tensor (relu's, between the
// convolution and the sigmoid) is staged out after the ops, before the
// outputs.
TEST_CASE("an observer stages the internal tensors out", "[vulkan][plan]") {
  rt::LoadOptions options;
  options.observer = [](int32_t, const rt::TensorView &) {};
  Loaded loaded = loadForPlanning(kNamedMlir, options);
  vk::DispatchPlan out;
  REQUIRE(plan(loaded, loaded.blob, out).isOk());
  REQUIRE(out.runDispatches.size() == 5);
  CHECK(out.runDispatches[3].op == "staging a tensor out for an observer");
  CHECK(out.runDispatches[3].output.kind == vk::Ref::Kind::staging);
  // The input, the convolution's packed weight, the observed tensor, the
  // output.
  REQUIRE(out.staging.size() == 4);
  CHECK(out.staging[1].use == vk::StagingBuffer::Use::constant);
  CHECK(out.staging[2].use == vk::StagingBuffer::Use::observed);
  CHECK(out.staging[2].tensor == out.runDispatches[1].output.index);
  CHECK(out.staging[3].use == vk::StagingBuffer::Use::output);
}

TEST_CASE("softmax and layer norm take a workgroup per line, long reductions "
          "a workgroup per output texel",
          "[vulkan][plan]") {
  Loaded loaded = loadForPlanning(R"(
func.func @main(%x: tensor<1x3x7x301xf32>) -> (tensor<1x3x1x1xf32>, tensor<1x3x1x301xf32>) {
  %0 = aten.softmax %x {dim = 3 : i64} : tensor<1x3x7x301xf32>
  %1 = aten.layer_norm %0 {normalized_shape = array<i64: 301>} : (tensor<1x3x7x301xf32>) -> tensor<1x3x7x301xf32>
  %2 = aten.adaptive_avg_pool2d %1 : tensor<1x3x7x301xf32> -> tensor<1x3x1x1xf32>
  %3 = aten.mean %1 {dim = array<i64: 2>, keepdim = true} : tensor<1x3x7x301xf32> -> tensor<1x3x1x301xf32>
  return %2, %3 : tensor<1x3x1x1xf32>, tensor<1x3x1x301xf32>
})");
  vk::DispatchPlan out;
  rt::Status status = plan(loaded, loaded.blob, out);
  INFO(status.message());
  REQUIRE(status.isOk());
  std::vector<std::string> seen;
  for (const vk::Dispatch &dispatch : out.runDispatches) {
    if (dispatch.family == vk::ShaderFamily::Softmax ||
        dispatch.family == vk::ShaderFamily::LayerNorm) {
      // 3 * 7 lines of 301 elements, whatever the packing: one workgroup each.
      CHECK(dispatch.lineDim == (dispatch.family == vk::ShaderFamily::Softmax
                                     ? 7
                                     : vk::kMaxRank - 1));
      CHECK(dispatch.params.work[0] <= 3 * 7);
      CHECK(dispatch.groups[0] * dispatch.groups[1] ==
            static_cast<uint32_t>(dispatch.params.work[0]));
      seen.push_back(dispatch.family == vk::ShaderFamily::Softmax ? "softmax"
                                                                  : "layer_norm");
    } else if (dispatch.family == vk::ShaderFamily::Reduce) {
      // The global pool (2107 elements each) is a mean with the group
      // kernel, of whole texels (the plane kernel, FLAG1) as it reads a
      // channels-packed texture; the mean over 7 elements keeps one
      // invocation per texel.
      bool group = dispatch.spec[5] != 0;
      bool plane = dispatch.spec[6] != 0;
      CHECK(group == dispatch.groupPerItem);
      if (plane)
        CHECK(out.tensors[dispatch.inputs[0].index].packing ==
              rt::Layout::channelsPacked);
      seen.push_back(plane ? "plane reduce" : group ? "group reduce" : "element reduce");
    } else if (dispatch.family == vk::ShaderFamily::Pool) {
      seen.push_back("pool");
    }
  }
  CHECK(seen == std::vector<std::string>{"softmax", "layer_norm",
                                         "plane reduce", "element reduce"});
}

TEST_CASE("each convolution gets the kernel its geometry allows",
          "[vulkan][plan]") {
  // conv.comp's texel kernels serve 2-D convolutions whose groups fill whole
  // texels, or hold one channel each; the rest compute element by element.
  Loaded loaded = loadForPlanning(R"(
func.func @main(%x: tensor<1x8x6x6xf32>) -> tensor<1x8x11x11xf32> {
  %dense = arith.constant dense<0.5> : tensor<8x8x3x3xf32>
  %aligned = arith.constant dense<0.5> : tensor<8x4x1x1xf32>
  %depthwise = arith.constant dense<0.5> : tensor<8x1x3x3xf32>
  %unaligned = arith.constant dense<0.5> : tensor<4x2x1x1xf32>
  %transposed = arith.constant dense<0.5> : tensor<4x8x1x1xf32>
  %0 = aten.convolution %x, %dense {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = aten.convolution %0, %aligned {dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %2 = aten.convolution %1, %depthwise {dilation = array<i64: 1, 1>, groups = 8 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  %3 = aten.convolution %2, %unaligned {dilation = array<i64: 1, 1>, groups = 4 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x6x6xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x6x6xf32>
  %4 = aten.convolution %3, %transposed {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, transposed = true} : (tensor<1x4x6x6xf32>, tensor<4x8x1x1xf32>) -> tensor<1x8x11x11xf32>
  return %4 : tensor<1x8x11x11xf32>
})");
  vk::DispatchPlan out;
  rt::Status status = plan(loaded, loaded.blob, out);
  INFO(status.message());
  REQUIRE(status.isOk());
  auto kernelsOf = [](const vk::DispatchPlan &plan) {
    std::vector<int32_t> kernels;
    for (const vk::Dispatch &dispatch : plan.runDispatches) {
      if (dispatch.family != vk::ShaderFamily::Convolution &&
          dispatch.family != vk::ShaderFamily::ConvolutionTexel)
        continue;
      // The element kernel is the `conv` family, the texel ones `conv_texel`.
      CHECK(
          (dispatch.family == vk::ShaderFamily::Convolution) ==
          (dispatch.spec[6] == static_cast<int32_t>(sc::ConvKernel::Element)));
      kernels.push_back(dispatch.spec[6]);
    }
    return kernels;
  };
  // A few output blocks with long sums split their (input texel, kernel
  // row) pairs between invocations: the dense convolution's 8 input
  // channels are 2 texels times 3 rows, so 4 invocations per block; the
  // grouped 1x1 one has 1 texel per group and 1 row; the depthwise one
  // splits its 3 kernel rows between 2.
  std::vector<uint32_t> splits;
  for (const vk::Dispatch &dispatch : out.runDispatches)
    if (dispatch.family == vk::ShaderFamily::ConvolutionTexel) {
      splits.push_back(dispatch.split);
      CHECK(dispatch.params.iarg[3][0] == static_cast<int32_t>(dispatch.split));
    }
  CHECK(splits == std::vector<uint32_t>{4, 1, 2});
  auto id = [](sc::ConvKernel kernel) { return static_cast<int32_t>(kernel); };
  CHECK(kernelsOf(out) ==
        std::vector<int32_t>{
            id(sc::ConvKernel::Texel), id(sc::ConvKernel::Texel),
            id(sc::ConvKernel::DepthwiseTexel), id(sc::ConvKernel::Element),
            id(sc::ConvKernel::Element)});
  // Packed weights: [Cout, Cin/groups, kh*kw] height-packed for the texel
  // kernel, [1, C, kh, kw] channels-packed for the depthwise one; the two
  // element kernels read their weights as buffers.
  std::vector<std::vector<int64_t>> packed;
  for (const vk::PlannedTensor &tensor : out.tensors)
    if (tensor.role == vk::PlannedTensor::Role::constant)
      packed.push_back(tensor.sizes);
  CHECK(packed ==
        std::vector<std::vector<int64_t>>{{8, 8, 9}, {8, 4, 1}, {1, 8, 3, 3}});
  CHECK(out.weights.size() == 2);

  // A 1-D convolution reads and writes [N, C, L] height-packed, the packing
  // that puts C in texels, so the texel kernels take it: its weight [O, I,
  // kw] packs as [O, I, kw], a depthwise one's [C, 1, kw] as [1, C, 1, kw].
  Loaded oneD = loadForPlanning(R"(
func.func @main(%x: tensor<1x8x30xf32>) -> tensor<1x8x15xf32> {
  %dense = arith.constant dense<0.5> : tensor<8x8x3xf32>
  %depthwise = arith.constant dense<0.5> : tensor<8x1x3xf32>
  %0 = aten.convolution %x, %dense {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = false} : (tensor<1x8x30xf32>, tensor<8x8x3xf32>) -> tensor<1x8x15xf32>
  %1 = aten.convolution %0, %depthwise {dilation = array<i64: 1>, groups = 8 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 1>, transposed = false} : (tensor<1x8x15xf32>, tensor<8x1x3xf32>) -> tensor<1x8x15xf32>
  return %1 : tensor<1x8x15xf32>
})");
  vk::DispatchPlan oneDPlan;
  status = plan(oneD, oneD.blob, oneDPlan);
  INFO(status.message());
  REQUIRE(status.isOk());
  CHECK(kernelsOf(oneDPlan) ==
        std::vector<int32_t>{id(sc::ConvKernel::Texel),
                             id(sc::ConvKernel::DepthwiseTexel)});
  std::vector<std::vector<int64_t>> packedOneD;
  for (const vk::PlannedTensor &tensor : oneDPlan.tensors) {
    if (tensor.role == vk::PlannedTensor::Role::constant)
      packedOneD.push_back(tensor.sizes);
    else if (tensor.sizes.size() == 3)
      CHECK(tensor.packing == rt::Layout::heightPacked);
  }
  CHECK(packedOneD ==
        std::vector<std::vector<int64_t>>{{8, 8, 3}, {1, 8, 1, 3}});

  // A packed weight over the image limit leaves its convolution to the
  // element kernel: a 5x5 filter packs 25 texels wide, over 16, while the
  // 16x16 activations fit.
  Loaded wide = loadForPlanning(R"(
func.func @main(%x: tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<4x4x5x5xf32>
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 2>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x16x16xf32>, tensor<4x4x5x5xf32>) -> tensor<1x4x16x16xf32>
  return %0 : tensor<1x4x16x16xf32>
})");
  for (uint32_t limit : {4096u, 16u}) {
    vk::DispatchPlan limited;
    status = plan(wide, wide.blob, limited, limit);
    INFO(status.message());
    REQUIRE(status.isOk());
    CHECK(kernelsOf(limited) ==
          std::vector<int32_t>{id(limit == 16 ? sc::ConvKernel::Element
                                              : sc::ConvKernel::Texel)});
    CHECK(limited.weights.size() == (limit == 16 ? 1u : 0u));
  }
}

TEST_CASE("a matmul between width-packed textures of the same batch dims "
          "computes texels, a broadcast one elements",
          "[vulkan][plan]") {
  Loaded loaded = loadForPlanning(R"(
func.func @main(%q: tensor<1x3x9x70xf32>, %k: tensor<1x3x70x9xf32>, %v: tensor<1x1x9x5xf32>) -> tensor<1x3x9x5xf32> {
  %0 = aten.matmul %q, %k : (tensor<1x3x9x70xf32>, tensor<1x3x70x9xf32>) -> tensor<1x3x9x9xf32>
  %1 = aten.matmul %0, %v : (tensor<1x3x9x9xf32>, tensor<1x1x9x5xf32>) -> tensor<1x3x9x5xf32>
  return %1 : tensor<1x3x9x5xf32>
})");
  vk::DispatchPlan out;
  rt::Status status = plan(loaded, loaded.blob, out);
  INFO(status.message());
  REQUIRE(status.isOk());
  std::vector<vk::ShaderFamily> families;
  for (const vk::Dispatch &dispatch : out.runDispatches)
    if (dispatch.family == vk::ShaderFamily::MatMul ||
        dispatch.family == vk::ShaderFamily::MatMulTexel) {
      families.push_back(dispatch.family);
      // 70 of depth are 18 texels: few output texels split them.
      if (dispatch.family == vk::ShaderFamily::MatMulTexel)
        CHECK(dispatch.split == 16);
    }
  CHECK(families == std::vector<vk::ShaderFamily>{vk::ShaderFamily::MatMulTexel,
                                                  vk::ShaderFamily::MatMul});
}

TEST_CASE("products of many tiles take the tiled kernel", "[vulkan][plan]") {
  // matmul.comp's tiled kernels (FLAG1) take outputs of at least 512 tiles,
  // one workgroup each: big ones of 64 rows and 16 texels (FLAG1 2), else
  // small ones of 32 rows and 8 texels (FLAG1 1); others keep the four-row
  // kernel.
  Loaded loaded = loadForPlanning(R"(
func.func @main(%x: tensor<2048x45xf32>, %k: tensor<20x128xf32>) -> tensor<2048x128xf32> {
  %w = arith.constant dense<0.5> : tensor<256x45xf32>
  %w1 = arith.constant dense<0.5> : tensor<20x256xf32>
  %0 = aten.linear %x, %w : (tensor<2048x45xf32>, tensor<256x45xf32>) -> tensor<2048x256xf32>
  %1 = aten.linear %0, %w1 : (tensor<2048x256xf32>, tensor<20x256xf32>) -> tensor<2048x20xf32>
  %2 = aten.matmul %1, %k : (tensor<2048x20xf32>, tensor<20x128xf32>) -> tensor<2048x128xf32>
  return %2 : tensor<2048x128xf32>
})");
  vk::DispatchPlan out;
  rt::Status status = plan(loaded, loaded.blob, out);
  INFO(status.message());
  REQUIRE(status.isOk());
  std::vector<std::array<int64_t, 3>> products;
  for (const vk::Dispatch &dispatch : out.runDispatches)
    if (dispatch.family == vk::ShaderFamily::MatMulLinearTexel ||
        dispatch.family == vk::ShaderFamily::MatMulTexel ||
        dispatch.family == vk::ShaderFamily::MatMulLinearTexelTiled) {
      // The small tiled kernel is a family of its own.
      CHECK((dispatch.family == vk::ShaderFamily::MatMulLinearTexelTiled) ==
            (dispatch.spec[6] == 1));
      products.push_back({dispatch.spec[6], dispatch.params.work[0],
                          dispatch.groupPerItem ? 1 : 0});
    }
  // 2048 rows are 64 tiles of 32 and 256 features 64 texels, 8 tiles: 512
  // (big ones: 32 x 4 = 128). The 20-feature linear (5 texels) has 512 x 5
  // items of four rows; the matmul's 32 texels make 64 x 4 = 256 tiles, too
  // few, so 512 x 32 items.
  CHECK(products == std::vector<std::array<int64_t, 3>>{
                        {1, 512, 1}, {0, 512 * 5, 0}, {0, 512 * 32, 0}});

  // A batched matmul's 70 rows and 18 texels are 2 x 2 big tiles in each
  // of 128 layers: 512.
  Loaded batched = loadForPlanning(R"(
func.func @main(%a: tensor<128x70x21xf32>, %b: tensor<128x21x70xf32>) -> tensor<128x70x70xf32> {
  %0 = aten.matmul %a, %b : (tensor<128x70x21xf32>, tensor<128x21x70xf32>) -> tensor<128x70x70xf32>
  return %0 : tensor<128x70x70xf32>
})");
  vk::DispatchPlan big;
  status = plan(batched, batched.blob, big);
  INFO(status.message());
  REQUIRE(status.isOk());
  products.clear();
  for (const vk::Dispatch &dispatch : big.runDispatches)
    if (dispatch.family == vk::ShaderFamily::MatMulTexelBig)
      products.push_back({dispatch.spec[6], dispatch.params.work[0],
                          dispatch.groupPerItem ? 1 : 0});
  CHECK(products == std::vector<std::array<int64_t, 3>>{{2, 512, 1}});
}

TEST_CASE("convolutions of many output positions take the tiled kernels",
          "[vulkan][plan]") {
  // conv.comp's conv_tiled families run a one-group texel convolution as a
  // product (rows its output positions, columns its output channel texels)
  // where that makes at least 512 tiles: big ones of 64 positions by 16
  // texels, else small ones of 32 by 8; others, and grouped ones, keep the
  // texel kernel.
  auto convolutions = [](const char *mlir) {
    Loaded loaded = loadForPlanning(mlir);
    vk::DispatchPlan out;
    rt::Status status = plan(loaded, loaded.blob, out);
    INFO(status.message());
    REQUIRE(status.isOk());
    std::vector<std::string> found;
    for (const vk::Dispatch &dispatch : out.runDispatches)
      if (dispatch.op.find("aten.convolution") != std::string::npos) {
        found.push_back(fmt::format("{} {}", vk::shaderName(dispatch.family),
                                    dispatch.params.work[0]));
        if (dispatch.family == vk::ShaderFamily::ConvolutionTiled ||
            dispatch.family == vk::ShaderFamily::ConvolutionTiledBig) {
          CHECK(dispatch.groupPerItem);
          CHECK(dispatch.groups[0] * dispatch.groups[1] ==
                static_cast<uint32_t>(dispatch.params.work[0]));
        }
      }
    return found;
  };
  // A stem like Whisper's (80 channels into 384, then at stride 2 into 512;
  // its 3000 frames are over the generic profile's 2048): 2000 positions
  // are 63 tiles of 32 and 96 texels 12 of 8, 756 (big: 32 x 6 = 192);
  // 1000 positions and 128 texels 32 x 16 = 512 (big: 128).
  CHECK(convolutions(R"(
func.func @main(%x: tensor<1x80x2000xf32>) -> tensor<1x512x1000xf32> {
  %w0 = arith.constant dense<0.5> : tensor<384x80x3xf32>
  %w1 = arith.constant dense<0.5> : tensor<512x384x3xf32>
  %0 = aten.convolution %x, %w0 {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 1>, transposed = false} : (tensor<1x80x2000xf32>, tensor<384x80x3xf32>) -> tensor<1x384x2000xf32>
  %1 = aten.convolution %0, %w1 {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = false} : (tensor<1x384x2000xf32>, tensor<512x384x3xf32>) -> tensor<1x512x1000xf32>
  return %1 : tensor<1x512x1000xf32>
})") == std::vector<std::string>{"conv_tiled 756", "conv_tiled 512"});
  // 10000 positions and 64 texels make 157 x 4 = 628 big tiles; the
  // grouped one keeps the texel kernel (25 blocks of 4 positions in 100
  // rows of 64 channel texels), as does a convolution of few positions
  // (3 blocks in 10 rows of 64 texels).
  CHECK(convolutions(R"(
func.func @main(%u: tensor<1x5x100x100xf32>) -> tensor<1x256x10x10xf32> {
  %w2 = arith.constant dense<0.5> : tensor<256x5x3x3xf32>
  %w3 = arith.constant dense<0.5> : tensor<256x128x3x3xf32>
  %w4 = arith.constant dense<0.5> : tensor<256x256x3x3xf32>
  %2 = aten.convolution %u, %w2 {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x5x100x100xf32>, tensor<256x5x3x3xf32>) -> tensor<1x256x100x100xf32>
  %3 = aten.convolution %2, %w3 {dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x256x100x100xf32>, tensor<256x128x3x3xf32>) -> tensor<1x256x100x100xf32>
  %4 = aten.convolution %3, %w4 {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 10, 10>, transposed = false} : (tensor<1x256x100x100xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x10x10xf32>
  return %4 : tensor<1x256x10x10xf32>
})") == std::vector<std::string>{"conv_tiled_big 628", "conv_texel 160000",
                                  "conv_texel 1920"});
}

TEST_CASE("few small tiles of long sums take the split kernel in fp16",
          "[vulkan][plan]") {
  // The matmul's 62 columns are 16 texels, 2 tiles, by 17 of 32 rows in 16
  // layers: 544 tiles, under 2048, 270 deep; the linear (2040 rows, 64
  // tiles, by 250 features, 8: 512 tiles, 301 deep). Both split (FLAG1 3)
  // where they compute in fp16 (RGBA16F images on a device with
  // shaderFloat16) on a device whose workgroups may have 128 invocations
  // and 12 KiB of shared memory; small tiles on one whose may not, and in
  // fp32.
  const char *matmul = R"(
func.func @main(%a: tensor<16x520x270xf32>, %b: tensor<16x270x62xf32>) -> tensor<16x520x62xf32> {
  %0 = aten.matmul %a, %b : (tensor<16x520x270xf32>, tensor<16x270x62xf32>) -> tensor<16x520x62xf32>
  return %0 : tensor<16x520x62xf32>
})";
  const char *linear = R"(
func.func @main(%x: tensor<2040x301xf32>) -> tensor<2040x250xf32> {
  %w = arith.constant dense<0.5> : tensor<250x301xf32>
  %0 = aten.linear %x, %w : (tensor<2040x301xf32>, tensor<250x301xf32>) -> tensor<2040x250xf32>
  return %0 : tensor<2040x250xf32>
})";
  auto kernels = [&](uint32_t invocations, uint32_t shared, bool fp16) {
    vk::PhysicalDeviceInfo device = fakeDevice();
    device.limits.maxComputeWorkGroupInvocations = invocations;
    device.limits.maxComputeSharedMemorySize = shared;
    device.shaderFloat16 = true;
    std::vector<std::tuple<vk::ShaderFamily, int32_t, int64_t>> found;
    for (const char *mlir : {matmul, linear}) {
      std::vector<uint8_t> file = compileMlir(mlir, {}, true, fp16).program;
      rt::LoadOptions options;
      options.inspectOnly = true;
      std::unique_ptr<rt::Program> program;
      rt::Status status = rt::Program::loadFromBytes(
          file.data(), file.size(), "test", options, program);
      INFO(status.message());
      REQUIRE(status.isOk());
      REQUIRE(program->delegates().size() == 1);
      vk::DispatchPlan out;
      status = vk::buildDispatchPlan(*program, 0, program->delegates()[0].blob,
                                     device, device.limits, out);
      INFO(status.message());
      REQUIRE(status.isOk());
      for (const vk::Dispatch &dispatch : out.runDispatches)
        if (dispatch.groupPerItem)
          found.push_back(
              {dispatch.family, dispatch.spec[6], dispatch.params.work[0]});
    }
    return found;
  };
  using F = vk::ShaderFamily;
  using Found = std::vector<std::tuple<F, int32_t, int64_t>>;
  CHECK(vk::kMatMulSplitSharedBytes == 12288);
  CHECK(kernels(1024, 49152, true) ==
        Found{{F::MatMulTexelSplit, 3, 544},
              {F::MatMulLinearTexelSplit, 3, 512}});
  CHECK(kernels(1024, 49152, false) ==
        Found{{F::MatMulTexelTiled, 1, 544},
              {F::MatMulLinearTexelTiled, 1, 512}});
  CHECK(kernels(64, 49152, true) ==
        Found{{F::MatMulTexelTiled, 1, 544},
              {F::MatMulLinearTexelTiled, 1, 512}});
  CHECK(kernels(1024, 8192, true) ==
        Found{{F::MatMulTexelTiled, 1, 544},
              {F::MatMulLinearTexelTiled, 1, 512}});
}

TEST_CASE("products of few tiles and long sums run in depth parts on a GPU",
          "[vulkan][plan]") {
  // 2040 x 250 in small tiles is 512 of them (under 2048) and the sums are
  // 1000 deep: four parts would make 2048 workgroups, but each must be at
  // least 256 deep, so three, of 352 (a whole number of the split small
  // tile's two 16-deep slices), 352 and 296. The partials have a layer per
  // part; the parts kernel (reduce.comp FLAG1) adds them into the output.
  Loaded loaded = loadForPlanning(R"(
func.func @main(%x: tensor<2040x1000xf32>) -> tensor<2040x250xf32> {
  %w = arith.constant dense<0.5> : tensor<250x1000xf32>
  %b = arith.constant dense<0.5> : tensor<250xf32>
  %0 = aten.linear %x, %w, %b : (tensor<2040x1000xf32>, tensor<250x1000xf32>, tensor<250xf32>) -> tensor<2040x250xf32>
  return %0 : tensor<2040x250xf32>
})");
  auto products = [&](VkPhysicalDeviceType type) {
    vk::DispatchPlan out;
    rt::Status status = plan(loaded, loaded.blob, out, 4096, type);
    INFO(status.message());
    REQUIRE(status.isOk());
    return out;
  };
  vk::DispatchPlan gpu = products(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU);
  // Staging in, the product, the sum, staging out.
  REQUIRE(gpu.runDispatches.size() == 4);
  const vk::Dispatch &product = gpu.runDispatches[1];
  const vk::Dispatch &sum = gpu.runDispatches[2];
  CHECK(product.family == vk::ShaderFamily::MatMulLinearTexelTiled);
  CHECK(product.params.work[0] == 3 * 512);
  CHECK(product.params.work[1] == 1);
  CHECK(product.params.work[2] == 352);
  REQUIRE(product.output.kind == vk::Ref::Kind::tensor);
  const vk::PlannedTensor &partials = gpu.tensors[product.output.index];
  CHECK(partials.role == vk::PlannedTensor::Role::partials);
  CHECK(partials.sizes == std::vector<int64_t>{3, 2040, 250});
  CHECK(partials.extents == std::array<uint32_t, 3>{63, 2040, 3});
  CHECK(sum.family == vk::ShaderFamily::PartsSum);
  CHECK(sum.spec[4] == 0);
  CHECK(sum.params.iarg[7][0] == 0);
  CHECK(sum.params.iarg[0][0] == 1);
  CHECK(sum.params.iarg[0][1] == 3);
  CHECK(sum.inputs[0].index == product.output.index);
  CHECK(sum.output.index == gpu.outputs[0]);
  CHECK(sum.params.work[0] == 63 * 2040);

  // A CPU device (lavapipe) keeps one part: more workgroups gain it nothing.
  vk::DispatchPlan cpu = products(VK_PHYSICAL_DEVICE_TYPE_CPU);
  REQUIRE(cpu.runDispatches.size() == 3);
  CHECK(cpu.runDispatches[1].params.work[0] == 512);
  CHECK(cpu.runDispatches[1].params.work[1] == 0);

  // fp16 images (--force-fp16) keep one part: the partial sums would be
  // rounded to fp16.
  Loaded fp16 = loadForPlanning(R"(
func.func @main(%x: tensor<2040x1000xf32>) -> tensor<2040x250xf32> {
  %w = arith.constant dense<0.5> : tensor<250x1000xf32>
  %0 = aten.linear %x, %w : (tensor<2040x1000xf32>, tensor<250x1000xf32>) -> tensor<2040x250xf32>
  return %0 : tensor<2040x250xf32>
})",
                                rt::LoadOptions(), true);
  vk::DispatchPlan halves;
  rt::Status status = plan(fp16, fp16.blob, halves);
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(halves.fp16Images);
  for (const vk::Dispatch &dispatch : halves.runDispatches)
    CHECK(dispatch.params.work[1] == 0);

  // 600 layers of 32 x 32 are 600 big tiles and the sums 1024 deep: four
  // parts, whose 2400 layers a device of 2048 cannot hold; it keeps one.
  Loaded layers = loadForPlanning(R"(
func.func @main(%a: tensor<600x32x1024xf32>, %b: tensor<600x1024x32xf32>) -> tensor<600x32x32xf32> {
  %0 = aten.matmul %a, %b : (tensor<600x32x1024xf32>, tensor<600x1024x32xf32>) -> tensor<600x32x32xf32>
  return %0 : tensor<600x32x32xf32>
})");
  for (uint32_t maxImage : {4096u, 2048u}) {
    vk::DispatchPlan out;
    status = plan(layers, layers.blob, out, maxImage);
    INFO(status.message());
    REQUIRE(status.isOk());
    std::vector<std::array<int32_t, 3>> found;
    for (const vk::Dispatch &dispatch : out.runDispatches)
      if (dispatch.family == vk::ShaderFamily::MatMulTexelBig)
        found.push_back({dispatch.params.work[0], dispatch.params.work[1],
                         dispatch.params.work[2]});
    INFO("maxImageDimension3D " << maxImage);
    CHECK(found == (maxImage == 4096
                        ? std::vector<std::array<int32_t, 3>>{{2400, 600, 256}}
                        : std::vector<std::array<int32_t, 3>>{{600, 0, 0}}));
  }
}

TEST_CASE("a linear between width-packed textures reads a packed weight",
          "[vulkan][plan]") {
  Loaded loaded = loadForPlanning(R"(
func.func @main(%x: tensor<3x10xf32>) -> tensor<3x7xf32> {
  %w = arith.constant dense<0.5> : tensor<7x10xf32>
  %b = arith.constant dense<0.5> : tensor<7xf32>
  %0 = aten.linear %x, %w, %b : (tensor<3x10xf32>, tensor<7x10xf32>, tensor<7xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
})");
  vk::DispatchPlan out;
  rt::Status status = plan(loaded, loaded.blob, out);
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(out.runDispatches.size() == 3);
  const vk::Dispatch &linear = out.runDispatches[1];
  REQUIRE(out.tensors[linear.inputs[0].index].packing ==
          rt::Layout::widthPacked);
  CHECK(linear.family == vk::ShaderFamily::MatMulLinearTexel);
  REQUIRE(linear.inputs[1].kind == vk::Ref::Kind::tensor);
  const vk::PlannedTensor &packed = out.tensors[linear.inputs[1].index];
  CHECK(packed.role == vk::PlannedTensor::Role::constant);
  CHECK(packed.sizes == std::vector<int64_t>{7, 10});
  CHECK(packed.packing == rt::Layout::widthPacked);
  // Only the bias stays a weight buffer.
  CHECK(out.weights.size() == 1);
}

TEST_CASE("a damaged Vulkan blob is an error, never a crash",
          "[vulkan][plan]") {
  Loaded loaded = loadForPlanning(kConvReluMlir);
  vk::DispatchPlan out;

  SECTION("bytes that are no Vulkan blob") {
    std::vector<uint8_t> garbage(64, 0x5a);
    rt::Status status = plan(loaded, garbage, out);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("not a valid Vulkan delegate") !=
          std::string::npos);
  }

  SECTION("a truncated blob") {
    std::vector<uint8_t> cut(loaded.blob.begin(),
                             loaded.blob.begin() + loaded.blob.size() / 2);
    CHECK_FALSE(plan(loaded, cut, out).isOk());
  }

  SECTION("texture extents that do not match the sizes") {
    std::vector<uint8_t> blob = loaded.blob;
    sc::GetMutableDelegate(blob.data())
        ->mutable_tensors()
        ->GetMutableObject(0)
        ->mutable_extents()
        ->Mutate(0, 3);
    rt::Status status = plan(loaded, blob, out);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("records extents") != std::string::npos);
  }

  SECTION("a tensor naming a program tensor that does not exist") {
    std::vector<uint8_t> blob = loaded.blob;
    sc::GetMutableDelegate(blob.data())
        ->mutable_tensors()
        ->GetMutableObject(1)
        ->mutate_id(1000);
    rt::Status status = plan(loaded, blob, out);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("names program tensor 1000") !=
          std::string::npos);
  }

  SECTION("an op reading a tensor out of range") {
    std::vector<uint8_t> blob = loaded.blob;
    sc::GetMutableDelegate(blob.data())
        ->mutable_ops()
        ->GetMutableObject(0)
        ->mutable_inputs()
        ->Mutate(0, 7);
    rt::Status status = plan(loaded, blob, out);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("reads tensor 7 of 2") != std::string::npos);
  }

  SECTION("an op reading a tensor the plan added, not the blob") {
    // The sigmoid reads tensor 2, which the blob (x, the convolution's
    // result, the sigmoid's) does not have; the plan appends the packed
    // weight of the convolution there.
    Loaded named = loadForPlanning(kNamedMlir);
    std::vector<uint8_t> blob = named.blob;
    sc::GetMutableDelegate(blob.data())
        ->mutable_ops()
        ->GetMutableObject(1)
        ->mutable_inputs()
        ->Mutate(0, 3);
    rt::Status status = plan(named, blob, out);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("reads tensor 3 of 3") != std::string::npos);
  }

  // execute() stages the call's host tensors in and out of the blob's
  // inputs and outputs, by position: they must be the same tensors.
  SECTION("an output that is not the DelegateCall's") {
    std::vector<uint8_t> blob = loaded.blob;
    sc::GetMutableDelegate(blob.data())->mutable_outputs()->Mutate(0, 0);
    rt::Status status = plan(loaded, blob, out);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message() ==
          "vulkan delegate 0: output 0 of the blob is tensor 0 (input0), but "
          "the call passes tensor 1 (relu)");
  }

  SECTION("random byte flips") {
    std::mt19937 random(1);
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<uint8_t> blob = loaded.blob;
      for (int flips = 0; flips < 3; ++flips)
        blob[random() % blob.size()] ^=
            static_cast<uint8_t>(1 + random() % 255);
      vk::DispatchPlan any;
      (void)plan(loaded, blob, any);
    }
    SUCCEED("no flip crashed the loader");
  }
}

TEST_CASE("an index_select plans with its index as a weight, checked at load",
          "[vulkan][plan]") {
  // Placed by hand, so that the rule table's own check of the values does
  // not keep the bad index off Vulkan.
  auto mlir = [](const char *index) {
    return std::string(R"(
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<2x4xf32>) -> (tensor<2x2xf32>) {
    %i = arith.constant dense<)") +
           index + R"(> : tensor<2xi64>
    %0 = aten.index_select %a, %i {dim = 1 : i64, duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed>]} : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x2xf32>
    duet.yield %0 : tensor<2x2xf32>
  } attributes {duet.vk_arg_layouts = [#duet.vk_layout<texture3d, width_packed>]}
  return %r : tensor<2x2xf32>
})";
  };
  auto load = [](const std::string &text, Loaded &loaded) {
    loaded.file = compileMlir(text, {}, /*partition=*/false).program;
    rt::LoadOptions options;
    options.inspectOnly = true;
    REQUIRE(rt::Program::loadFromBytes(loaded.file.data(), loaded.file.size(),
                                       "test", options, loaded.program)
                .isOk());
    const rt::ByteSpan &blob = loaded.program->delegates()[0].blob;
    loaded.blob.assign(blob.data, blob.data + blob.size);
  };
  vk::DispatchPlan out;
  Loaded good;
  load(mlir("[3, 0]"), good);
  rt::Status status = plan(good, good.blob, out);
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(out.runDispatches.size() == 3);
  CHECK(out.runDispatches[1].family == vk::ShaderFamily::Index);
  CHECK(out.runDispatches[1].weights[0].kind == vk::Ref::Kind::weight);
  REQUIRE(out.weights.size() == 1);

  Loaded bad;
  load(mlir("[3, 4]"), bad);
  status = plan(bad, bad.blob, out);
  REQUIRE_FALSE(status.isOk());
  CHECK(status.message().find("holds 4 at position 1, outside [0, 4)") !=
        std::string::npos);
}

TEST_CASE("a texture over the device limit names the tensor, the limit and "
          "the compile options",
          "[vulkan][plan][limits]") {
  Loaded loaded = loadForPlanning(kConvReluMlir);
  vk::DispatchPlan out;
  rt::Status status = plan(loaded, loaded.blob, out, /*maxImage=*/4);
  REQUIRE_FALSE(status.isOk());
  const std::string &message = status.message();
  INFO(message);
  CHECK(message.find("[1,3,8,8] is a channels-packed 3-D image of (8,8,1) "
                     "texels") != std::string::npos);
  CHECK(message.find("maxImageDimension3D 4 of device 'test device'") !=
        std::string::npos);
  CHECK(message.find("--texture-limits 4,4,4") != std::string::npos);
}

TEST_CASE("device selection", "[vulkan][device]") {
  std::vector<vk::PhysicalDeviceInfo> devices(3);
  devices[0].index = 0;
  devices[0].name = "llvmpipe (LLVM 15)";
  devices[0].deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
  devices[1].index = 1;
  devices[1].name = "Old GPU";
  devices[1].deviceType = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  devices[1].unsuitable = "supports Vulkan 1.0.0; duet needs 1.1 or newer";
  devices[2].index = 2;
  devices[2].name = "Integrated GPU";
  devices[2].deviceType = VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
  uint32_t chosen = 99;

  SECTION("a usable GPU is preferred to the CPU device") {
    REQUIRE(vk::selectDevice(devices, "", chosen).isOk());
    CHECK(chosen == 2);
  }
  SECTION("by index and by part of the name, any case") {
    REQUIRE(vk::selectDevice(devices, "0", chosen).isOk());
    CHECK(chosen == 0);
    REQUIRE(vk::selectDevice(devices, "LLVMPIPE", chosen).isOk());
    CHECK(chosen == 0);
  }
  SECTION("a name that matches nothing lists the devices") {
    rt::Status status = vk::selectDevice(devices, "h200", chosen);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("0: llvmpipe (LLVM 15), 1: Old GPU, 2: "
                                "Integrated GPU") != std::string::npos);
  }
  SECTION("an unusable device says why") {
    rt::Status status = vk::selectDevice(devices, "old", chosen);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("duet needs 1.1") != std::string::npos);
  }
  SECTION("no usable device says what to install") {
    std::vector<vk::PhysicalDeviceInfo> none = {devices[1]};
    rt::Status status = vk::selectDevice(none, "", chosen);
    REQUIRE_FALSE(status.isOk());
    CHECK(status.message().find("mesa-vulkan-drivers") != std::string::npos);
  }
}
