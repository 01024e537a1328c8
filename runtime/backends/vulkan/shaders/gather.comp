// gather.comp - data movement: each output element copies one input element
// (or the pad value). view reads the same row-major position; every other
// movement (permute, expand, slice, select, pad, clone, a piece of a split,
// a part of a concatenation, a layout conversion, staging to and from the
// host) maps each input dim affinely from one output dim, and repeat wraps
// that index around the input's size.
//
// OP: vulkan.fbs's GatherKind. FLAG0: what an index outside the input gives:
// 0 the pad value, 1 nothing (the output element is left as it is). FLAG1:
// the map is the identity between tensors of one shape (a copy: staging, a
// packed weight), which a copy from a buffer into a texture runs texel by
// texel, each lane at a fixed stride from the first; 2 (between textures,
// DispatchPlan's texel gathers): each output texel's four lanes are four
// consecutive elements of one input texel, from lane 0's source (the
// texelGather below).
// iarg[0..1]: per input dim, the output dim it follows (-1: none);
// iarg[2..3]: the scale; iarg[4..5]: the offset; farg[0].x: the pad value.
// Strided (a chain of movements in one): iarg[0..1] the stride of each
// output dim, iarg[2].x the base, in the input's row-major elements.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

bool element(int idx[8], out float value) {
  int at[8];
  if (OP == GATHER_KIND_STRIDED) {
    int offset = P.iarg[2].x;
    for (int d = 0; d < 8; ++d)
      offset += iarg8(0, d) * idx[d];
#ifdef INPUT_BUFFER
    value = src.v[offset];
    return true;
#else
    delinearize(1, offset, at);
#endif
  } else if (OP == GATHER_KIND_RESHAPE) {
    delinearize(1, offsetOf(0, idx), at);
  } else {
    for (int d = 0; d < 8; ++d) {
      int source = iarg8(0, d);
      at[d] = (source >= 0 ? idx[source] : 0) * iarg8(2, d) + iarg8(4, d);
      if (OP == GATHER_KIND_REPEAT)
        at[d] %= size(1, d);
      if (at[d] < 0 || at[d] >= size(1, d)) {
        value = P.farg[0].x;
        return FLAG0 == 0;
      }
    }
  }
  value = src_load(at);
  return true;
}

#define DUET_OWN_MAIN
#include "main.glsl"

#if defined(INPUT_BUFFER) && !defined(OUTPUT_BUFFER)
void copyTexel(int item) {
  int first[8];
  itemIndex(item, first);
  int base = offsetOf(1, first);
  int stride = OUT_PACKING == LAYOUT_CHANNELS_PACKED ? size(0, 6) * size(0, 7)
               : OUT_PACKING == LAYOUT_HEIGHT_PACKED ? size(0, 7)
                                                      : 1;
  vec4 values = vec4(0.0);
  for (int lane = 0; lane < 4; ++lane) {
    int idx[8];
    if (laneIndex(item, first, lane, idx))
      values[lane] = src.v[base + lane * stride];
  }
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  imageStore(outImg, ivec3(item % gx, (item / gx) % gy, item / (gx * gy)),
             imageValue(values));
}
#endif

#if !defined(INPUT_BUFFER) && !defined(OUTPUT_BUFFER)
// A gather between width-packed textures whose output texels each read one
// input texel (the plan checks the map: the last dims a multiple of four
// apart, the input's last dim following the output's at scale 1): lane 0's
// source index once, then the texel there; the pad value in the lanes an
// affine map puts outside the input, zero in the output's padding lanes.
void texelGather(int item) {
  int first[8], at[8];
  itemIndex(item, first);
  bool inside = true;
  if (OP == GATHER_KIND_STRIDED) {
    int offset = P.iarg[2].x;
    for (int d = 0; d < 8; ++d)
      offset += iarg8(0, d) * first[d];
    delinearize(1, offset, at);
  } else if (OP == GATHER_KIND_RESHAPE) {
    delinearize(1, offsetOf(0, first), at);
  } else {
    for (int d = 0; d < 8; ++d) {
      int source = iarg8(0, d);
      at[d] = (source >= 0 ? first[source] : 0) * iarg8(2, d) + iarg8(4, d);
      // The last dim's lanes are checked one by one below.
      if (d < 7 && (at[d] < 0 || at[d] >= size(1, d)))
        inside = false;
    }
  }
  vec4 value = vec4(P.farg[0].x);
  if (inside && at[7] >= 0 && at[7] < size(1, 7)) {
    bvec4 lanes = lessThan(ivec4(at[7]) + ivec4(0, 1, 2, 3), ivec4(size(1, 7)));
    value = mix(value, inputTexel(src, texelOf(1, IN0_PACKING, at).xyz), lanes);
  }
  bvec4 live =
      lessThan(ivec4(first[7]) + ivec4(0, 1, 2, 3), ivec4(size(0, 7)));
  storeItem(item, mix(vec4(0.0), value, live), bvec4(false));
}
#endif

void main() {
#if !defined(INPUT_BUFFER) && !defined(OUTPUT_BUFFER)
  if (FLAG1 == 2) {
    int item = workItem();
    if (item < P.work.x)
      texelGather(item);
    return;
  }
#endif
#if defined(INPUT_BUFFER) && !defined(OUTPUT_BUFFER)
  if (FLAG1 != 0) {
    int item = workItem();
    if (item < P.work.x)
      copyTexel(item);
    return;
  }
#endif
  elementMain();
}
