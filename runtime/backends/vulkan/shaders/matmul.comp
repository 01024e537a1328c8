// matmul.comp - matrix products over the last two dims, batch dims
// broadcast. Variants: the default multiplies two tensors (mm, bmm, matmul);
// -DADD_INPUT adds beta * a third tensor, broadcast, to alpha times the
// product (addmm); -DLINEAR multiplies by the transpose of a weight
// [out, in] and adds a bias [out] when FLAG0 is set (linear).
// farg[0].xy: alpha, beta. -DLINEAR -DTEXEL_KERNELS (the
// matmul_linear_texel family, textures only) is a linear between
// width-packed textures computing whole output texels (four output
// features), reading each input texel of its rows once; its
// weight is a width-packed texture [out, in] packed at load (input slot 2,
// binding 3; conv.comp says why a texture), zero past its end. -DTEXEL_KERNELS
// alone (matmul_texel) is a matmul between width-packed textures whose batch
// dims are the same. Both compute four rows of an output texel column (four
// features or columns) per invocation, each weight or rhs texel fetched once
// for the four rows.
// iarg[3].x of either: the invocations that share each output texel,
// splitting its row. With -DTILE_KERNEL (DispatchPlan picks it for products
// of many rows and columns; FLAG1 holds its number too): a tiled kernel
// instead, one workgroup per output tile, which stages TILE_DEPTH-deep
// slices of both operands in shared memory so that each texel of them is
// fetched once per tile, not once per four rows. -DTILE_KERNEL=1 (the
// matmul_tiled and matmul_linear_tiled families): tiles of TILE_ROWS rows
// by TILE_TEXELS texels; -DTILE_KERNEL=2 (the _big ones, for outputs with
// enough of them): tiles of BIG_ROWS by BIG_TEXELS; -DTILE_KERNEL=3 (the
// _split ones, for few small tiles of long sums): the small tile computed by
// TILE_SPLIT groups of 64 invocations, each summing every TILE_SPLIT-th
// slice, their sums added at the end. Each is a shader of its own, so that
// no kernel carries another's registers and shared memory.
#version 450
#extension GL_EXT_control_flow_attributes : require
#if TILE_KERNEL == 3
#define TILE_SPLIT 2
#define LOCAL_SIZE_X (64 * TILE_SPLIT)
#else
#define TILE_SPLIT 1
#endif
#include "tensor.glsl"

TENSOR_INPUT(lhs, 1, 2, IN0_PACKING)
#if defined(LINEAR) && defined(TEXEL_KERNELS)
INPUT_IMAGE(packedWeight, 3);
WEIGHT(bias, 6)
#elif defined(LINEAR)
WEIGHT(weight, 5)
WEIGHT(bias, 6)
#else
TENSOR_INPUT(rhs, 2, 3, IN1_PACKING)
#endif
#ifdef ADD_INPUT
TENSOR_INPUT(addend, 3, 4, IN2_PACKING)
#endif

#ifndef TEXEL_KERNELS
bool element(int idx[8], out float value) {
  int depth = size(1, 7);
  int a[8];
  broadcastIndex(1, idx, a);
  a[6] = idx[6];
  float sum = 0.0;
#ifdef LINEAR
  int row = idx[7] * depth;
  for (int k = 0; k < depth; ++k) {
    a[7] = k;
    sum += lhs_load(a) * weight.v[row + k];
  }
  value = FLAG0 != 0 ? sum + bias.v[idx[7]] : sum;
#else
  int b[8];
  broadcastIndex(2, idx, b);
  b[7] = idx[7];
  for (int k = 0; k < depth; ++k) {
    a[7] = k;
    b[6] = k;
    sum += lhs_load(a) * rhs_load(b);
  }
#ifdef ADD_INPUT
  int c[8];
  broadcastIndex(3, idx, c);
  value = P.farg[0].y * addend_load(c) + P.farg[0].x * sum;
#else
  value = sum;
#endif
#endif
  return true;
}

#include "main.glsl"

