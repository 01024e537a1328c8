//===- Convolution.cpp - 1-D and 2-D convolution, grouped or transposed ---===//
//
// 1-D is 2-D with a height of 1. A convolution is, per image and group,
//   im2col:   the input patches as a [Cin/g * kh * kw, outH * outW] matrix,
//   gemm:     weight [Cout/g, Cin/g * kh * kw] times that matrix;
// a transposed convolution is the same product run backwards,
//   gemm:     weightᵀ [Cout/g * kh * kw, Cin/g] times the input,
//   col2im:   each column's values scattered-added into the output.
// Depthwise convolution (one input channel per group) has no reduction worth
// a matrix product and gets a direct loop over contiguous output rows.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Limits.h"
#include "runtime/kernels/Gemm.h"
#include "runtime/kernels/Ops.h"
#include "runtime/kernels/VectorMath.h"

#include <algorithm>

namespace duet::rt::portable {
namespace {

/// Sizes and attributes of one convolution, spatially 2-D.
struct ConvShape {
  int64_t batch, inC, inH, inW;
  int64_t outC, outH, outW;
  int64_t kH, kW, groups;
  int64_t strideH, strideW, padH, padW, dilH, dilW;
  bool transposed;
};

/// Reads and checks attributes and operand shapes the way the aten verifier
/// does, so that every later index is in bounds. The output size formulas
/// combine operand sizes with attributes from the program, so they are
/// computed with overflow checks.
Status readConvShape(const KernelContext &ctx, ConvShape &s) {
  const TensorView &x = ctx.in(0), &w = ctx.in(1), &b = ctx.in(2);
  const TensorView &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireRank(x, "input", {3, 4, 5}));
  const size_t spatial = x.sizes.size() - 2;
  AttrReader attrs(ctx);
  Shape stride = attrs.getIntsOfSize("stride", spatial);
  Shape padding = attrs.getIntsOfSize("padding", spatial);
  Shape dilation = attrs.getIntsOfSize("dilation", spatial);
  Shape outputPadding = attrs.getIntsOfSize("output_padding", spatial);
  s.groups = attrs.getInt("groups");
  s.transposed = attrs.getBool("transposed");
  DUET_RETURN_IF_ERROR(attrs.status());
  for (const TensorView *t : {&x, &w, &y})
    DUET_RETURN_IF_ERROR(ctx.requireFloat(*t, "operand"));
  if (w.rank() != x.rank())
    return ctx.error("weight {} must have the rank of the input {}",
                     formatShape(w.sizes), formatShape(x.sizes));
  if (s.groups < 1)
    return ctx.error("groups must be positive, got {}", s.groups);
  for (size_t i = 0; i < spatial; ++i)
    if (stride[i] < 1 || dilation[i] < 1 || padding[i] < 0 ||
        outputPadding[i] < 0)
      return ctx.error("stride and dilation must be positive, padding and "
                       "output_padding non-negative");

  // A 1-D convolution is a 2-D one over a height of 1.
  auto lead = [&](const Shape &v, int64_t one) {
    return spatial == 1 ? Shape{one, v[0]} : v;
  };
  Shape inSpatial = lead(Shape(x.sizes.begin() + 2, x.sizes.end()), 1);
  Shape kernel = lead(Shape(w.sizes.begin() + 2, w.sizes.end()), 1);
  stride = lead(stride, 1);
  padding = lead(padding, 0);
  dilation = lead(dilation, 1);
  outputPadding = lead(outputPadding, 0);

