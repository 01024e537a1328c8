// reduce.comp - mean, sum or max over one or two dims. OP: vulkan.fbs's
// ReduceOp. iarg[0..1]: per input dim, the output dim it follows (-1: a
// reduced dim); iarg[2].xy: the reduced input dims (y -1 when only one).
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

bool element(int idx[8], out float value) {
  int at[8];
  for (int d = 0; d < 8; ++d) {
    int source = iarg8(0, d);
    at[d] = source >= 0 ? idx[source] : 0;
  }
  int first = P.iarg[2].x, second = P.iarg[2].y;
  int outer = size(1, first);
  int inner = second >= 0 ? size(1, second) : 1;
  float result = OP == REDUCE_OP_AMAX ? uintBitsToFloat(0xff800000u) : 0.0;
  for (int i = 0; i < outer; ++i) {
    at[first] = i;
    for (int j = 0; j < inner; ++j) {
      if (second >= 0)
        at[second] = j;
      float x = src_load(at);
      if (OP == REDUCE_OP_AMAX)
        result = isnan(x) || x > result ? x : result;
      else
        result += x;
    }
  }
  value = OP == REDUCE_OP_MEAN ? result / float(outer * inner) : result;
  return true;
}

#include "main.glsl"
