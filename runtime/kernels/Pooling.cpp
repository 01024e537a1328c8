//===- Pooling.cpp - average, max and adaptive average pooling ------------===//
//
// Windows, output sizes and divisors follow PyTorch's CPU pooling exactly,
// including ceil_mode's rule that the last window must start inside the
// input or its left padding, and the divisors avg_pool2d uses at the edges.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace duet::rt::portable {
namespace {

/// Output length of a sliding window, as PyTorch computes it for pooling.
CheckedInt pooledSize(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                      int64_t dilation, bool ceilMode) {
  CheckedInt span = CheckedInt(in) + CheckedInt(2) * pad -
                    CheckedInt(dilation) * (kernel - 1) - 1;
  CheckedInt out =
      (ceilMode ? ceilDiv(span, stride) : floorDiv(span, stride)) + 1;
  if (!ceilMode)
    return out;
  // With ceil_mode the last window must start inside the input or left padding.
  CheckedInt lastStart = (out - 1) * stride;
  if (lastStart.overflowed())
    return lastStart;
  return lastStart.value() >= in + pad ? out - 1 : out;
}

/// The geometry shared by avg_pool2d and max_pool2d, over the last two dims
/// of a rank-3 or rank-4 input.
struct Window {
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  int64_t in[2], out[2];
  int64_t planes; // N * C
};

Status readWindow(const KernelContext &ctx, AttrReader &attrs, bool hasDilation,
                  Window &w) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  Shape kernel = attrs.getIntsOfSize("kernel_size", 2);
  Shape stride = attrs.getIntsOfSize("stride", 2);
  Shape padding = attrs.getIntsOfSize("padding", 2);
  Shape dilation =
      hasDilation ? attrs.getIntsOfSize("dilation", 2) : Shape{1, 1};
  bool ceilMode = attrs.getBool("ceil_mode");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireRank(x, "input", {3, 4}));
  Shape expected = x.sizes;
  size_t h = x.sizes.size() - 2;
  w.planes = product(Shape(x.sizes.begin(), x.sizes.begin() + h));
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || stride[i] < 1 || dilation[i] < 1 || padding[i] < 0)
      return ctx.error("kernel_size, stride and dilation must be positive "
                       "and padding non-negative, got kernel_size [{}], "
                       "stride [{}], padding [{}], dilation [{}]",
                       fmt::join(kernel, ", "), fmt::join(stride, ", "),
                       fmt::join(padding, ", "), fmt::join(dilation, ", "));
    if (padding[i] > kernel[i] / 2)
      return ctx.error("padding {} must be at most half the kernel size {}",
                       padding[i], kernel[i]);
    w.kernel[i] = kernel[i];
    w.stride[i] = stride[i];
    w.padding[i] = padding[i];
    w.dilation[i] = dilation[i];
    w.in[i] = x.sizes[h + i];
    CheckedInt out = pooledSize(w.in[i], kernel[i], stride[i], padding[i],
                                dilation[i], ceilMode);
    DUET_RETURN_IF_ERROR(ctx.requireNoOverflow(out, "the pooled size"));
    w.out[i] = out.value();
    if (w.out[i] < 1)
      return ctx.error("the window does not fit the input {}",
                       formatShape(x.sizes));
    expected[h + i] = w.out[i];
  }
  return ctx.requireShape(y, "output", expected);
}

/// The steps [begin, end) of a window of `kernel` positions `dilation`
/// apart, starting at `start` (negative in the padding), whose positions lie
/// in [0, size).
std::pair<int64_t, int64_t> insideSteps(int64_t start, int64_t dilation,
                                        int64_t kernel, int64_t size) {
  int64_t begin = start < 0 ? (-start + dilation - 1) / dilation : 0;
  int64_t end = start >= size ? 0 : (size - 1 - start) / dilation + 1;
  end = std::min(end, kernel);
  return {begin, std::max(begin, end)};
}

} // namespace

