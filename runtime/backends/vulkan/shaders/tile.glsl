// tile.glsl - the tiled product kernels that matmul.comp and conv.comp
// share: one workgroup per output tile of a product A x B seen as rows (of
// A) by output texels (four columns of B each) in layers, summed over a
// depth. Each stages TILE_DEPTH-deep slices of both operands in shared
// memory, so that each operand texel is fetched once per tile, and loads the
// next slice into registers while it computes on the current one.
//
// -DTILE_KERNEL picks the kernel: 1 the small tile (TILE_ROWS x
// TILE_TEXELS), 2 the big one (BIG_ROWS x BIG_TEXELS), 3 the small tile
// computed by TILE_SPLIT groups of 64 invocations, each summing every
// TILE_SPLIT-th slice (the includer sets TILE_SPLIT and LOCAL_SIZE_X before
// tensor.glsl). The includer defines, before including this file:
// - ivec2 tileGrid(): the output's texels and rows per layer;
// - int tileDepth(): the depth of the sums;
// - MVEC4 tileLhs(int row, int kt, int z): A's texel of row `row` at depths
//   4kt..4kt+3 in layer z, zero past the rows and the depth;
// - MVEC4 tileRhs(int n, int kt, int z): B read per output column (a
//   linear's or a convolution's weight, a matmul's transposed rhs), the
//   texel of column n's depths 4kt..4kt+3, zero past the columns and the
//   depth;
// - with TILE_RHS_ROWS (a matmul): MVEC4 tileRhsRow(int x, int k, int z),
//   B's texel x of row k, zero past the texels and the depth, and
//   RHS_BY_COLUMN, a constant (a specialization constant's test) that says
//   which of the two the tiles read; without it they read tileRhs;
// - vec4 tileBias(int x): what output texel column x adds to its sums;
// - void tileStore(int x, int row, int z, vec4 value): writes output texel
//   (x, row) of layer z, called only inside the grid.
//
// Depth parts: where P.work.y is not zero, the output holds P.work.y layers
// of each of several parts of the depth, P.work.z deep each (a multiple of
// TILE_DEPTH * TILE_SPLIT, so that no group's slice crosses into the next
// part): layer z of the output is part z / P.work.y of layer
// z % P.work.y of the product, its bias in part 0 alone. A reduction adds
// the parts up (DispatchPlan's addProduct): products of few tiles and
// long sums then run on more workgroups.

// Four rows per invocation of the small tile.
#ifndef TEXEL_ROWS
#define TEXEL_ROWS 4
#endif

// The depth of a slice.
#define TILE_DEPTH 16

// The texel j of a slice at depth k0 of `rows` rows of A from row y0: row
// j % rows, depth texel j / rows of the slice.
MVEC4 slabLhs(int j, int rows, int k0, int y0, int z) {
  return tileLhs(y0 + j % rows, k0 / 4 + j / rows, z);
}

#ifndef TILE_RHS_ROWS
#define RHS_BY_COLUMN true
#endif

// The texel j of a slice at depth k0 of `texels` output texels from texel
// x0: read per column (RHS_BY_COLUMN), column j % (texels * 4) from column
// 4 x0 at depth texel j / (texels * 4) of the slice; else texel j % texels
// of row k0 + j / texels.
MVEC4 slabRhs(int j, int texels, int k0, int x0, int z) {
#ifdef TILE_RHS_ROWS
  if (!RHS_BY_COLUMN)
    return tileRhsRow(x0 + j % texels, k0 + j / texels, z);
#endif
  int columns = texels * 4;
  return tileRhs(x0 * 4 + j % columns, k0 / 4 + j / columns, z);
}
#define SLAB_RHS(j, texels, k0, x0, z) slabRhs(j, texels, k0, x0, z)

// The depth range [begin, end) of output layer `z` and the product's layer
// it is a part of (DispatchPlan's depth parts; the whole depth without
// them), and whether it adds the bias.
struct TileDepth {
  int begin, end, layer;
  bool bias;
};

TileDepth depthOf(int z) {
  int depth = tileDepth();
  // Uniform reads before the tests (see matmul.comp's tileRhs).
  int layers = P.work.y, chunk = P.work.z;
  if (layers == 0)
    return TileDepth(0, depth, z, true);
  int part = z / layers;
  return TileDepth(part * chunk, min(depth, part * chunk + chunk), z % layers,
                   part == 0);
}

// Tile `tile` of `rows` x `texels`: its first texel, row and layer.
ivec3 tileOrigin(int tile, int rows, int texels) {
  ivec2 grid = tileGrid();
  int tilesX = (grid.x + texels - 1) / texels;
  int tilesY = (grid.y + rows - 1) / rows;
  return ivec3(tile % tilesX * texels, tile / tilesX % tilesY * rows,
               tile / (tilesX * tilesY));
}

