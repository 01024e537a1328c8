//===- Binary.cpp - elementwise ops on two broadcast operands -------------===//
//
// Every binary op is a pair of scalar functions, one for float and one for
// integers, applied by one broadcasting loop. Integers are computed in int64
// with two's-complement wrap-around and narrowed back (bool as != 0), so one
// integer function serves every integer dtype and none overflows undefinedly.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/ElementTypes.h"
#include "runtime/kernels/Ops.h"

#include <cmath>
#include <limits>

namespace duet::rt::portable {
namespace {

/// Which integer dtypes an op accepts besides float (`only`: integers and
/// bool, no float).
enum class Integers { none, withoutBool, withBool, only };

int64_t wrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
int64_t wrappingMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}

/// Checks the operands of a binary op and runs `floatFn` or `intFn`.
template <typename FloatFn, typename IntFn>
Status binary(const KernelContext &ctx, Integers integers, FloatFn floatFn,
              IntFn intFn) {
  const TensorView &a = ctx.in(0), &b = ctx.in(1), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&a, &b, &y}));
  DUET_RETURN_IF_ERROR(requireBroadcastResult(ctx, a, b, y));
  bool isInteger = a.dtype == DType::i64 || a.dtype == DType::i32 ||
                   a.dtype == DType::i16 || a.dtype == DType::i8 ||
                   a.dtype == DType::u8;
  bool isBool = a.dtype == DType::boolean;
  bool supported =
      (a.dtype == DType::f32 && integers != Integers::only) ||
      (isInteger && integers != Integers::none) ||
      (isBool && (integers == Integers::withBool || integers == Integers::only));
  if (!supported && integers == Integers::only)
    return ctx.error("dtype {} is not supported (supported: integer types, "
                     "bool)",
                     dtypeName(a.dtype));
  if (!supported)
    return ctx.error("dtype {} is not supported (supported: float32, float16, "
                     "bfloat16{})",
                     dtypeName(a.dtype),
                     integers == Integers::none ? ""
                     : integers == Integers::withoutBool
                         ? ", integer types"
                         : ", integer types, bool");
  if (ctx.checking())
    return Status::ok();
  if (a.dtype == DType::f32) {
    broadcastBinary<float, float, float>(y, a, b, floatFn);
    return Status::ok();
  }
  visitDType(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      broadcastBinary<T, T, T>(y, a, b, [&](T x, T z) {
        return convertElement<T>(
            intFn(static_cast<int64_t>(x), static_cast<int64_t>(z)));
      });
  });
  return Status::ok();
}

/// The integer multiple that `alpha` must be for integer operands, as in
/// PyTorch, which refuses a fractional alpha on integer tensors.
Status integerAlpha(const KernelContext &ctx, double alpha, int64_t &out) {
  if (std::trunc(alpha) != alpha || std::fabs(alpha) > 9.0e18)
    return ctx.error("alpha {} must be an integer for integer operands", alpha);
  out = static_cast<int64_t>(alpha);
  return Status::ok();
}

/// Floor division as PyTorch computes it for floats: exact for the quotients
/// that are integers and IEEE results for a zero divisor.
float floorDivide(float a, float b) {
  if (b == 0.f)
    return a / b;
  float mod = std::fmod(a, b);
  float quotient = (a - mod) / b;
  if (mod != 0.f && (b < 0.f) != (mod < 0.f))
    quotient -= 1.f;
  if (quotient == 0.f)
    return std::copysign(0.f, a / b);
  float floored = std::floor(quotient);
  if (quotient - floored > 0.5f)
    floored += 1.f;
  return floored;
}

/// Integer division rounded toward zero or -infinity; the divisor is never 0
/// (checked before), and INT64_MIN / -1 wraps instead of trapping.
int64_t integerDivide(int64_t a, int64_t b, bool floor) {
  if (b == -1)
    return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  int64_t q = a / b;
  if (floor && a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

/// Fails when integer operands have a zero divisor (input 1), which PyTorch
/// refuses as well; float divisors follow IEEE. `what` names the operation.
Status requireNonZeroIntegerDivisor(const KernelContext &ctx,
                                    std::string_view what) {
  const TensorView &a = ctx.in(0), &b = ctx.in(1);
  if (ctx.checking() || a.dtype == DType::f32 || a.dtype == DType::boolean ||
      ctx.out(0).numel() == 0 || a.dtype != b.dtype)
    return Status::ok();
  // Every divisor element reaches the output when it is not empty.
  bool zero = false;
  visitDType(b.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      for (int64_t i = 0, n = b.numel(); i < n && !zero; ++i)
        zero = b.as<const T>()[i] == 0;
  });
  if (zero)
    return ctx.error("integer {} by zero", what);
  return Status::ok();
}

} // namespace

Status add(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  double alpha = attrs.getFloat("alpha");
  DUET_RETURN_IF_ERROR(attrs.status());
  int64_t intAlpha = 1;
  if (ctx.in(0).dtype != DType::f32)
    DUET_RETURN_IF_ERROR(integerAlpha(ctx, alpha, intAlpha));
  float floatAlpha = static_cast<float>(alpha);
  return binary(
      ctx, Integers::withBool,
      [=](float a, float b) { return a + floatAlpha * b; },
      [=](int64_t a, int64_t b) {
        return wrappingAdd(a, wrappingMul(intAlpha, b));
      });
}

