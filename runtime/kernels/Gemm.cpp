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
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Gemm.h"

#include <algorithm>
#include <vector>

namespace duet::rt::portable {
namespace {

constexpr int64_t MR = 8;   // rows of C per micro-kernel call
constexpr int64_t NR = 8;   // columns of C per micro-kernel call
constexpr int64_t KC = 256; // shared-dimension block: a packed panel fits L1
constexpr int64_t MC = 64;  // rows of A per packed block (fits L2)
constexpr int64_t NC = 256; // columns of B per packed block (fits L2)

/// Packs rows [i0, i0+mc) x columns [p0, p0+kc) of A as MR-row panels, each
/// stored k-major: panel[p * MR + r]. Rows past the edge are zero.
void packA(MatrixRef a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
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
void packB(MatrixRef b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
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

/// acc = A panel * B panel over `kc`.
void microKernel(int64_t kc, const float *a, const float *b,
                 float acc[MR][NR]) {
  float sum[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t r = 0; r < MR; ++r) {
      float ar = a[p * MR + r];
      for (int64_t c = 0; c < NR; ++c)
        sum[r][c] += ar * b[p * NR + c];
    }
  }
  for (int64_t r = 0; r < MR; ++r)
    for (int64_t c = 0; c < NR; ++c)
      acc[r][c] = sum[r][c];
}

/// Applies beta to C without reading it when beta is 0.
void scaleC(int64_t m, int64_t n, float beta, float *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * ldc;
    if (beta == 0.f)
      std::fill(row, row + n, 0.f);
    else if (beta != 1.f)
      for (int64_t j = 0; j < n; ++j)
        row[j] *= beta;
  }
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

  // Edge panels are padded to whole MR rows and NR columns.
  std::vector<float> packedA(KC * ((MC + MR - 1) / MR * MR));
  std::vector<float> packedB(KC * ((NC + NR - 1) / NR * NR));
  float acc[MR][NR];
  for (int64_t j0 = 0; j0 < n; j0 += NC) {
    int64_t nc = std::min(NC, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += KC) {
      int64_t kc = std::min(KC, k - p0);
      packB(b, p0, kc, j0, nc, packedB.data());
      for (int64_t i0 = 0; i0 < m; i0 += MC) {
        int64_t mc = std::min(MC, m - i0);
        packA(a, i0, mc, p0, kc, packedA.data());
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const float *bPanel = packedB.data() + (jr / NR) * kc * NR;
          int64_t cols = std::min(NR, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const float *aPanel = packedA.data() + (ir / MR) * kc * MR;
            int64_t rows = std::min(MR, mc - ir);
            microKernel(kc, aPanel, bPanel, acc);
            for (int64_t r = 0; r < rows; ++r) {
              float *cRow = c + (i0 + ir + r) * ldc + j0 + jr;
              for (int64_t col = 0; col < cols; ++col)
                cRow[col] += alpha * acc[r][col];
            }
          }
        }
      }
    }
  }
}

} // namespace duet::rt::portable
