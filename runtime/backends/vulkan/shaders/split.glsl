// split.glsl - split sums: the `split` invocations that share a work item
// (DispatchPlan's Dispatch::split, iarg[3].x: a power of two up to the
// workgroup's size, consecutive in it) each add up every split-th step of
// its sums, then addSplits adds their partial sums through shared memory.
// A work item has SPLIT_SUMS vec4 sums (conv.comp's TEXEL_BLOCK output
// texels, matmul.comp's TEXEL_ROWS rows).

#define SPLIT_SUMS 4
shared vec4 splitSums[64][SPLIT_SUMS];

// The sums of the `split` invocations' `sum`s, in every one of them; `slice`
// is this invocation's place among them. Called by every invocation of the
// workgroup (uniform control flow), for the barriers.
void addSplits(inout vec4 sum[SPLIT_SUMS], int slice, int split) {
  if (split == 1)
    return;
  uint me = gl_LocalInvocationID.x;
  for (int r = 0; r < SPLIT_SUMS; ++r)
    splitSums[me][r] = sum[r];
  barrier();
  for (int halfSplit = split / 2; halfSplit > 0; halfSplit /= 2) {
    if (slice < halfSplit)
      for (int r = 0; r < SPLIT_SUMS; ++r)
        splitSums[me][r] += splitSums[me + halfSplit][r];
    barrier();
  }
  for (int r = 0; r < SPLIT_SUMS; ++r)
    sum[r] = splitSums[me][r];
}
