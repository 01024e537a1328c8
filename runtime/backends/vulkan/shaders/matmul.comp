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
// splitting its row. FLAG1 set (DispatchPlan picks it for products of many
// rows and columns): the tiled kernel instead, one workgroup per output tile
// of TILE_ROWS rows by TILE_TEXELS texels, which stages TILE_DEPTH-deep
// slices of both operands in shared memory so that each texel of them is
// fetched once per tile, not once per four rows.
#version 450
#include "tensor.glsl"

TENSOR_INPUT(lhs, 1, 2, IN0_PACKING)
#if defined(LINEAR) && defined(TEXEL_KERNELS)
layout(set = 0, binding = 3, IMAGE_FORMAT) uniform readonly image3D packedWeight;
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

// The lhs texel of row y at input texel t, zero past the depth and for a
// row past the end.
vec4 lhsTexel(int t, int y, int z, int depth) {
  if (y >= P.t[0].geom.y)
    return vec4(0.0);
  vec4 x = imageLoad(lhs, ivec3(t, y, z));
  if (t * 4 + 4 > depth)
    x = mix(vec4(0.0), x, lessThan(ivec4(t * 4) + ivec4(0, 1, 2, 3), ivec4(depth)));
  return x;
}

void storeRows(ivec3 at, vec4 sum[TEXEL_ROWS], bvec4 live) {
  for (int r = 0; r < TEXEL_ROWS && at.y + r < P.t[0].geom.y; ++r)
    imageStore(outImg, ivec3(at.x, at.y + r, at.z), mix(vec4(0.0), sum[r], live));
}

#ifdef LINEAR
// The bias (FLAG0) of output texel column x, added to each of its rows;
// padding lanes get none.
void addBias(inout vec4 sum[TEXEL_ROWS], int x, bvec4 live) {
  if (FLAG0 == 0)
    return;
  vec4 b = vec4(0.0);
  for (int l = 0; l < 4; ++l)
    if (live[l])
      b[l] = bias.v[x * 4 + l];
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
    mat4 w = mat4(imageLoad(packedWeight, ivec3(t, nRead.x, 0)),
                  imageLoad(packedWeight, ivec3(t, nRead.y, 0)),
                  imageLoad(packedWeight, ivec3(t, nRead.z, 0)),
                  imageLoad(packedWeight, ivec3(t, nRead.w, 0)));
    for (int r = 0; r < TEXEL_ROWS; ++r)
      sum[r] += lhsTexel(t, at.y + r, at.z, depth) * w;
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
    vec4 b[4];
    for (int l = 0; l < 4; ++l)
      b[l] = k + l < depth ? imageLoad(rhs, ivec3(at.x, k + l, at.z)) : vec4(0.0);
    for (int r = 0; r < TEXEL_ROWS; ++r) {
      vec4 x = lhsTexel(t, at.y + r, at.z, depth);
      sum[r] += x.x * b[0] + x.y * b[1] + x.z * b[2] + x.w * b[3];
    }
  }
  addSplits(sum, slice, split);
  if (inRange && slice == 0)
    storeRows(at, sum, live);
}
#endif

// The tiled kernel's tile: DispatchPlan.h's kMatMulTileRows and
// kMatMulTileTexels (Dispatch::itemHeight, itemWidth). Its 8 x 8
// invocations each compute one output texel of four rows, as a texel
// kernel's work item.
#define TILE_ROWS 32
#define TILE_TEXELS 8
#define TILE_DEPTH 16
#if TILE_ROWS / TEXEL_ROWS * TILE_TEXELS != 64 || TEXEL_ROWS != 4
#error "the tile's invocations (four rows each) are the workgroup's 64"
#endif
// tileA[k][m / 4][m % 4]: lhs row m of the tile at depth k0 + k;
// tileB[k][x]: the four columns of tile texel x at depth k0 + k (for a
// linear, the weight's features transposed).
shared vec4 tileA[TILE_DEPTH][TILE_ROWS / 4];
shared vec4 tileB[TILE_DEPTH][TILE_TEXELS];

