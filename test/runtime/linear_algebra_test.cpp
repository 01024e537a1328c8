//===- linear_algebra_test.cpp - convolution, GEMM and matrix products ----===//
//
// Each kernel against a reference written as plainly as possible (direct
// loops in double) on random data, at sizes that cross the GEMM's blocking.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"
#include "runtime/kernels/Gemm.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

struct ConvCase {
  const char *name;
  Shape input, weight;
  Shape stride, padding, dilation, outputPadding;
  int64_t groups;
  bool transposed, bias;
};

/// Convolution by its definition: every output (or, transposed, every input)
/// pixel against every kernel tap. 1-D runs as 2-D with height 1.
std::vector<double> referenceConv(const ConvCase &c, const Tensor &x,
                                  const Tensor &w, const Tensor *b,
                                  Shape &outShape) {
  bool oneD = c.input.size() == 3;
  auto two = [&](const Shape &v, int64_t one) {
    return oneD ? Shape{one, v[0]} : v;
  };
  Shape st = two(c.stride, 1), pd = two(c.padding, 0), dl = two(c.dilation, 1),
        op = two(c.outputPadding, 0);
  int64_t N = c.input[0], C = c.input[1];
  int64_t H = oneD ? 1 : c.input[2], W = c.input.back();
  int64_t KH = oneD ? 1 : c.weight[2], KW = c.weight.back();
  int64_t G = c.groups;
  int64_t OC = c.transposed ? c.weight[1] * G : c.weight[0];
  int64_t Cg = C / G, OCg = OC / G;
  int64_t OH, OW;
  if (!c.transposed) {
    OH = (H + 2 * pd[0] - dl[0] * (KH - 1) - 1) / st[0] + 1;
    OW = (W + 2 * pd[1] - dl[1] * (KW - 1) - 1) / st[1] + 1;
  } else {
    OH = (H - 1) * st[0] - 2 * pd[0] + dl[0] * (KH - 1) + op[0] + 1;
    OW = (W - 1) * st[1] - 2 * pd[1] + dl[1] * (KW - 1) + op[1] + 1;
  }
  outShape = oneD ? Shape{N, OC, OW} : Shape{N, OC, OH, OW};
  std::vector<double> xv = x.values(), wv = w.values();
  std::vector<double> out(N * OC * OH * OW, 0.0);
  auto X = [&](int64_t n, int64_t ci, int64_t h, int64_t ww) {
    return xv[((n * C + ci) * H + h) * W + ww];
  };
  auto Y = [&](int64_t n, int64_t o, int64_t h, int64_t ww) -> double & {
    return out[((n * OC + o) * OH + h) * OW + ww];
  };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g)
      for (int64_t oc = 0; oc < OCg; ++oc)
        for (int64_t ic = 0; ic < Cg; ++ic)
          for (int64_t kh = 0; kh < KH; ++kh)
            for (int64_t kw = 0; kw < KW; ++kw) {
              int64_t o = g * OCg + oc, i = g * Cg + ic;
              if (!c.transposed) {
                double wt = wv[((o * Cg + ic) * KH + kh) * KW + kw];
                for (int64_t oh = 0; oh < OH; ++oh)
                  for (int64_t ow = 0; ow < OW; ++ow) {
                    int64_t ih = oh * st[0] - pd[0] + kh * dl[0];
                    int64_t iw = ow * st[1] - pd[1] + kw * dl[1];
                    if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                      Y(n, o, oh, ow) += wt * X(n, i, ih, iw);
                  }
              } else {
                double wt = wv[((i * OCg + oc) * KH + kh) * KW + kw];
                for (int64_t ih = 0; ih < H; ++ih)
                  for (int64_t iw = 0; iw < W; ++iw) {
                    int64_t oh = ih * st[0] - pd[0] + kh * dl[0];
                    int64_t ow = iw * st[1] - pd[1] + kw * dl[1];
                    if (oh >= 0 && oh < OH && ow >= 0 && ow < OW)
                      Y(n, o, oh, ow) += wt * X(n, i, ih, iw);
                  }
              }
            }
  if (b) {
    std::vector<double> bv = b->values();
    for (int64_t n = 0; n < N; ++n)
      for (int64_t o = 0; o < OC; ++o)
        for (int64_t p = 0; p < OH * OW; ++p)
          out[(n * OC + o) * OH * OW + p] += bv[o];
  }
  return out;
}