#else
#define DUET_OWN_MAIN
#define DUET_NO_ELEMENT
#include "main.glsl"

// Output rows per invocation of either texel kernel: each weight or rhs
// texel fetched serves all of them. DispatchPlan.h's kMatMulTexelRows,
// which sizes the work (Dispatch::itemHeight).
#define TEXEL_ROWS 4

#ifndef TILE_KERNEL
#include "split.glsl"
#if SPLIT_SUMS != TEXEL_ROWS
#error "split.glsl adds TEXEL_ROWS sums per work item"
#endif

// Work item `item`: output texel column x of rows y0 .. y0 + TEXEL_ROWS - 1
// (those inside the image) in layer z. `slice` of the `split` invocations
// computing it; every invocation of the workgroup calls the kernel
// (`inRange` false past the last item), for the barriers.
ivec3 itemTexel(int item) {
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  int rowBlocks = (gy + TEXEL_ROWS - 1) / TEXEL_ROWS;
  return ivec3(item % gx, (item / gx) % rowBlocks * TEXEL_ROWS,
               item / (gx * rowBlocks));
}
#endif

// The lhs texel of row y at input texel t, zero past the depth and for a
// row past the end.
MVEC4 lhsTexel(int t, int y, int z, int depth) {
  if (y >= P.t[0].geom.y)
    return MVEC4(0.0);
  vec4 x = inputTexel(lhs, ivec3(t, y, z));
  if (t * 4 + 4 > depth)
    x = mix(vec4(0.0), x, lessThan(ivec4(t * 4) + ivec4(0, 1, 2, 3), ivec4(depth)));
  return MVEC4(x);
}

void storeRows(ivec3 at, vec4 sum[TEXEL_ROWS], bvec4 live) {
  for (int r = 0; r < TEXEL_ROWS && at.y + r < P.t[0].geom.y; ++r)
    imageStore(outImg, ivec3(at.x, at.y + r, at.z),
               imageValue(mix(vec4(0.0), sum[r], live)));
}

// The bias (FLAG0) of output texel column x for `live` lanes; zero for a
// matmul.
vec4 biasTexel(int x, bvec4 live) {
  vec4 b = vec4(0.0);
#ifdef LINEAR
  if (FLAG0 != 0)
    for (int l = 0; l < 4; ++l)
      if (live[l])
        b[l] = bias.v[x * 4 + l];
#endif
  return b;
}

#ifndef TILE_KERNEL
#ifdef LINEAR
// The bias (FLAG0) of output texel column x, added to each of its rows;
// padding lanes get none.
void addBias(inout vec4 sum[TEXEL_ROWS], int x, bvec4 live) {
  vec4 b = biasTexel(x, live);
  for (int r = 0; r < TEXEL_ROWS; ++r)
    sum[r] += b;
}

