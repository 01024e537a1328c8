// softmax.comp - softmax (FLAG0 0) or log_softmax (FLAG0 1) along one dim;
// iarg[0].x: its position among the eight. One workgroup per line
// (line.glsl): the line's maximum, the sum of exp(x - maximum), then the
// outputs.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

#define DUET_OWN_MAIN
#define DUET_NO_ELEMENT
#include "main.glsl"
#include "line.glsl"

void main() {
  int line = lineOfGroup();
  if (line >= P.work.x)
    return;
  Line l = lineAt(line, P.iarg[0].x);
  int t = int(gl_LocalInvocationID.x);
  float negInf = uintBitsToFloat(0xff800000u);
  bvec4 valid;
  vec4 largest = vec4(negInf);
  for (int s = t; s < l.steps; s += LINE_GROUP)
    largest = max(largest, lineLoad(l, s, negInf, valid));
  largest = lineTotal(l, groupReduce(largest, true), true);
  vec4 sum = vec4(0.0);
  for (int s = t; s < l.steps; s += LINE_GROUP) {
    vec4 x = lineLoad(l, s, negInf, valid);
    sum += mix(vec4(0.0), exp(x - largest), valid);
  }
  sum = lineTotal(l, groupReduce(sum, false), false);
  for (int s = t; s < l.steps; s += LINE_GROUP) {
    vec4 shifted = lineLoad(l, s, negInf, valid) - largest;
    lineStore(l, s, FLAG0 != 0 ? shifted - log(sum) : exp(shifted) / sum, valid);
  }
}
