//===- Shaders.h - the embedded SPIR-V of the Vulkan delegate ---*- C++ -*-===//
//
// One shader family per op family (shaders/<family>.comp, some built twice
// with different defines), each built for the storage of its inputs and its
// output. Every family binds the same way: binding 0 the parameter block,
// 1 the output, 2.. the tensor inputs, 5 and 6 the weights.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_VULKAN_SHADERS_H
#define DUET_RUNTIME_BACKENDS_VULKAN_SHADERS_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace duet::rt::vulkan {

enum class ShaderFamily : uint8_t {
  Gather,
  Unary,
  Binary,
  MatMul,
  MatMulAdd,
  MatMulLinear,
  /// matmul.comp's linear texel kernel (-DLINEAR -DTEXEL_KERNELS):
  /// width-packed textures, the weight a packed texture too.
  MatMulLinearTexel,
  /// matmul.comp's matmul texel kernel (-DTEXEL_KERNELS): width-packed
  /// textures with the same batch dims. Every texel kernel of matmul.comp
  /// binds a third input, its epilogue's addend (epilogue.glsl).
  MatMulTexel,
  /// The tiled kernels of both (-DTILE_KERNEL=1: small tiles, 2: big ones,
  /// 3: small tiles of long sums split between two groups of a workgroup),
  /// each a shader of its own, so that neither the four-row kernel nor the
  /// small tile carries the big tile's registers and shared memory.
  MatMulLinearTexelTiled,
  MatMulLinearTexelBig,
  MatMulLinearTexelSplit,
  MatMulTexelTiled,
  MatMulTexelBig,
  MatMulTexelSplit,
  Convolution,
  /// conv.comp's texel kernels (-DTEXEL_KERNELS): channels-packed textures,
  /// the weight a packed texture too, and the epilogue's addend.
  ConvolutionTexel,
  /// Its tiled kernels (-DTEXEL_KERNELS -DTILE_KERNEL=1, 2): a convolution
  /// of one group as a product in matmul.comp's small or big tiles
  /// (tile.glsl).
  ConvolutionTiled,
  ConvolutionTiledBig,
  BatchNorm,
  LayerNorm,
  Reduce,
  /// The sum of a product's depth parts, with the product's epilogue
  /// (parts.comp): the partial sums and the epilogue's addend.
  PartsSum,
  Softmax,
  Pool,
  Upsample,
  Index,
  Scan,
  /// A planted fault (fault.comp), in place on its output.
  Fault,
};

/// The family's name, as its SPIR-V is recorded ("matmul_linear").
std::string_view shaderName(ShaderFamily family);

/// Binding numbers every family shares. An image input is a storage image or,
/// in the sampled builds, a combined image sampler.
inline constexpr uint32_t kParamsBinding = 0;
inline constexpr uint32_t kOutputBinding = 1;
inline constexpr uint32_t kFirstInputBinding = 2;
inline constexpr uint32_t kFirstWeightBinding = 5;

/// How many tensor inputs and weights a family binds.
struct ShaderBindings {
  int inputs = 1;
  int weights = 0;
};
ShaderBindings shaderBindings(ShaderFamily family);

/// SPIR-V words; `words` is null when the variant was not built.
struct ShaderCode {
  const uint32_t *words = nullptr;
  size_t count = 0;
  /// Whether it computes in fp16 (-DFP16_MATH).
  bool fp16Math = false;
};

/// The family with its inputs and output in buffers or in textures, and its
/// images rgba16f (`fp16Images`) or rgba32f. With `fp16Math` (and
/// `fp16Images`), its build that computes in fp16 where the family has one
/// (hasFp16Math: the convolution and product texel kernels), else the one
/// that computes in fp32 on fp16 images. With `sampledInputs`, the build
/// that reads its image inputs as sampled images (texelFetch) instead of
/// storage images (imageLoad); every build with image inputs has both.
ShaderCode shaderCode(ShaderFamily family, bool inputsInBuffers,
                      bool outputInBuffer, bool fp16Images = false,
                      bool fp16Math = false, bool sampledInputs = false);

/// Whether the family has a build that computes in fp16.
bool hasFp16Math(ShaderFamily family);

} // namespace duet::rt::vulkan

#endif // DUET_RUNTIME_BACKENDS_VULKAN_SHADERS_H
