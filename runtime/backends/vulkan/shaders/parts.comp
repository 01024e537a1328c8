// parts.comp - the sum of a product's depth parts (tile.glsl,
// DispatchPlan's addProduct), with the product's epilogue (epilogue.glsl).
// Output texel (x, y, z) adds input texels (x, y, z + p * iarg[0].x) of
// the partial sums for p < iarg[0].y, iarg[0].x being the output's layers.
// Input 1 is the epilogue's addend (the partial sums again where it has
// none). Width-packed textures only, as the products write; the lanes past
// the last column are written as zeros.
#version 450
#extension GL_EXT_control_flow_attributes : require
#include "tensor.glsl"

INPUT_IMAGE(partials, 2);
INPUT_IMAGE(addend, 3);

#include "epilogue.glsl"

#define DUET_OWN_MAIN
#define DUET_NO_ELEMENT
#include "main.glsl"

void main() {
  int item = workItem();
  if (item >= P.work.x)
    return;
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  int layers = P.iarg[0].x, parts = P.iarg[0].y;
  ivec3 at = ivec3(item % gx, item / gx % gy, item / (gx * gy));
  vec4 sum = inputTexel(partials, at);
  for (int p = 1; p < parts; ++p)
    sum += inputTexel(partials, ivec3(at.xy, at.z + p * layers));
  bvec4 live = lessThan(ivec4(at.x * 4) + ivec4(0, 1, 2, 3), ivec4(size(0, 7)));
  imageStore(outImg, at, imageValue(mix(vec4(0.0), epilogue(sum, at), live)));
}
