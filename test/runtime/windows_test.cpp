//===- windows_test.cpp - reductions, scans, softmax, pooling, resampling -===//
//
// Expected values are worked out by hand in the comments, following PyTorch's
// documented rules (pooling divisors with ceil_mode and padding, half-pixel
// bilinear source coordinates).
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numeric>

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// 1, 2, ..., n (or `first`, first + 1, ...) in the given shape.
Tensor iota(Shape shape, double first = 1) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), first);
  return Tensor::of(std::move(shape), v);
}

/// The attributes of a pooling window, with ceil_mode off.
AttrMap window(Shape kernel, Shape stride, Shape padding) {
  return AttrMap()
      .setInts("kernel_size", std::move(kernel))
      .setInts("stride", std::move(stride))
      .setInts("padding", std::move(padding))
      .setBool("ceil_mode", false);
}

/// An avg_pool2d window that counts padding in the divisor.
AttrMap avgWindow(Shape kernel, Shape stride, Shape padding) {
  return window(std::move(kernel), std::move(stride), std::move(padding))
      .setBool("count_include_pad", true);
}

} // namespace

TEST_CASE("int64 sums and products are exact and wrap around", "[reduce]") {
  // 2^40 + 1 is not a float; 2^62 * 4 wraps to 0 in int64, as in PyTorch.
  const double big = 1099511627776;
  Tensor x = Tensor::of({2, 2}, {big, 1, 3, -2}, DType::i64);
  CHECK(run1("aten.sum", AttrMap().setInts("dim", {1}).setBool("keepdim", false),
             {x}, {2}, DType::i64)
            .values() == std::vector<double>{big + 1, 1});
  CHECK(run1("aten.prod",
             AttrMap().setInts("dim", {0}).setBool("keepdim", true), {x},
             {1, 2}, DType::i64)
            .values() == std::vector<double>{3 * big, -2});
  Tensor wraps = Tensor::of({2}, {4611686018427387904.0, 4}, DType::i64);
  CHECK(run1("aten.prod", AttrMap().setInts("dim", {}).setBool("keepdim", false),
             {wraps}, {}, DType::i64)
            .values() == std::vector<double>{0});
  std::vector<Tensor> floatOut = {Tensor(DType::f32, {2})};
  CHECK(runOp("aten.sum", AttrMap().setInts("dim", {1}).setBool("keepdim", false),
              {x}, floatOut)
            .message() ==
        "aten.sum: operands must share one dtype, got int64 and float32");
}

