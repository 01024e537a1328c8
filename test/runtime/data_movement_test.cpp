//===- data_movement_test.cpp - shape ops, embedding, attention -----------===//

#include "KernelTestSupport.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

Tensor iota(Shape shape, DType dtype = DType::f32) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 0);
  return Tensor::of(std::move(shape), v, dtype);
}

/// Attention by its definition, in double: softmax(q kᵀ * scale + mask) v
/// with a fully masked row giving zeros.
std::vector<double> referenceAttention(const Tensor &q, const Tensor &k,
                                       const Tensor &v, int64_t batch,
                                       int64_t L, int64_t S, int64_t E,
                                       int64_t Ev, double scale,
                                       const std::vector<double> &bias) {
  std::vector<double> qv = q.values(), kv = k.values(), vv = v.values(), out;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < L; ++i) {
      std::vector<double> w(S);
      double peak = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < S; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < E; ++e)
          dot += qv[(b * L + i) * E + e] * kv[(b * S + j) * E + e];
        w[j] = dot * scale + bias[(b * L + i) * S + j];
        peak = std::max(peak, w[j]);
      }
      double total = 0;
      for (double &x : w) {
        x = std::isinf(peak) ? 0 : std::exp(x - peak);
        total += x;
      }
      for (int64_t e = 0; e < Ev; ++e) {
        double sum = 0;
        for (int64_t j = 0; j < S; ++j)
          sum += (total > 0 ? w[j] / total : 0) * vv[(b * S + j) * Ev + e];
        out.push_back(sum);
      }
    }
  return out;
}

} // namespace

TEST_CASE("view, clone and permute move elements of any dtype", "[shape]") {
  for (DType dtype : {DType::f32, DType::f16, DType::i64, DType::u8}) {
    INFO(dtypeName(dtype));
    Tensor x = iota({2, 3, 4}, dtype);
    CHECK(run1("aten.view", AttrMap(), {x}, {4, 6}, dtype).values() ==
          x.values());
    CHECK(run1("aten.clone", AttrMap(), {x}, {2, 3, 4}, dtype).bytes() ==
          x.bytes());
    Tensor y = run1("aten.permute", AttrMap().setInts("dims", {2, 0, 1}), {x},
                    {4, 2, 3}, dtype);
    std::vector<double> xv = x.values(), yv = y.values();
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k)
          REQUIRE(yv[(k * 2 + i) * 3 + j] == xv[(i * 3 + j) * 4 + k]);
  }
  std::vector<Tensor> out = {Tensor(DType::f32, {5})};
  CHECK(runOp("aten.view", AttrMap(), {iota({2, 3})}, out).message() ==
        "aten.view: cannot view [2, 3] (6 elements) as [5] (5 elements)");
  std::vector<Tensor> perm = {Tensor(DType::f32, {3, 2})};
  CHECK(runOp("aten.permute", AttrMap().setInts("dims", {1, 1}), {iota({2, 3})},
              perm)
            .message() ==
        "aten.permute: dims [1, 1] is not a permutation of the 2 "
        "dims of [2, 3]");
  std::vector<Tensor> wrongType = {Tensor(DType::i32, {2, 3})};
  CHECK(runOp("aten.clone", AttrMap(), {iota({2, 3})}, wrongType).message() ==
        "aten.clone: operands must share one dtype, got float32 and int32");
}

