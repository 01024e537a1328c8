//===- Attention.cpp - scaled dot-product attention -----------------------===//
//
// Per batch entry: scores = scale * q kᵀ (gemm), the mask applied, a stable
// row softmax, then scores v (gemm). A row whose every position is masked
// comes out as zeros, as PyTorch's math and CPU flash paths give since 2.5,
// instead of 0/0.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Limits.h"
#include "runtime/kernels/Gemm.h"
#include "runtime/kernels/Ops.h"

#include <cmath>
#include <limits>

namespace duet::rt::portable {

Status scaledDotProductAttention(const KernelContext &ctx) {
  const TensorView &q = ctx.in(0), &k = ctx.in(1), &v = ctx.in(2);
  const TensorView &mask = ctx.in(3), &y = ctx.out(0);
  AttrReader attrs(ctx);
  bool causal = attrs.getBool("is_causal");
  std::optional<double> scaleAttr = attrs.getOptionalFloat("scale");
  DUET_RETURN_IF_ERROR(attrs.status());
  for (const TensorView *t : {&q, &k, &v, &y})
    DUET_RETURN_IF_ERROR(ctx.requireFloat(*t, "operand"));
  const int64_t rank = q.rank();
  if (rank < 2 || k.rank() != rank || v.rank() != rank)
    return ctx.error("query {}, key {} and value {} must share one rank of 2 "
                     "or more",
                     formatShape(q.sizes), formatShape(k.sizes),
                     formatShape(v.sizes));
  const Shape batch(q.sizes.begin(), q.sizes.end() - 2);
  const int64_t L = q.sizes[rank - 2], E = q.sizes[rank - 1];
  const int64_t S = k.sizes[rank - 2], Ev = v.sizes[rank - 1];
  if (!std::equal(batch.begin(), batch.end(), k.sizes.begin()) ||
      !std::equal(batch.begin(), batch.end(), v.sizes.begin()) ||
      k.sizes[rank - 1] != E || v.sizes[rank - 2] != S)
    return ctx.error("query {}, key {} and value {} do not match: they need "
                     "[..., L, E], [..., S, E] and [..., S, Ev]",
                     formatShape(q.sizes), formatShape(k.sizes),
                     formatShape(v.sizes));
  Shape expected = batch;
  expected.push_back(L);
  expected.push_back(Ev);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", expected));

  Shape scoreShape = batch;
  scoreShape.push_back(L);
  scoreShape.push_back(S);
  Shape maskStrides;
  if (ctx.given(3)) {
    if (causal)
      return ctx.error("takes either attn_mask or is_causal, not both");
    DUET_RETURN_IF_ERROR(
        ctx.requireDType(mask, "attn_mask", {DType::boolean, DType::f32}));
    if (!broadcastsTo(mask.sizes, scoreShape))
      return ctx.error("attn_mask {} must broadcast to the scores {}",
                       formatShape(mask.sizes), formatShape(scoreShape));
    maskStrides = broadcastStrides(mask.sizes, scoreShape);
  }
  CheckedInt scoreCount = CheckedInt(L) * S;
  DUET_RETURN_IF_ERROR(
      ctx.requireNoOverflow(scoreCount, "the score matrix's size"));
  // The scores of one batch entry are scratch memory, bounded as a tensor.
  if (static_cast<uint64_t>(scoreCount.value()) > kMaxTensorBytes / sizeof(float))
    return ctx.error("its [{}, {}] scores would take over {} bytes, the most "
                     "one tensor may hold (kMaxTensorBytes)",
                     L, S, kMaxTensorBytes);
  if (ctx.checking())
    return Status::ok();
  const float scale = scaleAttr ? static_cast<float>(*scaleAttr)
                                : 1.f / std::sqrt(static_cast<float>(E));

  // Where each batch entry's mask starts, in batch order.
  std::vector<int64_t> maskBase;
  if (mask.present())
    forEachRow<1>(batch, {Shape(maskStrides.begin(), maskStrides.end() - 2)},
                  [&](const std::array<int64_t, 1> &off, int64_t count,
                      const std::array<int64_t, 1> &inner) {
                    for (int64_t i = 0; i < count; ++i)
                      maskBase.push_back(off[0] + i * inner[0]);
                  });

  const float kNegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> scores(L * S);
  const int64_t entries = product(batch);
  for (int64_t b = 0; b < entries; ++b) {
    gemm(L, S, E, scale,
         MatrixRef::rowMajor(q.as<const float>() + b * L * E, E),
         MatrixRef::rowMajor(k.as<const float>() + b * S * E, E).transposed(),
         0.f, scores.data(), S);
    for (int64_t i = 0; i < L; ++i) {
      float *row = scores.data() + i * S;
      for (int64_t j = 0; j < S; ++j) {
        if (causal && j > i) {
          row[j] = kNegInf;
        } else if (mask.present()) {
          int64_t at = maskBase[b] + i * maskStrides[rank - 2] +
                       j * maskStrides[rank - 1];
          if (mask.dtype == DType::boolean)
            row[j] = mask.as<const bool>()[at] ? row[j] : kNegInf;
          else
            row[j] += mask.as<const float>()[at];
        }
      }
      float peak = kNegInf;
      for (int64_t j = 0; j < S; ++j)
        peak = std::max(peak, row[j]);
      if (peak == kNegInf) {
        std::fill(row, row + S, 0.f);
        continue;
      }
      double total = 0;
      for (int64_t j = 0; j < S; ++j) {
        row[j] = std::exp(row[j] - peak);
        total += row[j];
      }
      for (int64_t j = 0; j < S; ++j)
        row[j] = static_cast<float>(row[j] / total);
    }
    gemm(L, Ev, S, 1.f, MatrixRef::rowMajor(scores.data(), S),
         MatrixRef::rowMajor(v.as<const float>() + b * S * Ev, Ev), 0.f,
         y.as<float>() + b * L * Ev, Ev);
  }
  return Status::ok();
}

} // namespace duet::rt::portable
