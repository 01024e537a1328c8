// layernorm.comp - layer norm over the last dim with the biased variance, as
// PyTorch; FLAG0 / FLAG1: a weight / a bias is bound. farg[0].x: eps.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)
WEIGHT(weight, 5)
WEIGHT(bias, 6)

bool element(int idx[8], out float value) {
  int length = size(1, 7);
  int at[8] = idx;
  float sum = 0.0;
  for (int i = 0; i < length; ++i) {
    at[7] = i;
    sum += src_load(at);
  }
  float mean = sum / float(length);
  float squares = 0.0;
  for (int i = 0; i < length; ++i) {
    at[7] = i;
    float d = src_load(at) - mean;
    squares += d * d;
  }
  float normalized = (src_load(idx) - mean) *
                     inversesqrt(squares / float(length) + P.farg[0].x);
  if (FLAG0 != 0)
    normalized *= weight.v[idx[7]];
  if (FLAG1 != 0)
    normalized += bias.v[idx[7]];
  value = normalized;
  return true;
}

#include "main.glsl"
