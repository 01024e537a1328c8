// binary.comp - elementwise functions of two tensors with NumPy
// broadcasting. OP is vulkan.fbs's BinaryOp (BINARY_OP_*); farg[0].x is alpha.
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

bool element(int idx[8], out float value) {
  int at[8];
  broadcastIndex(1, idx, at);
  float a = lhs_load(at);
  broadcastIndex(2, idx, at);
  float b = rhs_load(at);
  float alpha = P.farg[0].x;
  switch (OP) {
  case BINARY_OP_ADD: value = a + alpha * b; break;
  case BINARY_OP_SUB: value = a - alpha * b; break;
  case BINARY_OP_MUL: value = a * b; break;
  case BINARY_OP_DIV: value = a / b; break;
  case BINARY_OP_DIV_TRUNC: value = trunc(a / b); break;
  case BINARY_OP_DIV_FLOOR: value = floorDivide(a, b); break;
  case BINARY_OP_MAXIMUM: value = isnan(a) || isnan(b) ? a + b : max(a, b); break;
  case BINARY_OP_MINIMUM: value = isnan(a) || isnan(b) ? a + b : min(a, b); break;
  case BINARY_OP_REMAINDER: value = remainder(a, b); break;
  }
  return true;
}

#include "main.glsl"
