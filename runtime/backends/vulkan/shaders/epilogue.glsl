// epilogue.glsl - what a product's dispatch does to a texel of its result
// before it stores it: the elementwise ops after the product that the plan
// folded into its dispatch (DispatchPlan's epilogues, docs/vulkan.md).
// First, where iarg[7].x is not zero, it adds farg[1].w times the texel at
// the same place of `addend` (an input image the includer declares, of the
// output's shape and layout): an add or sub with a tensor, such as a
// residual. Then, where OP is not zero, it applies activation.glsl's
// UnaryOp OP - 1 with parameters farg[1].xyz to each lane. The dispatch of
// a product without one has OP 0 and iarg[7].x 0, and binds its first
// input as `addend`.

#include "activation.glsl"

//
// Each step first rounds its operand as the image store of the op before it
// would (imageValue: to fp16 in the --force-fp16 builds, nothing in fp32),
// so that an epilogue gives the values of the dispatches it replaces: fp16
// programs keep the numerics they were checked with on the H200.

vec4 epilogue(vec4 value, ivec3 at) {
  // Uniform reads before the tests (see matmul.comp's tileRhs).
  int adds = P.iarg[7].x;
  vec4 a = P.farg[1];
  if (adds != 0)
    value = imageValue(value) + a.w * inputTexel(addend, at);
  if (OP != 0) {
    value = imageValue(value);
    [[unroll]] for (int lane = 0; lane < 4; ++lane)
      value[lane] = unaryValue(OP - 1, value[lane], a);
  }
  return value;
}