TEST_CASE("sum, mean and amax over dim lists", "[reduce]") {
  Tensor x = Tensor::of({2, 3}, {1, 2, 3, 4, 5, 6});
  requireClose(run1("aten.sum",
                    AttrMap().setInts("dim", {1}).setBool("keepdim", false),
                    {x}, {2}),
               {6, 15});
  requireClose(run1("aten.mean",
                    AttrMap().setInts("dim", {0}).setBool("keepdim", true), {x},
                    {1, 3}),
               {2.5, 3.5, 4.5});
  requireClose(run1("aten.amax",
                    AttrMap().setInts("dim", {}).setBool("keepdim", false), {x},
                    {}),
               {6});
  requireClose(run1("aten.amax",
                    AttrMap().setInts("dim", {1, 0}).setBool("keepdim", true),
                    {x}, {1, 1}),
               {6});
  requireClose(
      run1("aten.mean",
           AttrMap().setInts("dim", {0, 2}).setBool("keepdim", false),
           {iota({2, 3, 2})}, {3}),
      {(1 + 2 + 7 + 8) / 4.0, (3 + 4 + 9 + 10) / 4.0, (5 + 6 + 11 + 12) / 4.0});

  SECTION("NaN propagates, empty reductions follow PyTorch") {
    Tensor n = Tensor::of({3}, {1, kNaN, 2});
    requireClose(run1("aten.amax",
                      AttrMap().setInts("dim", {}).setBool("keepdim", false),
                      {n}, {}),
                 {kNaN});
    requireClose(run1("aten.sum",
                      AttrMap().setInts("dim", {}).setBool("keepdim", false),
                      {n}, {}),
                 {kNaN});
    Tensor empty(DType::f32, {0, 2});
    requireClose(run1("aten.sum",
                      AttrMap().setInts("dim", {0}).setBool("keepdim", false),
                      {empty}, {2}),
                 {0, 0});
    requireClose(run1("aten.mean",
                      AttrMap().setInts("dim", {0}).setBool("keepdim", false),
                      {empty}, {2}),
                 {kNaN, kNaN});
    std::vector<Tensor> out = {Tensor(DType::f32, {2})};
    CHECK(runOp("aten.amax",
                AttrMap().setInts("dim", {0}).setBool("keepdim", false),
                {empty}, out)
              .message() ==
          "aten.amax: cannot take the maximum over 0 elements of shape [0, 2]");
  }
  SECTION("bad dims are errors") {
    std::vector<Tensor> out = {Tensor(DType::f32, {2})};
    CHECK(runOp("aten.sum",
                AttrMap().setInts("dim", {1, 1}).setBool("keepdim", false), {x},
                out)
              .message() == "aten.sum: dim 1 appears twice");
    CHECK(
        runOp("aten.sum",
              AttrMap().setInts("dim", {-1}).setBool("keepdim", false), {x},
              out)
            .message() ==
        "aten.sum: dim -1 is out of range for rank 2 (dims must be normalized "
        "to [0, 2))");
    CHECK(runOp("aten.sum",
                AttrMap().setInts("dim", {0}).setBool("keepdim", false), {x},
                out)
              .message() ==
          "aten.sum: output has shape [2] but the operands and attributes give "
          "[3]");
  }
  SECTION("any over bools") {
    Tensor m = Tensor::of({2, 3}, {0, 0, 1, 0, 0, 0}, DType::boolean);
    CHECK(run1("aten.any",
               AttrMap().setInts("dim", {1}).setBool("keepdim", false), {m},
               {2}, DType::boolean)
              .values() == std::vector<double>{1, 0});
    CHECK(run1("aten.any",
               AttrMap().setInts("dim", {}).setBool("keepdim", false), {m}, {},
               DType::boolean)
              .values() == std::vector<double>{1});
    CHECK(run1("aten.any",
               AttrMap().setInts("dim", {0}).setBool("keepdim", true), {m},
               {1, 3}, DType::boolean)
              .values() == std::vector<double>{0, 0, 1});
  }
}

TEST_CASE("cumsum runs along any dim, on float and integers", "[scan]") {
  // [[1, 2, 3], [4, 5, 6]]
  Tensor x = iota({2, 3});
  requireClose(run1("aten.cumsum", AttrMap().setInt("dim", 1), {x}, {2, 3}),
               {1, 3, 6, 4, 9, 15});
  requireClose(run1("aten.cumsum", AttrMap().setInt("dim", 0), {x}, {2, 3}),
               {1, 2, 3, 5, 7, 9});
  // A float32 running sum is accumulated in double, as PyTorch does: 2^24
  // plus ones stays exact until stored.
  requireClose(run1("aten.cumsum", AttrMap().setInt("dim", 0),
                    {Tensor::of({3}, {16777216, 1, 1})}, {3}),
               {16777216, 16777216, 16777218}, 0);
  SECTION("integers wrap around") {
    Tensor bytes = Tensor::of({3}, {100, 100, 100}, DType::i8);
    CHECK(
        run1("aten.cumsum", AttrMap().setInt("dim", 0), {bytes}, {3}, DType::i8)
            .values() == std::vector<double>{100, -56, 44});
    Tensor longs = Tensor::of({2, 2}, {1, -2, 3, 4}, DType::i64);
    CHECK(run1("aten.cumsum", AttrMap().setInt("dim", 0), {longs}, {2, 2},
               DType::i64)
              .values() == std::vector<double>{1, -2, 4, 2});
  }
  SECTION("bool and mismatched outputs are refused") {
    std::vector<Tensor> out = {Tensor(DType::boolean, {2})};
    CHECK(runOp("aten.cumsum", AttrMap().setInt("dim", 0),
                {Tensor::of({2}, {1, 0}, DType::boolean)}, out)
              .message()
              .find("aten.cumsum: input has dtype bool") == 0);
    std::vector<Tensor> wide = {Tensor(DType::i64, {2, 3})};
    CHECK_FALSE(
        runOp("aten.cumsum", AttrMap().setInt("dim", 1), {x}, wide).isOk());
  }
}