  s.batch = x.sizes[0];
  s.inC = x.sizes[1];
  s.inH = inSpatial[0];
  s.inW = inSpatial[1];
  s.kH = kernel[0];
  s.kW = kernel[1];
  s.strideH = stride[0];
  s.strideW = stride[1];
  s.padH = padding[0];
  s.padW = padding[1];
  s.dilH = dilation[0];
  s.dilW = dilation[1];
  if (kernel[0] < 1 || kernel[1] < 1)
    return ctx.error("the weight {} has an empty kernel", formatShape(w.sizes));
  CheckedInt out[2] = {0, 0};
  CheckedInt scratch = 0;
  if (!s.transposed) {
    CheckedInt channels = CheckedInt(w.sizes[1]) * s.groups;
    if (channels.overflowed() || s.inC != channels.value())
      return ctx.error("input has {} channels but weight {} expects {} x {} "
                       "groups",
                       s.inC, formatShape(w.sizes), w.sizes[1], s.groups);
    s.outC = w.sizes[0];
    if (s.outC % s.groups)
      return ctx.error("output channels {} are not divisible by groups {}",
                       s.outC, s.groups);
    for (int i = 0; i < 2; ++i)
      out[i] = floorDiv(CheckedInt(inSpatial[i]) + CheckedInt(2) * padding[i] -
                            CheckedInt(dilation[i]) * (kernel[i] - 1) - 1,
                        stride[i]) +
               1;
    // im2col: [Cin/g * kh * kw, outH * outW].
    scratch = CheckedInt(w.sizes[1]) * s.kH * s.kW * out[0] * out[1];
  } else {
    if (s.inC != w.sizes[0] || s.inC % s.groups)
      return ctx.error("transposed: input has {} channels but weight {} "
                       "has {} (they must match and divide by groups {})",
                       s.inC, formatShape(w.sizes), w.sizes[0], s.groups);
    CheckedInt channels = CheckedInt(w.sizes[1]) * s.groups;
    DUET_RETURN_IF_ERROR(
        ctx.requireNoOverflow(channels, "the number of output channels"));
    s.outC = channels.value();
    for (int i = 0; i < 2; ++i) {
      if (outputPadding[i] >= std::max(stride[i], dilation[i]))
        return ctx.error("output_padding must be smaller than stride or "
                         "dilation");
      out[i] = (CheckedInt(inSpatial[i]) - 1) * stride[i] -
               CheckedInt(2) * padding[i] +
               CheckedInt(dilation[i]) * (kernel[i] - 1) + outputPadding[i] + 1;
    }
    // The columns: [Cout/g * kh * kw, inH * inW].
    scratch = CheckedInt(w.sizes[1]) * s.kH * s.kW * s.inH * s.inW;
  }
  for (int i = 0; i < 2; ++i)
    DUET_RETURN_IF_ERROR(ctx.requireNoOverflow(out[i], "the output size"));
  s.outH = out[0].value();
  s.outW = out[1].value();
  if (s.outH < 1 || s.outW < 1)
    return ctx.error("the kernel {} does not fit the input {}",
                     formatShape(w.sizes), formatShape(x.sizes));
  Shape expected = {s.batch, s.outC};
  if (spatial == 2)
    expected.push_back(s.outH);
  expected.push_back(s.outW);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", expected));
  if (ctx.given(2)) {
    DUET_RETURN_IF_ERROR(ctx.requireFloat(b, "bias"));
    DUET_RETURN_IF_ERROR(ctx.requireShape(b, "bias", {s.outC}));
  }
  if (scratch.overflowed() ||
      scratch.value() > static_cast<int64_t>(kMaxTensorBytes / sizeof(float)))
    return ctx.error("needs a scratch matrix of more than {} bytes",
                     kMaxTensorBytes);
  return Status::ok();
}

/// Sets every output plane to its channel's bias, or to 0.
void initOutput(const ConvShape &s, const TensorView &bias, float *out) {
  const int64_t plane = s.outH * s.outW;
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t c = 0; c < s.outC; ++c) {
      float *p = out + (n * s.outC + c) * plane;
      std::fill(p, p + plane, bias.present() ? bias.as<const float>()[c] : 0.f);
    }
}

/// The range [lo, hi) of output positions o whose input position
/// o * stride + offset lies in [0, size).
std::pair<int64_t, int64_t> validRange(int64_t offset, int64_t stride,
                                       int64_t size, int64_t outSize) {
  int64_t lo = std::max<int64_t>(0, ceilDiv(-offset, stride));
  int64_t hi = std::min(outSize, floorDiv(size - 1 - offset, stride) + 1);
  return {lo, std::max(lo, hi)};
}