/// C = alpha * op(A) op(B) + beta * C in double, by the textbook triple loop.
std::vector<double> referenceGemm(int64_t m, int64_t n, int64_t k, double alpha,
                                  const std::vector<float> &a, bool transA,
                                  const std::vector<float> &b, bool transB,
                                  double beta, const std::vector<float> &c) {
  std::vector<double> out(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += static_cast<double>(transA ? a[p * m + i] : a[i * k + p]) *
               (transB ? b[j * k + p] : b[p * n + j]);
      out[i * n + j] = alpha * sum + (beta == 0 ? 0.0 : beta * c[i * n + j]);
    }
  return out;
}

std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::vector<double> v =
      Tensor::random({static_cast<int64_t>(n)}, seed).values();
  return std::vector<float>(v.begin(), v.end());
}

/// Naive matrix product of row-major [.., m, k] x [.., k, n] batches that are
/// already broadcast: `batches` pairs of offsets.
std::vector<double>
referenceMatmul(const Tensor &a, const Tensor &b,
                const std::vector<std::pair<int64_t, int64_t>> &batches,
                int64_t m, int64_t k, int64_t n) {
  std::vector<double> av = a.values(), bv = b.values(), out;
  for (auto [oa, ob] : batches)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += av[oa + i * k + p] * bv[ob + p * n + j];
        out.push_back(sum);
      }
  return out;
}

} // namespace