#if TILE_KERNEL == 1 || TILE_KERNEL == 3
// The small tile: DispatchPlan.h's kMatMulTileRows and kMatMulTileTexels.
// Its 8 x 8 invocations each compute one output texel of four rows. In the
// split one (kMatMulSplitGroups) each group of 64 (`g`) has its own shared
// tiles; group g takes slices g, g + TILE_SPLIT, ..., so all run the same
// number of steps (and barriers).
#define TILE_ROWS 32
#define TILE_TEXELS 8
#if TILE_ROWS / TEXEL_ROWS * TILE_TEXELS != 64 || TEXEL_ROWS != 4
#error "the tile's invocations (four rows each) are the workgroup's 64"
#endif
// Slice texels per invocation: TILE_ROWS (or TILE_TEXELS * 4 columns, or
// TILE_DEPTH rows of B of TILE_TEXELS) times TILE_DEPTH / 4, over 64.
#define TILE_LOADS (TILE_ROWS * TILE_DEPTH / 4 / 64)
// tileA[k][m / 4][m % 4]: row m of A's slice at depth k0 + k; tileB[k][x]:
// the four columns of tile texel x at depth k0 + k (B read per column
// transposed as it is stored).
shared MVEC4 tileA[TILE_SPLIT][TILE_DEPTH][TILE_ROWS / 4];
shared MVEC4 tileB[TILE_SPLIT][TILE_DEPTH][TILE_TEXELS];
#if TILE_SPLIT > 1
// The sums of groups 1.., which group 0 adds to its own.
shared vec4 splitSums[TILE_SPLIT - 1][64][TEXEL_ROWS];
#endif

