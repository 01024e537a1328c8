// layernorm.comp - layer norm over the last dim with the biased variance, as
// PyTorch; FLAG0 / FLAG1: a weight / a bias is bound. farg[0].x: eps. One
// workgroup per row (line.glsl): the mean, the mean squared deviation from
// it, then the outputs.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)
WEIGHT(weight, 5)
WEIGHT(bias, 6)

#define DUET_OWN_MAIN
#define DUET_NO_ELEMENT
#include "main.glsl"
#include "line.glsl"

void main() {
  int line = lineOfGroup();
  if (line >= P.work.x)
    return;
  Line l = lineAt(line, 7);
  int t = int(gl_LocalInvocationID.x);
  float length = float(size(0, 7));
  bvec4 valid;
  vec4 sum = vec4(0.0);
  for (int s = t; s < l.steps; s += LINE_GROUP)
    sum += lineLoad(l, s, 0.0, valid);
  vec4 mean = lineTotal(l, groupReduce(sum, false), false) / length;
  vec4 squares = vec4(0.0);
  for (int s = t; s < l.steps; s += LINE_GROUP) {
    vec4 d = mix(vec4(0.0), lineLoad(l, s, 0.0, valid) - mean, valid);
    squares += d * d;
  }
  vec4 scale = inversesqrt(lineTotal(l, groupReduce(squares, false), false) / length +
                           P.farg[0].x);
  for (int s = t; s < l.steps; s += LINE_GROUP) {
    vec4 normalized = (lineLoad(l, s, 0.0, valid) - mean) * scale;
    for (int lane = 0; lane < 4; ++lane) {
      int idx[8];
      if (!lineIndex(l, s, lane, idx))
        continue;
      if (FLAG0 != 0)
        normalized[lane] *= weight.v[idx[7]];
      if (FLAG1 != 0)
        normalized[lane] += bias.v[idx[7]];
    }
    lineStore(l, s, normalized, valid);
  }
}