// A linear: each row of the input (the input and output sharing their
// leading dims) times four rows of the weight, the output's four features.
void texelKernel(int item, int slice, int split, bool inRange) {
  ivec3 at = itemTexel(item);
  int depth = size(1, 7), features = size(0, 7);
  ivec4 n = ivec4(at.x * 4) + ivec4(0, 1, 2, 3);
  bvec4 live = lessThan(n, ivec4(features));
  // Padding lanes read the last feature's weights; their sums are dropped.
  ivec4 nRead = min(n, ivec4(features - 1));
  vec4 sum[TEXEL_ROWS];
  for (int r = 0; r < TEXEL_ROWS; ++r)
    sum[r] = vec4(0.0);
  int texels = (depth + 3) / 4;
  for (int t = inRange ? slice : texels; t < texels; t += split) {
    // Column l: feature l's weights for input texel t.
    MMAT4 w = MMAT4(MVEC4(inputTexel(packedWeight, ivec3(t, nRead.x, 0))),
                    MVEC4(inputTexel(packedWeight, ivec3(t, nRead.y, 0))),
                    MVEC4(inputTexel(packedWeight, ivec3(t, nRead.z, 0))),
                    MVEC4(inputTexel(packedWeight, ivec3(t, nRead.w, 0))));
    for (int r = 0; r < TEXEL_ROWS; ++r)
      sum[r] += vec4(lhsTexel(t, at.y + r, at.z, depth) * w);
  }
  addSplits(sum, slice, split);
  if (!inRange || slice != 0)
    return;
  addBias(sum, at.x, live);
  storeRows(at, sum, live);
}
#else
// A matmul: rows of the lhs layer (their texels along the depth) times the
// rhs layer's rows k, the texel of the output's four columns in each.
void texelKernel(int item, int slice, int split, bool inRange) {
  ivec3 at = itemTexel(item);
  int depth = size(1, 7), columns = size(0, 7);
  bvec4 live = lessThan(ivec4(at.x * 4) + ivec4(0, 1, 2, 3), ivec4(columns));
  vec4 sum[TEXEL_ROWS];
  for (int r = 0; r < TEXEL_ROWS; ++r)
    sum[r] = vec4(0.0);
  int texels = (depth + 3) / 4;
  for (int t = inRange ? slice : texels; t < texels; t += split) {
    int k = t * 4;
    // Rows k..k+3 of the rhs, zero past the depth (as the lhs lanes are).
    MVEC4 b[4];
    for (int l = 0; l < 4; ++l)
      b[l] = k + l < depth ? MVEC4(inputTexel(rhs, ivec3(at.x, k + l, at.z)))
                           : MVEC4(0.0);
    for (int r = 0; r < TEXEL_ROWS; ++r) {
      MVEC4 x = lhsTexel(t, at.y + r, at.z, depth);
      sum[r] += vec4(x.x * b[0] + x.y * b[1] + x.z * b[2] + x.w * b[3]);
    }
  }
  addSplits(sum, slice, split);
  if (inRange && slice == 0)
    storeRows(at, sum, live);
}
#endif

void main() {
  int split = max(P.iarg[3].x, 1);
  int invocation = workItem();
  int item = invocation / split;
  texelKernel(item, invocation % split, split, item < P.work.x);
}
#else
// The lhs texel j of a slab TILE_DEPTH deep at depth k0 of `rows` rows from
// row y0: row j % rows, texel j / rows of the slab; zero past the depth.
MVEC4 slabLhs(int j, int rows, int k0, int y0, int z, int depth) {
  int kt = k0 / 4 + j / rows;
  return kt * 4 < depth ? lhsTexel(kt, y0 + j % rows, z, depth) : MVEC4(0.0);
}

#ifdef LINEAR
// The weight texel j of a slab at depth k0 of `features` features from
// feature f0: feature j % features, texel j / features of the slab (the
// feature's weights at four depths); zero past the features and the depth.
MVEC4 slabRhs(int j, int features, int k0, int f0, int depth, int columns) {
  int feature = f0 + j % features, kt = k0 / 4 + j / features;
  return feature < columns && kt * 4 < depth
             ? MVEC4(inputTexel(packedWeight, ivec3(kt, feature, 0)))
             : MVEC4(0.0);
}
#else
// The rhs texel j of a slab at depth k0 of `texels` texels from texel x0:
// texel j % texels of row k0 + j / texels; zero past both.
MVEC4 slabRhs(int j, int texels, int k0, int x0, int depth, int gx, int z) {
  int x = x0 + j % texels, k = k0 + j / texels;
  return k < depth && x < gx ? MVEC4(inputTexel(rhs, ivec3(x, k, z)))
                             : MVEC4(0.0);
}
#endif

// Both tiled kernels stage TILE_DEPTH-deep slices of the operands in shared
// memory and load the next slice into registers while they compute on the
// current one, so a workgroup waits for memory once per slice at most.
#define TILE_DEPTH 16

// Tile `tile` of `rows` x `texels`: its first texel, row and layer.
ivec3 tileOrigin(int tile, int rows, int texels) {
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  int tilesX = (gx + texels - 1) / texels;
  int tilesY = (gy + rows - 1) / rows;
  return ivec3(tile % tilesX * texels, tile / tilesX % tilesY * rows,
               tile / (tilesX * tilesY));
}

