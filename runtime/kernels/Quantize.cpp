//===- Quantize.cpp - quantize and dequantize (PT2E) ----------------------===//
//
// The numeric reference of duet's int8 path: each kernel computes what
// torch/ao/quantization/fx/_decomposed.py computes, in the same types and
// order, so that a program run on these kernels gives the eager quantized
// model's integers exactly (docs/quantization.md):
//
//   quantize_per_tensor    q = clamp(round(x * float(1.0 / scale)) + zp, min, max)
//   dequantize_per_tensor  x = (float(q) - zp) * float(scale) (in double for
//                          a float64 result)
//   quantize_per_channel   q = clamp(round(x * (1 / s[c])) + zp[c], min, max)
//                          in the type of s (float32 or float64)
//   dequantize_per_channel x = (q - zp[c]) * s[c] in the type of s
//   choose_qparams         determine_qparams (torch/ao/quantization/utils.py)
//                          in float32: lo = min(min(x), 0), hi = max(max(x),
//                          0), s = max((hi - lo) / float(qmax - qmin),
//                          float(eps)), zp = clamp(qmin - int(round(lo / s)),
//                          qmin, qmax); s widened to double, zp int64
//
// The *_dynamic ops are the per-tensor ones with the scale and zero point read
// from one-element tensors when they run (PyTorch's .tensor overloads call
// .item() and then the per-tensor function).
//
// round is half to even (std::nearbyint in the default rounding mode). A NaN
// input, which PyTorch converts with undefined behaviour, becomes 0 clamped
// into [quant_min, quant_max].
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/ElementTypes.h"
#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace duet::rt::portable {

namespace {

/// The largest zero point a kernel takes: far beyond any integer type's
/// range, and far enough from int64's that q - zero_point cannot overflow.
constexpr int64_t kMaxZeroPoint = int64_t{1} << 40;

constexpr std::initializer_list<DType> kQuantized = {DType::i8, DType::u8,
                                                     DType::i16, DType::i32};
constexpr std::initializer_list<DType> kFloat = {DType::f32, DType::f16,
                                                 DType::bf16};

/// The range of the quantized element type `Q`.
template <typename Q> bool inRange(int64_t v) {
  return v >= int64_t(std::numeric_limits<Q>::min()) &&
         v <= int64_t(std::numeric_limits<Q>::max());
}

/// The attributes every quantization op has: the clamp range (checked
/// against the quantized dtype) and, per tensor, the scale and zero point.
struct QuantAttrs {
  int64_t min = 0, max = 0;
  double scale = 1;
  int64_t zeroPoint = 0;
};

Status readRange(const KernelContext &ctx, AttrReader &attrs, DType quantized,
                 QuantAttrs &q) {
  q.min = attrs.getInt("quant_min");
  q.max = attrs.getInt("quant_max");
  DUET_RETURN_IF_ERROR(attrs.status());
  bool fits = visitDType(quantized, [&](auto tag) {
    using Q = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<Q> && !std::is_same_v<Q, bool>)
      return inRange<Q>(q.min) && inRange<Q>(q.max);
    return false;
  });
  if (!fits || q.min > q.max)
    return ctx.error("quant_min {} and quant_max {} do not fit {} or are out "
                     "of order",
                     q.min, q.max, dtypeName(quantized));
  return Status::ok();
}

Status readPerTensor(const KernelContext &ctx, DType quantized,
                     QuantAttrs &q) {
  AttrReader attrs(ctx);
  q.scale = attrs.getFloat("scale");
  q.zeroPoint = attrs.getInt("zero_point");
  DUET_RETURN_IF_ERROR(attrs.status());
  if (!(q.scale > 0) || !std::isfinite(q.scale))
    return ctx.error("scale {} is not positive and finite", q.scale);
  if (q.zeroPoint < -kMaxZeroPoint || q.zeroPoint > kMaxZeroPoint)
    return ctx.error("zero_point {} is out of range", q.zeroPoint);
  return readRange(ctx, attrs, quantized, q);
}

