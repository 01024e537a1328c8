//===- Gemm.cpp - the one matrix product of the portable kernels ----------===//
//
// A cache-blocked product in the usual three levels: a k x n block of B is
// packed into panels NR columns wide, an m x k block of A into panels MR rows
// tall, and a register-sized MR x NR micro-kernel walks the shared k. Packing
// makes every inner access contiguous whatever the operand strides (so
// transposed operands cost nothing extra) and pads the edge panels with zeros,
// so the micro-kernel has no edge cases and its fixed-size loops vectorize at
// -O2 on any target.
//
// The work of gemm() (gemmRange, rowTimesColumnRange) is compiled twice
// (GCC's target_clones): for the x86-64 baseline (SSE2) and for x86-64-v3
// (AVX2 and FMA, 2013 and later), and the loader picks the clone the CPU runs
// when the library is loaded. Everything they call is inlined into them, so
// each clone's loops use its own instructions. gemm() splits the product
// into tiles of C on the program's threads (runtime/core/Parallel.h).
// With FMA each multiply-add rounds once instead of twice: results move by
// at most an ulp per addition, more accurate, not less.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Gemm.h"
#include "runtime/core/Parallel.h"
#include "runtime/kernels/VectorMath.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace duet::rt::portable {
namespace {

constexpr int64_t MR = 8;   // rows of C per micro-kernel call
constexpr int64_t NR = 8;   // columns of C per micro-kernel call
constexpr int64_t KC = 256; // shared-dimension block: a packed panel fits L1
constexpr int64_t MC = 64;  // rows of A per packed block (fits L2)
constexpr int64_t NC = 256; // columns of B per packed block (fits L2)
/// The fewest multiply-adds worth a parallelFor chunk of a product.
constexpr int64_t kProductGrain = int64_t(1) << 20;

/// Packs rows [i0, i0+mc) x columns [p0, p0+kc) of A as MR-row panels, each
/// stored k-major: panel[p * MR + r]. Rows past the edge are zero.
[[gnu::always_inline]] inline void packA(MatrixRef a, int64_t i0, int64_t mc,
                                         int64_t p0, int64_t kc,
                                         float *packed) {
  for (int64_t ir = 0; ir < mc; ir += MR) {
    int64_t rows = std::min(MR, mc - ir);
    for (int64_t p = 0; p < kc; ++p) {
      const float *col = a.data + (p0 + p) * a.colStride;
      for (int64_t r = 0; r < MR; ++r)
        packed[p * MR + r] = r < rows ? col[(i0 + ir + r) * a.rowStride] : 0.f;
    }
    packed += kc * MR;
  }
}

/// Packs rows [p0, p0+kc) x columns [j0, j0+nc) of B as NR-column panels,
/// each stored k-major: panel[p * NR + c]. Columns past the edge are zero.
[[gnu::always_inline]] inline void packB(MatrixRef b, int64_t p0, int64_t kc,
                                         int64_t j0, int64_t nc,
                                         float *packed) {
  for (int64_t jr = 0; jr < nc; jr += NR) {
    int64_t cols = std::min(NR, nc - jr);
    for (int64_t p = 0; p < kc; ++p) {
      const float *row = b.data + (p0 + p) * b.rowStride;
      for (int64_t c = 0; c < NR; ++c)
        packed[p * NR + c] = c < cols ? row[(j0 + jr + c) * b.colStride] : 0.f;
    }
    packed += kc * NR;
  }
}

/// NR floats as one value: GCC lowers it to the widest vectors of the
/// target (two SSE registers, or one AVX register).
typedef float Row __attribute__((vector_size(NR * sizeof(float))));

/// acc = A panel * B panel over `kc`. The MR rows of sums stay in registers
/// (the loop over rows is unrolled), each step broadcasting one element of A
/// against a row of B.
[[gnu::always_inline]] inline void
microKernel(int64_t kc, const float *a, const float *b, float acc[MR][NR]) {
  Row sum[MR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    Row bRow;
    std::memcpy(&bRow, b + p * NR, sizeof(bRow));
#pragma GCC unroll 8
    for (int64_t r = 0; r < MR; ++r)
      sum[r] += a[p * MR + r] * bRow;
  }
  for (int64_t r = 0; r < MR; ++r)
    std::memcpy(acc[r], &sum[r], sizeof(sum[r]));
}

/// C += alpha * A * B for one row of A (m == 1) when B's columns are
/// contiguous (a linear layer's weight, read as its transpose): one dot
/// product per column, with no packing, which for a matrix-vector product
/// would copy all of B to read it once.
[[gnu::always_inline]] inline void rowTimesColumns(int64_t n, int64_t k,
                                                   float alpha, MatrixRef a,
                                                   MatrixRef b, float *c) {
  // A's row, contiguous (copied only when it is strided).
  std::vector<float> copied;
  const float *row = a.data;
  if (a.colStride != 1) {
    copied.resize(k);
    for (int64_t p = 0; p < k; ++p)
      copied[p] = a.data[p * a.colStride];
    row = copied.data();
  }
  for (int64_t j = 0; j < n; ++j) {
    const float *column = b.data + j * b.colStride;
    Row partial = {};
    int64_t p = 0;
    for (; p + NR <= k; p += NR) {
      Row x, w;
      std::memcpy(&x, row + p, sizeof(x));
      std::memcpy(&w, column + p, sizeof(w));
      partial += x * w;
    }
    float sum = 0;
    for (int64_t lane = 0; lane < NR; ++lane)
      sum += partial[lane];
    for (; p < k; ++p)
      sum += row[p] * column[p];
    c[j] += alpha * sum;
  }
}

/// Applies beta to C without reading it when beta is 0.
[[gnu::always_inline]] inline void scaleC(int64_t m, int64_t n, float beta,
                                          float *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * ldc;
    if (beta == 0.f)
      std::fill(row, row + n, 0.f);
    else if (beta != 1.f)
      for (int64_t j = 0; j < n; ++j)
        row[j] *= beta;
  }
}