TEST_CASE("softmax and log_softmax", "[softmax]") {
  // exp(k) / (e + e^2 + e^3) for k = 1, 2, 3.
  requireClose(run1("aten.softmax", AttrMap().setInt("dim", 0),
                    {Tensor::of({3}, {1, 2, 3})}, {3}),
               {0.09003057317038046, 0.24472847105479764, 0.6652409557748219});
  requireClose(run1("aten.log_softmax", AttrMap().setInt("dim", 0),
                    {Tensor::of({3}, {1, 2, 3})}, {3}),
               {-2.4076059644443806, -1.4076059644443804, -0.4076059644443803});
  requireClose(run1("aten.softmax", AttrMap().setInt("dim", 0),
                    {Tensor::of({2}, {-kInf, 0})}, {2}),
               {0, 1});
  // A row of nothing but -inf: NaN, or 0 when safe (PyTorch's
  // _safe_softmax), along the last dim and along an inner one; other rows
  // are unchanged by `safe`.
  Tensor masked = Tensor::of({2, 3}, {-kInf, -kInf, -kInf, 1, 2, 3});
  requireClose(run1("aten.softmax", AttrMap().setInt("dim", 1), {masked},
                    {2, 3}),
               {kNaN, kNaN, kNaN, 0.09003057317038046, 0.24472847105479764,
                0.6652409557748219});
  requireClose(run1("aten.softmax", AttrMap().setInt("dim", 1).setBool("safe", true),
                    {masked}, {2, 3}),
               {0, 0, 0, 0.09003057317038046, 0.24472847105479764,
                0.6652409557748219});
  Tensor columns = Tensor::of({2, 2}, {-kInf, 0, -kInf, 0});
  requireClose(run1("aten.softmax", AttrMap().setInt("dim", 0).setBool("safe", true),
                    {columns}, {2, 2}),
               {0, 0.5, 0, 0.5});

  SECTION("rows sum to 1 along any dim, even for large logits") {
    // Logits near 1000 overflow exp() unless the maximum is subtracted.
    Tensor x = Tensor::random({3, 4, 5}, 7, 995, 1005);
    for (int64_t dim = 0; dim < 3; ++dim) {
      INFO("dim " << dim);
      Tensor y =
          run1("aten.softmax", AttrMap().setInt("dim", dim), {x}, {3, 4, 5});
      Tensor logY = run1("aten.log_softmax", AttrMap().setInt("dim", dim), {x},
                         {3, 4, 5});
      std::vector<double> ys = y.values(), logs = logY.values();
      for (size_t i = 0; i < ys.size(); ++i)
        REQUIRE(std::fabs(std::log(ys[i]) - logs[i]) < 1e-4);
      Shape rest = {3, 4, 5};
      rest.erase(rest.begin() + dim);
      Tensor total = run1(
          "aten.sum", AttrMap().setInts("dim", {dim}).setBool("keepdim", false),
          {y}, rest);
      for (double s : total.values())
        REQUIRE(std::fabs(s - 1) < 1e-5);
    }
  }
}

TEST_CASE("softmax and log_softmax against their definition at every length",
          "[softmax]") {
  // Rows along the last dim (eight lanes along the row, a padded tail) and
  // along inner dims (eight rows at a time, a partial last block); a row
  // with -inf entries.
  const std::vector<std::pair<Shape, int64_t>> cases = {
      {{1}, 0},       {{7}, 0},         {{8}, 0},    {{3, 13}, 1},
      {{2, 65}, 1},   {{5, 3}, 0},      {{4, 9}, 0}, {{2, 6, 17}, 1},
      {{3, 8, 8}, 1}, {{2, 3, 4, 5}, 2}};
  for (const auto &[shape, dim] : cases) {
    Tensor x =
        Tensor::random(shape, static_cast<uint32_t>(shape.back()), -8, 8);
    std::vector<double> xv = x.values();
    if (xv.size() > 2)
      xv[1] = -kInf;
    x = Tensor::of(shape, xv);
    int64_t outer = 1, n = shape[dim], inner = 1;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      if (d != dim)
        (d < dim ? outer : inner) *= shape[d];
    std::vector<double> soft(xv.size()), logs(xv.size());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        auto at = [&](int64_t k) { return (o * n + k) * inner + j; };
        double peak = -kInf, sum = 0;
        for (int64_t k = 0; k < n; ++k)
          peak = std::max(peak, xv[at(k)]);
        for (int64_t k = 0; k < n; ++k)
          sum += std::exp(xv[at(k)] - peak);
        for (int64_t k = 0; k < n; ++k) {
          soft[at(k)] = std::exp(xv[at(k)] - peak) / sum;
          logs[at(k)] = xv[at(k)] - peak - std::log(sum);
        }
      }
    INFO("shape rank " << shape.size() << ", dim " << dim << " of size " << n);
    AttrMap attrs = AttrMap().setInt("dim", dim);
    requireClose(run1("aten.softmax", attrs, {x}, shape), soft, 1e-6);
    requireClose(run1("aten.log_softmax", attrs, {x}, shape), logs, 1e-6);
  }
  // A NaN anywhere in a row makes the whole row NaN, as in PyTorch.
  Tensor y = run1("aten.softmax", AttrMap().setInt("dim", 0),
                  {Tensor::of({9}, {1, 2, kNaN, 4, 5, 6, 7, 8, 9})}, {9});
  for (double v : y.values())
    CHECK(std::isnan(v));
}