TEST_CASE("convolution matches a direct loop", "[conv]") {
  const ConvCase cases[] = {
      {"plain 3x3 with bias",
       {2, 3, 7, 6},
       {4, 3, 3, 3},
       {1, 1},
       {1, 1},
       {1, 1},
       {0, 0},
       1,
       false,
       true},
      {"stride, asymmetric padding, dilation",
       {1, 3, 9, 8},
       {5, 3, 3, 2},
       {2, 3},
       {0, 2},
       {2, 1},
       {0, 0},
       1,
       false,
       false},
      {"two groups, rectangular kernel",
       {2, 4, 6, 7},
       {6, 2, 3, 2},
       {1, 2},
       {1, 1},
       {1, 1},
       {0, 0},
       2,
       false,
       true},
      {"depthwise with multiplier 2",
       {1, 4, 8, 9},
       {8, 1, 3, 3},
       {2, 2},
       {1, 1},
       {2, 1},
       {0, 0},
       4,
       false,
       true},
      // Unit stride and dilation take the padded-plane kernel: rows of 19
      // are two vectors of eight and three one by one; rows of 5 are all
      // tail.
      {"depthwise 7x7, unit stride, padding 3, two images",
       {2, 3, 6, 19},
       {3, 1, 7, 7},
       {1, 1},
       {3, 3},
       {1, 1},
       {0, 0},
       3,
       false,
       true},
      {"depthwise 3x5 with multiplier 2, asymmetric padding, no bias",
       {1, 2, 5, 5},
       {4, 1, 3, 5},
       {1, 1},
       {0, 2},
       {1, 1},
       {0, 0},
       2,
       false,
       false},
      {"pointwise 1x1",
       {2, 5, 4, 3},
       {7, 5, 1, 1},
       {1, 1},
       {0, 0},
       {1, 1},
       {0, 0},
       1,
       false,
       true},
      {"pointwise 1x1 with stride",
       {1, 5, 5, 5},
       {3, 5, 1, 1},
       {2, 2},
       {0, 0},
       {1, 1},
       {0, 0},
       1,
       false,
       false},
      {"blocks of the GEMM crossed",
       {1, 70, 9, 9},
       {65, 70, 3, 3},
       {1, 1},
       {1, 1},
       {1, 1},
       {0, 0},
       1,
       false,
       true},
      {"transposed, groups and output_padding",
       {2, 4, 3, 4},
       {4, 3, 3, 3},
       {2, 2},
       {1, 1},
       {1, 1},
       {1, 1},
       2,
       true,
       true},
      {"transposed, dilation and stride 3",
       {1, 2, 4, 3},
       {2, 3, 2, 3},
       {3, 2},
       {0, 1},
       {2, 2},
       {2, 1},
       1,
       true,
       false},
      {"transposed depthwise",
       {1, 3, 5, 5},
       {3, 1, 3, 3},
       {2, 1},
       {1, 0},
       {1, 1},
       {0, 0},
       3,
       true,
       true},
      {"1-D with stride, padding, dilation",
       {2, 3, 11},
       {4, 3, 3},
       {2},
       {1},
       {2},
       {0},
       1,
       false,
       true},
      {"1-D depthwise",
       {1, 6, 10},
       {6, 1, 4},
       {1},
       {2},
       {1},
       {0},
       6,
       false,
       false},
      {"1-D transposed, groups 3",
       {2, 6, 5},
       {6, 2, 3},
       {2},
       {1},
       {1},
       {1},
       3,
       true,
       true},
  };
  uint32_t seed = 100;
  for (const ConvCase &c : cases) {
    INFO(c.name);
    Tensor x = Tensor::random(c.input, seed++);
    Tensor w = Tensor::random(c.weight, seed++);
    int64_t oc = c.transposed ? c.weight[1] * c.groups : c.weight[0];
    Tensor b = c.bias ? Tensor::random({oc}, seed++) : Tensor::absent();
    Shape outShape;
    std::vector<double> want =
        referenceConv(c, x, w, c.bias ? &b : nullptr, outShape);
    AttrMap attrs;
    attrs.setInts("stride", c.stride)
        .setInts("padding", c.padding)
        .setInts("dilation", c.dilation)
        .setInts("output_padding", c.outputPadding)
        .setInt("groups", c.groups)
        .setBool("transposed", c.transposed);
    Tensor y = run1("aten.convolution", attrs, {x, w, b}, outShape);
    requireClose(y, want, 1e-5);
  }
}

