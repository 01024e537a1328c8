// matmul.comp - matrix products over the last two dims, batch dims
// broadcast. Variants: the default multiplies two tensors (mm, bmm, matmul);
// -DADD_INPUT adds beta * a third tensor, broadcast, to alpha times the
// product (addmm); -DLINEAR multiplies by the transpose of a weight
// [out, in] and adds a bias [out] when FLAG0 is set (linear).
// farg[0].xy: alpha, beta. -DLINEAR -DTEXEL_KERNELS (the
// matmul_linear_texel family, textures only) is a linear between
// width-packed textures computing a whole output texel (four output
// features) per invocation, reading each input texel of its row once; its
// weight is a width-packed texture [out, in] packed at load (input slot 2,
// binding 3; conv.comp says why a texture), zero past its end.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(lhs, 1, 2, IN0_PACKING)
#if defined(LINEAR) && defined(TEXEL_KERNELS)
layout(set = 0, binding = 3, IMAGE_FORMAT) uniform readonly image3D packedWeight;
WEIGHT(bias, 6)
#elif defined(LINEAR)
WEIGHT(weight, 5)
WEIGHT(bias, 6)
#else
TENSOR_INPUT(rhs, 2, 3, IN1_PACKING)
#endif
#ifdef ADD_INPUT
TENSOR_INPUT(addend, 3, 4, IN2_PACKING)
#endif

#ifndef TEXEL_KERNELS
bool element(int idx[8], out float value) {
  int depth = size(1, 7);
  int a[8];
  broadcastIndex(1, idx, a);
  a[6] = idx[6];
  float sum = 0.0;
#ifdef LINEAR
  int row = idx[7] * depth;
  for (int k = 0; k < depth; ++k) {
    a[7] = k;
    sum += lhs_load(a) * weight.v[row + k];
  }
  value = FLAG0 != 0 ? sum + bias.v[idx[7]] : sum;
#else
  int b[8];
  broadcastIndex(2, idx, b);
  b[7] = idx[7];
  for (int k = 0; k < depth; ++k) {
    a[7] = k;
    b[6] = k;
    sum += lhs_load(a) * rhs_load(b);
  }
#ifdef ADD_INPUT
  int c[8];
  broadcastIndex(3, idx, c);
  value = P.farg[0].y * addend_load(c) + P.farg[0].x * sum;
#else
  value = sum;
#endif
#endif
  return true;
}

#include "main.glsl"

#else
#define DUET_OWN_MAIN
#define DUET_NO_ELEMENT
#include "main.glsl"

// Output texel `item` of a linear: its row of the input (the same texel row
// and layer, the input and output sharing their leading dims) times four rows
// of the weight.
void linearTexel(int item) {
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  ivec3 texel = ivec3(item % gx, (item / gx) % gy, item / (gx * gy));
  int depth = size(1, 7), features = size(0, 7);
  ivec4 n = ivec4(texel.x * 4) + ivec4(0, 1, 2, 3);
  bvec4 live = lessThan(n, ivec4(features));
  // Padding lanes read the last feature's weights; their sums are dropped.
  ivec4 nRead = min(n, ivec4(features - 1));
  vec4 sum = vec4(0.0);
  int texels = (depth + 3) / 4;
  for (int t = 0; t < texels; ++t) {
    vec4 x = imageLoad(lhs, ivec3(t, texel.y, texel.z));
    if (t * 4 + 4 > depth)
      x = mix(vec4(0.0), x,
              lessThan(ivec4(t * 4) + ivec4(0, 1, 2, 3), ivec4(depth)));
    // Column l: feature l's weights for input texel t.
    sum += x * mat4(imageLoad(packedWeight, ivec3(t, nRead.x, 0)),
                    imageLoad(packedWeight, ivec3(t, nRead.y, 0)),
                    imageLoad(packedWeight, ivec3(t, nRead.z, 0)),
                    imageLoad(packedWeight, ivec3(t, nRead.w, 0)));
  }
  if (FLAG0 != 0)
    for (int l = 0; l < 4; ++l)
      if (live[l])
        sum[l] += bias.v[n[l]];
  imageStore(outImg, texel, mix(vec4(0.0), sum, live));
}

void main() {
  int item = workItem();
  if (item < P.work.x)
    linearTexel(item);
}
#endif
