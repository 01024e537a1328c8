//===- MatrixProducts.cpp - linear, addmm, mm, bmm, matmul ----------------===//
//
// All five are gemm() calls; matmul's NumPy rules (1-D operands, broadcast
// batch dims) are the general case that mm and bmm narrow.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Gemm.h"
#include "runtime/kernels/Ops.h"

namespace duet::rt::portable {
namespace {

Status requireFloats(const KernelContext &ctx) {
  DUET_RETURN_IF_ERROR(ctx.requireFloat(ctx.in(0), "input 0"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(ctx.in(1), "input 1"));
  return ctx.requireFloat(ctx.out(0), "output");
}

/// y = a @ b with NumPy's matmul rules.
Status matmulOf(const KernelContext &ctx, const TensorView &a,
                const TensorView &b, const TensorView &y) {
  if (a.rank() < 1 || b.rank() < 1)
    return ctx.error("operands must have rank 1 or more, got {} and {}",
                     formatShape(a.sizes), formatShape(b.sizes));
  // A 1-D operand is a matrix with one row (lhs) or one column (rhs) whose
  // added dim is dropped from the result.
  Shape lhs = a.sizes, rhs = b.sizes;
  if (a.rank() == 1)
    lhs.insert(lhs.begin(), 1);
  if (b.rank() == 1)
    rhs.push_back(1);
  const int64_t m = lhs[lhs.size() - 2], k = lhs.back();
  const int64_t n = rhs.back();
  if (rhs[rhs.size() - 2] != k)
    return ctx.error("operands {} and {} do not multiply", formatShape(a.sizes),
                     formatShape(b.sizes));
  Shape batchA(lhs.begin(), lhs.end() - 2), batchB(rhs.begin(), rhs.end() - 2);
  Shape batch;
  if (!broadcastShapes(batchA, batchB, batch))
    return ctx.error("batch dims of {} and {} do not broadcast",
                     formatShape(a.sizes), formatShape(b.sizes));
  Shape expected = batch;
  if (a.rank() > 1)
    expected.push_back(m);
  if (b.rank() > 1)
    expected.push_back(n);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", expected));
  if (ctx.checking())
    return Status::ok();

  // Batch strides in whole matrices, 0 where a batch dim is broadcast.
  Shape stridesA = broadcastStrides(batchA, batch);
  Shape stridesB = broadcastStrides(batchB, batch);
  Shape stridesY = contiguousStrides(batch);
  for (size_t d = 0; d < batch.size(); ++d) {
    stridesA[d] *= m * k;
    stridesB[d] *= k * n;
    stridesY[d] *= m * n;
  }
  const float *pa = a.as<const float>(), *pb = b.as<const float>();
  float *py = y.as<float>();
  forEachRow<3>(batch, {stridesY, stridesA, stridesB},
                [&](const std::array<int64_t, 3> &off, int64_t count,
                    const std::array<int64_t, 3> &inner) {
                  for (int64_t i = 0; i < count; ++i)
                    gemm(m, n, k, 1.f,
                         MatrixRef::rowMajor(pa + off[1] + i * inner[1], k),
                         MatrixRef::rowMajor(pb + off[2] + i * inner[2], n),
                         0.f, py + off[0] + i * inner[0], n);
                });
  return Status::ok();
}

} // namespace

Status matmul(const KernelContext &ctx) {
  DUET_RETURN_IF_ERROR(requireFloats(ctx));
  return matmulOf(ctx, ctx.in(0), ctx.in(1), ctx.out(0));
}

Status mm(const KernelContext &ctx) {
  DUET_RETURN_IF_ERROR(requireFloats(ctx));
  DUET_RETURN_IF_ERROR(ctx.requireRank(ctx.in(0), "self", {2}));
  DUET_RETURN_IF_ERROR(ctx.requireRank(ctx.in(1), "other", {2}));
  return matmulOf(ctx, ctx.in(0), ctx.in(1), ctx.out(0));
}

Status bmm(const KernelContext &ctx) {
  const TensorView &a = ctx.in(0), &b = ctx.in(1);
  DUET_RETURN_IF_ERROR(requireFloats(ctx));
  DUET_RETURN_IF_ERROR(ctx.requireRank(a, "self", {3}));
  DUET_RETURN_IF_ERROR(ctx.requireRank(b, "other", {3}));
  if (a.sizes[0] != b.sizes[0])
    return ctx.error("batch sizes of {} and {} differ", formatShape(a.sizes),
                     formatShape(b.sizes));
  return matmulOf(ctx, a, b, ctx.out(0));
}

Status linear(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &w = ctx.in(1), &bias = ctx.in(2);
  const TensorView &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(requireFloats(ctx));
  DUET_RETURN_IF_ERROR(ctx.requireRank(w, "weight", {2}));
  const int64_t outFeatures = w.sizes[0], inFeatures = w.sizes[1];
  if (x.rank() < 1 || x.sizes.back() != inFeatures)
    return ctx.error("input {} does not end in the weight's in_features {}",
                     formatShape(x.sizes), inFeatures);
  Shape expected(x.sizes.begin(), x.sizes.end() - 1);
  const int64_t rows = product(expected);
  expected.push_back(outFeatures);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", expected));
  if (ctx.given(2)) {
    DUET_RETURN_IF_ERROR(ctx.requireFloat(bias, "bias"));
    DUET_RETURN_IF_ERROR(ctx.requireShape(bias, "bias", {outFeatures}));
  }
  if (ctx.checking())
    return Status::ok();
  float *out = y.as<float>();
  if (bias.present()) {
    for (int64_t r = 0; r < rows; ++r)
      std::copy(bias.as<const float>(), bias.as<const float>() + outFeatures,
                out + r * outFeatures);
  }
  gemm(rows, outFeatures, inFeatures, 1.f,
       MatrixRef::rowMajor(x.as<const float>(), inFeatures),
       MatrixRef::rowMajor(w.as<const float>(), inFeatures).transposed(),
       bias.present() ? 1.f : 0.f, out, outFeatures);
  return Status::ok();
}

Status addmm(const KernelContext &ctx) {
  const TensorView &self = ctx.in(0), &a = ctx.in(1), &b = ctx.in(2);
  const TensorView &y = ctx.out(0);
  AttrReader attrs(ctx);
  float beta = static_cast<float>(attrs.getFloat("beta"));
  float alpha = static_cast<float>(attrs.getFloat("alpha"));
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(requireFloats(ctx));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(b, "mat2"));
  DUET_RETURN_IF_ERROR(ctx.requireRank(a, "mat1", {2}));
  DUET_RETURN_IF_ERROR(ctx.requireRank(b, "mat2", {2}));
  const int64_t n = a.sizes[0], k = a.sizes[1], m = b.sizes[1];
  if (b.sizes[0] != k)
    return ctx.error("mat1 {} and mat2 {} do not multiply",
                     formatShape(a.sizes), formatShape(b.sizes));
  const Shape shape = {n, m};
  if (!broadcastsTo(self.sizes, shape))
    return ctx.error("self {} must broadcast to {}", formatShape(self.sizes),
                     formatShape(shape));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", shape));
  if (ctx.checking())
    return Status::ok();
  // beta == 0 ignores self entirely (NaN included), as in PyTorch.
  if (beta != 0.f)
    copyStrided(y.data, contiguousStrides(shape), self.data,
                broadcastStrides(self.sizes, shape), shape, sizeof(float));
  gemm(n, m, k, alpha, MatrixRef::rowMajor(a.as<const float>(), k),
       MatrixRef::rowMajor(b.as<const float>(), m), beta, y.as<float>(), m);
  return Status::ok();
}

} // namespace duet::rt::portable