/// Patches of one group of one image, [c * kh * kw, outH * outW], with zeros
/// where the window covers padding.
void im2col(const ConvShape &s, int64_t channels, const float *in, float *col) {
  const int64_t outPlane = s.outH * s.outW;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t kh = 0; kh < s.kH; ++kh)
      for (int64_t kw = 0; kw < s.kW; ++kw) {
        float *row = col + ((c * s.kH + kh) * s.kW + kw) * outPlane;
        std::fill(row, row + outPlane, 0.f);
        const int64_t offH = kh * s.dilH - s.padH;
        const int64_t offW = kw * s.dilW - s.padW;
        auto [ohLo, ohHi] = validRange(offH, s.strideH, s.inH, s.outH);
        auto [owLo, owHi] = validRange(offW, s.strideW, s.inW, s.outW);
        for (int64_t oh = ohLo; oh < ohHi; ++oh) {
          const float *src =
              in + (c * s.inH + oh * s.strideH + offH) * s.inW + offW;
          float *dst = row + oh * s.outW;
          for (int64_t ow = owLo; ow < owHi; ++ow)
            dst[ow] = src[ow * s.strideW];
        }
      }
}

void convolveForward(const ConvShape &s, const float *in, const float *weight,
                     float *out) {
  const int64_t inCg = s.inC / s.groups, outCg = s.outC / s.groups;
  const int64_t reduction = inCg * s.kH * s.kW;
  const int64_t inPlane = s.inH * s.inW, outPlane = s.outH * s.outW;
  // A 1x1 kernel with unit stride and no padding reads the input as it is.
  const bool pointwise = s.kH == 1 && s.kW == 1 && s.strideH == 1 &&
                         s.strideW == 1 && s.padH == 0 && s.padW == 0;
  std::vector<float> col(pointwise ? 0 : reduction * outPlane);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < s.groups; ++g) {
      const float *x = in + (n * s.inC + g * inCg) * inPlane;
      if (!pointwise)
        im2col(s, inCg, x, col.data());
      gemm(outCg, outPlane, reduction, 1.f,
           MatrixRef::rowMajor(weight + g * outCg * reduction, reduction),
           MatrixRef::rowMajor(pointwise ? x : col.data(), outPlane), 1.f,
           out + (n * s.outC + g * outCg) * outPlane, outPlane);
    }
}

/// Groups of one input channel each, `multiplier` output channels per group;
/// the output planes on the program's threads (Parallel.h).
void convolveDepthwise(const ConvShape &s, const float *in, const float *weight,
                       float *out) {
  const int64_t multiplier = s.outC / s.inC;
  const int64_t work = std::max<int64_t>(1, s.outH * s.outW * s.kH * s.kW);
  parallelFor(
      s.batch * s.outC, std::max<int64_t>(1, kElementGrain / work),
      [&](int64_t begin, int64_t end) {
        for (int64_t plane = begin; plane < end; ++plane) {
          const int64_t n = plane / s.outC, oc = plane % s.outC;
          const float *x = in + (n * s.inC + oc / multiplier) * s.inH * s.inW;
          const float *w = weight + oc * s.kH * s.kW;
          float *y = out + (n * s.outC + oc) * s.outH * s.outW;
          for (int64_t kh = 0; kh < s.kH; ++kh)
            for (int64_t kw = 0; kw < s.kW; ++kw) {
              const float wv = w[kh * s.kW + kw];
              const int64_t offH = kh * s.dilH - s.padH;
              const int64_t offW = kw * s.dilW - s.padW;
              auto [ohLo, ohHi] = validRange(offH, s.strideH, s.inH, s.outH);
              auto [owLo, owHi] = validRange(offW, s.strideW, s.inW, s.outW);
              for (int64_t oh = ohLo; oh < ohHi; ++oh) {
                const float *src = x + (oh * s.strideH + offH) * s.inW + offW;
                float *dst = y + oh * s.outW;
                for (int64_t ow = owLo; ow < owHi; ++ow)
                  dst[ow] += wv * src[ow * s.strideW];
              }
            }
        }
      });
}

} // namespace