void tiledKernel() {
  int tile = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  // The same for the whole workgroup, so its barriers stay uniform.
  if (tile >= P.work.x)
    return;
  int gx = P.t[0].geom.x, gy = P.t[0].geom.y;
  int tilesX = (gx + TILE_TEXELS - 1) / TILE_TEXELS;
  int tilesY = (gy + TILE_ROWS - 1) / TILE_ROWS;
  int x0 = tile % tilesX * TILE_TEXELS;
  int y0 = tile / tilesX % tilesY * TILE_ROWS;
  int z = tile / (tilesX * tilesY);
  int me = int(gl_LocalInvocationID.x);
  int tx = me % TILE_TEXELS, ty = me / TILE_TEXELS;
  int depth = size(1, 7), columns = size(0, 7);
  vec4 sum[TEXEL_ROWS];
  for (int r = 0; r < TEXEL_ROWS; ++r)
    sum[r] = vec4(0.0);
  for (int k0 = 0; k0 < depth; k0 += TILE_DEPTH) {
    // The lhs slice: TILE_ROWS rows of TILE_DEPTH / 4 texels, zero past
    // the rows and the depth.
    for (int j = me; j < TILE_ROWS * (TILE_DEPTH / 4); j += 64) {
      int row = j % TILE_ROWS, t = j / TILE_ROWS;
      int kt = k0 / 4 + t;
      vec4 v = kt * 4 < depth ? lhsTexel(kt, y0 + row, z, depth) : vec4(0.0);
      for (int i = 0; i < 4; ++i)
        tileA[t * 4 + i][row / 4][row % 4] = v[i];
    }
#ifdef LINEAR
    // The weight slice: texel (kt, feature) holds the feature's weights at
    // depths 4kt..4kt+3 (zero past the depth, as packed).
    for (int j = me; j < TILE_TEXELS * 4 * (TILE_DEPTH / 4); j += 64) {
      int n = j % (TILE_TEXELS * 4), t = j / (TILE_TEXELS * 4);
      int feature = x0 * 4 + n, kt = k0 / 4 + t;
      vec4 v = feature < columns && kt * 4 < depth
                   ? imageLoad(packedWeight, ivec3(kt, feature, 0))
                   : vec4(0.0);
      for (int i = 0; i < 4; ++i)
        tileB[t * 4 + i][n / 4][n % 4] = v[i];
    }
#else
    // The rhs slice: TILE_DEPTH rows of TILE_TEXELS texels, zero past both.
    for (int j = me; j < TILE_TEXELS * TILE_DEPTH; j += 64) {
      int x = j % TILE_TEXELS, k = j / TILE_TEXELS;
      tileB[k][x] = k0 + k < depth && x0 + x < gx
                        ? imageLoad(rhs, ivec3(x0 + x, k0 + k, z))
                        : vec4(0.0);
    }
#endif
    barrier();
    for (int k = 0; k < TILE_DEPTH; ++k) {
      vec4 a = tileA[k][ty], b = tileB[k][tx];
      sum[0] += a.x * b;
      sum[1] += a.y * b;
      sum[2] += a.z * b;
      sum[3] += a.w * b;
    }
    barrier();
  }
  ivec3 at = ivec3(x0 + tx, y0 + ty * TEXEL_ROWS, z);
  if (at.x >= gx)
    return;
  bvec4 live = lessThan(ivec4(at.x * 4) + ivec4(0, 1, 2, 3), ivec4(columns));
#ifdef LINEAR
  addBias(sum, at.x, live);
#endif
  storeRows(at, sum, live);
}

void main() {
  if (FLAG1 != 0) {
    tiledKernel();
    return;
  }
  int split = max(P.iarg[3].x, 1);
  int invocation = workItem();
  int item = invocation / split;
  texelKernel(item, invocation % split, split, item < P.work.x);
}
#endif
