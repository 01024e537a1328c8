// line.glsl - kernels that compute whole lines: one workgroup per set of
// output elements that share every index but one dim (a softmax's dim, a
// layer norm's last), whose 64 invocations reduce along that line together
// through shared memory and then write the line. Each input element is read
// a fixed number of times however long the line is; an element kernel
// (main.glsl) reads the whole line again for every element it computes.
//
// Included after main.glsl by a shader that defines DUET_OWN_MAIN and reads
// its input as `src` (slot 1, binding 2; the same sizes as the output). Its
// main() takes line `lineOfGroup()` of P.work.x lines (DispatchPlan's
// `lineDim` sizes the dispatch to one workgroup per line).
//
// A texel's four lanes: four consecutive positions of one line when the
// output is packed along the line's dim ("along"), else four lines side by
// side along the packed dim, reduced at once as a vec4. In a buffer output
// (row-major) a work item holds one line, in lane 0.

#define LINE_GROUP 64
shared vec4 lineShared[LINE_GROUP];

int lineOfGroup() {
  return int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
}

// The dim the output's texels pack (7 width, 6 height, 5 channels), or -1
// for a buffer.
int outputPackedDim() {
#ifdef OUTPUT_BUFFER
  return -1;
#else
  return OUT_PACKING == LAYOUT_WIDTH_PACKED    ? 7
         : OUT_PACKING == LAYOUT_HEIGHT_PACKED ? 6
                                               : 5;
#endif
}

// The sum, or the maximum, of `v` over the workgroup; every invocation gets
// it. Called in uniform control flow.
vec4 groupReduce(vec4 v, bool isMax) {
  uint t = gl_LocalInvocationID.x;
  lineShared[t] = v;
  barrier();
  for (uint stride = LINE_GROUP / 2; stride > 0; stride >>= 1) {
    if (t < stride) {
      vec4 other = lineShared[t + stride];
      lineShared[t] = isMax ? max(lineShared[t], other) : lineShared[t] + other;
    }
    barrier();
  }
  vec4 result = lineShared[0];
  barrier();
  return result;
}

struct Line {
  int base[8]; // the index of lane 0 at position 0
  int dim;     // the line's dim
  int packed;  // outputPackedDim()
  int steps;   // texels (along) or elements of the line
  // In a texture output: the texel of step 0, and what each step adds to
  // it (texelOf is linear in every index, the packed one counted in
  // texels); the lanes that are elements where that does not change along
  // the line (not along).
  ivec3 origin;
  ivec3 delta;
  bvec4 lanes;
};

Line lineAt(int line, int dim) {
  Line l;
  l.dim = dim;
  l.packed = outputPackedDim();
  for (int d = 7; d >= 0; --d) {
    int s = d == dim ? 1 : d == l.packed ? (size(0, d) + 3) / 4 : size(0, d);
    l.base[d] = line % s;
    line /= s;
  }
  if (l.packed >= 0 && l.packed != dim)
    l.base[l.packed] *= 4;
  l.steps = l.packed == dim ? (size(0, dim) + 3) / 4 : size(0, dim);
#ifndef OUTPUT_BUFFER
  l.origin = texelOf(0, OUT_PACKING, l.base).xyz;
  // A step adds one to the line's index (one texel when along): x for W, y
  // for H, z for C (channels-packed, a texel of four) and for N, whose z
  // stride is the channels (or the channel texels).
  l.delta = dim == 7   ? ivec3(1, 0, 0)
            : dim == 6 ? ivec3(0, 1, 0)
            : dim == 5 ? ivec3(0, 0, 1)
            : ivec3(0, 0,
                    OUT_PACKING == LAYOUT_CHANNELS_PACKED ? P.t[0].geom.z
                                                          : size(0, 5));
  l.lanes = l.packed == dim
                ? bvec4(true)
                : lessThan(ivec4(l.base[l.packed]) + ivec4(0, 1, 2, 3),
                           ivec4(size(0, l.packed)));
#endif
  return l;
}

bool along(Line l) { return l.packed == l.dim; }

#ifndef OUTPUT_BUFFER
// The lanes of `step` that are elements, in a texture output.
bvec4 texelLanes(Line l, int step) {
  return along(l) ? lessThan(ivec4(step * 4) + ivec4(0, 1, 2, 3),
                             ivec4(size(0, l.dim)))
                  : l.lanes;
}
#endif

// The index of lane `lane` at step `step`; false where it is no element.
bool lineIndex(Line l, int step, int lane, out int idx[8]) {
  idx = l.base;
  if (along(l)) {
    idx[l.dim] = step * 4 + lane;
    return idx[l.dim] < size(0, l.dim);
  }
  idx[l.dim] = step;
  if (l.packed < 0)
    return lane == 0;
  idx[l.packed] += lane;
  return idx[l.packed] < size(0, l.packed);
}

// The input's four lanes at `step`, `pad` where a lane is no element.
vec4 lineLoad(Line l, int step, float pad, out bvec4 valid) {
  vec4 v = vec4(pad);
  int idx[8];
#if !defined(INPUT_BUFFER) && !defined(OUTPUT_BUFFER)
  // The input has the output's sizes, so in the same packing its texels.
  if (IN0_PACKING == OUT_PACKING) {
    valid = texelLanes(l, step);
    return mix(v, inputTexel(src, l.origin + step * l.delta), valid);
  }
#endif
  for (int lane = 0; lane < 4; ++lane) {
    valid[lane] = lineIndex(l, step, lane, idx);
    if (valid[lane])
      v[lane] = src_load(idx);
  }
  return v;
}

// Writes the lanes at `step` (zero where a lane is no element).
void lineStore(Line l, int step, vec4 v, bvec4 valid) {
#ifdef OUTPUT_BUFFER
  int idx[8];
  lineIndex(l, step, 0, idx);
  outBuf.v[offsetOf(0, idx)] = v[0];
#else
  imageStore(outImg, l.origin + step * l.delta,
             imageValue(mix(vec4(0.0), v, valid)));
#endif
}

// A per-lane reduction combined over the lanes of one line (along), else
// kept per lane.
vec4 lineTotal(Line l, vec4 v, bool isMax) {
  if (!along(l))
    return v;
  float r = isMax ? max(max(v.x, v.y), max(v.z, v.w)) : (v.x + v.y) + (v.z + v.w);
  return vec4(r);
}