Status avgPool2d(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  bool countIncludePad = attrs.getBool("count_include_pad");
  std::optional<int64_t> divisorOverride =
      attrs.getOptionalInt("divisor_override");
  Window w;
  DUET_RETURN_IF_ERROR(readWindow(ctx, attrs, /*hasDilation=*/false, w));
  if (divisorOverride && *divisorOverride == 0)
    return ctx.error("divisor_override must not be 0");
  if (ctx.checking())
    return Status::ok();

  const float *in = ctx.in(0).as<const float>();
  float *out = ctx.out(0).as<float>();
  const int64_t inH = w.in[0], inW = w.in[1], outH = w.out[0], outW = w.out[1];
  for (int64_t p = 0; p < w.planes; ++p) {
    const float *plane = in + p * inH * inW;
    for (int64_t oh = 0; oh < outH; ++oh) {
      for (int64_t ow = 0; ow < outW; ++ow) {
        // The window clipped to the padded input counts for
        // count_include_pad; clipped to the input it is what is summed.
        int64_t h0 = oh * w.stride[0] - w.padding[0];
        int64_t w0 = ow * w.stride[1] - w.padding[1];
        int64_t h1 = std::min(h0 + w.kernel[0], inH + w.padding[0]);
        int64_t w1 = std::min(w0 + w.kernel[1], inW + w.padding[1]);
        int64_t paddedArea = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, inH);
        w1 = std::min(w1, inW);
        float &result = out[(p * outH + oh) * outW + ow];
        if (h0 >= h1 || w0 >= w1) {
          result = 0.f;
          continue;
        }
        double sum = 0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            sum += plane[ih * inW + iw];
        int64_t divisor = divisorOverride   ? *divisorOverride
                          : countIncludePad ? paddedArea
                                            : (h1 - h0) * (w1 - w0);
        result = static_cast<float>(sum / static_cast<double>(divisor));
      }
    }
  }
  return Status::ok();
}

Status maxPool2d(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  Window w;
  DUET_RETURN_IF_ERROR(readWindow(ctx, attrs, /*hasDilation=*/true, w));
  if (ctx.checking())
    return Status::ok();

  const float *in = ctx.in(0).as<const float>();
  float *out = ctx.out(0).as<float>();
  const int64_t inH = w.in[0], inW = w.in[1], outH = w.out[0], outW = w.out[1];
  for (int64_t p = 0; p < w.planes; ++p) {
    const float *plane = in + p * inH * inW;
    for (int64_t oh = 0; oh < outH; ++oh) {
      for (int64_t ow = 0; ow < outW; ++ow) {
        // Padding is -infinity: only window positions inside the input
        // are visited, so a window far larger than the input costs no more
        // than the input.
        float best = -std::numeric_limits<float>::infinity();
        int64_t h0 = oh * w.stride[0] - w.padding[0];
        int64_t w0 = ow * w.stride[1] - w.padding[1];
        auto [khBegin, khEnd] = insideSteps(h0, w.dilation[0], w.kernel[0], inH);
        auto [kwBegin, kwEnd] = insideSteps(w0, w.dilation[1], w.kernel[1], inW);
        for (int64_t kh = khBegin; kh < khEnd; ++kh) {
          int64_t ih = h0 + kh * w.dilation[0];
          for (int64_t kw = kwBegin; kw < kwEnd; ++kw) {
            int64_t iw = w0 + kw * w.dilation[1];
            float v = plane[ih * inW + iw];
            // NaN wins, as in PyTorch.
            if (v > best || std::isnan(v))
              best = v;
          }
        }
        out[(p * outH + oh) * outW + ow] = best;
      }
    }
  }
  return Status::ok();
}

Status adaptiveAvgPool2d(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireRank(x, "input", {3, 4}));
  if (y.rank() != x.rank() ||
      !std::equal(x.sizes.begin(), x.sizes.end() - 2, y.sizes.begin()))
    return ctx.error("output {} must keep the leading dims of the input {}",
                     formatShape(y.sizes), formatShape(x.sizes));
  const size_t h = x.sizes.size() - 2;
  const int64_t inH = x.sizes[h], inW = x.sizes[h + 1];
  const int64_t outH = y.sizes[h], outW = y.sizes[h + 1];
  const int64_t planes = product(Shape(x.sizes.begin(), x.sizes.begin() + h));
  if ((outH < 1 || outW < 1) && planes > 0)
    return ctx.error("output size {} must be positive", formatShape(y.sizes));
  if ((inH < 1 || inW < 1) && y.numel() > 0)
    return ctx.error("cannot pool an empty input {}", formatShape(x.sizes));
  if (ctx.checking())
    return Status::ok();

  const float *in = x.as<const float>();
  float *out = y.as<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const float *plane = in + p * inH * inW;
    for (int64_t oh = 0; oh < outH; ++oh) {
      // Rows [floor(oh * H / outH), ceil((oh + 1) * H / outH)).
      int64_t h0 = oh * inH / outH;
      int64_t h1 = ((oh + 1) * inH + outH - 1) / outH;
      for (int64_t ow = 0; ow < outW; ++ow) {
        int64_t w0 = ow * inW / outW;
        int64_t w1 = ((ow + 1) * inW + outW - 1) / outW;
        double sum = 0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            sum += plane[ih * inW + iw];
        out[(p * outH + oh) * outW + ow] = static_cast<float>(
            sum / static_cast<double>((h1 - h0) * (w1 - w0)));
      }
    }
  }
  return Status::ok();
}

} // namespace duet::rt::portable
