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
// splitting its row. iarg[4] and iarg[5]: the operand maps (mappedTexel).
// With -DTILE_KERNEL (DispatchPlan picks it for products
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
// no kernel carries another's registers and shared memory. Every texel
// kernel stores through epilogue.glsl (an add and an activation the plan
// folded into the product), its addend input slot 3 (binding 4).
#version 450
#extension GL_EXT_control_flow_attributes : require
#if TILE_KERNEL == 3
#define TILE_SPLIT 2
#define LOCAL_SIZE_X (64 * TILE_SPLIT)
#else
#define TILE_SPLIT 1
#endif
#if TILE_KERNEL == 2
// The big tile's invocations (tile.glsl): 128 keep enough of them per SM on
// an H200 for a product of a few hundred tiles (docs/vulkan.md).
#define BIG_THREADS 128
#define LOCAL_SIZE_X BIG_THREADS
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
#elif defined(TEXEL_KERNELS)
// The epilogue's addend (epilogue.glsl), input slot 3.
INPUT_IMAGE(addend, 4);
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
#include "epilogue.glsl"

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

// Operand maps: a product's operand (iarg[4] the lhs, iarg[5] the rhs) may
// be read from the tensor a view of it was taken from, where the plan
// folded that view into the product (DispatchPlan's operandView): the
// operand's texel (x, y) of layer z is the source's texel x + z * map.x +
// map.y of row y, in layer z, or in layer 0 where map.z is set (layers side
// by side in the source's rows, as a head split's); where map.w is set
// (heads merged into one layer), texel x % map.w of row y in layer
// x / map.w. All zero: the operand itself.
ivec3 mappedTexel(ivec4 map, int x, int y, int z) {
  if (map.w != 0)
    return ivec3(x % map.w, y, x / map.w);
  return ivec3(x + z * map.x + map.y, y, map.z != 0 ? 0 : z);
}

// The lhs texel of row y at input texel t, zero past the depth and for a
// row past the end. Where iarg[6].x is set (a matmul, DispatchPlan's
// softmaxReadInPlace), the lhs is the softmax along its rows of the tensor
// bound, whose statistics (maximum, sum of exponentials) are the addend
// slot's texel (0, y, z): the value softmax.comp's softmaxOf would have
// stored, rounded as it would (iarg[6].y: a safe softmax, 0 for a row of
// nothing but -inf).
MVEC4 lhsTexel(int t, int y, int z, int depth) {
  ivec4 map = P.iarg[4];
  ivec4 softmax = P.iarg[6];
  if (y >= P.t[0].geom.y)
    return MVEC4(0.0);
  vec4 x = inputTexel(lhs, mappedTexel(map, t, y, z));
#if !defined(LINEAR)
  if (softmax.x != 0) {
    vec4 line = inputTexel(addend, ivec3(0, y, z));
    x = imageValue(exp(x - line.x) / line.y);
    if (softmax.y != 0 && line.x == uintBitsToFloat(0xff800000u))
      x = vec4(0.0);
  }
#endif
  if (t * 4 + 4 > depth)
    x = mix(vec4(0.0), x, lessThan(ivec4(t * 4) + ivec4(0, 1, 2, 3), ivec4(depth)));
  return MVEC4(x);
}

void storeRows(ivec3 at, vec4 sum[TEXEL_ROWS], bvec4 live) {
  for (int r = 0; r < TEXEL_ROWS && at.y + r < P.t[0].geom.y; ++r) {
    ivec3 texel = ivec3(at.x, at.y + r, at.z);
    imageStore(outImg, texel,
               imageValue(mix(vec4(0.0), epilogue(sum[r], texel), live)));
  }
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
  ivec4 map = P.iarg[5];
  vec4 sum[TEXEL_ROWS];
  for (int r = 0; r < TEXEL_ROWS; ++r)
    sum[r] = vec4(0.0);
  int texels = (depth + 3) / 4;
  for (int t = inRange ? slice : texels; t < texels; t += split) {
    int k = t * 4;
    // Rows k..k+3 of the rhs, zero past the depth (as the lhs lanes are).
    MVEC4 b[4];
    for (int l = 0; l < 4; ++l)
      b[l] = k + l < depth
                 ? MVEC4(inputTexel(rhs, mappedTexel(map, at.x, k + l, at.z)))
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
// The tiled kernels (tile.glsl), over this product: rows of the lhs by
// texels of the output in each layer.
ivec2 tileGrid() { return P.t[0].geom.xy; }
int tileDepth() { return size(1, 7); }

MVEC4 tileLhs(int row, int kt, int z) {
  int depth = size(1, 7);
  return kt * 4 < depth ? lhsTexel(kt, row, z, depth) : MVEC4(0.0);
}

#ifdef LINEAR
// Feature n's weights at input texel kt. (The hooks read their uniforms
// before the test: a uniform read on the right of && makes glslang branch
// where it otherwise selects, which cost the split kernel a quarter of its
// speed on the H200.)
MVEC4 tileRhs(int n, int kt, int z) {
  int columns = size(0, 7), depth = size(1, 7);
  return n < columns && kt * 4 < depth
             ? MVEC4(inputTexel(packedWeight, ivec3(kt, n, 0)))
             : MVEC4(0.0);
}
#else
// A matmul reads its rhs by rows, or by columns where the plan folded a
// transpose of it into the product (FLAG0: the rhs operand is the
// transpose of the tensor bound, read through iarg[5]'s map; a product of
// keys, read as they are, not transposed first).
#define TILE_RHS_ROWS
#define RHS_BY_COLUMN (FLAG0 != 0)

// The rhs texel x of row k.
MVEC4 tileRhsRow(int x, int k, int z) {
  int depth = size(1, 7), texels = P.t[0].geom.x;
  ivec4 map = P.iarg[5];
  return k < depth && x < texels
             ? MVEC4(inputTexel(rhs, mappedTexel(map, x, k, z)))
             : MVEC4(0.0);
}

// Column n's rhs texel at depth texel kt: texel kt of row n of the tensor
// bound (its depth a multiple of four, DispatchPlan checks).
MVEC4 tileRhs(int n, int kt, int z) {
  int columns = size(0, 7), depth = size(1, 7);
  ivec4 map = P.iarg[5];
  return n < columns && kt * 4 < depth
             ? MVEC4(inputTexel(rhs, mappedTexel(map, kt, n, z)))
             : MVEC4(0.0);
}
#endif

bvec4 liveLanes(int x) {
  return lessThan(ivec4(x * 4) + ivec4(0, 1, 2, 3), ivec4(size(0, 7)));
}

vec4 tileBias(int x) { return biasTexel(x, liveLanes(x)); }

void tileStore(int x, int row, int z, vec4 value) {
  ivec3 texel = ivec3(x, row, z);
  imageStore(outImg, texel,
             imageValue(mix(vec4(0.0), epilogue(value, texel), liveLanes(x))));
}

#include "tile.glsl"

void main() { tileMain(); }
#endif
#endif
