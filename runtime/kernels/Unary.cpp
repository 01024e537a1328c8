//===- Unary.cpp - elementwise activations and math -----------------------===//
//
// Each op is one scalar function applied by mapFloat; the formulas follow
// PyTorch's CPU kernels (including where NaN propagates), evaluated in float.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/ElementTypes.h"
#include "runtime/kernels/Ops.h"
#include "runtime/kernels/VectorMath.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <type_traits>

namespace duet::rt::portable {
namespace {

using vec::Floats8;

/// `fn` on in[0, n) into out: a function of one float, or of eight lanes
/// (vec::Floats8) for the ops whose scalar form would branch or call libm per
/// element; the lanes' form is then the only one (vec::map pads the tail).
/// Cloned, so that `fn`, inlined into it, runs in each clone's instructions.
template <typename Fn>
DUET_KERNEL_CLONES void mapRange(const float *in, float *out, int64_t n,
                                 Fn fn) {
  if constexpr (std::is_invocable_r_v<Floats8, Fn, Floats8>) {
    vec::map(in, out, n, fn);
  } else {
    for (int64_t i = 0; i < n; ++i)
      out[i] = fn(in[i]);
  }
}

/// Applies `fn` to every element of the float input, in chunks on the
/// program's threads (Parallel.h).
template <typename Fn>
[[gnu::always_inline]] inline Status mapFloat(const KernelContext &ctx, Fn fn) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  if (ctx.checking())
    return Status::ok();
  const float *in = x.as<const float>();
  float *out = y.as<float>();
  parallelFor(x.numel(), kElementGrain, [&](int64_t begin, int64_t end) {
    mapRange(in + begin, out + begin, end - begin, fn);
  });
  return Status::ok();
}

/// Like mapFloat, and on integer tensors applies `intFn` in the tensor's own
/// type.
template <typename FloatFn, typename IntFn>
Status mapNumber(const KernelContext &ctx, FloatFn floatFn, IntFn intFn) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  if (x.dtype == DType::f32)
    return mapFloat(ctx, floatFn);
  DUET_RETURN_IF_ERROR(
      ctx.requireDType(x, "input",
                       {DType::f32, DType::f16, DType::bf16, DType::i64,
                        DType::i32, DType::i16, DType::i8, DType::u8}));
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&x, &y}));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  if (ctx.checking())
    return Status::ok();
  visitDType(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T *in = x.as<const T>();
      T *out = y.as<T>();
      for (int64_t i = 0, n = x.numel(); i < n; ++i)
        out[i] = intFn(in[i]);
    }
  });
  return Status::ok();
}

/// -v with two's-complement wrap-around (the negation of the smallest value
/// is itself, as in PyTorch), without signed overflow.
template <typename T> T wrappingNeg(T v) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(v)));
}

/// max(x, lo) then min(., hi), NaN propagating as in PyTorch's clamp.
float clampValue(float x, float lo, float hi) {
  return std::min(std::max(x, lo), hi);
}

} // namespace

DUET_KERNEL_CLONES
Status relu(const KernelContext &ctx) {
  // x < 0 is false for NaN, so NaN passes through as in PyTorch. The scalar
  // loop compiled to a branch per element (~4 ns each on random signs).
  return mapFloat(ctx, [](Floats8 v) {
    Floats8 zero = {};
    return v < zero ? zero : v;
  });
}

Status hardswish(const KernelContext &ctx) {
  return mapFloat(
      ctx, [](float x) { return x * clampValue(x + 3.f, 0.f, 6.f) / 6.f; });
}

Status hardsigmoid(const KernelContext &ctx) {
  return mapFloat(ctx,
                  [](float x) { return clampValue(x + 3.f, 0.f, 6.f) / 6.f; });
}

DUET_KERNEL_CLONES
Status silu(const KernelContext &ctx) {
  return mapFloat(ctx, [](Floats8 x) { return x / (1.f + vec::exp(-x)); });
}

