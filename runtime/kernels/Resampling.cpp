//===- Resampling.cpp - 2-D upsampling and grid sampling ------------------===//
//
// Source coordinates are computed in float exactly as PyTorch's CPU kernels
// for NCHW tensors compute them, so that the picked pixels and the weights
// agree to the last bit: the scale is in/out, or 1/scales_h when the op
// records one (PyTorch's scale_factor).
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <array>
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

/// The attributes and planes of an interpolating upsample (bilinear,
/// bicubic).
struct Interpolation {
  std::optional<double> scaleH, scaleW;
  bool alignCorners = false;
  Planes planes;
};

Status readInterpolation(const KernelContext &ctx, Interpolation &i) {
  AttrReader attrs(ctx);
  i.scaleH = attrs.getOptionalFloat("scales_h");
  i.scaleW = attrs.getOptionalFloat("scales_w");
  i.alignCorners = attrs.getBool("align_corners");
  DUET_RETURN_IF_ERROR(attrs.status());
  return readPlanes(ctx, i.planes);
}

/// Runs an interpolating upsample: the axes `makeAxis` builds for H and W,
/// then `pixel(plane, inW, h, oh, w, ow)` for each output pixel of each plane.
template <typename MakeAxis, typename Pixel>
Status interpolate(const KernelContext &ctx, MakeAxis makeAxis, Pixel pixel) {
  Interpolation i;
  DUET_RETURN_IF_ERROR(readInterpolation(ctx, i));
  if (ctx.checking())
    return Status::ok();
  const Planes &p = i.planes;
  auto h = makeAxis(p.inH, p.outH, i.alignCorners, i.scaleH);
  auto w = makeAxis(p.inW, p.outW, i.alignCorners, i.scaleW);
  const float *in = ctx.in(0).as<const float>();
  float *out = ctx.out(0).as<float>();
  for (int64_t c = 0; c < p.count; ++c) {
    const float *src = in + c * p.inH * p.inW;
    float *dst = out + c * p.outH * p.outW;
    for (int64_t oh = 0; oh < p.outH; ++oh)
      for (int64_t ow = 0; ow < p.outW; ++ow)
        dst[oh * p.outW + ow] = pixel(src, p.inW, h, oh, w, ow);
  }
  return Status::ok();
}

/// Source units per destination unit of an interpolation: between the
/// corner pixels' centres with aligned corners, else the scale.
float interpolationRatio(int64_t in, int64_t out, bool alignCorners,
                         std::optional<double> scale) {
  if (!alignCorners)
    return sourceScale(in, out, scale);
  return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                 : 0.f;
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
  float ratio = interpolationRatio(in, out, alignCorners, scale);
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
  return interpolate(ctx, linearAxis,
                     [](const float *src, int64_t inW, const LinearAxis &h,
                        int64_t oh, const LinearAxis &w, int64_t ow) {
                       const float *top = src + h.index[oh] * inW;
                       const float *bottom = top + h.step[oh] * inW;
                       const float h1 = h.lambda[oh], h0 = 1.f - h1;
                       const int64_t left = w.index[ow],
                                     right = left + w.step[ow];
                       const float w1 = w.lambda[ow], w0 = 1.f - w1;
                       return h0 * (w0 * top[left] + w1 * top[right]) +
                              h1 * (w0 * bottom[left] + w1 * bottom[right]);
                     });
}

