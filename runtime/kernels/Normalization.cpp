//===- Normalization.cpp - batch_norm (inference) and layer_norm ----------===//

#include "runtime/kernels/Ops.h"
#include "runtime/kernels/VectorMath.h"

#include <algorithm>
#include <cmath>

namespace duet::rt::portable {
namespace {

/// Fails unless optional input `input` is absent or a float tensor of
/// `shape`.
Status requireParameter(const KernelContext &ctx, size_t input,
                        std::string_view what, const Shape &shape) {
  if (!ctx.given(input))
    return Status::ok();
  const TensorView &t = ctx.in(input);
  DUET_RETURN_IF_ERROR(ctx.requireFloat(t, what));
  return ctx.requireShape(t, what, shape);
}

/// One row of layer_norm: the mean, then the (biased) variance of the
/// differences from it, both summed in double eight lanes at a time; the
/// normalized value rounded to float, then scaled by `weight` and shifted by
/// `bias` where given.
[[gnu::always_inline]] inline void normalizeRow(const float *src, float *dst,
                                                int64_t width, double eps,
                                                const float *weight,
                                                const float *bias) {
  using namespace vec;
  const int64_t whole = width / kLanes * kLanes;
  Doubles4 sumLow = {}, sumHigh = {};
  for (int64_t i = 0; i < whole; i += kLanes) {
    Floats8 v = load(src + i);
    sumLow += widenLow(v);
    sumHigh += widenHigh(v);
  }
  double mean = sumLanes(sumLow + sumHigh);
  for (int64_t i = whole; i < width; ++i)
    mean += src[i];
  mean /= static_cast<double>(width);
  Doubles4 squaresLow = {}, squaresHigh = {};
  for (int64_t i = 0; i < whole; i += kLanes) {
    Floats8 v = load(src + i);
    Doubles4 low = widenLow(v) - mean, high = widenHigh(v) - mean;
    squaresLow += low * low;
    squaresHigh += high * high;
  }
  double variance = sumLanes(squaresLow + squaresHigh);
  for (int64_t i = whole; i < width; ++i)
    variance += (src[i] - mean) * (src[i] - mean);
  variance /= static_cast<double>(width);
  const double invStd = 1.0 / std::sqrt(variance + eps);
  // The last block is padded: weight 1, bias 0.
  for (int64_t i = 0; i < width; i += kLanes) {
    int64_t count = std::min(kLanes, width - i);
    Floats8 x = loadPartial(src + i, count, 0.f);
    Floats8 v =
        narrow((widenLow(x) - mean) * invStd, (widenHigh(x) - mean) * invStd);
    if (weight)
      v *= loadPartial(weight + i, count, 1.f);
    if (bias)
      v += loadPartial(bias + i, count, 0.f);
    storePartial(dst + i, v, count);
  }
}

} // namespace

Status batchNorm(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &mean = ctx.in(1), &var = ctx.in(2);
  const TensorView &weight = ctx.in(3), &bias = ctx.in(4), &y = ctx.out(0);
  AttrReader attrs(ctx);
  double eps = attrs.getFloat("eps");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  if (x.rank() < 2)
    return ctx.error("input must have rank 2 or more (N, C, ...), got {}",
                     formatShape(x.sizes));
  if (eps < 0)
    return ctx.error("eps {} must be non-negative", eps);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  const int64_t channels = x.sizes[1];
  const Shape perChannel = {channels};
  DUET_RETURN_IF_ERROR(ctx.requireFloat(mean, "running_mean"));
  DUET_RETURN_IF_ERROR(ctx.requireShape(mean, "running_mean", perChannel));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(var, "running_var"));
  DUET_RETURN_IF_ERROR(ctx.requireShape(var, "running_var", perChannel));
  DUET_RETURN_IF_ERROR(requireParameter(ctx, 3, "weight", perChannel));
  DUET_RETURN_IF_ERROR(requireParameter(ctx, 4, "bias", perChannel));
  if (ctx.checking())
    return Status::ok();

  const int64_t batch = x.sizes[0];
  const int64_t inner = x.numel() / std::max<int64_t>(1, batch * channels);
  const float *in = x.as<const float>();
  float *out = y.as<float>();
  for (int64_t c = 0; c < channels; ++c) {
    // y = x * scale + shift, as PyTorch's inference kernel folds it.
    float invStd = static_cast<float>(
        1.0 / std::sqrt(static_cast<double>(var.as<const float>()[c]) + eps));
    float gamma = weight.present() ? weight.as<const float>()[c] : 1.f;
    float beta = bias.present() ? bias.as<const float>()[c] : 0.f;
    float scale = invStd * gamma;
    float shift = beta - mean.as<const float>()[c] * scale;
    for (int64_t n = 0; n < batch; ++n) {
      const float *src = in + (n * channels + c) * inner;
      float *dst = out + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i)
        dst[i] = src[i] * scale + shift;
    }
  }
  return Status::ok();
}

/// Rows [begin, end) of layerNorm, each `width` long.
DUET_KERNEL_CLONES
static void normalizeRows(const float *x, float *y, int64_t begin, int64_t end,
                          int64_t width, double eps, const float *w,
                          const float *b) {
  for (int64_t r = begin; r < end; ++r)
    normalizeRow(x + r * width, y + r * width, width, eps, w, b);
}

Status layerNorm(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &weight = ctx.in(1), &bias = ctx.in(2);
  const TensorView &y = ctx.out(0);
  AttrReader attrs(ctx);
  Shape normalized = attrs.getInts("normalized_shape");
  double eps = attrs.getFloat("eps");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  if (normalized.empty() || normalized.size() > x.sizes.size() ||
      !std::equal(normalized.begin(), normalized.end(),
                  x.sizes.end() - normalized.size()))
    return ctx.error("normalized_shape [{}] must be the trailing dims of the "
                     "input {}",
                     fmt::join(normalized, ", "), formatShape(x.sizes));
  if (eps < 0)
    return ctx.error("eps {} must be non-negative", eps);
  DUET_RETURN_IF_ERROR(requireParameter(ctx, 1, "weight", normalized));
  DUET_RETURN_IF_ERROR(requireParameter(ctx, 2, "bias", normalized));
  if (ctx.checking())
    return Status::ok();

  const int64_t width = product(normalized);
  const int64_t rows = width > 0 ? x.numel() / width : 0;
  const float *w = weight.present() ? weight.as<const float>() : nullptr;
  const float *b = bias.present() ? bias.as<const float>() : nullptr;
  const float *in = x.as<const float>();
  float *out = y.as<float>();
  parallelFor(rows,
              std::max<int64_t>(1, kElementGrain / std::max<int64_t>(width, 1)),
              [&](int64_t begin, int64_t end) {
                normalizeRows(in, out, begin, end, width, eps, w, b);
              });
  return Status::ok();
}

} // namespace duet::rt::portable