/// Depthwise convolution of unit stride and dilation, the common kind
/// (ConvNeXt's and FastViT's 7x7): each channel plane is copied once into a
/// zero-padded plane, and eight outputs of a row at a time add every tap's
/// shifted inputs, their sums kept in a vector register. The taps are added
/// in the general loop's order, so the sums agree with it (padding adds a
/// zero product where the general loop skips the tap).
DUET_KERNEL_CLONES
void depthwiseUnitStridePlanes(const ConvShape &s, const float *in,
                               const float *weight, float *out, int64_t begin,
                               int64_t end) {
  const int64_t multiplier = s.outC / s.inC;
  const int64_t paddedW = s.inW + 2 * s.padW, paddedH = s.inH + 2 * s.padH;
  const int64_t outPlane = s.outH * s.outW;
  // Eight outputs of a row at a time, their sums kept in a register across
  // the window; the row's last few one by one.
  const int64_t whole = s.outW / vec::kLanes * vec::kLanes;
  // The borders are never written, so they stay zero for every plane.
  std::vector<float> padded(paddedH * paddedW, 0.f);
  for (int64_t plane = begin; plane < end; ++plane) {
    const int64_t n = plane / s.inC, c = plane % s.inC;
    const float *x = in + (n * s.inC + c) * s.inH * s.inW;
    for (int64_t h = 0; h < s.inH; ++h)
      std::copy(x + h * s.inW, x + (h + 1) * s.inW,
                padded.data() + (h + s.padH) * paddedW + s.padW);
    for (int64_t m = 0; m < multiplier; ++m) {
      const int64_t oc = c * multiplier + m;
      const float *w = weight + oc * s.kH * s.kW;
      float *y = out + (n * s.outC + oc) * outPlane;
      for (int64_t oh = 0; oh < s.outH; ++oh) {
        float *dst = y + oh * s.outW;
        const float *top = padded.data() + oh * paddedW;
        for (int64_t ow = 0; ow < whole; ow += vec::kLanes) {
          vec::Floats8 sum = vec::load(dst + ow);
          for (int64_t kh = 0; kh < s.kH; ++kh) {
            const float *src = top + kh * paddedW + ow;
            const float *taps = w + kh * s.kW;
            for (int64_t kw = 0; kw < s.kW; ++kw)
              sum += taps[kw] * vec::load(src + kw);
          }
          vec::store(dst + ow, sum);
        }
        for (int64_t ow = whole; ow < s.outW; ++ow) {
          float sum = dst[ow];
          for (int64_t kh = 0; kh < s.kH; ++kh)
            for (int64_t kw = 0; kw < s.kW; ++kw)
              sum += w[kh * s.kW + kw] * top[kh * paddedW + ow + kw];
          dst[ow] = sum;
        }
      }
    }
  }
}

/// Depthwise convolution of unit stride and dilation: its input planes (and
/// the multiplier output planes of each) on the program's threads, each
/// chunk with its own padded plane.
void convolveDepthwiseUnitStride(const ConvShape &s, const float *in,
                                 const float *weight, float *out) {
  const int64_t work =
      std::max<int64_t>(1, s.outC / s.inC * s.outH * s.outW * s.kH * s.kW);
  parallelFor(s.batch * s.inC, std::max<int64_t>(1, kElementGrain / work),
              [&](int64_t begin, int64_t end) {
                depthwiseUnitStridePlanes(s, in, weight, out, begin, end);
              });
}

