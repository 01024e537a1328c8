//===- vector_math_test.cpp - exp, erf and tanh on eight lanes ------------===//
//
// The formulas of runtime/kernels/VectorMath.h against double-precision libm
// over the whole float range (every 613th bit pattern, both signs), and the
// special values: NaN, infinities, signed zero, the ends of exp's range.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/VectorMath.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace duet::rt::portable;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Every 613th finite float of both signs, in blocks of eight.
std::vector<float> sweep() {
  std::vector<float> values;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += 613)
    for (uint32_t sign : {0u, 0x80000000u}) {
      uint32_t b = bits | sign;
      float f;
      std::memcpy(&f, &b, sizeof(f));
      values.push_back(f);
    }
  while (values.size() % vec::kLanes)
    values.push_back(0.f);
  return values;
}

/// `fn` on each element of `in`, eight lanes at a time.
template <typename Fn> std::vector<float> lanes(std::vector<float> in, Fn fn) {
  vec::map(in.data(), in.data(), static_cast<int64_t>(in.size()), fn);
  return in;
}

/// The largest error of `got` against `ref`, relative where |ref| >= `floor`
/// and absolute (divided by `floor`) below it.
double worstError(const std::vector<float> &in, const std::vector<float> &got,
                  double (*ref)(double), double floor, float &where) {
  double worst = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    double want = ref(in[i]);
    // Past FLT_MAX the float result is infinity.
    if (std::isinf(static_cast<float>(want)) &&
        got[i] == static_cast<float>(want))
      continue;
    double err = std::fabs(got[i] - want) / std::max(std::fabs(want), floor);
    if (!(err <= worst)) {
      worst = err;
      where = in[i];
    }
  }
  return worst;
}

float one(float x, vec::Floats8 (*fn)(vec::Floats8)) {
  return fn(vec::splat(x))[0];
}

} // namespace

TEST_CASE("vector exp is within 2 ulp over the float range", "[vector]") {
  std::vector<float> in = sweep();
  std::vector<float> got =
      lanes(in, [](vec::Floats8 v) { return vec::exp(v); });
  float where = 0;
  // 2 ulp relative where the result is a normal float (above 2^-126)...
  double worst = worstError(in, got, std::exp, 0x1p-126, where);
  INFO("worst at x = " << where);
  CHECK(worst <= 2.5e-7);
  // ...and within two of the smallest subnormal below.
  double subnormalError = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (std::exp(double{in[i]}) < 0x1p-126)
      subnormalError =
          std::max(subnormalError, std::fabs(got[i] - std::exp(double{in[i]})));
  CHECK(subnormalError <= 0x1p-148);
  CHECK(one(0.f, vec::exp) == 1.f);
  CHECK(one(kInf, vec::exp) == kInf);
  CHECK(one(89.f, vec::exp) == kInf);
  CHECK(one(-kInf, vec::exp) == 0.f);
  CHECK(one(-200.f, vec::exp) == 0.f);
  CHECK(std::isnan(one(kNaN, vec::exp)));
  CHECK(one(88.7f, vec::exp) == Approx(std::exp(double{88.7f})).epsilon(3e-7));
  CHECK(one(-87.5f, vec::exp) == Approx(std::exp(-87.5)).epsilon(1e-6));
}

TEST_CASE("vector erf is within 2e-7 over the float range", "[vector]") {
  std::vector<float> in = sweep();
  std::vector<float> got =
      lanes(in, [](vec::Floats8 v) { return vec::erf(v); });
  float where = 0;
  double worst = worstError(in, got, std::erf, 1e-30, where);
  INFO("worst at x = " << where);
  CHECK(worst <= 2e-7);
  CHECK(one(kInf, vec::erf) == 1.f);
  CHECK(one(-kInf, vec::erf) == -1.f);
  CHECK(std::signbit(one(-0.f, vec::erf)));
  CHECK(std::isnan(one(kNaN, vec::erf)));
  // Either side of the switch between the two formulas.
  CHECK(one(0.99999994f, vec::erf) ==
        Approx(std::erf(double{0.99999994f})).epsilon(2e-7));
  CHECK(one(1.f, vec::erf) == Approx(std::erf(1.0)).epsilon(2e-7));
}

TEST_CASE("vector tanh is within 2e-7 over the float range", "[vector]") {
  std::vector<float> in = sweep();
  std::vector<float> got =
      lanes(in, [](vec::Floats8 v) { return vec::tanh(v); });
  float where = 0;
  double worst = worstError(in, got, std::tanh, 1e-30, where);
  INFO("worst at x = " << where);
  CHECK(worst <= 2e-7);
  CHECK(one(kInf, vec::tanh) == 1.f);
  CHECK(one(-kInf, vec::tanh) == -1.f);
  CHECK(std::signbit(one(-0.f, vec::tanh)));
  CHECK(std::isnan(one(kNaN, vec::tanh)));
}

TEST_CASE("vec::map pads the tail and works in place", "[vector]") {
  for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 29}) {
    std::vector<float> in(n), out(n, kNaN);
    for (int64_t i = 0; i < n; ++i)
      in[i] = static_cast<float>(i) - 3.5f;
    vec::map(in.data(), out.data(), n,
             [](vec::Floats8 v) { return v * 2.f + 1.f; });
    for (int64_t i = 0; i < n; ++i)
      CHECK(out[i] == in[i] * 2.f + 1.f);
    vec::map(in.data(), in.data(), n, [](vec::Floats8 v) { return -v; });
    for (int64_t i = 0; i < n; ++i)
      CHECK(in[i] == 3.5f - static_cast<float>(i));
  }
}
