// tensor.glsl - how every duet shader sees its tensors.
//
// A shader computes its output element by element: each invocation owns one
// work item (a texel of a 3-D image, or four consecutive elements of a
// buffer), computes the element of each of its four lanes from its logical
// index, and writes them together (main.glsl). Indices have eight dims,
// aligned right: dim 7 is a tensor's last dim and unused leading dims have
// size 1, so one piece of code serves every rank up to 8. A texture holds
// (N, C, H, W) = dims 4..7, packed four to a texel along the dim its packing
// names; a buffer is row-major.
//
// Storage is chosen per build variant (-DINPUT_BUFFER, -DOUTPUT_BUFFER),
// packing per pipeline (specialization constants), the op's own switches too.
// Packings and op ids are the schema's numbers, from duet_enums.glsl (written
// at build time from runtime/schema; LAYOUT_*, UNARY_OP_*, ...).
// Images are rgba32f unless built with -DFP16_IMAGES (--force-fp16): rgba16f,
// so storage narrows, loads and stores convert (every store through
// imageValue below), and the math stays fp32 except in the kernels built
// with -DFP16_MATH too (MVEC4 below).

#extension GL_GOOGLE_include_directive : require

#include "duet_enums.glsl"

#ifdef FP16_IMAGES
#define IMAGE_FORMAT rgba16f
#else
#define IMAGE_FORMAT rgba32f
#endif

// The value an image store is given. In rgba16f it is fp32 rounded to the
// nearest fp16 value, ties to even, and a finite value beyond 65504 after
// rounding saturates to ±65504 instead of becoming an infinity: a finite
// fp32 result stays finite (a -1e9 attention mask stays a large negative
// number, not -inf whose softmax row is NaN). Infinities and NaNs are kept.
// The store's own conversion is then exact: drivers may
// convert by truncation (lavapipe does, and the H200's errors matched it),
// which moves every stored value toward zero, and through a network's layers
// those biased errors add up (MobileNetV2 ended 4x further from fp32 than
// PyTorch's own fp16).
#ifdef FP16_IMAGES
vec4 imageValue(vec4 v) {
  uvec4 bits = floatBitsToUint(v);
  uvec4 mag = bits & 0x7FFFFFFFu;
  // A normal fp16 keeps 10 of fp32's 23 fraction bits.
  uvec4 normal = (mag + 0xFFFu + ((mag >> 13) & 1u)) & 0xFFFFE000u;
  // Below 2^-14 fp16 is subnormal: multiples of 2^-24.
  uvec4 subnormal =
      floatBitsToUint(roundEven(abs(v) * 16777216.0) * (1.0 / 16777216.0));
  uvec4 r = mix(normal, subnormal, lessThan(mag, uvec4(0x38800000u)));
  r = mix(r, uvec4(0x477FE000u), greaterThan(r, uvec4(0x477FE000u)));
  // Infinities and NaNs as they are.
  r = mix(r, mag, greaterThanEqual(mag, uvec4(0x7F800000u)));
  return uintBitsToFloat(r | (bits & 0x80000000u));
}
#else
#define imageValue(v) (v)
#endif

// The arithmetic type of the kernels that have an fp16 build (-DFP16_MATH,
// with rgba16f images, for --force-fp16 on a device with shaderFloat16):
// their operands, products and the short sums of one step (a texel's four
// terms, a tile slice) in float16_t; the running sums stay fp32 (a whole
// sum in fp16 took MobileNetV2 past the fp16 tolerance on the H200).
#ifdef FP16_MATH
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define MFLOAT float16_t
#define MVEC4 f16vec4
#define MMAT4 f16mat4
#else
#define MFLOAT float
#define MVEC4 vec4
#define MMAT4 mat4
#endif

// 64 invocations per workgroup, unless the shader sets LOCAL_SIZE_X first.
#ifndef LOCAL_SIZE_X
#define LOCAL_SIZE_X 64
#endif
layout(local_size_x = LOCAL_SIZE_X) in;

// Sizes of up to eight dims and, for textures, the image geometry.
struct TensorDesc {
  ivec4 sizeHi;   // dims 0..3
  ivec4 sizeLo;   // dims 4..7 (N, C, H, W of a texture)
  ivec4 geom;     // image extents x, y; texels along C when channels-packed; numel
  ivec4 reserved;
};

// Slot 0 is the output, slots 1..3 the inputs; iarg and farg are the op's.
layout(std140, set = 0, binding = 0) uniform Params {
  TensorDesc t[4];
  ivec4 iarg[8];
  vec4 farg[2];
  ivec4 work;     // x: work items
} P;

