// batchnorm.comp - inference batch norm as x * scale[c] + shift[c]; the
// compiler computed scale and shift from the statistics. iarg[0].x: the
// position of the channel dim among the eight.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)
WEIGHT(scale, 5)
WEIGHT(shift, 6)

bool element(int idx[8], out float value) {
  int c = idx[P.iarg[0].x];
  value = src_load(idx) * scale.v[c] + shift.v[c];
  return true;
}

#include "main.glsl"