/// alpha * A * B added into rows [i0, i1) and columns [j0, j1) of C (whole
/// MC and NC blocks but at the ends): each k block of B packed once for the
/// rows' blocks. Every element sums its k blocks in order whatever the
/// range, so the result does not depend on how the product is split.
DUET_KERNEL_CLONES
void gemmRange(int64_t k, float alpha, MatrixRef a, MatrixRef b, float *c,
               int64_t ldc, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  // Edge panels are padded to whole MR rows and NR columns. The buffers are
  // sized for this product, not for the largest blocks, and left
  // uninitialized (packing writes every element read): zero-filling 320 KB
  // per call cost more than the whole product of a small attention head.
  auto roundUp = [](int64_t v, int64_t to) { return (v + to - 1) / to * to; };
  const int64_t kMax = std::min(KC, k);
  std::unique_ptr<float[]> packedA(
      new float[kMax * roundUp(std::min(MC, i1 - i0), MR)]);
  std::unique_ptr<float[]> packedB(
      new float[kMax * roundUp(std::min(NC, j1 - j0), NR)]);
  float acc[MR][NR];
  for (int64_t jb = j0; jb < j1; jb += NC) {
    int64_t nc = std::min(NC, j1 - jb);
    for (int64_t p0 = 0; p0 < k; p0 += KC) {
      int64_t kc = std::min(KC, k - p0);
      packB(b, p0, kc, jb, nc, packedB.get());
      for (int64_t ib = i0; ib < i1; ib += MC) {
        int64_t mc = std::min(MC, i1 - ib);
        packA(a, ib, mc, p0, kc, packedA.get());
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const float *bPanel = packedB.get() + (jr / NR) * kc * NR;
          int64_t cols = std::min(NR, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const float *aPanel = packedA.get() + (ir / MR) * kc * MR;
            int64_t rows = std::min(MR, mc - ir);
            microKernel(kc, aPanel, bPanel, acc);
            for (int64_t r = 0; r < rows; ++r) {
              float *cRow = c + (ib + ir + r) * ldc + jb + jr;
              for (int64_t col = 0; col < cols; ++col)
                cRow[col] += alpha * acc[r][col];
            }
          }
        }
      }
    }
  }
}

/// rowTimesColumns on columns [j0, j1).
DUET_KERNEL_CLONES
void rowTimesColumnRange(int64_t k, float alpha, MatrixRef a, MatrixRef b,
                         float *c, int64_t j0, int64_t j1) {
  rowTimesColumns(j1 - j0, k, alpha, a,
                  {b.data + j0 * b.colStride, b.rowStride, b.colStride},
                  c + j0);
}

} // namespace

void gemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef a,
          MatrixRef b, float beta, float *c, int64_t ldc) {
  if (m <= 0 || n <= 0)
    return;
  // Scaling C first lets every k block simply accumulate alpha * A * B.
  scaleC(m, n, beta, c, ldc);
  if (k <= 0 || alpha == 0.f)
    return;
  if (m == 1 && b.rowStride == 1) {
    parallelFor(n, std::max<int64_t>(1, kProductGrain / k),
                [&](int64_t j0, int64_t j1) {
                  rowTimesColumnRange(k, alpha, a, b, c, j0, j1);
                });
    return;
  }
  // Tiles of MC rows by NC columns on the program's threads (Parallel.h),
  // column block by column block: a chunk's run of tiles in one column
  // block packs that block of B once per k block.
  const int64_t rowBlocks = (m + MC - 1) / MC, colBlocks = (n + NC - 1) / NC;
  const int64_t tileWork = std::min(MC, m) * std::min(NC, n) * k;
  parallelFor(
      rowBlocks * colBlocks,
      std::max<int64_t>(1, kProductGrain / std::max<int64_t>(tileWork, 1)),
      [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end;) {
          int64_t col = t / rowBlocks, row = t % rowBlocks;
          int64_t rows = std::min(rowBlocks - row, end - t);
          gemmRange(k, alpha, a, b, c, ldc, row * MC,
                    std::min(m, (row + rows) * MC), col * NC,
                    std::min(n, (col + 1) * NC));
          t += rows;
        }
      });
}

} // namespace duet::rt::portable