layout(constant_id = 0) const int OUT_PACKING = LAYOUT_WIDTH_PACKED;
layout(constant_id = 1) const int IN0_PACKING = LAYOUT_WIDTH_PACKED;
layout(constant_id = 2) const int IN1_PACKING = LAYOUT_WIDTH_PACKED;
layout(constant_id = 3) const int IN2_PACKING = LAYOUT_WIDTH_PACKED;
// The op within the shader's family, and two switches it defines.
layout(constant_id = 4) const int OP = 0;
layout(constant_id = 5) const int FLAG0 = 0;
layout(constant_id = 6) const int FLAG1 = 0;

int size(int k, int d) { return d < 4 ? P.t[k].sizeHi[d] : P.t[k].sizeLo[d - 4]; }
int numel(int k) { return P.t[k].geom.w; }

// Eight ints packed in two ivec4 of iarg, starting at iarg[first].
int iarg8(int first, int d) { return P.iarg[first + d / 4][d % 4]; }

// The row-major offset of `idx` in tensor k.
int offsetOf(int k, int idx[8]) {
  int offset = 0;
  for (int d = 0; d < 8; ++d)
    offset = offset * size(k, d) + idx[d];
  return offset;
}

// The index of row-major offset `linear` in tensor k.
void delinearize(int k, int linear, out int idx[8]) {
  for (int d = 7; d >= 0; --d) {
    int s = size(k, d);
    idx[d] = linear % s;
    linear /= s;
  }
}

// The texel (xyz) and lane (w) of element `idx` of texture k.
ivec4 texelOf(int k, int packing, int idx[8]) {
  int n = idx[4], c = idx[5], h = idx[6], w = idx[7];
  if (packing == LAYOUT_WIDTH_PACKED)
    return ivec4(w >> 2, h, n * size(k, 5) + c, w & 3);
  if (packing == LAYOUT_HEIGHT_PACKED)
    return ivec4(w, h >> 2, n * size(k, 5) + c, h & 3);
  return ivec4(w, h, n * P.t[k].geom.z + (c >> 2), c & 3);
}

// Index `idx` of an output element, with each dim of size 1 in tensor k read
// at 0: NumPy broadcasting of k against the output.
void broadcastIndex(int k, int idx[8], out int result[8]) {
  for (int d = 0; d < 8; ++d)
    result[d] = size(k, d) == 1 ? 0 : idx[d];
}

// An input tensor NAME in slot SLOT at binding BINDING, read with
// NAME_load(idx). An image input (INPUT_IMAGE, which the texel kernels'
// packed weights use too) is read a texel at a time with inputTexel: in the
// -DSAMPLED_INPUTS builds a sampled image read with texelFetch (the texture
// path: on the H200 the eight models of docs/performance.md took 1-14% less
// time so), else a storage image read with imageLoad (on lavapipe twice as
// fast as texelFetch on MobileNetV3-Small). The delegate picks the build
// per device (VulkanDelegate::load).
#ifdef SAMPLED_INPUTS
#define INPUT_IMAGE(NAME, BINDING)                                            \
  layout(set = 0, binding = BINDING) uniform sampler3D NAME
#define inputTexel(image, at) texelFetch(image, at, 0)
#else
#define INPUT_IMAGE(NAME, BINDING)                                            \
  layout(set = 0, binding = BINDING, IMAGE_FORMAT) uniform readonly image3D NAME
#define inputTexel(image, at) imageLoad(image, at)
#endif
#ifdef INPUT_BUFFER
#define TENSOR_INPUT(NAME, SLOT, BINDING, PACKING)                            \
  layout(std430, set = 0, binding = BINDING) readonly buffer NAME##Block {    \
    float v[];                                                                \
  } NAME;                                                                     \
  float NAME##_load(int idx[8]) { return NAME.v[offsetOf(SLOT, idx)]; }
#else
#define TENSOR_INPUT(NAME, SLOT, BINDING, PACKING)                            \
  INPUT_IMAGE(NAME, BINDING);                                                 \
  float NAME##_load(int idx[8]) {                                             \
    ivec4 p = texelOf(SLOT, PACKING, idx);                                    \
    return inputTexel(NAME, p.xyz)[p.w];                                      \
  }
#endif

// A weight: fp32 values in the arrangement the op documents.
#define WEIGHT(NAME, BINDING)                                                 \
  layout(std430, set = 0, binding = BINDING) readonly buffer NAME##Block {    \
    float v[];                                                                \
  } NAME;