TEST_CASE("convolution refuses inconsistent shapes and attributes",
          "[conv][errors]") {
  Tensor x = Tensor::random({1, 4, 5, 5}, 1),
         w = Tensor::random({6, 2, 3, 3}, 2);
  AttrMap attrs;
  attrs.setInts("stride", {1, 1})
      .setInts("padding", {0, 0})
      .setInts("dilation", {1, 1})
      .setInts("output_padding", {0, 0})
      .setInt("groups", 2)
      .setBool("transposed", false);
  std::vector<Tensor> out = {Tensor(DType::f32, {1, 6, 3, 3})};
  REQUIRE(runOp("aten.convolution", attrs, {x, w}, out).isOk());

  AttrMap badGroups = attrs;
  badGroups.setInt("groups", 3);
  Status s = runOp("aten.convolution", badGroups, {x, w}, out);
  CHECK(s.message().find("aten.convolution: input has 4 channels") == 0);

  AttrMap shortStride = attrs;
  shortStride.setInts("stride", {1});
  s = runOp("aten.convolution", shortStride, {x, w}, out);
  CHECK(s.message() ==
        "aten.convolution: attribute 'stride' needs 2 entries, got 1");

  AttrMap noPadding = attrs;
  noPadding.set("padding", std::string("same"));
  s = runOp("aten.convolution", noPadding, {x, w}, out);
  CHECK(s.message() ==
        "aten.convolution: attribute 'padding' is not an integer list");

  Tensor tooSmall = Tensor::random({1, 4, 2, 2}, 3);
  s = runOp("aten.convolution", attrs, {tooSmall, w}, out);
  CHECK(s.message().find("does not fit the input") != std::string::npos);

  Tensor wrongBias = Tensor::random({5}, 4);
  s = runOp("aten.convolution", attrs, {x, w, wrongBias}, out);
  CHECK(s.message().find("bias has shape [5]") != std::string::npos);

  // in + 2 * padding - dilation * (k - 1) - 1 was a signed overflow.
  for (const char *name : {"padding", "dilation", "stride"}) {
    INFO(name);
    AttrMap absurd = attrs;
    absurd.setInts(name,
                   {int64_t{1} << 62, std::numeric_limits<int64_t>::max()});
    s = runOp("aten.convolution", absurd, {x, w}, out);
    CHECK_FALSE(s.isOk());
    CHECK(s.message().find("aten.convolution: ") == 0);
  }
  AttrMap absurdGroups = attrs;
  absurdGroups.setInt("groups", std::numeric_limits<int64_t>::max());
  CHECK(runOp("aten.convolution", absurdGroups, {x, w}, out).message() ==
        "aten.convolution: input has 4 channels but weight [6, 2, 3, 3] "
        "expects 2 x 9223372036854775807 groups");
  AttrMap transposed = attrs;
  transposed.setBool("transposed", true)
      .setInts("padding", {int64_t{1} << 62, 0});
  CHECK(runOp("aten.convolution", transposed,
              {Tensor::random({1, 6, 5, 5}, 5), w}, out)
            .message() ==
        "aten.convolution: the output size overflows 64 bits; the attributes "
        "or operand sizes are absurd");
}

TEST_CASE("gemm matches the triple loop for odd sizes and transposes",
          "[gemm]") {
  using namespace duet::rt::portable;
  struct Size {
    int64_t m, n, k;
  };
  // m = 1 with B transposed (its columns contiguous) takes the
  // dot-product path: k below, at and above the vector width.
  const Size sizes[] = {{1, 1, 1},      {7, 13, 5}, {3, 1, 513},
                        {65, 257, 300}, {9, 8, 0},  {17, 31, 257},
                        {1, 37, 5},     {1, 9, 8},  {1, 100, 1027}};
  uint32_t seed = 200;
  for (Size s : sizes)
    for (bool transA : {false, true})
      for (bool transB : {false, true})
        for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{-0.5, 1.5}}) {
          INFO("m " << s.m << " n " << s.n << " k " << s.k << " transA "
                    << transA << " transB " << transB << " beta " << beta);
          std::vector<float> a = randomFloats(s.m * s.k, seed++);
          std::vector<float> b = randomFloats(s.k * s.n, seed++);
          std::vector<float> c = randomFloats(s.m * s.n, seed++);
          if (beta == 0.0 && !c.empty())
            c[0] = std::numeric_limits<float>::quiet_NaN();
          std::vector<double> want = referenceGemm(s.m, s.n, s.k, alpha, a,
                                                   transA, b, transB, beta, c);
          MatrixRef ra = transA
                             ? MatrixRef::rowMajor(a.data(), s.m).transposed()
                             : MatrixRef::rowMajor(a.data(), s.k);
          MatrixRef rb = transB
                             ? MatrixRef::rowMajor(b.data(), s.k).transposed()
                             : MatrixRef::rowMajor(b.data(), s.n);
          gemm(s.m, s.n, s.k, static_cast<float>(alpha), ra, rb,
               static_cast<float>(beta), c.data(), s.n);
          for (size_t i = 0; i < want.size(); ++i) {
            INFO("element " << i);
            REQUIRE(std::fabs(c[i] - want[i]) <=
                    1e-5 * (1 + std::sqrt(static_cast<double>(s.k))));
          }
        }
}