namespace {

void convolveTransposed(const ConvShape &s, const float *in,
                        const float *weight, float *out) {
  const int64_t inCg = s.inC / s.groups, outCg = s.outC / s.groups;
  const int64_t columns = outCg * s.kH * s.kW;
  const int64_t inPlane = s.inH * s.inW, outPlane = s.outH * s.outW;
  std::vector<float> col(columns * inPlane);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < s.groups; ++g) {
      // The group's weight is [inCg, outCg * kh * kw]; its transpose times
      // the input gives each input pixel's contribution to each tap.
      gemm(columns, inPlane, inCg, 1.f,
           MatrixRef::rowMajor(weight + g * inCg * columns, columns)
               .transposed(),
           MatrixRef::rowMajor(in + (n * s.inC + g * inCg) * inPlane, inPlane),
           0.f, col.data(), inPlane);
      float *y = out + (n * s.outC + g * outCg) * outPlane;
      for (int64_t oc = 0; oc < outCg; ++oc)
        for (int64_t kh = 0; kh < s.kH; ++kh)
          for (int64_t kw = 0; kw < s.kW; ++kw) {
            const float *row =
                col.data() + ((oc * s.kH + kh) * s.kW + kw) * inPlane;
            // Input pixel i lands on output i * stride + offset.
            const int64_t offH = kh * s.dilH - s.padH;
            const int64_t offW = kw * s.dilW - s.padW;
            auto [ihLo, ihHi] = validRange(offH, s.strideH, s.outH, s.inH);
            auto [iwLo, iwHi] = validRange(offW, s.strideW, s.outW, s.inW);
            for (int64_t ih = ihLo; ih < ihHi; ++ih) {
              float *dst =
                  y + (oc * s.outH + ih * s.strideH + offH) * s.outW + offW;
              const float *src = row + ih * s.inW;
              for (int64_t iw = iwLo; iw < iwHi; ++iw)
                dst[iw * s.strideW] += src[iw];
            }
          }
    }
}