/// `v` (already rounded) clamped to [min, max] as Q; NaN becomes 0 clamped.
template <typename Q, typename F> Q saturate(F v, F min, F max) {
  if (std::isnan(v))
    v = 0;
  return static_cast<Q>(v < min ? min : (v > max ? max : v));
}

/// Dims before `axis`, at it, and after it.
struct Channels {
  int64_t outer = 1, channels = 1, inner = 1;
};
Channels channelsOf(const TensorView &t, int64_t axis) {
  Channels c;
  for (int64_t d = 0; d < t.rank(); ++d)
    (d < axis ? c.outer : d == axis ? c.channels : c.inner) *= t.sizes[d];
  return c;
}

/// Checks of the per-channel operands: `axis`, scales of one element per
/// channel (float32 or float64), zero points (integers) likewise.
Status checkChannels(const KernelContext &ctx, const TensorView &x,
                     int64_t axis, const TensorView &scales,
                     const TensorView *zeroPoints) {
  DUET_RETURN_IF_ERROR(ctx.requireDim(axis, x.rank(), "axis"));
  DUET_RETURN_IF_ERROR(
      ctx.requireDType(scales, "scales", {DType::f32, DType::f64}));
  DUET_RETURN_IF_ERROR(ctx.requireShape(scales, "scales", {x.sizes[axis]}));
  if (zeroPoints) {
    DUET_RETURN_IF_ERROR(
        ctx.requireDType(*zeroPoints, "zero_points", {DType::i64, DType::i32}));
    DUET_RETURN_IF_ERROR(
        ctx.requireShape(*zeroPoints, "zero_points", {x.sizes[axis]}));
  }
  return Status::ok();
}

/// Fails unless every per-channel zero point is within kMaxZeroPoint; run
/// before the loops (zero points are data, not attributes).
Status checkZeroPoints(const KernelContext &ctx, const TensorView *zeroPoints,
                       int64_t channels);

int64_t zeroPointAt(const TensorView *zeroPoints, int64_t c) {
  if (!zeroPoints)
    return 0;
  return zeroPoints->dtype == DType::i64 ? zeroPoints->as<const int64_t>()[c]
                                         : zeroPoints->as<const int32_t>()[c];
}

Status checkZeroPoints(const KernelContext &ctx, const TensorView *zeroPoints,
                       int64_t channels) {
  for (int64_t c = 0; zeroPoints && c < channels; ++c) {
    int64_t zeroPoint = zeroPointAt(zeroPoints, c);
    if (zeroPoint < -kMaxZeroPoint || zeroPoint > kMaxZeroPoint)
      return ctx.error("zero point {} of channel {} is out of range",
                       zeroPoint, c);
  }
  return Status::ok();
}

/// Calls `body(TypeTag<Q>{})` for the integer type of a quantized tensor.
template <typename F> void visitQuantized(DType dtype, F &&body) {
  visitDType(dtype, [&](auto tag) {
    using Q = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<Q> && !std::is_same_v<Q, bool>)
      body(tag);
  });
}

/// Calls `body(in, out)` with the typed data of a dequantize from the
/// integers of `x` to the floats of `y`.
template <typename F>
void visitDequantize(const TensorView &x, const TensorView &y, F &&body) {
  visitQuantized(x.dtype, [&](auto from) {
    using Q = typename decltype(from)::type;
    visitDType(y.dtype, [&](auto to) {
      using To = typename decltype(to)::type;
      if constexpr (!std::is_integral_v<To>)
        body(x.as<const Q>(), y.as<To>());
    });
  });
}

} // namespace