TEST_CASE("gemm of one strided row against contiguous columns", "[gemm]") {
  using namespace duet::rt::portable;
  // A is column 1 of a k x 3 matrix (a 1 x k row with column stride 3), B
  // is W transposed (columns contiguous): the dot-product path copies A.
  const int64_t k = 21, n = 5;
  std::vector<float> source = randomFloats(k * 3, 7);
  std::vector<float> w = randomFloats(n * k, 8);
  std::vector<float> a(k);
  for (int64_t p = 0; p < k; ++p)
    a[p] = source[p * 3 + 1];
  std::vector<float> c = randomFloats(n, 9);
  std::vector<double> want =
      referenceGemm(1, n, k, 2.0, a, false, w, true, 0.5, c);
  gemm(1, n, k, 2.f, MatrixRef{source.data() + 1, 0, 3},
       MatrixRef::rowMajor(w.data(), k).transposed(), 0.5f, c.data(), n);
  for (int64_t j = 0; j < n; ++j) {
    INFO("column " << j);
    REQUIRE(std::fabs(c[j] - want[j]) <= 1e-5 * (1 + std::sqrt(double(k))));
  }
}

TEST_CASE("matmul follows NumPy: 1-D operands and broadcast batches",
          "[matmul]") {
  SECTION("vector times vector is a scalar") {
    Tensor a = Tensor::of({3}, {1, 2, 3}), b = Tensor::of({3}, {4, -5, 6});
    requireClose(run1("aten.matmul", AttrMap(), {a, b}, {}), {12});
  }
  SECTION("vector times a batch of matrices") {
    Tensor a = Tensor::random({4}, 1), b = Tensor::random({2, 4, 3}, 2);
    std::vector<double> want =
        referenceMatmul(a, b, {{0, 0}, {0, 12}}, 1, 4, 3);
    requireClose(run1("aten.matmul", AttrMap(), {a, b}, {2, 3}), want);
  }
  SECTION("a batch of matrices times a vector") {
    Tensor a = Tensor::random({2, 3, 4}, 3), b = Tensor::random({4}, 4);
    std::vector<double> want =
        referenceMatmul(a, b, {{0, 0}, {12, 0}}, 3, 4, 1);
    requireClose(run1("aten.matmul", AttrMap(), {a, b}, {2, 3}), want);
  }
  SECTION("batch dims broadcast both ways") {
    // [2, 1] x [3] batches broadcast to [2, 3].
    Tensor a = Tensor::random({2, 1, 3, 4}, 5),
           b = Tensor::random({3, 4, 5}, 6);
    std::vector<std::pair<int64_t, int64_t>> batches;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        batches.push_back({i * 12, j * 20});
    std::vector<double> want = referenceMatmul(a, b, batches, 3, 4, 5);
    requireClose(run1("aten.matmul", AttrMap(), {a, b}, {2, 3, 3, 5}), want);
  }
  SECTION("mm and bmm are the 2-D and 3-D cases") {
    Tensor a = Tensor::random({2, 3, 4}, 7), b = Tensor::random({2, 4, 5}, 8);
    requireClose(run1("aten.bmm", AttrMap(), {a, b}, {2, 3, 5}),
                 referenceMatmul(a, b, {{0, 0}, {12, 20}}, 3, 4, 5));
    Tensor c = Tensor::random({3, 4}, 9), d = Tensor::random({4, 5}, 10);
    requireClose(run1("aten.mm", AttrMap(), {c, d}, {3, 5}),
                 referenceMatmul(c, d, {{0, 0}}, 3, 4, 5));
    std::vector<Tensor> out = {Tensor(DType::f32, {3, 5})};
    CHECK(!runOp("aten.mm", AttrMap(), {a, b}, out).isOk());
    Tensor e = Tensor::random({3, 4, 5}, 11);
    std::vector<Tensor> out3 = {Tensor(DType::f32, {2, 3, 5})};
    CHECK(runOp("aten.bmm", AttrMap(), {a, e}, out3).message() ==
          "aten.bmm: batch sizes of [2, 3, 4] and [3, 4, 5] differ");
  }
}