void smallTileKernel(int tile) {
  ivec3 o = tileOrigin(tile, TILE_ROWS, TILE_TEXELS);
  int x0 = o.x, y0 = o.y, zOut = o.z;
  TileDepth range = depthOf(zOut);
  int z = range.layer;
  int me = int(gl_LocalInvocationID.x) % 64;
  int g = int(gl_LocalInvocationID.x) / 64;
  int tx = me % TILE_TEXELS, ty = me / TILE_TEXELS;
  vec4 sum[TEXEL_ROWS];
  [[unroll]] for (int r = 0; r < TEXEL_ROWS; ++r)
    sum[r] = vec4(0.0);
  MVEC4 la[TILE_LOADS], lb[TILE_LOADS];
  int first = range.begin + g * TILE_DEPTH;
  [[unroll]] for (int i = 0; i < TILE_LOADS; ++i) {
    la[i] = slabLhs(me + 64 * i, TILE_ROWS, first, y0, z);
    lb[i] = SLAB_RHS(me + 64 * i, TILE_TEXELS, first, x0, z);
  }
  // Every group the same steps: past the depth its slices are zeros (a
  // part's end is a multiple of TILE_DEPTH * TILE_SPLIT or the depth).
  int stride = TILE_DEPTH * TILE_SPLIT;
  int steps = (range.end - range.begin + stride - 1) / stride;
  for (int step = 0, k0 = first; step < steps; ++step, k0 += stride) {
    [[unroll]] for (int i = 0; i < TILE_LOADS; ++i) {
      int j = me + 64 * i;
      int row = j % TILE_ROWS, t = j / TILE_ROWS;
      [[unroll]] for (int c = 0; c < 4; ++c)
        tileA[g][t * 4 + c][row / 4][row % 4] = la[i][c];
      if (RHS_BY_COLUMN) {
        int n = j % (TILE_TEXELS * 4), tb = j / (TILE_TEXELS * 4);
        [[unroll]] for (int c = 0; c < 4; ++c)
          tileB[g][tb * 4 + c][n / 4][n % 4] = lb[i][c];
      } else {
        tileB[g][j / TILE_TEXELS][j % TILE_TEXELS] = lb[i];
      }
    }
    barrier();
    int next = k0 + stride;
    // Split, a group's last step may start past the depth: it loads the
    // zeros the slice functions give there, not the slice before again (in
    // a part that ends before the depth, a slice of the next part that no
    // step sums).
    if (TILE_SPLIT > 1 || next < range.end)
      [[unroll]] for (int i = 0; i < TILE_LOADS; ++i) {
        la[i] = slabLhs(me + 64 * i, TILE_ROWS, next, y0, z);
        lb[i] = SLAB_RHS(me + 64 * i, TILE_TEXELS, next, x0, z);
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
  ivec2 grid = tileGrid();
  int x = x0 + tx, y = y0 + ty * TEXEL_ROWS;
  if (x >= grid.x)
    return;
  vec4 b = range.bias ? tileBias(x) : vec4(0.0);
  [[unroll]] for (int r = 0; r < TEXEL_ROWS; ++r)
    if (y + r < grid.y)
      tileStore(x, y + r, zOut, sum[r] + b);
}

#else
// The big tile (-DTILE_KERNEL=2): kMatMulBigTileRows and
// kMatMulBigTileTexels. Its BIG_THREADS invocations (the includer's
// LOCAL_SIZE_X), 8 per row of the tile's texels, each compute BIG_RPT rows
// of two output texels (tx and tx + 8) from BIG_RPT / 4 + 2 shared-memory
// loads per depth step.
#define BIG_ROWS 64
#define BIG_TEXELS 16
#if !defined(BIG_THREADS) || BIG_THREADS != LOCAL_SIZE_X
#error "the includer sets BIG_THREADS, and LOCAL_SIZE_X to it, before tensor.glsl"
#endif
#define BIG_RPT (BIG_ROWS * 8 / BIG_THREADS)
#define BIG_LOADS (BIG_ROWS * TILE_DEPTH / 4 / BIG_THREADS)
#if BIG_RPT % 4 != 0 || BIG_LOADS * BIG_THREADS * 4 != BIG_ROWS * TILE_DEPTH
#error "each invocation computes whole texels of rows and loads whole texels"
#endif
shared MVEC4 bigA[TILE_DEPTH][BIG_ROWS / 4];
shared MVEC4 bigB[TILE_DEPTH][BIG_TEXELS];

void bigTileKernel(int tile) {
  ivec3 o = tileOrigin(tile, BIG_ROWS, BIG_TEXELS);
  int x0 = o.x, y0 = o.y, zOut = o.z;
  TileDepth range = depthOf(zOut);
  int z = range.layer;
  int me = int(gl_LocalInvocationID.x);
  int tx = me % 8, ty = me / 8;
  // Rows BIG_RPT ty + r of texels tx (s0) and tx + 8 (s1).
  vec4 s0[BIG_RPT], s1[BIG_RPT];
  [[unroll]] for (int r = 0; r < BIG_RPT; ++r)
    s0[r] = s1[r] = vec4(0.0);
  MVEC4 la[BIG_LOADS], lb[BIG_LOADS];
  [[unroll]] for (int i = 0; i < BIG_LOADS; ++i) {
    la[i] = slabLhs(me + BIG_THREADS * i, BIG_ROWS, range.begin, y0, z);
    lb[i] = SLAB_RHS(me + BIG_THREADS * i, BIG_TEXELS, range.begin, x0, z);
  }
  for (int k0 = range.begin; k0 < range.end; k0 += TILE_DEPTH) {
    [[unroll]] for (int i = 0; i < BIG_LOADS; ++i) {
      int j = me + BIG_THREADS * i;
      int row = j % BIG_ROWS, t = j / BIG_ROWS;
      [[unroll]] for (int c = 0; c < 4; ++c)
        bigA[t * 4 + c][row / 4][row % 4] = la[i][c];
      if (RHS_BY_COLUMN) {
        int n = j % (BIG_TEXELS * 4), tb = j / (BIG_TEXELS * 4);
        [[unroll]] for (int c = 0; c < 4; ++c)
          bigB[tb * 4 + c][n / 4][n % 4] = lb[i][c];
      } else {
        bigB[j / BIG_TEXELS][j % BIG_TEXELS] = lb[i];
      }
    }
    barrier();
    int next = k0 + TILE_DEPTH;
    if (next < range.end)
      [[unroll]] for (int i = 0; i < BIG_LOADS; ++i) {
        la[i] = slabLhs(me + BIG_THREADS * i, BIG_ROWS, next, y0, z);
        lb[i] = SLAB_RHS(me + BIG_THREADS * i, BIG_TEXELS, next, x0, z);
      }
#ifdef FP16_MATH
    // The slice's sums in fp16, added to the running ones once per slice.
    MVEC4 p0[BIG_RPT], p1[BIG_RPT];
    [[unroll]] for (int r = 0; r < BIG_RPT; ++r)
      p0[r] = p1[r] = MVEC4(0.0);
#else
#define p0 s0
#define p1 s1
#endif
    [[unroll]] for (int k = 0; k < TILE_DEPTH; ++k) {
      MVEC4 b0 = bigB[k][tx], b1 = bigB[k][tx + 8];
      [[unroll]] for (int q = 0; q < BIG_RPT / 4; ++q) {
        MVEC4 a = bigA[k][ty * (BIG_RPT / 4) + q];
        [[unroll]] for (int r = 0; r < 4; ++r) {
          p0[q * 4 + r] += a[r] * b0;
          p1[q * 4 + r] += a[r] * b1;
        }
      }
    }
#ifdef FP16_MATH
    [[unroll]] for (int r = 0; r < BIG_RPT; ++r) {
      s0[r] += vec4(p0[r]);
      s1[r] += vec4(p1[r]);
    }
#else
#undef p0
#undef p1
#endif
    barrier();
  }
  ivec2 grid = tileGrid();
  int xa = x0 + tx, xb = xa + 8;
  vec4 biasA = range.bias && xa < grid.x ? tileBias(xa) : vec4(0.0);
  vec4 biasB = range.bias && xb < grid.x ? tileBias(xb) : vec4(0.0);
  [[unroll]] for (int r = 0; r < BIG_RPT; ++r) {
    int y = y0 + BIG_RPT * ty + r;
    if (y < grid.y && xa < grid.x)
      tileStore(xa, y, zOut, s0[r] + biasA);
    if (y < grid.y && xb < grid.x)
      tileStore(xb, y, zOut, s1[r] + biasB);
  }
}
#endif

// One tile per workgroup; P.work.x tiles.
void tileMain() {
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