namespace {

/// The scale and zero point of a dynamic op, read from its one-element
/// tensors `in(1)` and `in(2)`, and its range from the attributes.
Status readDynamic(const KernelContext &ctx, DType quantized, QuantAttrs &q) {
  const TensorView &scale = ctx.in(1), &zeroPoint = ctx.in(2);
  DUET_RETURN_IF_ERROR(
      ctx.requireDType(scale, "scale", {DType::f32, DType::f64}));
  DUET_RETURN_IF_ERROR(
      ctx.requireDType(zeroPoint, "zero_point", {DType::i64, DType::i32}));
  if (scale.numel() != 1 || zeroPoint.numel() != 1)
    return ctx.error("scale and zero_point must have one element each, got "
                     "{} and {}",
                     scale.numel(), zeroPoint.numel());
  AttrReader attrs(ctx);
  DUET_RETURN_IF_ERROR(readRange(ctx, attrs, quantized, q));
  if (ctx.checking())
    return Status::ok();
  // Data, not attributes: checked when it runs.
  q.scale = scale.dtype == DType::f64 ? scale.as<const double>()[0]
                                      : double(scale.as<const float>()[0]);
  q.zeroPoint = zeroPointAt(&zeroPoint, 0);
  if (!(q.scale > 0) || !std::isfinite(q.scale))
    return ctx.error("scale {} is not positive and finite", q.scale);
  if (q.zeroPoint < -kMaxZeroPoint || q.zeroPoint > kMaxZeroPoint)
    return ctx.error("zero_point {} is out of range", q.zeroPoint);
  return Status::ok();
}

/// The checks of a per-tensor quantize from `x` to `y`.
Status checkQuantize(const KernelContext &ctx, const TensorView &x,
                     const TensorView &y) {
  DUET_RETURN_IF_ERROR(ctx.requireDType(x, "input", kFloat));
  DUET_RETURN_IF_ERROR(ctx.requireDType(y, "output", kQuantized));
  return ctx.requireShape(y, "output", x.sizes);
}

/// Calls `body(in)` with the typed data of float tensor `x` (float32, or a
/// 16-bit type, which PyTorch converts to float32 first: widen is exact).
template <typename F> void visitFloat(const TensorView &x, F &&body) {
  visitDType(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> ||
                  std::is_same_v<T, BFloat16>)
      body(x.as<const T>());
  });
}

/// The checks of a per-tensor dequantize from `x` to `y`.
Status checkDequantize(const KernelContext &ctx, const TensorView &x,
                       const TensorView &y) {
  DUET_RETURN_IF_ERROR(ctx.requireDType(x, "input", kQuantized));
  DUET_RETURN_IF_ERROR(ctx.requireDType(
      y, "output", {DType::f32, DType::f16, DType::bf16, DType::f64}));
  return ctx.requireShape(y, "output", x.sizes);
}

void quantizeTensor(const TensorView &x, const TensorView &y,
                    const QuantAttrs &q) {
  const float inverse = static_cast<float>(1.0 / q.scale);
  const float zeroPoint = static_cast<float>(q.zeroPoint);
  const float min = static_cast<float>(q.min), max = static_cast<float>(q.max);
  int64_t n = x.numel();
  visitFloat(x, [&](const auto *in) {
    visitQuantized(y.dtype, [&](auto tag) {
      using Q = typename decltype(tag)::type;
      Q *out = y.as<Q>();
      for (int64_t i = 0; i < n; ++i)
        out[i] = saturate<Q>(std::nearbyint(widen(in[i]) * inverse) + zeroPoint,
                             min, max);
    });
  });
}

void dequantizeTensor(const TensorView &x, const TensorView &y,
                      const QuantAttrs &q) {
  const float scale = static_cast<float>(q.scale);
  const float zeroPoint = static_cast<float>(q.zeroPoint);
  int64_t n = x.numel();
  visitDequantize(x, y, [&](const auto *in, auto *out) {
    using To = std::remove_pointer_t<decltype(out)>;
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<To, double>)
        // PyTorch converts to out_dtype first: double arithmetic.
        out[i] = (double(in[i]) - double(q.zeroPoint)) * q.scale;
      else
        out[i] =
            convertElement<To>((static_cast<float>(in[i]) - zeroPoint) * scale);
    }
  });
}

} // namespace