TEST_CASE("linear and addmm", "[matmul]") {
  SECTION("linear by hand, with and without bias, on a vector") {
    Tensor x = Tensor::of({2, 3}, {1, 2, 3, -1, 0, 1});
    Tensor w = Tensor::of({2, 3}, {1, 0, 1, 0.5, 0.5, 0.5});
    Tensor b = Tensor::of({2}, {10, 20});
    requireClose(run1("aten.linear", AttrMap(), {x, w, b}, {2, 2}),
                 {14, 23, 10, 20});
    requireClose(run1("aten.linear", AttrMap(), {x, w}, {2, 2}), {4, 3, 0, 0});
    Tensor v = Tensor::of({3}, {1, 1, 1});
    requireClose(run1("aten.linear", AttrMap(), {v, w, b}, {2}), {12, 21.5});
  }
  SECTION("addmm scales both terms and broadcasts self") {
    Tensor self = Tensor::of({2}, {1, -1});
    Tensor a = Tensor::of({1, 2}, {1, 2}), b = Tensor::of({2, 2}, {1, 2, 3, 4});
    // a @ b = [7, 10]; 0.5 * self + 2 * (a @ b).
    requireClose(run1("aten.addmm",
                      AttrMap().setFloat("beta", 0.5).setFloat("alpha", 2),
                      {self, a, b}, {1, 2}),
                 {14.5, 19.5});
  }
  SECTION("addmm with beta 0 ignores self, NaN included") {
    Tensor self = Tensor::of({1}, {std::nan("")});
    Tensor a = Tensor::of({1, 2}, {1, 2}), b = Tensor::of({2, 1}, {3, 4});
    requireClose(run1("aten.addmm",
                      AttrMap().setFloat("beta", 0).setFloat("alpha", 1),
                      {self, a, b}, {1, 1}),
                 {11});
  }
}

TEST_CASE("batch_norm and layer_norm by hand", "[norm]") {
  SECTION("batch_norm uses running statistics per channel") {
    Tensor x = Tensor::of({1, 2, 2}, {1, 3, 10, 20});
    Tensor mean = Tensor::of({2}, {2, 10}), var = Tensor::of({2}, {4, 100});
    Tensor weight = Tensor::of({2}, {2, 1}), bias = Tensor::of({2}, {0, 1});
    // Channel 0: (x - 2) / 2 * 2; channel 1: (x - 10) / 10 + 1.
    requireClose(run1("aten.batch_norm", AttrMap().setFloat("eps", 0),
                      {x, mean, var, weight, bias}, {1, 2, 2}),
                 {-1, 1, 1, 2});
    // Without weight and bias, and with the default eps.
    requireClose(run1("aten.batch_norm", AttrMap().setFloat("eps", 1e-5),
                      {x, mean, var}, {1, 2, 2}),
                 {-0.5, 0.5, 0, 1}, 1e-5);
  }
  SECTION("layer_norm normalizes the trailing dims") {
    Tensor x = Tensor::of({2, 2}, {1, 3, -2, 2});
    Tensor weight = Tensor::of({2}, {1, 2}), bias = Tensor::of({2}, {0, 1});
    // Each row has mean m, biased variance 1 and 4: (x - m) / std.
    requireClose(
        run1("aten.layer_norm",
             AttrMap().setInts("normalized_shape", {2}).setFloat("eps", 0),
             {x, weight, bias}, {2, 2}),
        {-1, 3, -1, 3});
    Status s;
    std::vector<Tensor> out = {Tensor(DType::f32, {2, 2})};
    s = runOp("aten.layer_norm",
              AttrMap().setInts("normalized_shape", {3}).setFloat("eps", 1e-5),
              {x}, out);
    CHECK(s.message().find("normalized_shape [3] must be the trailing dims") !=
          std::string::npos);
  }
}

