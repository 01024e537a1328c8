// binary.comp - elementwise functions of two tensors with NumPy
// broadcasting. OP is vulkan.fbs's BinaryOp (BINARY_OP_*); farg[0].x is alpha.
// Where both inputs line up with the output texel for texel (alignedTexel),
// an invocation maps a whole texel.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(lhs, 1, 2, IN0_PACKING)
TENSOR_INPUT(rhs, 2, 3, IN1_PACKING)

// Floor division as PyTorch computes it for floats.
float floorDivide(float a, float b) {
  if (b == 0.0)
    return a / b;
  float remainder = a - b * trunc(a / b);
  float quotient = (a - remainder) / b;
  if (remainder != 0.0 && (b < 0.0) != (remainder < 0.0))
    quotient -= 1.0;
  if (quotient == 0.0)
    return (a / b) < 0.0 ? -0.0 : 0.0;
  float floored = floor(quotient);
  if (quotient - floored > 0.5)
    floored += 1.0;
  return floored;
}

// The remainder as PyTorch defines it: with the sign of the divisor. Fixing
// up the truncated remainder stays right when a / b rounds to an integer.
float remainder(float a, float b) {
  float mod = a - b * trunc(a / b);
  if (mod != 0.0 && (b < 0.0) != (mod < 0.0))
    mod += b;
  return mod;
}

float combine(float a, float b) {
  float alpha = P.farg[0].x;
  switch (OP) {
  case BINARY_OP_ADD: return a + alpha * b;
  case BINARY_OP_SUB: return a - alpha * b;
  case BINARY_OP_MUL: return a * b;
  case BINARY_OP_DIV: return a / b;
  case BINARY_OP_DIV_TRUNC: return trunc(a / b);
  case BINARY_OP_DIV_FLOOR: return floorDivide(a, b);
  case BINARY_OP_MAXIMUM: return isnan(a) || isnan(b) ? a + b : max(a, b);
  case BINARY_OP_MINIMUM: return isnan(a) || isnan(b) ? a + b : min(a, b);
  case BINARY_OP_REMAINDER: return remainder(a, b);
  }
  return a;
}

bool element(int idx[8], out float value) {
  int at[8];
  broadcastIndex(1, idx, at);
  float a = lhs_load(at);
  broadcastIndex(2, idx, at);
  float b = rhs_load(at);
  value = combine(a, b);
  return true;
}

#define DUET_OWN_MAIN
#include "main.glsl"

#if !defined(INPUT_BUFFER) && !defined(OUTPUT_BUFFER)
// The texel of input slot k (read with `packing`) that output texel `t`
// needs when whole texels line up: the input has the output's sizes and
// packing, or is channels-packed [..., C, 1, 1] broadcast over height and
// width (a squeeze-and-excitation scale), or holds one element (lane 0 of
// texel 0 in every packing: `scalar`, broadcast to all four lanes).
bool alignedTexel(int k, int packing, ivec3 t, out ivec3 at, out bool scalar) {
  at = t;
  scalar = numel(k) == 1;
  if (scalar) {
    at = ivec3(0);
    return true;
  }
  if (packing != OUT_PACKING || P.t[k].sizeHi != P.t[0].sizeHi ||
      P.t[k].sizeLo.xy != P.t[0].sizeLo.xy)
    return false;
  if (P.t[k].sizeLo.zw == P.t[0].sizeLo.zw)
    return true;
  at = ivec3(0, 0, t.z);
  return packing == LAYOUT_CHANNELS_PACKED && P.t[k].sizeLo.zw == ivec2(1, 1);
}
#endif

void main() {
#if !defined(INPUT_BUFFER) && !defined(OUTPUT_BUFFER)
  int item = workItem();
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  ivec3 texel = ivec3(item % gx, (item / gx) % gy, item / (gx * gy));
  ivec3 atA, atB;
  bool scalarA, scalarB;
  if (alignedTexel(1, IN0_PACKING, texel, atA, scalarA) &&
      alignedTexel(2, IN1_PACKING, texel, atB, scalarB) &&
      !(scalarA && scalarB && numel(0) != 1)) {
    if (item >= P.work.x)
      return;
    vec4 a = imageLoad(lhs, atA), b = imageLoad(rhs, atB);
    if (scalarA)
      a = vec4(a.x);
    if (scalarB)
      b = vec4(b.x);
    vec4 y = vec4(0.0);
    for (int lane = 0; lane < 4; ++lane) {
      int idx[8];
      if (outputIndex(item, lane, idx))
        y[lane] = combine(a[lane], b[lane]);
    }
    imageStore(outImg, texel, y);
    return;
  }
#endif
  elementMain();
}