Status quantizePerTensor(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(checkQuantize(ctx, x, y));
  QuantAttrs q;
  DUET_RETURN_IF_ERROR(readPerTensor(ctx, y.dtype, q));
  if (!ctx.checking())
    quantizeTensor(x, y, q);
  return Status::ok();
}

Status dequantizePerTensor(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(checkDequantize(ctx, x, y));
  QuantAttrs q;
  DUET_RETURN_IF_ERROR(readPerTensor(ctx, x.dtype, q));
  if (!ctx.checking())
    dequantizeTensor(x, y, q);
  return Status::ok();
}

Status quantizePerTensorDynamic(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(checkQuantize(ctx, x, y));
  QuantAttrs q;
  DUET_RETURN_IF_ERROR(readDynamic(ctx, y.dtype, q));
  if (!ctx.checking())
    quantizeTensor(x, y, q);
  return Status::ok();
}

Status dequantizePerTensorDynamic(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(checkDequantize(ctx, x, y));
  QuantAttrs q;
  DUET_RETURN_IF_ERROR(readDynamic(ctx, x.dtype, q));
  if (!ctx.checking())
    dequantizeTensor(x, y, q);
  return Status::ok();
}

Status chooseQparams(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &scale = ctx.out(0), &zeroPoint = ctx.out(1);
  DUET_RETURN_IF_ERROR(ctx.requireDType(x, "input", kFloat));
  DUET_RETURN_IF_ERROR(ctx.requireDType(scale, "scale", {DType::f64}));
  DUET_RETURN_IF_ERROR(ctx.requireShape(scale, "scale", {1}));
  DUET_RETURN_IF_ERROR(ctx.requireDType(zeroPoint, "zero_point", {DType::i64}));
  DUET_RETURN_IF_ERROR(ctx.requireShape(zeroPoint, "zero_point", {1}));
  AttrReader attrs(ctx);
  int64_t qmin = attrs.getInt("quant_min"), qmax = attrs.getInt("quant_max");
  double eps = attrs.getFloat("eps");
  DUET_RETURN_IF_ERROR(attrs.status());
  if (!(qmin <= 0 && 0 <= qmax && qmin < qmax) || qmin < INT32_MIN ||
      qmax > INT32_MAX)
    return ctx.error("quant_min {} and quant_max {} must satisfy quant_min "
                     "<= 0 <= quant_max, quant_min < quant_max, within int32",
                     qmin, qmax);
  if (ctx.checking())
    return Status::ok();
  int64_t n = x.numel();
  if (n == 0) {
    // check_min_max_valid: no range, PyTorch's defaults.
    scale.as<double>()[0] = 1;
    zeroPoint.as<int64_t>()[0] = 0;
    return Status::ok();
  }
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  int64_t nan = -1;
  visitFloat(x, [&](const auto *in) {
    for (int64_t i = 0; i < n && nan < 0; ++i) {
      float v = widen(in[i]);
      if (std::isnan(v))
        nan = i;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  });
  if (nan >= 0)
    return ctx.error("element {} of the input is NaN: PyTorch's "
                     "choose_qparams fails (min <= max does not hold)",
                     nan);
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  // float32 throughout, as PyTorch's tensors are: (hi - lo) / 255.0 divides
  // in float32, eps is a float32 tensor.
  float s = (hi - lo) / static_cast<float>(qmax - qmin);
  s = std::max(s, static_cast<float>(eps));
  // round(lo / s) is an integral float32 within [-(qmax - qmin), 0] for a
  // finite range; .to(torch.int) of an infinite range's NaN is undefined in
  // PyTorch, here 0.
  float quotient = std::nearbyint(lo / s);
  int64_t z = std::isfinite(quotient) ? qmin - int64_t(quotient) : qmin;
  scale.as<double>()[0] = double(s);
  zeroPoint.as<int64_t>()[0] = std::clamp(z, qmin, qmax);
  return Status::ok();
}

Status quantizePerChannel(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &scales = ctx.in(1),
                   &zeroPoints = ctx.in(2), &y = ctx.out(0);
  AttrReader attrs(ctx);
  int64_t axis = attrs.getInt("axis");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireDType(x, "input", {DType::f32}));
  DUET_RETURN_IF_ERROR(ctx.requireDType(y, "output", kQuantized));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  DUET_RETURN_IF_ERROR(checkChannels(ctx, x, axis, scales, &zeroPoints));
  QuantAttrs q;
  DUET_RETURN_IF_ERROR(readRange(ctx, attrs, y.dtype, q));
  if (ctx.checking())
    return Status::ok();
  Channels shape = channelsOf(x, axis);
  DUET_RETURN_IF_ERROR(checkZeroPoints(ctx, &zeroPoints, shape.channels));
  const float *in = x.as<const float>();
  visitQuantized(y.dtype, [&](auto tag) {
    using Q = typename decltype(tag)::type;
    Q *out = y.as<Q>();
    auto run = [&](auto scaleTag) {
      using S = decltype(scaleTag);
      const S *s = scales.as<const S>();
      const S min = S(q.min), max = S(q.max);
      for (int64_t o = 0; o < shape.outer; ++o)
        for (int64_t c = 0; c < shape.channels; ++c) {
          const S inverse = S(1) / s[c];
          const S zeroPoint = S(zeroPointAt(&zeroPoints, c));
          int64_t base = (o * shape.channels + c) * shape.inner;
          for (int64_t i = base; i < base + shape.inner; ++i)
            out[i] = saturate<Q>(
                std::nearbyint(static_cast<S>(in[i]) * inverse) + zeroPoint,
                min, max);
        }
    };
    if (scales.dtype == DType::f64)
      run(double{});
    else
      run(float{});
  });
  return Status::ok();
}