namespace {

/// A 3-D convolution computed the plain way, weight-major, in doubles.
std::vector<double> referenceConv3d(const Tensor &x, const Tensor &w,
                                    const Tensor *b, Shape stride,
                                    Shape padding, Shape dilation,
                                    int64_t groups, Shape &outShape) {
  const Shape &in = x.sizes(), &k = w.sizes();
  int64_t outC = k[0], groupIn = in[1] / groups, groupOut = outC / groups;
  outShape = {in[0], outC};
  for (int i = 0; i < 3; ++i)
    outShape.push_back((in[2 + i] + 2 * padding[i] -
                        dilation[i] * (k[2 + i] - 1) - 1) /
                           stride[i] +
                       1);
  std::vector<double> xv = x.values(), wv = w.values();
  std::vector<double> out(in[0] * outC * outShape[2] * outShape[3] *
                          outShape[4]);
  for (int64_t n = 0; n < in[0]; ++n)
    for (int64_t o = 0; o < outC; ++o)
      for (int64_t ic = 0; ic < groupIn; ++ic)
        for (int64_t a = 0; a < k[2]; ++a)
          for (int64_t bb = 0; bb < k[3]; ++bb)
            for (int64_t c = 0; c < k[4]; ++c) {
              double wt = wv[(((o * groupIn + ic) * k[2] + a) * k[3] + bb) *
                                 k[4] +
                             c];
              int64_t ci = (o / groupOut) * groupIn + ic;
              for (int64_t d = 0; d < outShape[2]; ++d)
                for (int64_t h = 0; h < outShape[3]; ++h)
                  for (int64_t ww = 0; ww < outShape[4]; ++ww) {
                    int64_t id = d * stride[0] - padding[0] + a * dilation[0];
                    int64_t ih = h * stride[1] - padding[1] + bb * dilation[1];
                    int64_t iw = ww * stride[2] - padding[2] + c * dilation[2];
                    if (id < 0 || id >= in[2] || ih < 0 || ih >= in[3] ||
                        iw < 0 || iw >= in[4])
                      continue;
                    out[(((n * outC + o) * outShape[2] + d) * outShape[3] +
                         h) *
                            outShape[4] +
                        ww] += xv[(((n * in[1] + ci) * in[2] + id) * in[3] +
                                   ih) *
                                      in[4] +
                                  iw] *
                               wt;
                  }
            }
  if (b)
    for (size_t i = 0; i < out.size(); ++i)
      out[i] += b->at(int64_t(i) / (outShape[2] * outShape[3] * outShape[4]) %
                      outC);
  return out;
}

} // namespace