TEST_CASE("avg_pool2d divisors, ceil_mode and padding", "[pool]") {
  SECTION("plain 2x2 windows") {
    requireClose(run1("aten.avg_pool2d", avgWindow({2, 2}, {2, 2}, {0, 0}),
                      {iota({1, 1, 4, 4})}, {1, 1, 2, 2}),
                 {3.5, 5.5, 11.5, 13.5});
  }
  SECTION("padding counted or not, and divisor_override") {
    // 3x3 input 1..9, 3x3 windows, stride 2, padding 1: every window covers
    // a 2x2 corner of the input and 9 cells of the padded input.
    Tensor x = iota({1, 1, 3, 3});
    requireClose(run1("aten.avg_pool2d", avgWindow({3, 3}, {2, 2}, {1, 1}), {x},
                      {1, 1, 2, 2}),
                 {12.0 / 9, 16.0 / 9, 24.0 / 9, 28.0 / 9});
    requireClose(run1("aten.avg_pool2d",
                      avgWindow({3, 3}, {2, 2}, {1, 1})
                          .setBool("count_include_pad", false),
                      {x}, {1, 1, 2, 2}),
                 {3, 4, 6, 7});
    requireClose(
        run1("aten.avg_pool2d",
             avgWindow({3, 3}, {2, 2}, {1, 1}).setInt("divisor_override", 2),
             {x}, {1, 1, 2, 2}),
        {6, 8, 12, 14});
  }
  SECTION("ceil_mode windows past the input do not count, even as padding") {
    // 5x5 input 0..24, 2x2 windows, stride 2: ceil_mode adds a third row and
    // column of windows that hang one cell off the input.
    Tensor x = iota({1, 1, 5, 5}, 0);
    requireClose(
        run1("aten.avg_pool2d",
             avgWindow({2, 2}, {2, 2}, {0, 0}).setBool("ceil_mode", true), {x},
             {1, 1, 3, 3}),
        {3, 5, (4 + 9) / 2.0, 13, 15, (14 + 19) / 2.0, (20 + 21) / 2.0,
         (22 + 23) / 2.0, 24});
  }
  SECTION("ceil_mode with padding: the divisor stops at the padded edge") {
    // 4x4 input 1..16, 3x3 windows, stride 2, padding 1, ceil_mode: 3x3
    // windows. The last window starts at input row 3 and may use one row of
    // right padding: 2 padded rows, 1 real row.
    Tensor x = iota({1, 1, 4, 4});
    AttrMap attrs =
        avgWindow({3, 3}, {2, 2}, {1, 1}).setBool("ceil_mode", true);
    requireClose(run1("aten.avg_pool2d", attrs, {x}, {1, 1, 3, 3}),
                 {14.0 / 9, 30.0 / 9, 12.0 / 6,   // rows -1..1
                  57.0 / 9, 99.0 / 9, 36.0 / 6,   // rows 1..3
                  27.0 / 6, 45.0 / 6, 16.0 / 4}); // row 3 and padding
    attrs.setBool("count_include_pad", false);
    requireClose(run1("aten.avg_pool2d", attrs, {x}, {1, 1, 3, 3}),
                 {14.0 / 4, 30.0 / 6, 12.0 / 2, 57.0 / 6, 99.0 / 9, 36.0 / 3,
                  27.0 / 2, 45.0 / 3, 16.0 / 1});
  }
  SECTION("ceil_mode drops a window that would start in the right padding") {
    // 5 + 2 * 1 padding, kernel 2, stride 2: ceil((5 + 2 - 2) / 2) + 1 = 4,
    // but the fourth window would start at 6 >= 5 + 1, so there are 3.
    Tensor x = iota({1, 1, 1, 5});
    std::vector<Tensor> out = {Tensor(DType::f32, {1, 1, 1, 3})};
    REQUIRE(runOp("aten.avg_pool2d",
                  avgWindow({1, 2}, {1, 2}, {0, 1}).setBool("ceil_mode", true),
                  {x}, out)
                .isOk());
    // Windows [-1, 1), [1, 3), [3, 5) with the padded cell counted.
    requireClose(out[0], {0.5, 2.5, 4.5});
    std::vector<Tensor> four = {Tensor(DType::f32, {1, 1, 1, 4})};
    CHECK(!runOp("aten.avg_pool2d",
                 avgWindow({1, 2}, {1, 2}, {0, 1}).setBool("ceil_mode", true),
                 {x}, four)
               .isOk());
  }
  SECTION("a rank-3 input pools its last two dims") {
    requireClose(run1("aten.avg_pool2d", avgWindow({2, 2}, {2, 2}, {0, 0}),
                      {iota({2, 2, 2})}, {2, 1, 1}),
                 {2.5, 6.5});
  }
  SECTION("bad windows are errors") {
    std::vector<Tensor> out = {Tensor(DType::f32, {1, 1, 2, 2})};
    CHECK(runOp("aten.avg_pool2d", avgWindow({2, 2}, {2, 2}, {2, 0}),
                {iota({1, 1, 4, 4})}, out)
              .message() ==
          "aten.avg_pool2d: padding 2 must be at most half the kernel size 2");
    CHECK(runOp("aten.avg_pool2d", avgWindow({2, 2}, {0, 2}, {0, 0}),
                {iota({1, 1, 4, 4})}, out)
              .message()
              .find("must be positive") != std::string::npos);
  }
}

