// main.glsl - the entry point every duet shader shares. Included after the
// op's `bool element(int idx[8], out float value)`, which computes output
// element idx, or returns false to leave it as it is (a concatenation writes
// each input's part of the output in its own dispatch). A shader with kernels
// of its own for some dispatches defines DUET_OWN_MAIN before including this
// file and its own main(), which calls elementMain() for the others; one
// with no element kernel at all defines DUET_NO_ELEMENT too, and no
// element().

#ifdef OUTPUT_BUFFER
layout(std430, set = 0, binding = 1) buffer OutputBlock { float v[]; } outBuf;
#else
layout(set = 0, binding = 1, IMAGE_FORMAT) uniform image3D outImg;
#endif

void storeItem(int item, vec4 values, bvec4 kept);

// The work item of this invocation; P.work.x or more past the last one.
int workItem() {
  return int((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) *
                 gl_WorkGroupSize.x +
             gl_LocalInvocationID.x);
}

#ifndef DUET_NO_ELEMENT
// The index of lane 0 of work item `item`. Lanes differ from it only along
// a texture's packed dim or, in a buffer, by consecutive row-major offsets,
// so laneIndex derives each lane's without the integer divisions that
// lavapipe runs lane by lane.
void itemIndex(int item, out int first[8]) {
  for (int d = 0; d < 8; ++d)
    first[d] = 0;
#ifdef OUTPUT_BUFFER
  delinearize(0, min(item * 4, numel(0) - 1), first);
#else
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  int x = item % gx, y = (item / gx) % gy, z = item / (gx * gy);
  if (OUT_PACKING == LAYOUT_CHANNELS_PACKED) {
    int texels = P.t[0].geom.z;
    first[4] = z / texels;
    first[5] = (z % texels) * 4;
    first[6] = y;
    first[7] = x;
  } else {
    first[4] = z / size(0, 5);
    first[5] = z % size(0, 5);
    first[6] = OUT_PACKING == LAYOUT_HEIGHT_PACKED ? y * 4 : y;
    first[7] = OUT_PACKING == LAYOUT_WIDTH_PACKED ? x * 4 : x;
  }
#endif
}

// The index of lane `lane` of work item `item`, whose lane 0 is at `first`
// (itemIndex); false past the tensor's end (the padding lanes of a texel).
bool laneIndex(int item, int first[8], int lane, out int idx[8]) {
  idx = first;
#ifdef OUTPUT_BUFFER
  if (item * 4 + lane >= numel(0))
    return false;
  // Row-major: add `lane` to the last dim, carrying one at a time.
  for (int step = 0; step < lane; ++step) {
    idx[7] += 1;
    for (int d = 7; d > 0 && idx[d] >= size(0, d); --d) {
      idx[d] = 0;
      idx[d - 1] += 1;
    }
  }
  return true;
#else
  if (OUT_PACKING == LAYOUT_CHANNELS_PACKED)
    idx[5] += lane;
  else if (OUT_PACKING == LAYOUT_HEIGHT_PACKED)
    idx[6] += lane;
  else
    idx[7] += lane;
  return idx[5] < size(0, 5) && idx[6] < size(0, 6) && idx[7] < size(0, 7);
#endif
}

void elementMain() {
  int item = workItem();
  if (item >= P.work.x)
    return;
  vec4 values = vec4(0.0);
  // Lanes that are elements of the output and that the op leaves alone.
  bvec4 kept = bvec4(false);
  bool wrote = false;
  int first[8];
  itemIndex(item, first);
  for (int lane = 0; lane < 4; ++lane) {
    int idx[8];
    float value;
    if (!laneIndex(item, first, lane, idx))
      continue;
    if (element(idx, value)) {
      values[lane] = value;
      wrote = true;
    } else {
      kept[lane] = true;
    }
  }
  if (wrote)
    storeItem(item, values, kept);
}

#endif

// Writes the lanes of work item `item` that are not `kept`.
void storeItem(int item, vec4 values, bvec4 kept) {
#ifdef OUTPUT_BUFFER
  for (int lane = 0; lane < 4; ++lane)
    if (!kept[lane] && item * 4 + lane < numel(0))
      outBuf.v[item * 4 + lane] = values[lane];
#else
  ivec3 texel = ivec3(item % P.t[0].geom.x,
                      (item / P.t[0].geom.x) % P.t[0].geom.y,
                      item / (P.t[0].geom.x * P.t[0].geom.y));
  if (any(kept)) {
    vec4 old = imageLoad(outImg, texel);
    for (int lane = 0; lane < 4; ++lane)
      if (kept[lane])
        values[lane] = old[lane];
  }
  imageStore(outImg, texel, imageValue(values));
#endif
}

#ifndef DUET_OWN_MAIN
void main() { elementMain(); }
#endif