TEST_CASE("3-D convolution: padding, stride, dilation, groups, and depth 1 "
          "as the 2-D kernel",
          "[conv]") {
  struct Case {
    Shape input, weight, stride, padding, dilation;
    int64_t groups;
    bool bias;
  };
  const Case cases[] = {
      {{1, 2, 4, 6, 6}, {3, 2, 3, 3, 3}, {1, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1,
       true},
      {{2, 4, 5, 7, 6}, {6, 2, 2, 3, 1}, {2, 1, 1}, {0, 1, 0}, {2, 1, 1}, 2,
       false},
      {{1, 3, 3, 5, 5}, {3, 1, 3, 3, 3}, {1, 1, 1}, {1, 2, 1}, {1, 2, 1}, 3,
       true},
  };
  uint32_t seed = 300;
  for (const Case &c : cases) {
    Tensor x = Tensor::random(c.input, seed++);
    Tensor w = Tensor::random(c.weight, seed++);
    Tensor b = c.bias ? Tensor::random({c.weight[0]}, seed++) : Tensor::absent();
    Shape outShape;
    std::vector<double> want =
        referenceConv3d(x, w, c.bias ? &b : nullptr, c.stride, c.padding,
                        c.dilation, c.groups, outShape);
    AttrMap attrs;
    attrs.setInts("stride", c.stride)
        .setInts("padding", c.padding)
        .setInts("dilation", c.dilation)
        .setInts("output_padding", {0, 0, 0})
        .setInt("groups", c.groups)
        .setBool("transposed", false);
    requireClose(run1("aten.convolution", attrs, {x, w, b}, outShape), want,
                 1e-5);
  }

  // A volume of depth 1 under a kernel of depth 1 is the 2-D convolution.
  Tensor x = Tensor::random({1, 3, 1, 6, 5}, 400);
  Tensor w = Tensor::random({4, 3, 1, 3, 3}, 401);
  AttrMap attrs3;
  attrs3.setInts("stride", {1, 2, 1})
      .setInts("padding", {0, 1, 1})
      .setInts("dilation", {1, 1, 1})
      .setInts("output_padding", {0, 0, 0})
      .setInt("groups", 1)
      .setBool("transposed", false);
  AttrMap attrs2;
  attrs2.setInts("stride", {2, 1})
      .setInts("padding", {1, 1})
      .setInts("dilation", {1, 1})
      .setInts("output_padding", {0, 0})
      .setInt("groups", 1)
      .setBool("transposed", false);
  Tensor flat = Tensor::of({1, 3, 6, 5}, x.values());
  Tensor flatW = Tensor::of({4, 3, 3, 3}, w.values());
  Tensor y2 = run1("aten.convolution", attrs2, {flat, flatW}, {1, 4, 3, 5});
  requireClose(run1("aten.convolution", attrs3, {x, w}, {1, 4, 1, 3, 5}),
               y2.values(), 1e-5);

  // Transposed 3-D is refused with its name.
  AttrMap transposed = attrs3;
  transposed.setBool("transposed", true);
  std::vector<Tensor> out = {Tensor(DType::f32, {1, 4, 1, 3, 5})};
  CHECK(runOp("aten.convolution", transposed, {x, w}, out).message() ==
        "aten.convolution: a 3-D transposed convolution is not supported");
}

TEST_CASE("layer_norm against its definition at every width", "[norm]") {
  // Widths around multiples of eight lanes (the padded last block), with and
  // without weight and bias, over one to three normalized dims.
  const std::vector<Shape> normalizedShapes = {
      {1}, {5}, {8}, {13}, {2, 8}, {3, 7}, {64}, {67}, {2, 3, 5}};
  for (const Shape &normalized : normalizedShapes)
    for (bool affine : {false, true}) {
      Shape shape = {3};
      shape.insert(shape.end(), normalized.begin(), normalized.end());
      int64_t width = 1;
      for (int64_t s : normalized)
        width *= s;
      Tensor x = Tensor::random(shape, static_cast<uint32_t>(width), -4, 6);
      Tensor w = Tensor::random(normalized, 7),
             b = Tensor::random(normalized, 8);
      std::vector<double> xv = x.values(), wv = w.values(), bv = b.values();
      std::vector<double> want(xv.size());
      const double eps = 1e-5;
      for (int64_t r = 0; r < 3; ++r) {
        const double *row = xv.data() + r * width;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < width; ++i)
          mean += row[i] / width;
        for (int64_t i = 0; i < width; ++i)
          var += (row[i] - mean) * (row[i] - mean) / width;
        for (int64_t i = 0; i < width; ++i) {
          double v = (row[i] - mean) / std::sqrt(var + eps);
          want[r * width + i] = affine ? v * wv[i] + bv[i] : v;
        }
      }
      AttrMap attrs = AttrMap()
                          .setInts("normalized_shape", normalized)
                          .setFloat("eps", eps);
      std::vector<Tensor> inputs = {x};
      if (affine)
        inputs.insert(inputs.end(), {w, b});
      INFO("width " << width << (affine ? " with" : " without")
                    << " weight and bias");
      Tensor y = run1("aten.layer_norm", attrs, inputs, shape);
      requireClose(y, want, 1e-6);
      CHECK(y.guardsIntact());
    }
}