TEST_CASE("max_pool2d treats padding as -infinity", "[pool]") {
  AttrMap plain = window({2, 2}, {2, 2}, {0, 0}).setInts("dilation", {1, 1});
  requireClose(
      run1("aten.max_pool2d", plain, {iota({1, 1, 4, 4})}, {1, 1, 2, 2}),
      {6, 8, 14, 16});
  // All-negative input: a zero from padding would win if padding were 0.
  Tensor negative = iota({1, 1, 4, 4}, -16);
  requireClose(
      run1("aten.max_pool2d",
           window({3, 3}, {1, 1}, {1, 1}).setInts("dilation", {1, 1}),
           {negative}, {1, 1, 4, 4}),
      {-11, -10, -9, -9, -7, -6, -5, -5, -3, -2, -1, -1, -3, -2, -1, -1});
  // Dilation 2 picks cells two apart: each window's maximum is its far corner.
  requireClose(run1("aten.max_pool2d",
                    window({2, 2}, {1, 1}, {0, 0}).setInts("dilation", {2, 2}),
                    {iota({1, 1, 4, 4})}, {1, 1, 2, 2}),
               {11, 12, 15, 16});
  // ceil_mode adds the partial windows on the right and bottom.
  requireClose(run1("aten.max_pool2d",
                    window({2, 2}, {2, 2}, {0, 0})
                        .setInts("dilation", {1, 1})
                        .setBool("ceil_mode", true),
                    {iota({1, 1, 3, 3})}, {1, 1, 2, 2}),
               {5, 6, 8, 9});
  Tensor withNaN = Tensor::of({1, 1, 2, 2}, {1, kNaN, 3, 4});
  requireClose(run1("aten.max_pool2d", plain, {withNaN}, {1, 1, 1, 1}), {kNaN});
}

TEST_CASE("adaptive_avg_pool2d uses floor and ceil bin edges", "[pool]") {
  // Input x[r][c] = 5r + c, 3x5 pooled to 2x3: rows {0,1}, {1,2}; columns
  // {0,1}, {1,2,3}, {3,4}. The mean of a bin is 5 * mean(r) + mean(c).
  Tensor x = iota({1, 1, 3, 5}, 0);
  requireClose(run1("aten.adaptive_avg_pool2d", AttrMap(), {x}, {1, 1, 2, 3}),
               {3, 4.5, 6, 8, 9.5, 11});
  requireClose(run1("aten.adaptive_avg_pool2d", AttrMap(), {x}, {1, 1, 1, 1}),
               {7});
  // Upsampling bins repeat cells: 2 -> 3 gives bins {0}, {0, 1}, {1}.
  requireClose(run1("aten.adaptive_avg_pool2d", AttrMap(),
                    {Tensor::of({1, 1, 2}, {1, 3})}, {1, 1, 3}),
               {1, 2, 3});
}

