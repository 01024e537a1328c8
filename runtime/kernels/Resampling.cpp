//===- Resampling.cpp - nearest and bilinear 2-D upsampling ---------------===//
//
// Source coordinates are computed in float exactly as PyTorch's CPU kernels
// for NCHW tensors compute them, so that the picked pixels and the weights
// agree to the last bit: the scale is in/out, or 1/scales_h when the op
// records one (PyTorch's scale_factor).
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <cmath>

namespace duet::rt::portable {
namespace {

/// The source-per-destination scale when corners are not aligned.
float sourceScale(int64_t in, int64_t out, std::optional<double> scale) {
  if (scale && *scale > 0)
    return static_cast<float>(1.0 / *scale);
  return static_cast<float>(in) / static_cast<float>(out);
}

/// floor(source) clamped to at most `last`, without converting an out-of-range
/// float (a tiny scales_h makes the source huge) to an integer.
int64_t floorIndex(float source, int64_t last) {
  float floored = std::floor(source);
  return floored >= static_cast<float>(last) ? last
                                             : static_cast<int64_t>(floored);
}

struct Planes {
  int64_t count, inH, inW, outH, outW;
};

Status readPlanes(const KernelContext &ctx, Planes &p) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireRank(x, "input", {4}));
  if (y.rank() != 4 || y.sizes[0] != x.sizes[0] || y.sizes[1] != x.sizes[1] ||
      y.sizes[2] < 1 || y.sizes[3] < 1)
    return ctx.error("output {} must keep N and C of the input {} and have "
                     "positive H and W",
                     formatShape(y.sizes), formatShape(x.sizes));
  p = {x.sizes[0] * x.sizes[1], x.sizes[2], x.sizes[3], y.sizes[2], y.sizes[3]};
  if ((p.inH < 1 || p.inW < 1) && p.count > 0)
    return ctx.error("cannot upsample an empty input {}", formatShape(x.sizes));
  return Status::ok();
}

/// One axis of bilinear interpolation: output i blends source `index[i]`
/// (weight 1 - lambda[i]) with `index[i] + step[i]` (weight lambda[i]).
struct LinearAxis {
  std::vector<int64_t> index, step;
  std::vector<float> lambda;
};

LinearAxis linearAxis(int64_t in, int64_t out, bool alignCorners,
                      std::optional<double> scale) {
  LinearAxis axis;
  axis.index.resize(out);
  axis.step.resize(out);
  axis.lambda.resize(out);
  float ratio =
      alignCorners
          ? (out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                     : 0.f)
          : sourceScale(in, out, scale);
  for (int64_t i = 0; i < out; ++i) {
    if (in == out) {
      // PyTorch copies when the size does not change, whatever the scale.
      axis.index[i] = i;
      axis.step[i] = 0;
      axis.lambda[i] = 0.f;
      continue;
    }
    float source = alignCorners ? ratio * static_cast<float>(i)
                                : ratio * (static_cast<float>(i) + 0.5f) - 0.5f;
    if (!alignCorners && source < 0.f)
      source = 0.f;
    int64_t index = floorIndex(source, in - 1);
    axis.index[i] = index;
    axis.step[i] = index < in - 1 ? 1 : 0;
    axis.lambda[i] =
        std::min(std::max(source - static_cast<float>(index), 0.f), 1.f);
  }
  return axis;
}

} // namespace

Status upsampleNearest2d(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  std::optional<double> scaleH = attrs.getOptionalFloat("scales_h");
  std::optional<double> scaleW = attrs.getOptionalFloat("scales_w");
  DUET_RETURN_IF_ERROR(attrs.status());
  Planes p;
  DUET_RETURN_IF_ERROR(readPlanes(ctx, p));
  if (ctx.checking())
    return Status::ok();
  // src = min(floor(dst * scale), in - 1), PyTorch's `nearest` rule, with
  // its shortcuts for an unchanged and a doubled size, which it takes
  // whatever scale is recorded.
  auto sourceIndices = [](int64_t in, int64_t out, std::optional<double> s) {
    float scale = sourceScale(in, out, s);
    std::vector<int64_t> index(out);
    for (int64_t i = 0; i < out; ++i) {
      if (out == in)
        index[i] = i;
      else if (out == 2 * in)
        index[i] = i / 2;
      else
        index[i] = floorIndex(static_cast<float>(i) * scale, in - 1);
    }
    return index;
  };
  std::vector<int64_t> rows = sourceIndices(p.inH, p.outH, scaleH);
  std::vector<int64_t> cols = sourceIndices(p.inW, p.outW, scaleW);
  const float *in = ctx.in(0).as<const float>();
  float *out = ctx.out(0).as<float>();
  for (int64_t c = 0; c < p.count; ++c) {
    const float *src = in + c * p.inH * p.inW;
    float *dst = out + c * p.outH * p.outW;
    for (int64_t oh = 0; oh < p.outH; ++oh) {
      const float *row = src + rows[oh] * p.inW;
      for (int64_t ow = 0; ow < p.outW; ++ow)
        dst[oh * p.outW + ow] = row[cols[ow]];
    }
  }
  return Status::ok();
}

Status upsampleBilinear2d(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  std::optional<double> scaleH = attrs.getOptionalFloat("scales_h");
  std::optional<double> scaleW = attrs.getOptionalFloat("scales_w");
  bool alignCorners = attrs.getBool("align_corners");
  DUET_RETURN_IF_ERROR(attrs.status());
  Planes p;
  DUET_RETURN_IF_ERROR(readPlanes(ctx, p));
  if (ctx.checking())
    return Status::ok();
  LinearAxis h = linearAxis(p.inH, p.outH, alignCorners, scaleH);
  LinearAxis w = linearAxis(p.inW, p.outW, alignCorners, scaleW);
  const float *in = ctx.in(0).as<const float>();
  float *out = ctx.out(0).as<float>();
  for (int64_t c = 0; c < p.count; ++c) {
    const float *src = in + c * p.inH * p.inW;
    float *dst = out + c * p.outH * p.outW;
    for (int64_t oh = 0; oh < p.outH; ++oh) {
      const float *top = src + h.index[oh] * p.inW;
      const float *bottom = top + h.step[oh] * p.inW;
      const float h1 = h.lambda[oh], h0 = 1.f - h1;
      for (int64_t ow = 0; ow < p.outW; ++ow) {
        const int64_t left = w.index[ow], right = left + w.step[ow];
        const float w1 = w.lambda[ow], w0 = 1.f - w1;
        dst[oh * p.outW + ow] = h0 * (w0 * top[left] + w1 * top[right]) +
                                h1 * (w0 * bottom[left] + w1 * bottom[right]);
      }
    }
  }
  return Status::ok();
}

} // namespace duet::rt::portable