TEST_CASE("permute of every rank against index arithmetic", "[shape]") {
  // Shapes with odd sizes, ones (dropped when the copy merges dims), rows
  // shorter than the in-place threshold and sizes past the transposing
  // copy's 64-element tiles; every permutation of ranks up to 4 and a few of
  // ranks 5 and 6; elements of 1, 2, 4 and 8 bytes.
  const std::vector<Shape> shapes = {
      {7},          {3, 5},          {17, 33},          {70, 131},
      {1, 19, 1},   {2, 3, 4},       {3, 66, 65},       {5, 1, 18, 3},
      {4, 6, 2, 9}, {2, 3, 1, 4, 5}, {2, 1, 3, 2, 3, 2}};
  for (const Shape &shape : shapes) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    Shape dims(rank);
    std::iota(dims.begin(), dims.end(), 0);
    int tried = 0;
    do {
      for (DType dtype : {DType::f32, DType::u8, DType::f16, DType::i64}) {
        Tensor x = iota(shape, dtype == DType::u8 ? DType::i64 : dtype);
        if (dtype == DType::u8) // values past 255 would wrap
          x = Tensor::random(shape, 3, 0, 200).to(DType::u8);
        Shape sizes, strides(rank, 1), outStrides(rank, 1);
        for (int64_t d = rank - 2; d >= 0; --d)
          strides[d] = strides[d + 1] * shape[d + 1];
        for (int64_t d : dims)
          sizes.push_back(shape[d]);
        for (int64_t d = rank - 2; d >= 0; --d)
          outStrides[d] = outStrides[d + 1] * sizes[d + 1];
        Tensor y = run1("aten.permute", AttrMap().setInts("dims", dims), {x},
                        sizes, dtype);
        std::vector<double> xv = x.values(), yv = y.values();
        INFO(dtypeName(dtype)
             << " shape rank " << rank << " permutation " << tried);
        REQUIRE(y.guardsIntact());
        for (int64_t at = 0; at < y.numel(); ++at) {
          int64_t from = 0;
          for (int64_t d = 0; d < rank; ++d)
            from += (at / outStrides[d] % sizes[d]) * strides[dims[d]];
          REQUIRE(yv[at] == xv[from]);
        }
      }
    } while (std::next_permutation(dims.begin(), dims.end()) &&
             (rank <= 4 || ++tried < 12));
  }
}

