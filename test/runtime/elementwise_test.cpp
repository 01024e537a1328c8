//===- elementwise_test.cpp - unary, binary, predicate and cast kernels ---===//

#include "KernelTestSupport.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// The op applied to `in` (shape [n]) with float32 in and out.
Tensor unary(std::string_view op, const std::vector<double> &in,
             const AttrMap &attrs = AttrMap()) {
  Shape shape = {static_cast<int64_t>(in.size())};
  return run1(op, attrs, {Tensor::of(shape, in)}, shape);
}

/// A tensor of `dtype` whose elements are `values` stored as T, written
/// directly so that cast tests do not depend on the cast kernel.
template <typename T> Tensor raw(DType dtype, const std::vector<T> &values) {
  Tensor t(dtype, {static_cast<int64_t>(values.size())});
  std::memcpy(t.view().data, values.data(), values.size() * sizeof(T));
  return t;
}

template <typename T> std::vector<T> rawValues(const Tensor &t) {
  std::vector<T> out(t.numel());
  std::memcpy(out.data(), t.view().data, out.size() * sizeof(T));
  return out;
}

/// add and sub with the alpha the dialect defaults to, which the compiler
/// writes like any other attribute.
const AttrMap kAlphaOne = AttrMap().setFloat("alpha", 1);
/// div with its default rounding mode.
const AttrMap kTrueDivision = AttrMap().setString("rounding_mode", "none");

Tensor castTo(const Tensor &t, DType dtype) {
  return run1("aten.cast", AttrMap(), {t}, t.sizes(), dtype);
}

} // namespace

TEST_CASE("activations match hand-computed values", "[unary]") {
  requireClose(unary("aten.relu", {-1, 0, 2, kNaN}), {0, 0, 2, kNaN});
  // Past eight elements relu runs eight lanes at a time, then the tail:
  // NaN, negatives and infinities in both.
  requireClose(
      unary("aten.relu", {-1, 3, kNaN, -5, 0.5, -INFINITY, INFINITY, 7, -2,
                          kNaN, 4, -0.25, 9, -1, 6, kNaN, -8, 2, -3}),
      {0, 3, kNaN, 0, 0.5, 0, INFINITY, 7, 0, kNaN, 4, 0, 9, 0, 6, kNaN, 0, 2,
       0});
  requireClose(unary("aten.hardswish", {-4, -1, 1, 4}),
               {0, -1.0 / 3, 2.0 / 3, 4});
  requireClose(unary("aten.hardsigmoid", {-4, 0, 1, 4}), {0, 0.5, 4.0 / 6, 1});
  requireClose(unary("aten.silu", {1, -2}),
               {0.7310585786300049, -0.2384058440442351});
  requireClose(unary("aten.sigmoid", {0, 2, -100}),
               {0.5, 0.8807970779778823, 0});
  requireClose(unary("aten.tanh", {0.5, -20}), {0.46211715726000974, -1});
  requireClose(unary("aten.abs", {-1.5, 0, 2}), {1.5, 0, 2});
  requireClose(unary("aten.neg", {-1.5, 0, 2}), {1.5, 0, -2});
  requireClose(unary("aten.exp", {0, 1, -kInf}), {1, 2.718281828459045, 0});
  requireClose(unary("aten.log", {1, 2, 0, -1}),
               {0, 0.6931471805599453, -kInf, kNaN});
  requireClose(unary("aten.sqrt", {4, 2, -1}), {2, 1.4142135623730951, kNaN});
  requireClose(unary("aten.rsqrt", {4, 0.25, 0}), {0.5, 2, kInf});
  requireClose(unary("aten.leaky_relu", {-2, 3},
                     AttrMap().setFloat("negative_slope", 0.01)),
               {-0.02, 3});
  requireClose(unary("aten.leaky_relu", {-2, 3},
                     AttrMap().setFloat("negative_slope", 0.5)),
               {-1, 3});
  const AttrMap eluDefaults = AttrMap()
                                  .setFloat("alpha", 1)
                                  .setFloat("scale", 1)
                                  .setFloat("input_scale", 1);
  requireClose(unary("aten.elu", {-1, 2}, eluDefaults),
               {-0.6321205588285577, 2});
  // exp(x) - 1 would round a tiny negative input to 0; expm1 keeps it.
  CHECK(unary("aten.elu", {-1e-10}, eluDefaults).at(0) ==
        Approx(-1e-10).epsilon(1e-6));
  requireClose(unary("aten.elu", {-2, 3},
                     AttrMap()
                         .setFloat("alpha", 1.5)
                         .setFloat("scale", 2)
                         .setFloat("input_scale", 0.5)),
               {-1.896361676485673, 6});
}

