// scan.comp - a running reduction along one dim (cumsum): each output
// element sums the input along the dim up to its own index. Every element
// reads its whole prefix, which is simple and exact to the order of the
// additions, and fine for the short dims models scan (positions, masks).
//
// OP: vulkan.fbs's ScanOp. iarg[0].x: the scanned dim, counted in the 8 dims.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

bool element(int idx[8], out float value) {
  int dim = P.iarg[0].x;
  int at[8] = idx;
  float sum = 0.0;
  for (int i = 0; i <= idx[dim]; ++i) {
    at[dim] = i;
    sum += src_load(at);
  }
  value = sum;
  return true;
}

#include "main.glsl"
