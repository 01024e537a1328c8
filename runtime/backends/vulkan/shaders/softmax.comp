// softmax.comp - softmax (FLAG0 0) or log_softmax (FLAG0 1) along one dim;
// iarg[0].x: its position among the eight. FLAG1: safe, a line of nothing
// but -inf gives 0 (PyTorch's _safe_softmax), not NaN. One workgroup per line
// (line.glsl): the line's maximum, the sum of exp(x - maximum), then the
// outputs; a line of up to LINE_GROUP * CACHED_STEPS texels is read once
// into registers. OP 1 (a softmax along the width of width-packed
// textures that the matmul after it reads from its input, DispatchPlan's
// softmaxReadInPlace): the statistics alone, texel (maximum, sum, 0, 0) at
// x 0 of the line's row and layer, which matmul.comp's lhsTexel turns into
// the softmax as softmaxOf below does.
#version 450
#extension GL_EXT_control_flow_attributes : require
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

#define DUET_OWN_MAIN
#define DUET_NO_ELEMENT
#include "main.glsl"
#include "line.glsl"

// Texels per invocation that a line of at most LINE_GROUP * CACHED_STEPS
// texels keeps in registers: read once, all loads in flight at once,
// instead of three passes that each wait for memory step by step.
#define CACHED_STEPS 8

// The softmax of `shifted` (x - largest) over `sum`; 0 for a safe one's
// line of nothing but -inf.
vec4 softmaxOf(vec4 shifted, vec4 sum, vec4 largest) {
  if (FLAG0 != 0)
    return shifted - log(sum);
  vec4 y = exp(shifted) / sum;
  bvec4 empty = equal(largest, vec4(uintBitsToFloat(0xff800000u)));
  return FLAG1 != 0 ? mix(y, vec4(0.0), empty) : y;
}

// OP 1: the line's statistics, by its first invocation.
void storeStatistics(Line l, int t, vec4 largest, vec4 sum) {
#ifndef OUTPUT_BUFFER
  if (t == 0)
    imageStore(outImg, ivec3(0, l.origin.yz), vec4(largest.x, sum.x, 0.0, 0.0));
#endif
}

void main() {
  int line = lineOfGroup();
  if (line >= P.work.x)
    return;
  Line l = lineAt(line, P.iarg[0].x);
  int t = int(gl_LocalInvocationID.x);
  float negInf = uintBitsToFloat(0xff800000u);
  bvec4 valid;
  vec4 largest = vec4(negInf);
  if (l.steps <= LINE_GROUP * CACHED_STEPS) {
    vec4 x[CACHED_STEPS];
    bvec4 ok[CACHED_STEPS];
    [[unroll]] for (int i = 0; i < CACHED_STEPS; ++i) {
      int step = t + i * LINE_GROUP;
      ok[i] = bvec4(false);
      x[i] = step < l.steps ? lineLoad(l, step, negInf, ok[i]) : vec4(negInf);
      largest = max(largest, x[i]);
    }
    largest = lineTotal(l, groupReduce(largest, true), true);
    vec4 sum = vec4(0.0);
    [[unroll]] for (int i = 0; i < CACHED_STEPS; ++i)
      sum += mix(vec4(0.0), exp(x[i] - largest), ok[i]);
    sum = lineTotal(l, groupReduce(sum, false), false);
    if (OP == 1) {
      storeStatistics(l, t, largest, sum);
      return;
    }
    [[unroll]] for (int i = 0; i < CACHED_STEPS; ++i) {
      int step = t + i * LINE_GROUP;
      vec4 shifted = x[i] - largest;
      if (step < l.steps)
        lineStore(l, step, softmaxOf(shifted, sum, largest), ok[i]);
    }
    return;
  }
  for (int s = t; s < l.steps; s += LINE_GROUP)
    largest = max(largest, lineLoad(l, s, negInf, valid));
  largest = lineTotal(l, groupReduce(largest, true), true);
  vec4 sum = vec4(0.0);
  for (int s = t; s < l.steps; s += LINE_GROUP) {
    vec4 x = lineLoad(l, s, negInf, valid);
    sum += mix(vec4(0.0), exp(x - largest), valid);
  }
  sum = lineTotal(l, groupReduce(sum, false), false);
  if (OP == 1) {
    storeStatistics(l, t, largest, sum);
    return;
  }
  for (int s = t; s < l.steps; s += LINE_GROUP) {
    vec4 shifted = lineLoad(l, s, negInf, valid) - largest;
    lineStore(l, s, softmaxOf(shifted, sum, largest), valid);
  }
}