#if TILE_KERNEL == 1 || TILE_KERNEL == 3
// The small tile (-DTILE_KERNEL=1): DispatchPlan.h's kMatMulTileRows and
// kMatMulTileTexels (Dispatch::itemHeight, itemWidth). Its 8 x 8
// invocations each compute one output texel of four rows. The split one
// (-DTILE_KERNEL=3, kMatMulSplitGroups) has TILE_SPLIT such groups of 64
// (`g`), each with its own shared tiles; group g takes slices g, g +
// TILE_SPLIT, ..., so all run the same number of steps (and barriers).
#define TILE_ROWS 32
#define TILE_TEXELS 8
#if TILE_ROWS / TEXEL_ROWS * TILE_TEXELS != 64 || TEXEL_ROWS != 4
#error "the tile's invocations (four rows each) are the workgroup's 64"
#endif
// Slab texels per invocation: TILE_ROWS (or TILE_TEXELS * 4 features, or
// TILE_DEPTH rhs rows of TILE_TEXELS) times TILE_DEPTH / 4, over 64.
#define TILE_LOADS 2
// tileA[k][m / 4][m % 4]: lhs row m of the tile at depth k0 + k;
// tileB[k][x]: the four columns of tile texel x at depth k0 + k (for a
// linear, the weight's features transposed).
shared MVEC4 tileA[TILE_SPLIT][TILE_DEPTH][TILE_ROWS / 4];
shared MVEC4 tileB[TILE_SPLIT][TILE_DEPTH][TILE_TEXELS];
#if TILE_SPLIT > 1
// The sums of groups 1.., which group 0 adds to its own.
shared vec4 splitSums[TILE_SPLIT - 1][64][TEXEL_ROWS];
#endif


