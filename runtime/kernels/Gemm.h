//===- Gemm.h - the one matrix product of the portable kernels --*- C++ -*-===//
//
// Convolution, linear, addmm, mm, bmm, matmul and attention all multiply
// through gemm(), so one routine decides the numerics and the speed of them
// all.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_KERNELS_GEMM_H
#define DUET_RUNTIME_KERNELS_GEMM_H

#include <cstdint>

namespace duet::rt::portable {

/// A read-only float32 matrix with arbitrary element strides; element (i, j)
/// is `data[i * rowStride + j * colStride]`.
struct MatrixRef {
  const float *data;
  int64_t rowStride;
  int64_t colStride;

  /// A row-major matrix with `columns` elements per row.
  static MatrixRef rowMajor(const float *data, int64_t columns) {
    return {data, columns, 1};
  }
  MatrixRef transposed() const { return {data, colStride, rowStride}; }
};

/// C = alpha * A * B + beta * C, where A is m x k, B is k x n and C is a
/// row-major m x n matrix with row stride `ldc`. With beta == 0, C is written
/// without being read, so it may hold garbage (or NaN) on entry.
void gemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef a,
          MatrixRef b, float beta, float *c, int64_t ldc);

} // namespace duet::rt::portable

#endif // DUET_RUNTIME_KERNELS_GEMM_H
