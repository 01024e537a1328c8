// matmul.comp - matrix products over the last two dims, batch dims
// broadcast. Variants: the default multiplies two tensors (mm, bmm, matmul);
// -DADD_INPUT adds beta * a third tensor, broadcast, to alpha times the
// product (addmm); -DLINEAR multiplies by the transpose of a weight
// [out, in] and adds a bias [out] when FLAG0 is set (linear).
// farg[0].xy: alpha, beta.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(lhs, 1, 2, IN0_PACKING)
#ifdef LINEAR
WEIGHT(weight, 5)
WEIGHT(bias, 6)
#else
TENSOR_INPUT(rhs, 2, 3, IN1_PACKING)
#endif
#ifdef ADD_INPUT
TENSOR_INPUT(addend, 3, 4, IN2_PACKING)
#endif

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