/// A 3-D convolution (not transposed), checked the way the aten verifier
/// checks it, computed directly: each output element sums its window.
/// Volumes are rare in the models duet runs, so it is written for clarity.
Status convolution3d(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &w = ctx.in(1), &b = ctx.in(2);
  const TensorView &y = ctx.out(0);
  AttrReader attrs(ctx);
  Shape stride = attrs.getIntsOfSize("stride", 3);
  Shape padding = attrs.getIntsOfSize("padding", 3);
  Shape dilation = attrs.getIntsOfSize("dilation", 3);
  // Read for its check only: a 3-D convolution is never transposed.
  attrs.getIntsOfSize("output_padding", 3);
  int64_t groups = attrs.getInt("groups");
  bool transposed = attrs.getBool("transposed");
  DUET_RETURN_IF_ERROR(attrs.status());
  for (const TensorView *t : {&x, &w, &y})
    DUET_RETURN_IF_ERROR(ctx.requireFloat(*t, "operand"));
  DUET_RETURN_IF_ERROR(ctx.requireRank(w, "weight", {5}));
  if (transposed)
    return ctx.error("a 3-D transposed convolution is not supported");
  // Divided rather than multiplied: a hostile `groups` overflows a product.
  if (groups < 1 || x.sizes[1] % groups != 0 ||
      x.sizes[1] / groups != w.sizes[1] || w.sizes[0] % groups != 0)
    return ctx.error("input {} and weight {} do not fit {} groups",
                     formatShape(x.sizes), formatShape(w.sizes), groups);
  Shape expected = {x.sizes[0], w.sizes[0]};
  for (int i = 0; i < 3; ++i) {
    if (stride[i] < 1 || dilation[i] < 1 || padding[i] < 0 ||
        w.sizes[2 + i] < 1)
      return ctx.error("stride and dilation must be positive, padding "
                       "non-negative and the kernel not empty");
    CheckedInt size =
        floorDiv(CheckedInt(x.sizes[2 + i]) + CheckedInt(2) * padding[i] -
                     CheckedInt(dilation[i]) * (w.sizes[2 + i] - 1) - 1,
                 stride[i]) +
        1;
    DUET_RETURN_IF_ERROR(ctx.requireNoOverflow(size, "the output size"));
    if (size.value() < 1)
      return ctx.error("the kernel {} does not fit the input {}",
                       formatShape(w.sizes), formatShape(x.sizes));
    expected.push_back(size.value());
  }
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", expected));
  if (ctx.given(2)) {
    DUET_RETURN_IF_ERROR(ctx.requireFloat(b, "bias"));
    DUET_RETURN_IF_ERROR(ctx.requireShape(b, "bias", {w.sizes[0]}));
  }
  if (ctx.checking())
    return Status::ok();

  const float *in = x.as<const float>(), *weight = w.as<const float>();
  float *out = y.as<float>();
  const int64_t inC = x.sizes[1], outC = w.sizes[0];
  const int64_t groupIn = inC / groups, groupOut = outC / groups;
  const int64_t in3[3] = {x.sizes[2], x.sizes[3], x.sizes[4]};
  const int64_t k3[3] = {w.sizes[2], w.sizes[3], w.sizes[4]};
  const int64_t out3[3] = {expected[2], expected[3], expected[4]};
  const int64_t inVolume = in3[0] * in3[1] * in3[2];
  const int64_t kVolume = k3[0] * k3[1] * k3[2];
  for (int64_t n = 0; n < x.sizes[0]; ++n)
    for (int64_t oc = 0; oc < outC; ++oc) {
      const int64_t g = oc / groupOut;
      const float *filter = weight + oc * groupIn * kVolume;
      float *plane = out + (n * outC + oc) * out3[0] * out3[1] * out3[2];
      for (int64_t od = 0; od < out3[0]; ++od)
        for (int64_t oh = 0; oh < out3[1]; ++oh)
          for (int64_t ow = 0; ow < out3[2]; ++ow) {
            float sum = ctx.given(2) ? b.as<const float>()[oc] : 0.f;
            for (int64_t ic = 0; ic < groupIn; ++ic) {
              const float *image = in + (n * inC + g * groupIn + ic) * inVolume;
              const float *taps = filter + ic * kVolume;
              for (int64_t kd = 0; kd < k3[0]; ++kd) {
                int64_t id = od * stride[0] - padding[0] + kd * dilation[0];
                if (id < 0 || id >= in3[0])
                  continue;
                for (int64_t kh = 0; kh < k3[1]; ++kh) {
                  int64_t ih = oh * stride[1] - padding[1] + kh * dilation[1];
                  if (ih < 0 || ih >= in3[1])
                    continue;
                  for (int64_t kw = 0; kw < k3[2]; ++kw) {
                    int64_t iw = ow * stride[2] - padding[2] + kw * dilation[2];
                    if (iw < 0 || iw >= in3[2])
                      continue;
                    sum += image[(id * in3[1] + ih) * in3[2] + iw] *
                           taps[(kd * k3[1] + kh) * k3[2] + kw];
                  }
                }
              }
            }
            plane[(od * out3[1] + oh) * out3[2] + ow] = sum;
          }
    }
  return Status::ok();
}

} // namespace

Status convolution(const KernelContext &ctx) {
  if (ctx.in(0).rank() == 5)
    return convolution3d(ctx);
  ConvShape s;
  DUET_RETURN_IF_ERROR(readConvShape(ctx, s));
  if (ctx.checking())
    return Status::ok();
  const float *in = ctx.in(0).as<const float>();
  const float *weight = ctx.in(1).as<const float>();
  float *out = ctx.out(0).as<float>();
  initOutput(s, ctx.in(2), out);
  if (s.transposed)
    convolveTransposed(s, in, weight, out);
  else if (s.groups == s.inC && s.groups > 1 && s.strideH == 1 &&
           s.strideW == 1 && s.dilH == 1 && s.dilW == 1)
    convolveDepthwiseUnitStride(s, in, weight, out);
  else if (s.groups == s.inC && s.groups > 1)
    convolveDepthwise(s, in, weight, out);
  else
    convolveForward(s, in, weight, out);
  return Status::ok();
}

} // namespace duet::rt::portable