DUET_KERNEL_CLONES
Status sigmoid(const KernelContext &ctx) {
  return mapFloat(ctx, [](Floats8 x) { return 1.f / (1.f + vec::exp(-x)); });
}

DUET_KERNEL_CLONES
Status tanh(const KernelContext &ctx) {
  return mapFloat(ctx, [](Floats8 x) { return vec::tanh(x); });
}

Status abs(const KernelContext &ctx) {
  return mapNumber(
      ctx, [](float x) { return std::fabs(x); },
      [](auto v) { return v < 0 ? wrappingNeg(v) : v; });
}

Status neg(const KernelContext &ctx) {
  return mapNumber(
      ctx, [](float x) { return -x; }, [](auto v) { return wrappingNeg(v); });
}

DUET_KERNEL_CLONES
Status exp(const KernelContext &ctx) {
  return mapFloat(ctx, [](Floats8 x) { return vec::exp(x); });
}

Status log(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::log(x); });
}

Status acos(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::acos(x); });
}
Status asin(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::asin(x); });
}
Status atan(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::atan(x); });
}
Status sinh(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::sinh(x); });
}
Status cosh(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::cosh(x); });
}
Status tan(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::tan(x); });
}
Status asinh(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::asinh(x); });
}
Status acosh(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::acosh(x); });
}
Status atanh(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::atanh(x); });
}
// Giles' single-precision erf⁻¹ as the start ("Approximating the erfinv
// function"), then two Newton steps on erf(x) = y in double: correctly
// rounded to float but for the last bit.
Status erfinv(const KernelContext &ctx) {
  return mapFloat(ctx, [](float value) {
    double y = value;
    if (!(std::abs(y) < 1.0))
      return std::abs(y) == 1.0
                 ? std::copysign(std::numeric_limits<float>::infinity(), value)
                 : std::numeric_limits<float>::quiet_NaN();
    double w = -std::log((1.0 - y) * (1.0 + y)), p;
    if (w < 5.0) {
      w -= 2.5;
      p = 2.81022636e-08;
      for (double c :
           {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
            -0.00125372503, -0.00417768164, 0.246640727, 1.50140941})
        p = c + p * w;
    } else {
      w = std::sqrt(w) - 3.0;
      p = -0.000200214257;
      for (double c :
           {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
            -0.0076224613, 0.00943887047, 1.00167406, 2.83297682})
        p = c + p * w;
    }
    double x = p * y;
    constexpr double kTwoOverRootPi = 1.1283791670955126;
    for (int step = 0; step < 2; ++step)
      x -= (std::erf(x) - y) / (kTwoOverRootPi * std::exp(-x * x));
    return static_cast<float>(x);
  });
}
Status log1p(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::log1p(x); });
}
Status expm1(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::expm1(x); });
}
Status log2(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::log2(x); });
}
Status log10(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::log10(x); });
}
Status ceil(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::ceil(x); });
}
Status floor(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::floor(x); });
}
// Halves to even, as PyTorch's round (nearbyint in the default rounding
// mode).
Status round(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::nearbyint(x); });
}
Status trunc(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::trunc(x); });
}
// (0 < x) - (x < 0): 0 for NaN, as PyTorch's vectorized kernel.
Status sign(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) {
    return static_cast<float>(0.f < x) - static_cast<float>(x < 0.f);
  });
}

Status sqrt(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::sqrt(x); });
}

Status rsqrt(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return 1.f / std::sqrt(x); });
}

DUET_KERNEL_CLONES
Status erf(const KernelContext &ctx) {
  return mapFloat(ctx, [](Floats8 x) { return vec::erf(x); });
}

Status sin(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::sin(x); });
}

Status cos(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::cos(x); });
}

Status hardtanh(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  float lo = static_cast<float>(attrs.getFloat("min_val"));
  float hi = static_cast<float>(attrs.getFloat("max_val"));
  DUET_RETURN_IF_ERROR(attrs.status());
  if (lo > hi)
    return ctx.error("min_val {} is greater than max_val {}", lo, hi);
  return mapFloat(ctx, [=](float x) { return clampValue(x, lo, hi); });
}