namespace {

/// PyTorch's cubic convolution weights (a = -0.75) of the four taps around a
/// source point `t` past its floor.
std::array<float, 4> cubicWeights(float t) {
  constexpr float a = -0.75f;
  auto near = [](float x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [](float x) {
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  };
  return {far(t + 1.f), near(t), near(1.f - t), far(2.f - t)};
}

/// One axis of bicubic interpolation: output i reads taps floor(source) - 1
/// to + 2, clamped to the input, with the cubic weights.
struct CubicAxis {
  std::vector<std::array<int64_t, 4>> taps;
  std::vector<std::array<float, 4>> weights;
};

CubicAxis cubicAxis(int64_t in, int64_t out, bool alignCorners,
                    std::optional<double> scale) {
  CubicAxis axis;
  axis.taps.resize(out);
  axis.weights.resize(out);
  float ratio = interpolationRatio(in, out, alignCorners, scale);
  for (int64_t i = 0; i < out; ++i) {
    if (in == out) {
      // PyTorch copies when the size does not change.
      axis.taps[i] = {i, i, i, i};
      axis.weights[i] = {0.f, 1.f, 0.f, 0.f};
      continue;
    }
    // Unlike bilinear, a negative source is not clamped to 0.
    float source = alignCorners ? ratio * static_cast<float>(i)
                                : ratio * (static_cast<float>(i) + 0.5f) - 0.5f;
    float floored = std::floor(source);
    // A huge source (a tiny recorded scale) only reads the last row.
    int64_t base = floored >= static_cast<float>(in)
                       ? in
                       : (floored < -2.f ? -2 : static_cast<int64_t>(floored));
    for (int64_t k = 0; k < 4; ++k)
      axis.taps[i][k] = std::clamp<int64_t>(base - 1 + k, 0, in - 1);
    axis.weights[i] = cubicWeights(source - floored);
  }
  return axis;
}

} // namespace

Status upsampleBicubic2d(const KernelContext &ctx) {
  return interpolate(ctx, cubicAxis,
                     [](const float *src, int64_t inW, const CubicAxis &h,
                        int64_t oh, const CubicAxis &w, int64_t ow) {
                       // Each row's columns first, then the rows, as PyTorch
                       // sums them.
                       float sum = 0.f;
                       for (int64_t r = 0; r < 4; ++r) {
                         const float *row = src + h.taps[oh][r] * inW;
                         float across = 0.f;
                         for (int64_t k = 0; k < 4; ++k)
                           across += row[w.taps[ow][k]] * w.weights[ow][k];
                         sum += across * h.weights[oh][r];
                       }
                       return sum;
                     });
}

namespace {

enum class GridPadding { zeros = 0, border = 1, reflection = 2 };

/// `coord` reflected into [low, high] given as twice their values, as
/// PyTorch's reflect_coordinates.
float reflect(float coord, int64_t twiceLow, int64_t twiceHigh) {
  if (twiceLow == twiceHigh)
    return 0.f;
  float low = static_cast<float>(twiceLow) / 2;
  float span = static_cast<float>(twiceHigh - twiceLow) / 2;
  coord = std::fabs(coord - low);
  float extra = std::fmod(coord, span);
  int64_t flips = static_cast<int64_t>(std::floor(coord / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

/// The source coordinate of grid value `coord` along an axis of `size`:
/// unnormalized, then moved inside by the padding mode; a coordinate no
/// integer can hold (NaN, inf) becomes -100, outside every input.
float sourceCoordinate(float coord, int64_t size, GridPadding padding,
                       bool alignCorners) {
  coord = alignCorners ? (coord + 1) / 2 * static_cast<float>(size - 1)
                       : ((coord + 1) * static_cast<float>(size) - 1) / 2;
  auto clip = [&](float x) {
    return std::min(static_cast<float>(size - 1), std::max(x, 0.f));
  };
  if (padding == GridPadding::border) {
    coord = clip(coord);
  } else if (padding == GridPadding::reflection) {
    coord = alignCorners ? reflect(coord, 0, 2 * (size - 1))
                         : reflect(coord, -1, 2 * size - 1);
    coord = clip(coord);
  }
  if (!std::isfinite(coord) || std::fabs(coord) > 1.0e9f)
    return -100.f;
  return coord;
}

} // namespace

Status gridSampler2d(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &grid = ctx.in(1), &y = ctx.out(0);
  AttrReader attrs(ctx);
  int64_t mode = attrs.getInt("interpolation_mode");
  int64_t paddingMode = attrs.getInt("padding_mode");
  bool alignCorners = attrs.getBool("align_corners");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(grid, "grid"));
  DUET_RETURN_IF_ERROR(ctx.requireRank(x, "input", {4}));
  DUET_RETURN_IF_ERROR(ctx.requireRank(grid, "grid", {4}));
  if (mode < 0 || mode > 1)
    return ctx.error("interpolation_mode {} is not 0 (bilinear) or 1 "
                     "(nearest)",
                     mode);
  if (paddingMode < 0 || paddingMode > 2)
    return ctx.error("padding_mode {} is not 0, 1 or 2", paddingMode);
  if (grid.sizes[0] != x.sizes[0] || grid.sizes[3] != 2)
    return ctx.error("grid {} must be [N, Ho, Wo, 2] for the input {}",
                     formatShape(grid.sizes), formatShape(x.sizes));
  DUET_RETURN_IF_ERROR(
      ctx.requireShape(y, "output",
                       {x.sizes[0], x.sizes[1], grid.sizes[1], grid.sizes[2]}));
  if (ctx.checking())
    return Status::ok();
  const int64_t n = x.sizes[0], channels = x.sizes[1], inH = x.sizes[2],
                inW = x.sizes[3], outH = grid.sizes[1], outW = grid.sizes[2];
  const auto padding = static_cast<GridPadding>(paddingMode);
  const float *in = x.as<const float>(), *points = grid.as<const float>();
  float *out = y.as<float>();
  auto inside = [&](int64_t r, int64_t c) {
    return r >= 0 && r < inH && c >= 0 && c < inW;
  };
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < outH * outW; ++i) {
      const float *point = points + (b * outH * outW + i) * 2;
      float ix = sourceCoordinate(point[0], inW, padding, alignCorners);
      float iy = sourceCoordinate(point[1], inH, padding, alignCorners);
      for (int64_t c = 0; c < channels; ++c) {
        const float *plane = in + (b * channels + c) * inH * inW;
        float &dst = out[(b * channels + c) * outH * outW + i];
        if (mode == 1) {
          auto col = static_cast<int64_t>(std::nearbyint(ix));
          auto row = static_cast<int64_t>(std::nearbyint(iy));
          dst = inside(row, col) ? plane[row * inW + col] : 0.f;
          continue;
        }
        float left = std::floor(ix), top = std::floor(iy);
        auto col = static_cast<int64_t>(left);
        auto row = static_cast<int64_t>(top);
        float fx = ix - left, fy = iy - top;
        float sum = 0.f;
        // North-west, north-east, south-west, south-east.
        const float weights[4] = {(1 - fx) * (1 - fy), fx * (1 - fy),
                                  (1 - fx) * fy, fx * fy};
        for (int64_t k = 0; k < 4; ++k) {
          int64_t r = row + k / 2, q = col + k % 2;
          if (inside(r, q))
            sum += plane[r * inW + q] * weights[k];
        }
        dst = sum;
      }
    }
  }
  return Status::ok();
}

} // namespace duet::rt::portable
