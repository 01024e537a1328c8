// fault.comp - a planted fault (duet-run --inject-fault, runtime/core/
// Faults.h): every element of the output, in place, becomes x * a + b, with
// farg[0].xy = (a, b): (1, VALUE) adds VALUE, (0, 0) zeroes, (1, NaN) makes
// NaN. It binds no input: it reads the tensor it writes, each invocation
// its own texel or four elements, after the op that computed them.
#version 450
#include "tensor.glsl"

bool element(int idx[8], out float value) {
  value = 0.0;
  return false;
}

#define DUET_OWN_MAIN
#include "main.glsl"

void main() {
  int item = workItem();
  if (item >= P.work.x)
    return;
  float a = P.farg[0].x, b = P.farg[0].y;
#ifdef OUTPUT_BUFFER
  for (int lane = 0; lane < 4; ++lane)
    if (item * 4 + lane < numel(0))
      outBuf.v[item * 4 + lane] = outBuf.v[item * 4 + lane] * a + b;
#else
  ivec3 texel = ivec3(item % P.t[0].geom.x,
                      (item / P.t[0].geom.x) % P.t[0].geom.y,
                      item / (P.t[0].geom.x * P.t[0].geom.y));
  vec4 x = imageLoad(outImg, texel);
  // Padding lanes stay as they are: kernels may rely on them being 0.
  int first[8];
  itemIndex(item, first);
  for (int lane = 0; lane < 4; ++lane) {
    int idx[8];
    if (laneIndex(item, first, lane, idx))
      x[lane] = x[lane] * a + b;
  }
  imageStore(outImg, texel, imageValue(x));
#endif
}