Status dequantizePerChannel(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &scales = ctx.in(1), &y = ctx.out(0);
  const TensorView *zeroPoints = ctx.given(2) ? &ctx.in(2) : nullptr;
  AttrReader attrs(ctx);
  int64_t axis = attrs.getInt("axis");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireDType(x, "input", kQuantized));
  DUET_RETURN_IF_ERROR(ctx.requireDType(
      y, "output", {DType::f32, DType::f16, DType::bf16, DType::f64}));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  DUET_RETURN_IF_ERROR(checkChannels(ctx, x, axis, scales, zeroPoints));
  QuantAttrs q;
  DUET_RETURN_IF_ERROR(readRange(ctx, attrs, x.dtype, q));
  if (ctx.checking())
    return Status::ok();
  Channels shape = channelsOf(x, axis);
  DUET_RETURN_IF_ERROR(checkZeroPoints(ctx, zeroPoints, shape.channels));
  visitDequantize(x, y, [&](const auto *in, auto *out) {
    using To = std::remove_pointer_t<decltype(out)>;
    auto run = [&](auto scaleTag) {
      using S = decltype(scaleTag);
      const S *s = scales.as<const S>();
      for (int64_t o = 0; o < shape.outer; ++o)
        for (int64_t c = 0; c < shape.channels; ++c) {
          int64_t zeroPoint = zeroPointAt(zeroPoints, c);
          int64_t base = (o * shape.channels + c) * shape.inner;
          for (int64_t i = base; i < base + shape.inner; ++i)
            out[i] = convertElement<To>(
                static_cast<S>(int64_t(in[i]) - zeroPoint) * s[c]);
        }
    };
    if (scales.dtype == DType::f64)
      run(double{});
    else
      run(float{});
  });
  return Status::ok();
}

} // namespace duet::rt::portable