TEST_CASE("gelu, exact and tanh-approximated", "[unary]") {
  requireClose(unary("aten.gelu", {1, -1, 3},
                     AttrMap().setString("approximate", "none")),
               {0.8413447460685429, -0.15865525393145707, 2.99595030590511});
  requireClose(unary("aten.gelu", {1, -1, 3},
                     AttrMap().setString("approximate", "tanh")),
               {0.8411919906082768, -0.15880800939172324, 2.996362607918227});
  std::vector<Tensor> out = {Tensor(DType::f32, {1})};
  Status s = runOp("aten.gelu", AttrMap().setString("approximate", "erf"),
                   {Tensor::of({1}, {1})}, out);
  CHECK(s.message() ==
        "aten.gelu: attribute 'approximate' is \"erf\", expected one of "
        "\"none\", \"tanh\"");
  // The kernel has no default of its own: the compiler writes the mode.
  CHECK(runOp("aten.gelu", AttrMap(), {Tensor::of({1}, {1})}, out).message() ==
        "aten.gelu: missing attribute 'approximate' (a string)");
}

TEST_CASE("vectorized activations match their formulas at every length",
          "[unary]") {
  // Eight lanes at a time, then a padded tail: lengths around multiples of
  // eight, values over the range where each formula changes form (erf at
  // |x| = 1, tanh at 0.625, exp's saturation).
  struct Case {
    std::string_view op;
    AttrMap attrs;
    double (*ref)(double);
  };
  const Case cases[] = {
      {"aten.gelu", AttrMap().setString("approximate", "none"),
       [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"aten.gelu", AttrMap().setString("approximate", "tanh"),
       [](double x) {
         return 0.5 * x *
                (1 +
                 std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
       }},
      {"aten.erf", AttrMap(), [](double x) { return std::erf(x); }},
      {"aten.tanh", AttrMap(), [](double x) { return std::tanh(x); }},
      {"aten.exp", AttrMap(), [](double x) { return std::exp(x); }},
      {"aten.sigmoid", AttrMap(),
       [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"aten.silu", AttrMap(), [](double x) { return x / (1 + std::exp(-x)); }},
      {"aten.relu", AttrMap(), [](double x) { return std::max(x, 0.0); }},
  };
  for (const Case &c : cases)
    for (int64_t n : {1, 5, 8, 13, 16, 23, 64, 67}) {
      Tensor x = Tensor::random({n}, static_cast<uint32_t>(n), -6, 6);
      std::vector<double> want;
      for (double v : x.values())
        want.push_back(c.ref(v));
      INFO(c.op << " over " << n << " elements");
      requireClose(run1(c.op, c.attrs, {x}, {n}), want, 1e-6);
    }
}

TEST_CASE("clamping ops", "[unary]") {
  requireClose(unary("aten.hardtanh", {-2, 0.5, 3},
                     AttrMap().setFloat("min_val", -1).setFloat("max_val", 1)),
               {-1, 0.5, 1});
  requireClose(unary("aten.hardtanh", {-2, 0.5, 7},
                     AttrMap().setFloat("min_val", 0).setFloat("max_val", 6)),
               {0, 0.5, 6});
  requireClose(
      unary("aten.clamp", {-1, 0.5, kNaN}, AttrMap().setFloat("min", 0)),
      {0, 0.5, kNaN});
  requireClose(unary("aten.clamp", {-1, 0.5}, AttrMap().setFloat("max", 0)),
               {-1, 0});
  // min > max gives max everywhere, as in PyTorch.
  requireClose(unary("aten.clamp", {-1, 1.5, 3},
                     AttrMap().setFloat("min", 2).setFloat("max", 1)),
               {1, 1, 1});
  requireClose(unary("aten.hardshrink", {0.5, 0.6, -0.4, -0.7},
                     AttrMap().setFloat("lambd", 0.5)),
               {0, 0.6, 0, -0.7});
  requireClose(
      unary("aten.hardshrink", {0.5, 0.6}, AttrMap().setFloat("lambd", 0.55)),
      {0, 0.6});
  std::vector<Tensor> out = {Tensor(DType::f32, {1})};
  CHECK(runOp("aten.clamp", AttrMap(), {Tensor::of({1}, {1})}, out).message() ==
        "aten.clamp: needs at least one of the attributes 'min' and 'max'");
}

TEST_CASE("quantize and dequantize compute what PyTorch's decomposed ops do",
          "[quant]") {
  AttrMap q = AttrMap()
                  .setFloat("scale", 0.5)
                  .setInt("zero_point", 3)
                  .setInt("quant_min", -128)
                  .setInt("quant_max", 127);
  // x * (1 / 0.5) rounds half to even, then the zero point, then the clamp;
  // NaN becomes 0 clamped (PyTorch's conversion of NaN is undefined).
  Tensor quantized =
      run1("aten.quantize_per_tensor", q,
           {Tensor::of({7}, {0.25, 0.75, -0.25, 1.0, 200, -200, kNaN})}, {7},
           DType::i8);
  requireClose(quantized, {3, 5, 3, 5, 127, -128, 0}, 0);
  requireClose(run1("aten.dequantize_per_tensor", q,
                    {Tensor::of({3}, {-128, 3, 127}, DType::i8)}, {3}),
               {-65.5, 0, 62});
  // A narrower range clamps there, and uint8 holds 0..255.
  AttrMap narrow = AttrMap(q).setInt("quant_min", -127).setInt("quant_max", 5);
  requireClose(run1("aten.quantize_per_tensor", narrow,
                    {Tensor::of({2}, {-100, 100})}, {2}, DType::i8),
               {-127, 5}, 0);
  AttrMap unsigned8 = AttrMap(q).setInt("quant_min", 0).setInt("quant_max", 255);
  requireClose(run1("aten.quantize_per_tensor", unsigned8,
                    {Tensor::of({2}, {-100, 100})}, {2}, DType::u8),
               {0, 203}, 0);
  // Per channel along dim 1, with each channel's scale and zero point.
  AttrMap c = AttrMap()
                  .setInt("axis", 1)
                  .setInt("quant_min", -127)
                  .setInt("quant_max", 127);
  Tensor scales = Tensor::of({2}, {0.5, 0.25});
  Tensor zeroPoints = Tensor::of({2}, {1, -1}, DType::i64);
  Tensor perChannel =
      run1("aten.quantize_per_channel", c,
           {Tensor::of({2, 2}, {1, 1, -0.25, 0.375}), scales, zeroPoints},
           {2, 2}, DType::i8);
  requireClose(perChannel, {3, 3, 1, 1}, 0);
  requireClose(run1("aten.dequantize_per_channel", c,
                    {perChannel, scales, zeroPoints}, {2, 2}),
               {1, 1, 0, 0.5});
  // An out-of-range quant_min is refused before any memory is touched.
  std::vector<Tensor> out = {Tensor(DType::i8, {1})};
  CHECK(runOp("aten.quantize_per_tensor",
              AttrMap(q).setInt("quant_min", -129), {Tensor::of({1}, {1})}, out)
            .message() == "aten.quantize_per_tensor: quant_min -129 and "
                          "quant_max 127 do not fit int8 or are out of order");
}

TEST_CASE("choose_qparams computes what PyTorch's determine_qparams does",
          "[quant]") {
  // Expected values: PyTorch's choose_qparams_tensor (determine_qparams) run
  // on these inputs, printed with float.hex.
  auto choose = [](std::vector<double> x, int64_t qmin, int64_t qmax) {
    AttrMap attrs = AttrMap()
                        .setInt("quant_min", qmin)
                        .setInt("quant_max", qmax)
                        .setFloat("eps", 0x1p-12);
    std::vector<Tensor> out = {Tensor(DType::f64, {1}),
                               Tensor(DType::i64, {1})};
    Status s = runOp("aten.choose_qparams", attrs,
                     {Tensor::of({int64_t(x.size())}, x)}, out);
    INFO(s.message());
    REQUIRE(s.isOk());
    return std::pair<double, double>{out[0].values()[0], out[1].values()[0]};
  };
  using P = std::pair<double, double>;
  // The range always holds 0; zero_point = qmin - round(min / scale).
  CHECK(choose({-1.5, 0.25, 2.0, 0x1.666666p-1}, -128, 127) ==
        P{0x1.c1c1c2p-7, -19});
  CHECK(choose({0.5, 3.0}, -128, 127) == P{0x1.818182p-7, -128});
  CHECK(choose({-0x1.333334p-2, 0x1.19999ap+0}, 0, 255) ==
        P{0x1.67ce36p-8, 55});
  // A range smaller than 255 * eps takes eps as its scale.
  CHECK(choose({0, 0, 0}, -128, 127) == P{0x1p-12, -128});
  CHECK(choose({-0x1.a36e2ep-14, 0x1.a36e2ep-13}, -128, 127) ==
        P{0x1p-12, -128});
  // (max - min) / 255 divides in float32: multiplying by float(1 / 255)
  // would give another scale for this range.
  CHECK(choose({-0x1.9ea70ep+0, 0x1.05c5ccp+1}, -128, 127) ==
        P{0x1.d6f044p-7, -15});
  // An empty tensor has no range: PyTorch's defaults.
  std::vector<Tensor> out = {Tensor(DType::f64, {1}), Tensor(DType::i64, {1})};
  AttrMap attrs = AttrMap()
                      .setInt("quant_min", -128)
                      .setInt("quant_max", 127)
                      .setFloat("eps", 0x1p-12);
  REQUIRE(runOp("aten.choose_qparams", attrs, {Tensor(DType::f32, {0, 3})}, out)
              .isOk());
  CHECK(out[0].values()[0] == 1);
  CHECK(out[1].values()[0] == 0);
  // NaN, where PyTorch's assertion min <= max fails.
  CHECK(runOp("aten.choose_qparams", attrs, {Tensor::of({2}, {1, kNaN})}, out)
            .message() ==
        "aten.choose_qparams: element 1 of the input is NaN: PyTorch's "
        "choose_qparams fails (min <= max does not hold)");
}

TEST_CASE("the dynamic quantize and dequantize read their qparams from "
          "tensors, with the static ops' arithmetic",
          "[quant]") {
  AttrMap range = AttrMap().setInt("quant_min", -128).setInt("quant_max", 127);
  Tensor x = Tensor::of({4}, {-1.5, 0.25, 2.0, 0x1.666666p-1});
  // choose_qparams' result for x (above); PyTorch quantizes to these.
  Tensor scale = Tensor::of({1}, {0x1.c1c1c2p-7}, DType::f64);
  Tensor zeroPoint = Tensor::of({1}, {-19}, DType::i64);
  Tensor q = run1("aten.quantize_per_tensor_dynamic", range,
                  {x, scale, zeroPoint}, {4}, DType::i8);
  requireClose(q, {-128, -1, 127, 32}, 0);
  AttrMap fixed =
      AttrMap(range).setFloat("scale", 0x1.c1c1c2p-7).setInt("zero_point", -19);
  Tensor back = run1("aten.dequantize_per_tensor_dynamic", range,
                     {q, scale, zeroPoint}, {4});
  CHECK(back.bytes() ==
        run1("aten.dequantize_per_tensor", fixed, {q}, {4}).bytes());
  // A float32 scale and an int32 zero point are read the same way.
  CHECK(run1("aten.quantize_per_tensor_dynamic", range,
             {x, Tensor::of({1}, {0x1.c1c1c2p-7}),
              Tensor::of({1}, {-19}, DType::i32)},
             {4}, DType::i8)
            .bytes() == q.bytes());
  // The scale is data: a zero one is refused when the op runs.
  std::vector<Tensor> out = {Tensor(DType::i8, {4})};
  CHECK(runOp("aten.quantize_per_tensor_dynamic", range,
              {x, Tensor::of({1}, {0}, DType::f64), zeroPoint}, out)
            .message() ==
        "aten.quantize_per_tensor_dynamic: scale 0 is not positive and finite");
}

TEST_CASE("pow special-cases the exponents PyTorch does", "[unary]") {
  auto pow = [](double e, std::vector<double> in) {
    return unary("aten.pow", in, AttrMap().setFloat("exponent", e));
  };
  requireClose(pow(2, {3, -3}), {9, 9});
  requireClose(pow(3, {2, -2}), {8, -8});
  requireClose(pow(0.5, {4, -4}), {2, kNaN});
  requireClose(pow(-0.5, {4}), {0.5});
  requireClose(pow(-1, {4, 0}), {0.25, kInf});
  requireClose(pow(-2, {2}), {0.25});
  requireClose(pow(1.5, {4, -8}), {8, kNaN});
  std::vector<Tensor> out = {Tensor(DType::f32, {1})};
  CHECK(runOp("aten.pow", AttrMap(), {Tensor::of({1}, {1})}, out).message() ==
        "aten.pow: missing attribute 'exponent' (a float)");
}

TEST_CASE("unary ops on integer tensors", "[unary][int]") {
  Tensor x = Tensor::of({3}, {-5, 0, 7}, DType::i32);
  CHECK(run1("aten.neg", AttrMap(), {x}, {3}, DType::i32).values() ==
        std::vector<double>{5, 0, -7});
  CHECK(run1("aten.abs", AttrMap(), {x}, {3}, DType::i32).values() ==
        std::vector<double>{5, 0, 7});
  // The smallest int8 is its own negation, as in two's complement.
  Tensor small = Tensor::of({1}, {-128}, DType::i8);
  CHECK(run1("aten.neg", AttrMap(), {small}, {1}, DType::i8).values() ==
        std::vector<double>{-128});
  std::vector<Tensor> out = {Tensor(DType::i32, {3})};
  CHECK(runOp("aten.relu", AttrMap(), {x}, out).message() ==
        "aten.relu: input has dtype int32, which this kernel does not support "
        "(supported: float32, float16, bfloat16)");
}

TEST_CASE("binary ops broadcast NumPy-style", "[binary]") {
  // [2, 1, 3] and [4, 1] broadcast to [2, 4, 3].
  Tensor a = Tensor::random({2, 1, 3}, 1), b = Tensor::random({4, 1}, 2);
  std::vector<double> av = a.values(), bv = b.values();
  auto expected = [&](auto fn) {
    std::vector<double> out;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k)
          out.push_back(fn(av[i * 3 + k], bv[j]));
    return out;
  };
  requireClose(
      run1("aten.add", AttrMap().setFloat("alpha", 2), {a, b}, {2, 4, 3}),
      expected([](double x, double y) { return x + 2 * y; }));
  requireClose(run1("aten.sub", kAlphaOne, {a, b}, {2, 4, 3}),
               expected([](double x, double y) { return x - y; }));
  requireClose(run1("aten.mul", AttrMap(), {a, b}, {2, 4, 3}),
               expected([](double x, double y) { return x * y; }));
  requireClose(run1("aten.div", kTrueDivision, {a, b}, {2, 4, 3}),
               expected([](double x, double y) { return x / y; }));
  requireClose(run1("aten.maximum", AttrMap(), {a, b}, {2, 4, 3}),
               expected([](double x, double y) { return std::max(x, y); }));
  requireClose(run1("aten.minimum", AttrMap(), {b, a}, {2, 4, 3}),
               expected([](double x, double y) { return std::min(x, y); }));

  SECTION("a 0-d operand is a scalar") {
    Tensor three = Tensor::of({}, {3});
    requireClose(
        run1("aten.mul", AttrMap(), {Tensor::of({2}, {1, -2}), three}, {2}),
        {3, -6});
    requireClose(run1("aten.add", kAlphaOne, {three, three}, {}), {6});
  }
  SECTION("shapes that do not broadcast are an error") {
    std::vector<Tensor> out = {Tensor(DType::f32, {2, 3})};
    CHECK(runOp("aten.add", kAlphaOne,
                {Tensor::random({2, 3}, 3), Tensor::random({2}, 4)}, out)
              .message() ==
          "aten.add: operand shapes [2, 3] and [2] do not broadcast");
  }
}

TEST_CASE("maximum and minimum propagate NaN", "[binary]") {
  Tensor a = Tensor::of({3}, {kNaN, 1, 2}), b = Tensor::of({3}, {0, kNaN, 1});
  requireClose(run1("aten.maximum", AttrMap(), {a, b}, {3}), {kNaN, kNaN, 2});
  requireClose(run1("aten.minimum", AttrMap(), {a, b}, {3}), {kNaN, kNaN, 1});
}

TEST_CASE("division and its rounding modes", "[binary]") {
  Tensor a = Tensor::of({6}, {-7, 7, 7, 5.5, 1, 0});
  Tensor b = Tensor::of({6}, {2, -2, 2, 2, 0, 0});
  requireClose(run1("aten.div", kTrueDivision, {a, b}, {6}),
               {-3.5, -3.5, 3.5, 2.75, kInf, kNaN});
  requireClose(run1("aten.div", AttrMap().setString("rounding_mode", "trunc"),
                    {a, b}, {6}),
               {-3, -3, 3, 2, kInf, kNaN});
  requireClose(run1("aten.div", AttrMap().setString("rounding_mode", "floor"),
                    {a, b}, {6}),
               {-4, -4, 3, 2, kInf, kNaN});

  SECTION("on integers, with zero divisors refused") {
    Tensor x = Tensor::of({4}, {-7, 7, 7, -8}, DType::i64);
    Tensor y = Tensor::of({4}, {2, -2, 2, -1}, DType::i64);
    CHECK(run1("aten.div", AttrMap().setString("rounding_mode", "floor"),
               {x, y}, {4}, DType::i64)
              .values() == std::vector<double>{-4, -4, 3, 8});
    CHECK(run1("aten.div", AttrMap().setString("rounding_mode", "trunc"),
               {x, y}, {4}, DType::i64)
              .values() == std::vector<double>{-3, -3, 3, 8});
    std::vector<Tensor> out = {Tensor(DType::i64, {4})};
    Tensor zero = Tensor::of({1}, {0}, DType::i64);
    CHECK(runOp("aten.div", AttrMap().setString("rounding_mode", "trunc"),
                {x, zero}, out)
              .message() == "aten.div: integer division by zero");
    CHECK(runOp("aten.div", kTrueDivision, {x, y}, out)
              .message()
              .find("true division of int64 operands") != std::string::npos);
  }
  SECTION("the smallest int64 divided by -1 wraps instead of trapping") {
    Tensor x(DType::i64, {1}), y(DType::i64, {1});
    x.view().as<int64_t>()[0] = std::numeric_limits<int64_t>::min();
    y.view().as<int64_t>()[0] = -1;
    Tensor q = run1("aten.div", AttrMap().setString("rounding_mode", "floor"),
                    {x, y}, {1}, DType::i64);
    CHECK(q.view().as<int64_t>()[0] == std::numeric_limits<int64_t>::min());
  }
}

TEST_CASE("remainder has the sign of the divisor", "[binary]") {
  Tensor a = Tensor::of({6}, {-7, 7, -7, 5.5, 6, 1});
  Tensor b = Tensor::of({6}, {3, -3, -3, 2, 3, 0});
  requireClose(run1("aten.remainder", AttrMap(), {a, b}, {6}),
               {2, -2, -1, 1.5, 0, kNaN});

  SECTION("on integers, with zero divisors refused") {
    Tensor x = Tensor::of({5}, {-7, 7, -7, 6, 5}, DType::i64);
    Tensor y = Tensor::of({5}, {3, -3, -3, 3, -1}, DType::i64);
    CHECK(run1("aten.remainder", AttrMap(), {x, y}, {5}, DType::i64).values() ==
          std::vector<double>{2, -2, -1, 0, 0});
    std::vector<Tensor> out = {Tensor(DType::i64, {5})};
    Tensor zero = Tensor::of({1}, {0}, DType::i64);
    CHECK(runOp("aten.remainder", AttrMap(), {x, zero}, out).message() ==
          "aten.remainder: integer remainder by zero");
  }
  SECTION("the smallest int64 modulo -1 is 0 instead of a trap") {
    Tensor x(DType::i64, {1}), y(DType::i64, {1});
    x.view().as<int64_t>()[0] = std::numeric_limits<int64_t>::min();
    y.view().as<int64_t>()[0] = -1;
    Tensor r = run1("aten.remainder", AttrMap(), {x, y}, {1}, DType::i64);
    CHECK(r.view().as<int64_t>()[0] == 0);
  }
}

TEST_CASE("atan2 keeps quadrants, signed zeros and infinities", "[binary]") {
  const double inf = std::numeric_limits<double>::infinity(), pi = M_PI;
  Tensor y = Tensor::of({7}, {1, 1, -1, -1, 0, -0.0, inf});
  Tensor x = Tensor::of({7}, {1, -1, -1, 1, -1, -1, inf});
  requireClose(run1("aten.atan2", AttrMap(), {y, x}, {7}),
               {pi / 4, 3 * pi / 4, -3 * pi / 4, -pi / 4, pi, -pi, pi / 4});
  std::vector<Tensor> out = {Tensor(DType::i64, {2})};
  Tensor ints = Tensor::of({2}, {1, 2}, DType::i64);
  CHECK(runOp("aten.atan2", AttrMap(), {ints, ints}, out).message() ==
        "aten.atan2: dtype int64 is not supported (supported: float32, "
        "float16, bfloat16)");
}

TEST_CASE("bitwise ops of integers, broadcast; float refused", "[binary][int]") {
  Tensor a = Tensor::of({2, 2}, {12, -1, 5, 0}, DType::i32);
  Tensor b = Tensor::of({2}, {10, 6}, DType::i32);
  CHECK(run1("aten.bitwise_and", AttrMap(), {a, b}, {2, 2}, DType::i32)
            .values() == std::vector<double>{8, 6, 0, 0});
  CHECK(run1("aten.bitwise_or", AttrMap(), {a, b}, {2, 2}, DType::i32)
            .values() == std::vector<double>{14, -1, 15, 6});
  CHECK(run1("aten.bitwise_xor", AttrMap(), {a, b}, {2, 2}, DType::i32)
            .values() == std::vector<double>{6, -7, 15, 6});
  std::vector<Tensor> out = {Tensor(DType::f32, {2})};
  Tensor f = Tensor::of({2}, {1, 2});
  CHECK(runOp("aten.bitwise_or", AttrMap(), {f, f}, out).message() ==
        "aten.bitwise_or: dtype float32 is not supported (supported: integer "
        "types, bool)");
}

TEST_CASE("integer arithmetic wraps and honours alpha", "[binary][int]") {
  Tensor a = Tensor::of({2}, {1, 2}, DType::i32),
         b = Tensor::of({2}, {3, 4}, DType::i32);
  CHECK(
      run1("aten.add", AttrMap().setFloat("alpha", 2), {a, b}, {2}, DType::i32)
          .values() == std::vector<double>{7, 10});
  CHECK(run1("aten.sub", AttrMap().setInt("alpha", 3), {a, b}, {2}, DType::i32)
            .values() == std::vector<double>{-8, -10});
  CHECK(run1("aten.mul", AttrMap(), {a, b}, {2}, DType::i32).values() ==
        std::vector<double>{3, 8});
  CHECK(run1("aten.maximum", AttrMap(), {a, Tensor::of({1}, {2}, DType::i32)},
             {2}, DType::i32)
            .values() == std::vector<double>{2, 2});
  Tensor big = Tensor::of({1}, {127}, DType::i8),
         one = Tensor::of({1}, {1}, DType::i8);
  CHECK(run1("aten.add", kAlphaOne, {big, one}, {1}, DType::i8).values() ==
        std::vector<double>{-128});
  Tensor u = Tensor::of({1}, {250}, DType::u8);
  CHECK(run1("aten.add", kAlphaOne, {u, Tensor::of({1}, {10}, DType::u8)}, {1},
             DType::u8)
            .values() == std::vector<double>{4});

  std::vector<Tensor> out = {Tensor(DType::i32, {2})};
  CHECK(runOp("aten.add", AttrMap().setFloat("alpha", 0.5), {a, b}, out)
            .message() ==
        "aten.add: alpha 0.5 must be an integer for integer operands");
  std::vector<Tensor> mixed = {Tensor(DType::i32, {2})};
  CHECK(runOp("aten.add", kAlphaOne, {a, Tensor::of({2}, {1, 2}, DType::i64)},
              mixed)
            .message() ==
        "aten.add: operands must share one dtype, got int32 and int64");
}

TEST_CASE("bool arithmetic is logical where PyTorch allows it",
          "[binary][int]") {
  Tensor t = Tensor::of({4}, {0, 0, 1, 1}, DType::boolean);
  Tensor u = Tensor::of({4}, {0, 1, 0, 1}, DType::boolean);
  CHECK(run1("aten.add", kAlphaOne, {t, u}, {4}, DType::boolean).values() ==
        std::vector<double>{0, 1, 1, 1});
  CHECK(run1("aten.mul", AttrMap(), {t, u}, {4}, DType::boolean).values() ==
        std::vector<double>{0, 0, 0, 1});
  CHECK(run1("aten.maximum", AttrMap(), {t, u}, {4}, DType::boolean).values() ==
        std::vector<double>{0, 1, 1, 1});
  std::vector<Tensor> out = {Tensor(DType::boolean, {4})};
  CHECK(runOp("aten.sub", kAlphaOne, {t, u}, out)
            .message()
            .find("aten.sub: dtype bool is not supported") == 0);
}

TEST_CASE("comparisons, logical ops and where", "[predicates]") {
  Tensor a = Tensor::of({2, 2}, {1, kNaN, -3, 4});
  Tensor b = Tensor::of({2}, {1, 2});
  auto cmp = [&](const char *op) {
    return run1(op, AttrMap(), {a, b}, {2, 2}, DType::boolean).values();
  };
  CHECK(cmp("aten.eq") == std::vector<double>{1, 0, 0, 0});
  CHECK(cmp("aten.ne") == std::vector<double>{0, 1, 1, 1});
  CHECK(cmp("aten.lt") == std::vector<double>{0, 0, 1, 0});
  CHECK(cmp("aten.le") == std::vector<double>{1, 0, 1, 0});
  CHECK(cmp("aten.gt") == std::vector<double>{0, 0, 0, 1});
  CHECK(cmp("aten.ge") == std::vector<double>{1, 0, 0, 1});

  // int64 values beyond double precision compare exactly.
  Tensor big = raw<int64_t>(DType::i64, {9007199254740992, 1});
  Tensor bigger = raw<int64_t>(DType::i64, {9007199254740993, 1});
  CHECK(
      run1("aten.lt", AttrMap(), {big, bigger}, {2}, DType::boolean).values() ==
      std::vector<double>{1, 0});

  Tensor f = Tensor::of({3}, {0, -0.5, 2}),
         g = Tensor::of({3}, {3, 0, 1}, DType::i32);
  CHECK(run1("aten.logical_and", AttrMap(), {f, g}, {3}, DType::boolean)
            .values() == std::vector<double>{0, 0, 1});
  CHECK(run1("aten.logical_or", AttrMap(), {f, g}, {3}, DType::boolean)
            .values() == std::vector<double>{1, 1, 1});
  CHECK(
      run1("aten.logical_not", AttrMap(), {g}, {3}, DType::boolean).values() ==
      std::vector<double>{0, 1, 0});
  // Bool operands are read as they are, without a copy into truth values.
  Tensor t = Tensor::of({3}, {1, 0, 1}, DType::boolean);
  CHECK(
      run1("aten.logical_not", AttrMap(), {t}, {3}, DType::boolean).values() ==
      std::vector<double>{0, 1, 0});
  CHECK(run1("aten.logical_and", AttrMap(), {t, f}, {3}, DType::boolean)
            .values() == std::vector<double>{0, 0, 1});

  Tensor mask = Tensor::of({2, 1}, {1, 0}, DType::boolean);
  Tensor x = Tensor::of({3}, {1, 2, 3}, DType::i64),
         zero = Tensor::of({}, {0}, DType::i64);
  CHECK(run1("aten.where", AttrMap(), {mask, x, zero}, {2, 3}, DType::i64)
            .values() == std::vector<double>{1, 2, 3, 0, 0, 0});
  Tensor h = Tensor::of({3}, {0.5, -1, 2}, DType::f16);
  CHECK(run1("aten.where", AttrMap(),
             {Tensor::of({3}, {0, 1, 0}, DType::boolean), h,
              Tensor::of({}, {7}, DType::f16)},
             {3}, DType::f16)
            .values() == std::vector<double>{7, -1, 7});
  std::vector<Tensor> out = {Tensor(DType::f32, {3})};
  CHECK(runOp("aten.where", AttrMap(), {Tensor::of({3}, {1, 0, 1}), f, f}, out)
            .message()
            .find("aten.where: condition has dtype float32") == 0);
}

TEST_CASE("cast truncates toward zero and rounds to nearest even", "[cast]") {
  SECTION("float to integers") {
    Tensor f = raw<float>(DType::f32, {-2.7f, -0.5f, 0.5f, 2.7f, 300.5f, -1.f});
    CHECK(rawValues<int32_t>(castTo(f, DType::i32)) ==
          std::vector<int32_t>{-2, 0, 0, 2, 300, -1});
    CHECK(rawValues<int64_t>(castTo(f, DType::i64)) ==
          std::vector<int64_t>{-2, 0, 0, 2, 300, -1});
    // Narrow types wrap, through int64 for uint8 as PyTorch does.
    CHECK(rawValues<uint8_t>(castTo(f, DType::u8)) ==
          std::vector<uint8_t>{254, 0, 0, 2, 44, 255});
    CHECK(rawValues<int8_t>(castTo(f, DType::i8)) ==
          std::vector<int8_t>{-2, 0, 0, 2, 44, -1});
  }
  SECTION("NaN and out-of-range floats become the smallest integer") {
    Tensor f = raw<float>(DType::f32, {std::nanf(""), 3e9f, -3e19f});
    CHECK(rawValues<int32_t>(castTo(f, DType::i32)) ==
          std::vector<int32_t>{INT32_MIN, INT32_MIN, INT32_MIN});
    CHECK(rawValues<int64_t>(castTo(f, DType::i64)) ==
          std::vector<int64_t>{INT64_MIN, 3000000000, INT64_MIN});
  }
  SECTION("anything to bool is != 0") {
    Tensor f = raw<float>(DType::f32, {0.f, -0.f, 0.1f, std::nanf("")});
    CHECK(rawValues<uint8_t>(castTo(f, DType::boolean)) ==
          std::vector<uint8_t>{0, 0, 1, 1});
    Tensor i = raw<int64_t>(DType::i64, {0, 256, -1});
    CHECK(rawValues<uint8_t>(castTo(i, DType::boolean)) ==
          std::vector<uint8_t>{0, 1, 1});
    Tensor b = raw<uint8_t>(DType::boolean, {1, 0});
    CHECK(rawValues<float>(castTo(b, DType::f32)) == std::vector<float>{1, 0});
  }
  SECTION("float16 and bfloat16 round to nearest even") {
    Tensor f =
        raw<float>(DType::f32, {1.f / 3, 65520.f, 1e-8f, 1.00048828125f});
    // 1/3 -> 0x3555; 65520 overflows; 1e-8 underflows; 1 + 2^-11 ties to 1.
    CHECK(rawValues<uint16_t>(castTo(f, DType::f16)) ==
          std::vector<uint16_t>{0x3555, 0x7c00, 0x0000, 0x3c00});
    Tensor g = raw<float>(DType::f32, {1.00390625f, 1.01171875f, -2.f});
    // 1 + 2^-8 ties down to 1; 1 + 3 * 2^-8 ties up to 1 + 2^-6.
    CHECK(rawValues<uint16_t>(castTo(g, DType::bf16)) ==
          std::vector<uint16_t>{0x3f80, 0x3f82, 0xc000});
    Tensor h = raw<uint16_t>(DType::f16, {0x4100, 0xc100}); // 2.5, -2.5
    CHECK(rawValues<int32_t>(castTo(h, DType::i32)) ==
          std::vector<int32_t>{2, -2});
    CHECK(rawValues<uint16_t>(castTo(h, DType::bf16)) ==
          std::vector<uint16_t>{0x4020, 0xc020});
  }
  SECTION("integers narrow with wrap-around, widen exactly or rounded") {
    Tensor i = raw<int32_t>(DType::i32, {300, -129, 5});
    CHECK(rawValues<int8_t>(castTo(i, DType::i8)) ==
          std::vector<int8_t>{44, 127, 5});
    Tensor l = raw<int64_t>(DType::i64, {16777217, -3});
    CHECK(rawValues<float>(castTo(l, DType::f32)) ==
          std::vector<float>{16777216.f, -3.f});
    CHECK(rawValues<double>(castTo(l, DType::f64)) ==
          std::vector<double>{16777217, -3});
    CHECK(rawValues<uint8_t>(castTo(l, DType::u8)) ==
          std::vector<uint8_t>{1, 253});
  }
  SECTION("every pair of dtypes converts") {
    const DType all[] = {DType::f32, DType::f16,    DType::bf16, DType::f64,
                         DType::i64, DType::i32,    DType::i16,  DType::i8,
                         DType::u8,  DType::boolean};
    Tensor source = Tensor::of({3}, {0, 1, 3});
    for (DType from : all)
      for (DType to : all) {
        INFO(dtypeName(from) << " -> " << dtypeName(to));
        std::vector<double> want = {0, 1, to == DType::boolean ? 1.0 : 3.0};
        if (from == DType::boolean)
          want = {0, 1, 1};
        CHECK(castTo(castTo(source, from), to).values() == want);
      }
  }
}
