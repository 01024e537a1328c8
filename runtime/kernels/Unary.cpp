//===- Unary.cpp - elementwise activations and math -----------------------===//
//
// Each op is one scalar function applied by mapFloat; the formulas follow
// PyTorch's CPU kernels (including where NaN propagates), evaluated in float.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/ElementTypes.h"
#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <cmath>
#include <type_traits>

namespace duet::rt::portable {
namespace {

/// Eight floats as one value (GCC vector extension): two SSE registers or
/// one AVX register, whichever the target has.
typedef float Floats8 __attribute__((vector_size(8 * sizeof(float))));

/// Applies `fn` to every element of the float input. With `vectorFn` (it
/// must give what `fn` gives on each lane), eight elements at a time and
/// `fn` on the tail: for ops whose scalar form compiles to a branch per
/// element.
template <typename Fn, typename VectorFn = std::nullptr_t>
Status mapFloat(const KernelContext &ctx, Fn fn, VectorFn vectorFn = nullptr) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  if (ctx.checking())
    return Status::ok();
  const float *in = x.as<const float>();
  float *out = y.as<float>();
  int64_t n = x.numel(), i = 0;
  if constexpr (!std::is_null_pointer_v<VectorFn>) {
    // Each block is loaded whole before it is stored, so in == out (an
    // in-place op) is fine.
    for (; i + 8 <= n; i += 8) {
      Floats8 v;
      std::memcpy(&v, in + i, sizeof(v));
      v = vectorFn(v);
      std::memcpy(out + i, &v, sizeof(v));
    }
  }
  for (; i < n; ++i)
    out[i] = fn(in[i]);
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

Status relu(const KernelContext &ctx) {
  // x < 0 is false for NaN, so NaN passes through as in PyTorch. The scalar
  // loop compiled to a branch per element (~4 ns each on random signs).
  return mapFloat(
      ctx, [](float x) { return std::max(x, 0.f); },
      [](Floats8 v) {
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

Status silu(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return x / (1.f + std::exp(-x)); });
}

Status sigmoid(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return 1.f / (1.f + std::exp(-x)); });
}

Status tanh(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::tanh(x); });
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

Status exp(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::exp(x); });
}

Status log(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::log(x); });
}

Status sqrt(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::sqrt(x); });
}

Status rsqrt(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return 1.f / std::sqrt(x); });
}

Status erf(const KernelContext &ctx) {
  return mapFloat(ctx, [](float x) { return std::erf(x); });
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

Status gelu(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  std::string approximate = attrs.getEnum("approximate", {"none", "tanh"});
  DUET_RETURN_IF_ERROR(attrs.status());
  if (approximate == "tanh")
    return mapFloat(ctx, [](float x) {
      const float kBeta = 0.7978845608028654f; // sqrt(2 / pi)
      const float kKappa = 0.044715f;
      float inner = kBeta * (x + kKappa * x * x * x);
      return 0.5f * x * (1.f + std::tanh(inner));
    });
  return mapFloat(ctx, [](float x) {
    const float kAlpha = 0.7071067811865476f; // 1 / sqrt(2)
    return x * 0.5f * (1.f + std::erf(x * kAlpha));
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