void smallTileKernel(int tile) {
  ivec3 o = tileOrigin(tile, TILE_ROWS, TILE_TEXELS);
  int x0 = o.x, y0 = o.y, z = o.z;
  int gx = P.t[0].geom.x;
  int me = int(gl_LocalInvocationID.x) % 64;
  int g = int(gl_LocalInvocationID.x) / 64;
  int tx = me % TILE_TEXELS, ty = me / TILE_TEXELS;
  int depth = size(1, 7), columns = size(0, 7);
  vec4 sum[TEXEL_ROWS];
  [[unroll]] for (int r = 0; r < TEXEL_ROWS; ++r)
    sum[r] = vec4(0.0);
  MVEC4 la[TILE_LOADS], lb[TILE_LOADS];
  int first = g * TILE_DEPTH;
  [[unroll]] for (int i = 0; i < TILE_LOADS; ++i) {
    la[i] = slabLhs(me + 64 * i, TILE_ROWS, first, y0, z, depth);
#ifdef LINEAR
    lb[i] = slabRhs(me + 64 * i, TILE_TEXELS * 4, first, x0 * 4, depth,
                    columns);
#else
    lb[i] = slabRhs(me + 64 * i, TILE_TEXELS, first, x0, depth, gx, z);
#endif
  }
  // Every group the same steps: past the depth its slices are zeros.
  int stride = TILE_DEPTH * TILE_SPLIT;
  int steps = (depth + stride - 1) / stride;
  for (int step = 0, k0 = first; step < steps; ++step, k0 += stride) {
    [[unroll]] for (int i = 0; i < TILE_LOADS; ++i) {
      int j = me + 64 * i;
      int row = j % TILE_ROWS, t = j / TILE_ROWS;
      [[unroll]] for (int c = 0; c < 4; ++c)
        tileA[g][t * 4 + c][row / 4][row % 4] = la[i][c];
#ifdef LINEAR
      int n = j % (TILE_TEXELS * 4), tb = j / (TILE_TEXELS * 4);
      [[unroll]] for (int c = 0; c < 4; ++c)
        tileB[g][tb * 4 + c][n / 4][n % 4] = lb[i][c];
#else
      tileB[g][j / TILE_TEXELS][j % TILE_TEXELS] = lb[i];
#endif
    }
    barrier();
    int next = k0 + stride;
    // Split, a group's last step may start past the depth: it loads the
    // zeros the slab functions give there, not the slice before again.
    if (TILE_SPLIT > 1 || next < depth)
      [[unroll]] for (int i = 0; i < TILE_LOADS; ++i) {
        la[i] = slabLhs(me + 64 * i, TILE_ROWS, next, y0, z, depth);
#ifdef LINEAR
        lb[i] = slabRhs(me + 64 * i, TILE_TEXELS * 4, next, x0 * 4, depth,
                        columns);
#else
        lb[i] = slabRhs(me + 64 * i, TILE_TEXELS, next, x0, depth, gx, z);
#endif
      }
    // The slice's sums, added to the running ones once per slice.
    MVEC4 part[TEXEL_ROWS];
    [[unroll]] for (int r = 0; r < TEXEL_ROWS; ++r)
      part[r] = MVEC4(0.0);
    [[unroll]] for (int k = 0; k < TILE_DEPTH; ++k) {
      MVEC4 a = tileA[g][k][ty], b = tileB[g][k][tx];
      part[0] += a.x * b;
      part[1] += a.y * b;
      part[2] += a.z * b;
      part[3] += a.w * b;
    }
    [[unroll]] for (int r = 0; r < TEXEL_ROWS; ++r)
      sum[r] += vec4(part[r]);
    barrier();
  }
#if TILE_SPLIT > 1
  if (g > 0)
    [[unroll]] for (int r = 0; r < TEXEL_ROWS; ++r)
      splitSums[g - 1][me][r] = sum[r];
  barrier();
  if (g > 0)
    return;
  [[unroll]] for (int s = 0; s < TILE_SPLIT - 1; ++s)
    [[unroll]] for (int r = 0; r < TEXEL_ROWS; ++r)
      sum[r] += splitSums[s][me][r];
#endif
  ivec3 at = ivec3(x0 + tx, y0 + ty * TEXEL_ROWS, z);
  if (at.x >= gx)
    return;
  bvec4 live = lessThan(ivec4(at.x * 4) + ivec4(0, 1, 2, 3), ivec4(columns));
  vec4 b = biasTexel(at.x, live);
  [[unroll]] for (int r = 0; r < TEXEL_ROWS; ++r)
    sum[r] += b;
  storeRows(at, sum, live);
}

#else
// The big tile (-DTILE_KERNEL=2): kMatMulBigTileRows and
// kMatMulBigTileTexels. Its 8 x 8 invocations each compute eight rows of
// two output texels (tx and tx + 8), 64 outputs from four shared-memory
// loads per depth step.
#define BIG_ROWS 64
#define BIG_TEXELS 16
#define BIG_LOADS 4
shared MVEC4 bigA[TILE_DEPTH][BIG_ROWS / 4];
shared MVEC4 bigB[TILE_DEPTH][BIG_TEXELS];