Status sub(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  double alpha = attrs.getFloat("alpha");
  DUET_RETURN_IF_ERROR(attrs.status());
  int64_t intAlpha = 1;
  if (ctx.in(0).dtype != DType::f32)
    DUET_RETURN_IF_ERROR(integerAlpha(ctx, alpha, intAlpha));
  float floatAlpha = static_cast<float>(alpha);
  return binary(
      ctx, Integers::withoutBool,
      [=](float a, float b) { return a - floatAlpha * b; },
      [=](int64_t a, int64_t b) {
        return wrappingAdd(a, wrappingMul(-intAlpha, b));
      });
}

Status mul(const KernelContext &ctx) {
  return binary(
      ctx, Integers::withBool, [](float a, float b) { return a * b; },
      [](int64_t a, int64_t b) { return wrappingMul(a, b); });
}

Status div(const KernelContext &ctx) {
  AttrReader attrs(ctx);
  std::string mode = attrs.getEnum("rounding_mode", {"none", "trunc", "floor"});
  DUET_RETURN_IF_ERROR(attrs.status());
  const TensorView &a = ctx.in(0), &b = ctx.in(1);
  if (mode == "none") {
    if (a.dtype != DType::f32)
      return ctx.error("true division of {} operands would give a float "
                       "result; the program must cast them first",
                       dtypeName(a.dtype));
    // Integers::none: the integer function is never called.
    return binary(
        ctx, Integers::none, [](float x, float y) { return x / y; },
        [](int64_t x, int64_t) { return x; });
  }
  bool floor = mode == "floor";
  DUET_RETURN_IF_ERROR(requireNonZeroIntegerDivisor(ctx, "division"));
  return binary(
      ctx, Integers::withoutBool,
      [=](float x, float y) {
        return floor ? floorDivide(x, y) : std::trunc(x / y);
      },
      [=](int64_t x, int64_t y) { return integerDivide(x, y, floor); });
}

Status maximum(const KernelContext &ctx) {
  return binary(
      ctx, Integers::withBool,
      [](float a, float b) {
        if (std::isnan(a) || std::isnan(b))
          return std::numeric_limits<float>::quiet_NaN();
        return a > b ? a : b;
      },
      [](int64_t a, int64_t b) { return a > b ? a : b; });
}

Status minimum(const KernelContext &ctx) {
  return binary(
      ctx, Integers::withBool,
      [](float a, float b) {
        if (std::isnan(a) || std::isnan(b))
          return std::numeric_limits<float>::quiet_NaN();
        return a < b ? a : b;
      },
      [](int64_t a, int64_t b) { return a < b ? a : b; });
}

Status remainder(const KernelContext &ctx) {
  DUET_RETURN_IF_ERROR(requireNonZeroIntegerDivisor(ctx, "remainder"));
  // PyTorch's definition: the truncated remainder moved into the divisor's
  // sign, so a nonzero result has the sign of `other`.
  return binary(
      ctx, Integers::withoutBool,
      [](float a, float b) {
        float mod = std::fmod(a, b);
        if (mod != 0.f && (b < 0.f) != (mod < 0.f))
          mod += b;
        return mod;
      },
      [](int64_t a, int64_t b) {
        // INT64_MIN % -1 traps; every remainder by -1 is 0.
        int64_t mod = b == -1 ? 0 : a % b;
        if (mod != 0 && (b < 0) != (mod < 0))
          mod = wrappingAdd(mod, b);
        return mod;
      });
}

/// std::atan2, with its quadrants, signed zeros and infinities.
Status atan2(const KernelContext &ctx) {
  return binary(
      ctx, Integers::none, [](float y, float x) { return std::atan2(y, x); },
      [](int64_t, int64_t) -> int64_t { return 0; });
}

Status bitwiseAnd(const KernelContext &ctx) {
  return binary(
      ctx, Integers::only, [](float, float) { return 0.f; },
      [](int64_t a, int64_t b) { return a & b; });
}

Status bitwiseOr(const KernelContext &ctx) {
  return binary(
      ctx, Integers::only, [](float, float) { return 0.f; },
      [](int64_t a, int64_t b) { return a | b; });
}

Status bitwiseXor(const KernelContext &ctx) {
  return binary(
      ctx, Integers::only, [](float, float) { return 0.f; },
      [](int64_t a, int64_t b) { return a ^ b; });
}

/// std::pow on floats; on integers, repeated squaring with wrap-around, and
/// for a negative exponent what the integer part of 1/a^-b is (0 unless a is
/// 1 or -1).
Status powTensor(const KernelContext &ctx) {
  return binary(
      ctx, Integers::withoutBool,
      [](float a, float b) { return std::pow(a, b); },
      [](int64_t a, int64_t b) -> int64_t {
        if (b < 0)
          return a == 1 ? 1 : a == -1 ? (b % 2 == 0 ? 1 : -1) : 0;
        int64_t result = 1;
        for (int64_t base = a; b > 0; b >>= 1) {
          if (b & 1)
            result = wrappingMul(result, base);
          base = wrappingMul(base, base);
        }
        return result;
      });
}

} // namespace duet::rt::portable
