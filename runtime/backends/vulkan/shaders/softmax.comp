// softmax.comp - softmax (FLAG0 0) or log_softmax (FLAG0 1) along one dim;
// iarg[0].x: its position among the eight.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

bool element(int idx[8], out float value) {
  int dim = P.iarg[0].x;
  int length = size(1, dim);
  int at[8] = idx;
  float largest = uintBitsToFloat(0xff800000u);
  for (int i = 0; i < length; ++i) {
    at[dim] = i;
    largest = max(largest, src_load(at));
  }
  float sum = 0.0;
  for (int i = 0; i < length; ++i) {
    at[dim] = i;
    sum += exp(src_load(at) - largest);
  }
  float shifted = src_load(idx) - largest;
  value = FLAG0 != 0 ? shifted - log(sum) : exp(shifted) / sum;
  return true;
}

#include "main.glsl"