void bigTileKernel(int tile) {
  ivec3 o = tileOrigin(tile, BIG_ROWS, BIG_TEXELS);
  int x0 = o.x, y0 = o.y, z = o.z;
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  int me = int(gl_LocalInvocationID.x);
  int tx = me % 8, ty = me / 8;
  int depth = size(1, 7), columns = size(0, 7);
  // Rows 8 ty + r of texels tx (s0) and tx + 8 (s1).
  vec4 s0[8], s1[8];
  [[unroll]] for (int r = 0; r < 8; ++r)
    s0[r] = s1[r] = vec4(0.0);
  MVEC4 la[BIG_LOADS], lb[BIG_LOADS];
  [[unroll]] for (int i = 0; i < BIG_LOADS; ++i) {
    la[i] = slabLhs(me + 64 * i, BIG_ROWS, 0, y0, z, depth);
#ifdef LINEAR
    lb[i] = slabRhs(me + 64 * i, BIG_TEXELS * 4, 0, x0 * 4, depth, columns);
#else
    lb[i] = slabRhs(me + 64 * i, BIG_TEXELS, 0, x0, depth, gx, z);
#endif
  }
  for (int k0 = 0; k0 < depth; k0 += TILE_DEPTH) {
    [[unroll]] for (int i = 0; i < BIG_LOADS; ++i) {
      int j = me + 64 * i;
      int row = j % BIG_ROWS, t = j / BIG_ROWS;
      [[unroll]] for (int c = 0; c < 4; ++c)
        bigA[t * 4 + c][row / 4][row % 4] = la[i][c];
#ifdef LINEAR
      int n = j % (BIG_TEXELS * 4), tb = j / (BIG_TEXELS * 4);
      [[unroll]] for (int c = 0; c < 4; ++c)
        bigB[tb * 4 + c][n / 4][n % 4] = lb[i][c];
#else
      bigB[j / BIG_TEXELS][j % BIG_TEXELS] = lb[i];
#endif
    }
    barrier();
    int next = k0 + TILE_DEPTH;
    if (next < depth)
      [[unroll]] for (int i = 0; i < BIG_LOADS; ++i) {
        la[i] = slabLhs(me + 64 * i, BIG_ROWS, next, y0, z, depth);
#ifdef LINEAR
        lb[i] = slabRhs(me + 64 * i, BIG_TEXELS * 4, next, x0 * 4, depth,
                        columns);
#else
        lb[i] = slabRhs(me + 64 * i, BIG_TEXELS, next, x0, depth, gx, z);
#endif
      }
#ifdef FP16_MATH
    // The slice's sums in fp16, added to the running ones once per slice.
    MVEC4 p0[8], p1[8];
    [[unroll]] for (int r = 0; r < 8; ++r)
      p0[r] = p1[r] = MVEC4(0.0);
#else
#define p0 s0
#define p1 s1
#endif
    [[unroll]] for (int k = 0; k < TILE_DEPTH; ++k) {
      MVEC4 a0 = bigA[k][2 * ty], a1 = bigA[k][2 * ty + 1];
      MVEC4 b0 = bigB[k][tx], b1 = bigB[k][tx + 8];
      [[unroll]] for (int r = 0; r < 4; ++r) {
        p0[r] += a0[r] * b0;
        p1[r] += a0[r] * b1;
        p0[r + 4] += a1[r] * b0;
        p1[r + 4] += a1[r] * b1;
      }
    }
#ifdef FP16_MATH
    [[unroll]] for (int r = 0; r < 8; ++r) {
      s0[r] += vec4(p0[r]);
      s1[r] += vec4(p1[r]);
    }
#else
#undef p0
#undef p1
#endif
    barrier();
  }
  int xa = x0 + tx, xb = xa + 8;
  bvec4 liveA = lessThan(ivec4(xa * 4) + ivec4(0, 1, 2, 3), ivec4(columns));
  bvec4 liveB = lessThan(ivec4(xb * 4) + ivec4(0, 1, 2, 3), ivec4(columns));
  vec4 biasA = biasTexel(xa, liveA), biasB = biasTexel(xb, liveB);
  [[unroll]] for (int r = 0; r < 8; ++r) {
    int y = y0 + 8 * ty + r;
    if (y < gy && xa < gx)
      imageStore(outImg, ivec3(xa, y, z),
                 imageValue(mix(vec4(0.0), s0[r] + biasA, liveA)));
    if (y < gy && xb < gx)
      imageStore(outImg, ivec3(xb, y, z),
                 imageValue(mix(vec4(0.0), s1[r] + biasB, liveB)));
  }
}

#endif

void main() {
  int tile = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  // The same for the whole workgroup, so its barriers stay uniform.
  if (tile >= P.work.x)
    return;
#if TILE_KERNEL == 1 || TILE_KERNEL == 3
  smallTileKernel(tile);
#else
  bigTileKernel(tile);
#endif
}
#endif
#endif
