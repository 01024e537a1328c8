// unary.comp - elementwise functions of one tensor (activation.glsl). OP is
// vulkan.fbs's UnaryOp (UNARY_OP_*); farg[0].xyz are its parameters a, b, c. Between two textures of one
// packing, an invocation maps a whole texel.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

#include "activation.glsl"

float apply(float x) { return unaryValue(OP, x, P.farg[0]); }

bool element(int idx[8], out float value) {
  value = apply(src_load(idx));
  return true;
}

#define DUET_OWN_MAIN
#include "main.glsl"

void main() {
#if !defined(INPUT_BUFFER) && !defined(OUTPUT_BUFFER)
  // Input and output have one shape; with one packing too, output texel
  // `item` is the function of input texel `item`, read once. The lanes past
  // the tensor's end are written as zeros.
  if (IN0_PACKING == OUT_PACKING) {
    int item = workItem();
    if (item >= P.work.x)
      return;
    int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
    ivec3 texel = ivec3(item % gx, (item / gx) % gy, item / (gx * gy));
    vec4 x = inputTexel(src, texel);
    vec4 y = vec4(0.0);
    int first[8];
    itemIndex(item, first);
    for (int lane = 0; lane < 4; ++lane) {
      int idx[8];
      if (laneIndex(item, first, lane, idx))
        y[lane] = apply(x[lane]);
    }
    imageStore(outImg, texel, imageValue(y));
    return;
  }
#endif
  elementMain();
}