Status clamp(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  std::optional<double> lo = attrs.getOptionalFloat("min");
  std::optional<double> hi = attrs.getOptionalFloat("max");
  DUET_RETURN_IF_ERROR(attrs.status());
  if (!lo && !hi)
    return ctx.error("needs at least one of the attributes 'min' and 'max'");
  // An absent bound is an infinite one; NaN still propagates.
  float low = lo ? static_cast<float>(*lo) : -INFINITY;
  float high = hi ? static_cast<float>(*hi) : INFINITY;
  return mapFloat(ctx, [=](float x) { return clampValue(x, low, high); });
}

Status hardshrink(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  float lambd = static_cast<float>(attrs.getFloat("lambd"));
  DUET_RETURN_IF_ERROR(attrs.status());
  return mapFloat(ctx,
                  [=](float x) { return x >= -lambd && x <= lambd ? 0.f : x; });
}

DUET_KERNEL_CLONES
Status gelu(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  std::string approximate = attrs.getEnum("approximate", {"none", "tanh"});
  DUET_RETURN_IF_ERROR(attrs.status());
  if (approximate == "tanh")
    return mapFloat(ctx, [](Floats8 x) {
      const float kBeta = 0.7978845608028654f; // sqrt(2 / pi)
      const float kKappa = 0.044715f;
      Floats8 inner = kBeta * (x + kKappa * x * x * x);
      // 0.5 x (1 + tanh(u)) = x / (1 + e^-2u), without the cancellation
      // of 1 + tanh(u) for negative u.
      return x / (1.f + vec::exp(-2.f * inner));
    });
  return mapFloat(ctx, [](Floats8 x) {
    const float kAlpha = 0.7071067811865476f; // 1 / sqrt(2)
    return x * 0.5f * (1.f + vec::erf(x * kAlpha));
  });
}

Status leakyRelu(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  float slope = static_cast<float>(attrs.getFloat("negative_slope"));
  DUET_RETURN_IF_ERROR(attrs.status());
  return mapFloat(ctx, [=](float x) { return x > 0.f ? x : x * slope; });
}

Status elu(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  float alpha = static_cast<float>(attrs.getFloat("alpha"));
  float scale = static_cast<float>(attrs.getFloat("scale"));
  float inputScale = static_cast<float>(attrs.getFloat("input_scale"));
  DUET_RETURN_IF_ERROR(attrs.status());
  float negativeCoefficient = alpha * scale;
  // expm1 keeps the small negative values that exp(x) - 1 rounds to 0, as
  // PyTorch's vectorized kernel does.
  return mapFloat(ctx, [=](float x) {
    return x <= 0.f ? std::expm1(x * inputScale) * negativeCoefficient
                    : x * scale;
  });
}

Status pow(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  double exponent = attrs.getFloat("exponent");
  DUET_RETURN_IF_ERROR(attrs.status());
  // PyTorch evaluates these exponents with cheaper exact-enough formulas;
  // doing the same keeps the last bit equal.
  if (exponent == 2.0)
    return mapFloat(ctx, [](float x) { return x * x; });
  if (exponent == 3.0)
    return mapFloat(ctx, [](float x) { return x * x * x; });
  if (exponent == 0.5)
    return mapFloat(ctx, [](float x) { return std::sqrt(x); });
  if (exponent == -0.5)
    return mapFloat(ctx, [](float x) { return 1.f / std::sqrt(x); });
  if (exponent == -1.0)
    return mapFloat(ctx, [](float x) { return 1.f / x; });
  if (exponent == -2.0)
    return mapFloat(ctx, [](float x) { return 1.f / (x * x); });
  float e = static_cast<float>(exponent);
  return mapFloat(ctx, [=](float x) { return std::pow(x, e); });
}

} // namespace duet::rt::portable
