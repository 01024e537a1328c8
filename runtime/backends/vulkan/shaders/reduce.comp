// reduce.comp - mean, sum or max over one or two dims. OP: vulkan.fbs's
// ReduceOp. iarg[0..1]: per input dim, the output dim it follows (-1: a
// reduced dim); iarg[2].xy: the reduced input dims (y -1 when only one).
// FLAG0: the group kernel, for long reductions (a global average pool): one
// workgroup per output work item, its invocations splitting the reduced
// elements between them and adding up through shared memory (line.glsl's
// groupReduce); else each invocation reduces its lanes alone. FLAG1 with
// FLAG0: the plane kernel, the group kernel of a reduction over H and W of
// a channels-packed texture into one (a global pool), however small the
// plane: whole texels, PLANE_LOADS loads in flight per invocation, no index
// arithmetic per element. (The sum of a product's depth parts is
// parts.comp.)
#version 450
#extension GL_EXT_control_flow_attributes : require
#include "tensor.glsl"

TENSOR_INPUT(src, 1, 2, IN0_PACKING)

// The input index of output element idx, reduced dims at 0.
void sourceIndex(int idx[8], out int at[8]) {
  for (int d = 0; d < 8; ++d) {
    int source = iarg8(0, d);
    at[d] = source >= 0 ? idx[source] : 0;
  }
}

float combine(float result, float x) {
  if (OP == REDUCE_OP_AMAX)
    return isnan(x) || x > result ? x : result;
  return result + x;
}

float initial() {
  return OP == REDUCE_OP_AMAX ? uintBitsToFloat(0xff800000u) : 0.0;
}

float finish(float result, int count) {
  return OP == REDUCE_OP_MEAN ? result / float(count) : result;
}

bool element(int idx[8], out float value) {
  int at[8];
  sourceIndex(idx, at);
  int first = P.iarg[2].x, second = P.iarg[2].y;
  int outer = size(1, first);
  int inner = second >= 0 ? size(1, second) : 1;
  float result = initial();
  for (int i = 0; i < outer; ++i) {
    at[first] = i;
    for (int j = 0; j < inner; ++j) {
      if (second >= 0)
        at[second] = j;
      result = combine(result, src_load(at));
    }
  }
  value = finish(result, outer * inner);
  return true;
}

#define DUET_OWN_MAIN
#include "main.glsl"
#include "line.glsl"

// groupReduce's max is GLSL's, which may drop a NaN: the group kernel
// carries "a NaN was seen" beside the maximum and puts it back.
void groupMain() {
  int item = lineOfGroup();
  if (item >= P.work.x)
    return;
  int first[8];
  itemIndex(item, first);
  int at[4][8];
  bool lanes[4];
  for (int lane = 0; lane < 4; ++lane) {
    int idx[8];
    lanes[lane] = laneIndex(item, first, lane, idx);
    sourceIndex(idx, at[lane]);
  }
  int a = P.iarg[2].x, b = P.iarg[2].y;
  int inner = b >= 0 ? size(1, b) : 1;
  int count = size(1, a) * inner;
  vec4 result = vec4(initial());
  vec4 nan = vec4(0.0);
  for (int r = int(gl_LocalInvocationID.x); r < count; r += LINE_GROUP) {
    for (int lane = 0; lane < 4; ++lane) {
      if (!lanes[lane])
        continue;
      at[lane][a] = r / inner;
      if (b >= 0)
        at[lane][b] = r % inner;
      float x = src_load(at[lane]);
      if (isnan(x))
        nan[lane] = 1.0;
      result[lane] = combine(result[lane], x);
    }
  }
  bool isMax = OP == REDUCE_OP_AMAX;
  result = groupReduce(result, isMax);
  if (isMax)
    nan = groupReduce(nan, true);
  if (gl_LocalInvocationID.x != 0)
    return;
  vec4 values = vec4(0.0);
  for (int lane = 0; lane < 4; ++lane)
    if (lanes[lane])
      values[lane] = nan[lane] != 0.0 ? uintBitsToFloat(0x7fc00000u)
                                      : finish(result[lane], count);
  storeItem(item, values, bvec4(false));
}

vec4 combine4(vec4 result, vec4 x) {
  return OP == REDUCE_OP_AMAX ? max(result, x) : result + x;
}

#ifndef INPUT_BUFFER
// Loads in flight per invocation of the plane kernel.
#define PLANE_LOADS 8

// Output texel `item` (layer item of a [N, C, 1, 1] image) from layer item
// of the input: the same channels of the same batch. Padding lanes read
// zeros and give zero.
void planeMain() {
  int item = lineOfGroup();
  if (item >= P.work.x)
    return;
  int inW = size(1, 7), count = size(1, 6) * inW;
  vec4 acc[PLANE_LOADS];
  [[unroll]] for (int a = 0; a < PLANE_LOADS; ++a)
    acc[a] = vec4(initial());
  vec4 nan = vec4(0.0);
  for (int p = int(gl_LocalInvocationID.x); p < count;
       p += PLANE_LOADS * LINE_GROUP) {
    vec4 x[PLANE_LOADS];
    [[unroll]] for (int a = 0; a < PLANE_LOADS; ++a) {
      int q = p + a * LINE_GROUP;
      x[a] = q < count ? inputTexel(src, ivec3(q % inW, q / inW, item))
                       : vec4(initial());
    }
    [[unroll]] for (int a = 0; a < PLANE_LOADS; ++a) {
      nan = max(nan, vec4(isnan(x[a])));
      acc[a] = combine4(acc[a], x[a]);
    }
  }
  [[unroll]] for (int a = 1; a < PLANE_LOADS; ++a)
    acc[0] = combine4(acc[0], acc[a]);
  bool isMax = OP == REDUCE_OP_AMAX;
  vec4 result = groupReduce(acc[0], isMax);
  if (isMax)
    nan = groupReduce(nan, true);
  if (gl_LocalInvocationID.x != 0)
    return;
  vec4 values;
  for (int lane = 0; lane < 4; ++lane)
    values[lane] = nan[lane] != 0.0 ? uintBitsToFloat(0x7fc00000u)
                                    : finish(result[lane], count);
  storeItem(item, values, bvec4(false));
}
#endif

void main() {
#ifndef INPUT_BUFFER
  if (FLAG0 != 0 && FLAG1 != 0) {
    planeMain();
    return;
  }
#endif
  if (FLAG0 != 0)
    groupMain();
  else
    elementMain();
}