TEST_CASE("expand, slice and select", "[shape]") {
  Tensor x = Tensor::of({3, 1}, {1, 2, 3}, DType::i32);
  CHECK(run1("aten.expand", AttrMap(), {x}, {2, 3, 2}, DType::i32).values() ==
        std::vector<double>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  std::vector<Tensor> bad = {Tensor(DType::i32, {2, 2})};
  CHECK(runOp("aten.expand", AttrMap(), {x}, bad).message() ==
        "aten.expand: cannot expand [3, 1] to [2, 2]");

  Tensor m = iota({2, 9});
  requireClose(run1("aten.slice",
                    AttrMap()
                        .setInt("dim", 1)
                        .setInt("start", 1)
                        .setInt("end", 8)
                        .setInt("step", 3),
                    {m}, {2, 3}),
               {1, 4, 7, 10, 13, 16});
  requireClose(run1("aten.slice",
                    AttrMap()
                        .setInt("dim", 0)
                        .setInt("start", 1)
                        .setInt("end", 2)
                        .setInt("step", 1),
                    {m}, {1, 9}),
               {9, 10, 11, 12, 13, 14, 15, 16, 17});
  requireClose(run1("aten.select",
                    AttrMap().setInt("dim", 1).setInt("index", 2), {m}, {2}),
               {2, 11});
  std::vector<Tensor> out = {Tensor(DType::f32, {2})};
  CHECK(runOp("aten.select", AttrMap().setInt("dim", 1).setInt("index", 9), {m},
              out)
            .message() ==
        "aten.select: index 9 is out of range for size 9 of dim 1");
  std::vector<Tensor> sliced = {Tensor(DType::f32, {2, 1})};
  CHECK(runOp("aten.slice",
              AttrMap()
                  .setInt("dim", 1)
                  .setInt("start", 5)
                  .setInt("end", 10)
                  .setInt("step", 1),
              {m}, sliced)
            .message() ==
        "aten.slice: needs 0 <= start <= end <= 9, got start 5 and end 10");
}

TEST_CASE("repeat tiles every dim and adds leading ones", "[shape]") {
  Tensor x = iota({2, 3});
  requireClose(
      run1("aten.repeat", AttrMap().setInts("repeats", {2, 1, 2}), {x},
           {2, 2, 6}),
      {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
  CHECK(run1("aten.repeat", AttrMap().setInts("repeats", {3}),
             {Tensor::of({2}, {1, 0}, DType::boolean)}, {6}, DType::boolean)
            .values() == std::vector<double>{1, 0, 1, 0, 1, 0});
  // A zero repeat gives an empty result.
  CHECK(run1("aten.repeat", AttrMap().setInts("repeats", {0, 2}), {x}, {0, 6})
            .numel() == 0);
  std::vector<Tensor> out = {Tensor(DType::f32, {2, 3})};
  CHECK(runOp("aten.repeat", AttrMap().setInts("repeats", {1}), {x}, out)
            .message() == "aten.repeat: repeats [1] has fewer entries than "
                          "[2, 3] has dims");
}

TEST_CASE("constant_pad_nd pads from the last dim and crops with negative pads",
          "[shape]") {
  Tensor x = Tensor::of({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  // Last dim: one before, one cropped after; middle dim: first row cropped,
  // one row added after.
  requireClose(
      run1("aten.constant_pad_nd",
           AttrMap().setInts("pad", {1, -1, -1, 1}).setFloat("value", 9), {x},
           {1, 2, 3}),
      {9, 4, 5, 9, 9, 9});
  requireClose(run1("aten.constant_pad_nd",
                    AttrMap().setInts("pad", {0, 1}).setFloat("value", 0), {x},
                    {1, 2, 4}),
               {1, 2, 3, 0, 4, 5, 6, 0});
  // On integers the value converts as a cast does.
  Tensor i = Tensor::of({2}, {1, 2}, DType::i32);
  CHECK(run1("aten.constant_pad_nd",
             AttrMap().setInts("pad", {2, 0}).setFloat("value", -2.7), {i}, {4},
             DType::i32)
            .values() == std::vector<double>{-2, -2, 1, 2});
  // Cropping everything leaves only padding.
  requireClose(run1("aten.constant_pad_nd",
                    AttrMap().setInts("pad", {-3, 1}).setFloat("value", 7), {x},
                    {1, 2, 1}),
               {7, 7});
  std::vector<Tensor> out = {Tensor(DType::f32, {1, 2, 3})};
  CHECK(runOp("aten.constant_pad_nd",
              AttrMap().setInts("pad", {1, 1, 1}).setFloat("value", 0), {x},
              out)
            .message() == "aten.constant_pad_nd: pad needs an even number of "
                          "entries, at most 6, got 3");
}

TEST_CASE("split_with_sizes and cat undo each other", "[shape]") {
  std::mt19937 rng(5);
  Tensor x = Tensor::random({3, 5, 4}, 11);
  for (int64_t dim = 0; dim < 3; ++dim) {
    // Random sizes (zero included) that add up to the dim.
    int64_t remaining = x.sizes()[dim];
    Shape sizes;
    while (remaining > 0) {
      int64_t s = std::uniform_int_distribution<int64_t>(0, remaining)(rng);
      sizes.push_back(s);
      remaining -= s;
    }
    sizes.push_back(0);
    INFO("dim " << dim << ", " << sizes.size() << " pieces");
    std::vector<Tensor> pieces;
    for (int64_t s : sizes) {
      Shape shape = x.sizes();
      shape[dim] = s;
      pieces.emplace_back(DType::f32, shape);
    }
    Status s = runOp("aten.split_with_sizes",
                     AttrMap().setInts("split_sizes", sizes).setInt("dim", dim),
                     {x}, pieces);
    INFO(s.message());
    REQUIRE(s.isOk());
    Tensor joined =
        run1("aten.cat", AttrMap().setInt("dim", dim), pieces, x.sizes());
    CHECK(joined.bytes() == x.bytes());
  }
  SECTION("cat by hand, on int64 and three inputs") {
    Tensor a = Tensor::of({2, 1}, {1, 2}, DType::i64);
    Tensor b = Tensor::of({2, 2}, {3, 4, 5, 6}, DType::i64);
    CHECK(run1("aten.cat", AttrMap().setInt("dim", 1), {a, b, a}, {2, 4},
               DType::i64)
              .values() == std::vector<double>{1, 3, 4, 1, 2, 5, 6, 2});
    std::vector<Tensor> out = {Tensor(DType::i64, {4, 1})};
    CHECK(
        runOp("aten.cat", AttrMap().setInt("dim", 0), {a, b}, out).message() ==
        "aten.cat: cannot concatenate [2, 1] and [2, 2] along dim 0");
  }
  SECTION("split sizes that do not add up are an error") {
    std::vector<Tensor> out = {Tensor(DType::f32, {1, 5, 4}),
                               Tensor(DType::f32, {1, 5, 4})};
    CHECK(runOp("aten.split_with_sizes",
                AttrMap().setInts("split_sizes", {1, 1}).setInt("dim", 0), {x},
                out)
              .message() ==
          "aten.split_with_sizes: split sizes [1, 1] do not add up to 3, dim 0 "
          "of [3, 5, 4]");
  }
}

TEST_CASE("embedding gathers rows and refuses bad indices", "[embedding]") {
  Tensor table = iota({4, 3});
  for (DType index : {DType::i64, DType::i32}) {
    INFO(dtypeName(index));
    Tensor ids = Tensor::of({2, 2}, {3, 0, 0, 2}, index);
    requireClose(run1("aten.embedding", AttrMap(), {table, ids}, {2, 2, 3}),
                 {9, 10, 11, 0, 1, 2, 0, 1, 2, 6, 7, 8});
    std::vector<Tensor> out = {Tensor(DType::f32, {2, 3})};
    CHECK(runOp("aten.embedding", AttrMap(),
                {table, Tensor::of({2}, {1, 4}, index)}, out)
              .message() == "aten.embedding: index 4 at position 1 is out of "
                            "range for a table of 4 rows");
    CHECK(runOp("aten.embedding", AttrMap(),
                {table, Tensor::of({2}, {-1, 0}, index)}, out)
              .message() == "aten.embedding: index -1 at position 0 is out of "
                            "range for a table of 4 rows");
  }
  std::vector<Tensor> out = {Tensor(DType::f32, {2, 3})};
  CHECK(
      runOp("aten.embedding", AttrMap(), {table, Tensor::of({2}, {1, 2})}, out)
          .message() ==
      "aten.embedding: indices has dtype float32, which this kernel does not "
      "support (supported: int64, int32)");
}

TEST_CASE("gather picks along dim and reads its own position elsewhere",
          "[indexing]") {
  // x[i][j] = 3 * i + j.
  Tensor x = iota({4, 3});
  const AttrMap dim0 = AttrMap().setInt("dim", 0),
                dim1 = AttrMap().setInt("dim", 1);
  for (DType index : {DType::i64, DType::i32}) {
    INFO(dtypeName(index));
    // An index smaller than self in the other dim reads only its part.
    requireClose(run1("aten.gather", dim0,
                      {x, Tensor::of({2, 2}, {3, 0, 1, 1}, index)}, {2, 2}),
                 {9, 1, 3, 4});
    requireClose(run1("aten.gather", dim1,
                      {x, Tensor::of({2, 4}, {2, 2, 0, 1, 1, 0, 0, 0}, index)},
                      {2, 4}),
                 {2, 2, 0, 1, 4, 3, 3, 3});
  }
  SECTION("any dtype moves") {
    Tensor b = Tensor::of({2, 2}, {1, 0, 0, 1}, DType::boolean);
    CHECK(run1("aten.gather", dim1, {b, Tensor::of({2, 1}, {1, 1}, DType::i64)},
               {2, 1}, DType::boolean)
              .values() == std::vector<double>{0, 1});
  }
  SECTION("bad indices and shapes are errors") {
    std::vector<Tensor> out = {Tensor(DType::f32, {2, 2})};
    CHECK(runOp("aten.gather", dim0,
                {x, Tensor::of({2, 2}, {0, 4, 1, 1}, DType::i64)}, out)
              .message() == "aten.gather: index 4 at position 1 is out of "
                            "range for size 4 of dim 0 of self");
    std::vector<Tensor> wide = {Tensor(DType::f32, {2, 5})};
    CHECK(runOp("aten.gather", dim0,
                {x, Tensor::of({2, 5}, std::vector<double>(10, 0), DType::i64)},
                wide)
              .message() == "aten.gather: index [2, 5] is larger than self "
                            "[4, 3] in dim 1, which is not dim 0");
  }
}

TEST_CASE("scatter writes src at index along dim, or combines it",
          "[indexing]") {
  // self [3, 2] = 0..5; index and src [2, 2] along dim 0.
  Tensor x = iota({3, 2});
  Tensor index = Tensor::of({2, 2}, {2, 0, 2, 1}, DType::i64);
  Tensor src = Tensor::of({2, 2}, {10, 20, 30, 40});
  auto attrs = [](const char *reduce, bool includeSelf) {
    return AttrMap()
        .setInt("dim", 0)
        .setString("reduce", reduce)
        .setBool("include_self", includeSelf);
  };
  // Row 2 of column 0 is written twice: the last write wins.
  requireClose(run1("aten.scatter", attrs("none", true), {x, index, src}, {3, 2}),
               {0, 20, 2, 40, 30, 5});
  requireClose(run1("aten.scatter", attrs("sum", true), {x, index, src}, {3, 2}),
               {0, 21, 2, 43, 44, 5});
  // Without self, the values alone: 10 + 30 where both land.
  requireClose(run1("aten.scatter", attrs("sum", false), {x, index, src}, {3, 2}),
               {0, 20, 2, 40, 40, 5});
  requireClose(run1("aten.scatter", attrs("amax", true), {x, index, src}, {3, 2}),
               {0, 20, 2, 40, 30, 5});
  requireClose(run1("aten.scatter", attrs("prod", true), {x, index, src}, {3, 2}),
               {0, 20, 2, 120, 1200, 5});
  // Mean with self: (4 + 10 + 30) / 3 at row 2 of column 0.
  requireClose(run1("aten.scatter", attrs("mean", true), {x, index, src}, {3, 2}),
               {0, 10.5, 2, 21.5, 44.0 / 3, 5});
  SECTION("integers") {
    Tensor xi = Tensor::of({3, 2}, {0, 1, 2, 3, 4, 5}, DType::i64);
    Tensor si = Tensor::of({2, 2}, {10, 20, 30, 40}, DType::i64);
    CHECK(run1("aten.scatter", attrs("sum", true), {xi, index, si}, {3, 2},
               DType::i64)
              .values() == std::vector<double>{0, 21, 2, 43, 44, 5});
  }
  SECTION("bad indices and arguments are errors") {
    std::vector<Tensor> out = {Tensor(DType::f32, {3, 2})};
    CHECK(runOp("aten.scatter", attrs("none", true),
                {x, Tensor::of({2, 2}, {0, 3, 1, 1}, DType::i64), src}, out)
              .message() == "aten.scatter: index 3 at position 1 is out of "
                            "range for size 3 of dim 0 of self");
    CHECK(runOp("aten.scatter", attrs("none", false), {x, index, src}, out)
              .message() ==
          "aten.scatter: include_self = false needs a reduction");
  }
}

TEST_CASE("index_select takes whole slices in the index's order",
          "[indexing]") {
  Tensor x = iota({2, 4});
  const AttrMap dim1 = AttrMap().setInt("dim", 1);
  requireClose(run1("aten.index_select", dim1,
                    {x, Tensor::of({3}, {3, 0, 3}, DType::i32)}, {2, 3}),
               {3, 0, 3, 7, 4, 7});
  // A 0-d index keeps the dim, with size 1.
  Tensor one(DType::i64, {});
  one.view().as<int64_t>()[0] = 1;
  requireClose(
      run1("aten.index_select", AttrMap().setInt("dim", 0), {x, one}, {1, 4}),
      {4, 5, 6, 7});
  std::vector<Tensor> out = {Tensor(DType::f32, {2, 1})};
  CHECK(runOp("aten.index_select", dim1, {x, Tensor::of({1}, {-1}, DType::i64)},
              out)
            .message() == "aten.index_select: index -1 at position 0 is out "
                          "of range for size 4 of dim 1 of self");
  std::vector<Tensor> row = {Tensor(DType::f32, {1, 4})};
  CHECK(runOp("aten.index_select", AttrMap().setInt("dim", 0),
              {Tensor(DType::f32, {0, 4}), Tensor::of({1}, {0}, DType::i64)},
              row)
            .message() == "aten.index_select: has 1 indices into dim 0 of "
                          "size 0");
}

TEST_CASE("index_select along every dim against index arithmetic",
          "[indexing]") {
  for (const Shape &shape :
       std::vector<Shape>{{5}, {3, 7}, {2, 3, 4}, {2, 1, 5, 3}}) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    for (int64_t dim = 0; dim < rank; ++dim)
      for (DType dtype : {DType::f32, DType::i64, DType::f16}) {
        Tensor x = iota(shape, dtype);
        // Repeated and out-of-order picks, more of them than the dim has.
        std::vector<double> picks;
        for (int64_t i = 0; i < shape[dim] + 2; ++i)
          picks.push_back(static_cast<double>((i * 3 + 1) % shape[dim]));
        Tensor index =
            Tensor::of({static_cast<int64_t>(picks.size())}, picks, DType::i64);
        Shape sizes = shape;
        sizes[dim] = static_cast<int64_t>(picks.size());
        Tensor y = run1("aten.index_select", AttrMap().setInt("dim", dim),
                        {x, index}, sizes, dtype);
        Shape strides(rank, 1), outStrides(rank, 1);
        for (int64_t d = rank - 2; d >= 0; --d) {
          strides[d] = strides[d + 1] * shape[d + 1];
          outStrides[d] = outStrides[d + 1] * sizes[d + 1];
        }
        std::vector<double> xv = x.values(), yv = y.values();
        INFO(dtypeName(dtype) << " rank " << rank << " dim " << dim);
        REQUIRE(y.guardsIntact());
        for (int64_t at = 0; at < y.numel(); ++at) {
          int64_t from = 0;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t i = at / outStrides[d] % sizes[d];
            from +=
                (d == dim ? static_cast<int64_t>(picks[i]) : i) * strides[d];
          }
          REQUIRE(yv[at] == xv[from]);
        }
      }
  }
}

TEST_CASE("scaled_dot_product_attention against its definition",
          "[attention]") {
  const int64_t B = 2, H = 3, L = 4, S = 5, E = 6, Ev = 7;
  Tensor q = Tensor::random({B, H, L, E}, 1),
         k = Tensor::random({B, H, S, E}, 2);
  Tensor v = Tensor::random({B, H, S, Ev}, 3);
  const int64_t batch = B * H;
  std::vector<double> noBias(batch * L * S, 0.0);
  const double defaultScale = 1 / std::sqrt(static_cast<double>(E));
  Shape out = {B, H, L, Ev};
  const AttrMap notCausal = AttrMap().setBool("is_causal", false);

  SECTION("no mask, default and explicit scale") {
    requireClose(
        run1("aten.scaled_dot_product_attention", notCausal, {q, k, v}, out),
        referenceAttention(q, k, v, batch, L, S, E, Ev, defaultScale, noBias));
    requireClose(
        run1("aten.scaled_dot_product_attention",
             AttrMap().setBool("is_causal", false).setFloat("scale", 0.3),
             {q, k, v}, out),
        referenceAttention(q, k, v, batch, L, S, E, Ev, 0.3, noBias));
  }
  SECTION("causal masking keeps j <= i, also when L != S") {
    std::vector<double> bias(batch * L * S);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < L; ++i)
        for (int64_t j = 0; j < S; ++j)
          bias[(b * L + i) * S + j] = j > i ? -INFINITY : 0;
    requireClose(
        run1("aten.scaled_dot_product_attention",
             AttrMap().setBool("is_causal", true), {q, k, v}, out),
        referenceAttention(q, k, v, batch, L, S, E, Ev, defaultScale, bias));
  }
  SECTION("a boolean mask broadcast over batch and heads; a fully masked row "
          "gives zeros") {
    std::vector<double> keep(L * S);
    for (int64_t i = 0; i < L * S; ++i)
      keep[i] = i / S == 2 ? 0 : (i * 7) % 3 != 0;
    Tensor mask = Tensor::of({L, S}, keep, DType::boolean);
    std::vector<double> bias(batch * L * S);
    for (int64_t i = 0; i < batch * L * S; ++i)
      bias[i] = keep[i % (L * S)] ? 0 : -INFINITY;
    Tensor y = run1("aten.scaled_dot_product_attention", notCausal,
                    {q, k, v, mask}, out);
    requireClose(
        y, referenceAttention(q, k, v, batch, L, S, E, Ev, defaultScale, bias));
    for (int64_t e = 0; e < Ev; ++e)
      CHECK(y.at(2 * Ev + e) == 0);
  }
  SECTION("a float mask is added, broadcast per batch entry") {
    Tensor mask = Tensor::random({B, 1, 1, S}, 9, -2, 2);
    std::vector<double> m = mask.values(), bias(batch * L * S);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < L; ++i)
          for (int64_t j = 0; j < S; ++j)
            bias[((b * H + h) * L + i) * S + j] = m[b * S + j];
    requireClose(
        run1("aten.scaled_dot_product_attention", notCausal, {q, k, v, mask},
             out),
        referenceAttention(q, k, v, batch, L, S, E, Ev, defaultScale, bias));
  }
  SECTION("mask and is_causal together, or mismatched shapes, are errors") {
    std::vector<Tensor> y = {Tensor(DType::f32, out)};
    Tensor mask = Tensor::of({1}, {1}, DType::boolean);
    CHECK(runOp("aten.scaled_dot_product_attention",
                AttrMap().setBool("is_causal", true), {q, k, v, mask}, y)
              .message() ==
          "aten.scaled_dot_product_attention: takes either attn_mask or "
          "is_causal, not both");
    CHECK(runOp("aten.scaled_dot_product_attention", notCausal, {q, v, v}, y)
              .message()
              .find("do not match") != std::string::npos);
  }
}

TEST_CASE("topk orders int32 and int64 exactly, past float's integers",
          "[ordering]") {
  // 2^24 + 1 and 2^40 + 1 round to their neighbours in float: only an
  // integer comparison orders them (and 2^40 is past int32).
  const double big32 = 16777216, big64 = 1099511627776;
  for (auto [dtype, base] :
       {std::pair{DType::i32, big32}, std::pair{DType::i64, big64}}) {
    INFO(dtypeName(dtype));
    Tensor x = Tensor::of({1, 4}, {base + 1, base, base + 2, -3}, dtype);
    std::vector<Tensor> out = {Tensor(dtype, {1, 4}), Tensor(DType::i64, {1, 4})};
    REQUIRE(runOp("aten.topk",
                  AttrMap().setInt("k", 4).setInt("dim", 1).setBool("largest",
                                                                    false),
                  {x}, out)
                .isOk());
    CHECK(out[1].values() == std::vector<double>{3, 1, 0, 2});
    std::vector<Tensor> top = {Tensor(dtype, {1, 1}), Tensor(DType::i64, {1, 1})};
    REQUIRE(runOp("aten.topk",
                  AttrMap().setInt("k", 1).setInt("dim", 1).setBool("largest",
                                                                    true),
                  {x}, top)
                .isOk());
    CHECK(top[1].values() == std::vector<double>{2});
  }
  std::vector<Tensor> mixed = {Tensor(DType::f32, {1, 1}),
                               Tensor(DType::i64, {1, 1})};
  CHECK(runOp("aten.topk",
              AttrMap().setInt("k", 1).setInt("dim", 1).setBool("largest", true),
              {Tensor::of({1, 2}, {1, 2}, DType::i64)}, mixed)
            .message() ==
        "aten.topk: operands must share one dtype, got int64 and float32");
}