TEST_CASE("upsample_bilinear2d 2x2 to 4x4 by hand", "[resample]") {
  Tensor x = Tensor::of({1, 1, 2, 2}, {1, 2, 3, 4});
  SECTION("half-pixel centres, clamped at 0") {
    // Source coordinate 0.5 * (i + 0.5) - 0.5: -0.25 -> 0, 0.25, 0.75, 1.25
    // (past the last pixel: the last pixel). Rows then blend the same way.
    requireClose(run1("aten.upsample_bilinear2d",
                      AttrMap().setBool("align_corners", false), {x},
                      {1, 1, 4, 4}),
                 {1, 1.25, 1.75, 2,     //
                  1.5, 1.75, 2.25, 2.5, //
                  2.5, 2.75, 3.25, 3.5, //
                  3, 3.25, 3.75, 4});
  }
  SECTION("aligned corners") {
    // Source coordinate i / 3: corners land exactly on the input corners.
    requireClose(run1("aten.upsample_bilinear2d",
                      AttrMap().setBool("align_corners", true), {x},
                      {1, 1, 4, 4}),
                 {1, 4.0 / 3, 5.0 / 3, 2,        //
                  5.0 / 3, 2, 7.0 / 3, 8.0 / 3,  //
                  7.0 / 3, 8.0 / 3, 3, 10.0 / 3, //
                  3, 10.0 / 3, 11.0 / 3, 4});
  }
  SECTION("a recorded scale replaces in / out") {
    // scale_factor 2.3 on width 2 gives 4 columns with source
    // (i + 0.5) / 2.3 - 0.5: 0, 0.1522, 0.5870, 1.0217 -> last pixel.
    Tensor row = Tensor::of({1, 1, 1, 2}, {1, 2});
    requireClose(
        run1(
            "aten.upsample_bilinear2d",
            AttrMap().setFloat("scales_w", 2.3).setBool("align_corners", false),
            {row}, {1, 1, 1, 4}),
        {1, 1 + (1.5 / 2.3 - 0.5), 1 + (2.5 / 2.3 - 0.5), 2}, 1e-6);
  }
}

TEST_CASE("upsample_nearest2d picks floor(dst * in / out)", "[resample]") {
  Tensor x = Tensor::of({1, 1, 2, 2}, {1, 2, 3, 4});
  requireClose(run1("aten.upsample_nearest2d", AttrMap(), {x}, {1, 1, 3, 3}),
               {1, 1, 2, 1, 1, 2, 3, 3, 4});
  requireClose(run1("aten.upsample_nearest2d", AttrMap(), {x}, {1, 1, 1, 4}),
               {1, 1, 2, 2});
  Tensor row = Tensor::of({1, 1, 1, 4}, {1, 2, 3, 4});
  requireClose(run1("aten.upsample_nearest2d", AttrMap(), {row}, {1, 1, 1, 2}),
               {1, 3});
  // Width 3 to 5: in/out = 0.6 picks 0 0 1 1 2; a recorded scale 1.5 picks
  // with 1/1.5 instead: 0 0 1 2 2.
  Tensor three = Tensor::of({1, 1, 1, 3}, {10, 20, 30});
  requireClose(
      run1("aten.upsample_nearest2d", AttrMap(), {three}, {1, 1, 1, 5}),
      {10, 10, 20, 20, 30});
  requireClose(run1("aten.upsample_nearest2d",
                    AttrMap().setFloat("scales_w", 1.5), {three}, {1, 1, 1, 5}),
               {10, 10, 20, 30, 30});
  // Like PyTorch, an unchanged or doubled size copies or halves the index
  // whatever the recorded scale: 3 -> 6 with scale 2.3 picks 0 0 1 1 2 2,
  // not floor(i / 2.3) = 0 0 0 1 1 2.
  requireClose(run1("aten.upsample_nearest2d",
                    AttrMap().setFloat("scales_w", 2.3), {three}, {1, 1, 1, 6}),
               {10, 10, 20, 20, 30, 30});
  requireClose(run1("aten.upsample_nearest2d",
                    AttrMap().setFloat("scales_w", 0.8), {three}, {1, 1, 1, 3}),
               {10, 20, 30});
  std::vector<Tensor> out = {Tensor(DType::f32, {1, 2, 4, 4})};
  CHECK(runOp("aten.upsample_nearest2d", AttrMap(), {x}, out).message() ==
        "aten.upsample_nearest2d: output [1, 2, 4, 4] must keep N and C of the "
        "input [1, 1, 2, 2] and have positive H and W");
}
