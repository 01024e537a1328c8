//===- registry_test.cpp - every op has a kernel, and every kernel holds up
//-===//
//
// A table with one small valid call per kernel drives properties that must
// hold for all of them: the op list matches AtenOps.td, float16 and bfloat16
// give exactly the float32 result rounded, and wrong operand counts or
// inconsistent shapes give an error instead of touching memory out of bounds.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

struct SmokeCase {
  std::string op;
  AttrMap attrs;
  std::vector<Tensor> inputs;
  std::vector<Shape> outputs;
  DType outputDType = DType::f32;
  /// Whether the output moves continuously with the inputs, so that 16-bit
  /// rounding of the inputs moves it only a little (not floor, trunc, ...).
  bool continuous = true;
  /// Inputs the op reads only part of, so that a larger one is still a
  /// valid call (gather's self beyond the index).
  std::set<size_t> mayGrow = {};
  /// Per output, its dtype, where they differ (choose_qparams); else
  /// outputDType for all.
  std::vector<DType> outputDTypes = {};
};

Tensor rnd(Shape sizes, uint32_t seed, double lo = -1, double hi = 1) {
  return Tensor::random(std::move(sizes), seed, lo, hi);
}

/// One small, valid call of every kernel.
std::vector<SmokeCase> smokeCases() {
  std::vector<SmokeCase> c;
  auto unary = [&](std::string op, AttrMap attrs = {}, double lo = -2,
                   double hi = 2) {
    c.push_back(
        {"aten." + op, attrs, {rnd({2, 3, 4}, 1, lo, hi)}, {{2, 3, 4}}});
  };
  unary("abs");
  unary("neg");
  unary("relu");
  unary("sigmoid");
  unary("silu");
  unary("tanh");
  unary("exp");
  unary("hardswish", {}, -4, 4);
  unary("hardsigmoid", {}, -4, 4);
  unary("log", {}, 0.5, 2);
  unary("sqrt", {}, 0.5, 2);
  unary("rsqrt", {}, 0.5, 2);
  unary("erf", {}, -3, 3);
  unary("erfinv", {}, -0.999, 0.999);
  unary("sin", {}, -7, 7);
  unary("cos", {}, -7, 7);
  for (const char *op : {"acos", "asin", "atanh"})
    unary(op, {}, -0.99, 0.99);
  for (const char *op : {"atan", "sinh", "cosh", "asinh", "expm1"})
    unary(op);
  unary("tan", {}, -1, 1);
  unary("acosh", {}, 1, 3);
  for (const char *op : {"log1p", "log2", "log10"})
    unary(op, {}, 0.1, 3);
  for (const char *op : {"ceil", "floor", "round", "trunc", "sign"}) {
    unary(op);
    c.back().continuous = false;
  }
  unary("pow", AttrMap().setFloat("exponent", 1.7), 0.5, 2);
  unary("hardtanh",
        AttrMap().setFloat("min_val", -0.5).setFloat("max_val", 0.5));
  unary("clamp", AttrMap().setFloat("min", -0.5).setFloat("max", 0.25));
  unary("gelu", AttrMap().setString("approximate", "tanh"));
  unary("leaky_relu", AttrMap().setFloat("negative_slope", 0.2));
  unary("elu", AttrMap()
                   .setFloat("alpha", 1.5)
                   .setFloat("scale", 1.1)
                   .setFloat("input_scale", 0.9));
  unary("hardshrink", AttrMap().setFloat("lambd", 0.3));
  c.back().continuous = false;
  unary("clone");
  unary("softmax", AttrMap().setInt("dim", 1));
  unary("log_softmax", AttrMap().setInt("dim", 2));
  unary("cumsum", AttrMap().setInt("dim", 1));
  c.push_back({"aten.prod",
               AttrMap().setInts("dim", {1}).setBool("keepdim", false),
               {rnd({2, 3, 4}, 58, 0.5, 1.5)},
               {{2, 4}}});

  auto binary = [&](std::string op, AttrMap attrs = {}) {
    c.push_back(
        {"aten." + op, attrs, {rnd({2, 3}, 2), rnd({3}, 3, 0.5, 2)}, {{2, 3}}});
  };
  binary("add", AttrMap().setFloat("alpha", 0.5));
  binary("sub", AttrMap().setFloat("alpha", 2));
  binary("mul");
  binary("div", AttrMap().setString("rounding_mode", "none"));
  binary("div", AttrMap().setString("rounding_mode", "floor"));
  c.back().continuous = false;
  binary("maximum");
  binary("minimum");
  binary("remainder");
  c.back().continuous = false;

  for (std::string op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    // Equal elements make eq, le and ge differ from ne, lt and gt.
    c.push_back({"aten." + op,
                 {},
                 {Tensor::of({2, 3}, {0.5, -1, 2, 0.25, 3, -2}),
                  Tensor::of({3}, {0.5, 0, 2})},
                 {{2, 3}},
                 DType::boolean,
                 false});
  }
  for (std::string op : {"logical_and", "logical_or"})
    c.push_back({"aten." + op,
                 {},
                 {Tensor::of({2, 3}, {0, -1, 2, 0, 0, 0.5}),
                  Tensor::of({3}, {1, 0, 1}, DType::boolean)},
                 {{2, 3}},
                 DType::boolean,
                 false});
  c.push_back({"aten.logical_not",
               {},
               {Tensor::of({4}, {0, -1, 0.5, 0})},
               {{4}},
               DType::boolean,
               false});
  for (std::string op : {"bitwise_and", "bitwise_or", "bitwise_xor"})
    c.push_back({"aten." + op,
                 {},
                 {Tensor::of({2, 3}, {5, -1, 12, 0, 7, 3}, DType::i64),
                  Tensor::of({3}, {3, 6, -8}, DType::i64)},
                 {{2, 3}},
                 DType::i64,
                 false});
  c.push_back({"aten.atan2", {}, {rnd({2, 3}, 70), rnd({3}, 71)}, {{2, 3}}});
  c.push_back({"aten.where",
               {},
               {Tensor::of({2, 1}, {1, 0}, DType::boolean), rnd({2, 3}, 49),
                rnd({3}, 50)},
               {{2, 3}}});
  c.push_back({"aten.any",
               AttrMap().setInts("dim", {1}).setBool("keepdim", false),
               {Tensor::of({2, 3}, {0, 0, 1, 0, 0, 0}, DType::boolean)},
               {{2}},
               DType::boolean,
               false});

  c.push_back({"aten.mean",
               AttrMap().setInts("dim", {0, 2}).setBool("keepdim", false),
               {rnd({2, 3, 4}, 4)},
               {{3}}});
  c.push_back({"aten.sum",
               AttrMap().setInts("dim", {0, 2}).setBool("keepdim", true),
               {rnd({2, 3, 4}, 5)},
               {{1, 3, 1}}});
  c.push_back({"aten.amax",
               AttrMap().setInts("dim", {1}).setBool("keepdim", true),
               {rnd({2, 3, 4}, 6)},
               {{2, 1, 4}}});

  c.push_back({"aten.convolution",
               AttrMap()
                   .setInts("stride", {2, 1})
                   .setInts("padding", {1, 0})
                   .setInts("dilation", {1, 2})
                   .setInts("output_padding", {0, 0})
                   .setInt("groups", 2)
                   .setBool("transposed", false),
               {rnd({1, 4, 6, 6}, 7), rnd({6, 2, 3, 3}, 8), rnd({6}, 9)},
               {{1, 6, 3, 2}}});
  c.push_back({"aten.linear",
               {},
               {rnd({2, 3, 5}, 10), rnd({4, 5}, 11), rnd({4}, 12)},
               {{2, 3, 4}}});
  c.push_back({"aten.addmm",
               AttrMap().setFloat("beta", 0.5).setFloat("alpha", 2),
               {rnd({4}, 13), rnd({3, 5}, 14), rnd({5, 4}, 15)},
               {{3, 4}}});
  c.push_back({"aten.mm", {}, {rnd({3, 4}, 16), rnd({4, 2}, 17)}, {{3, 2}}});
  c.push_back(
      {"aten.bmm", {}, {rnd({2, 3, 4}, 18), rnd({2, 4, 5}, 19)}, {{2, 3, 5}}});
  c.push_back({"aten.matmul",
               {},
               {rnd({2, 1, 3, 4}, 20), rnd({3, 4, 2}, 21)},
               {{2, 3, 3, 2}}});

  c.push_back({"aten.batch_norm",
               AttrMap().setFloat("eps", 1e-5),
               {rnd({2, 3, 4}, 22), rnd({3}, 23), rnd({3}, 24, 0.5, 2),
                rnd({3}, 25), rnd({3}, 26)},
               {{2, 3, 4}}});
  c.push_back(
      {"aten.layer_norm",
       AttrMap().setInts("normalized_shape", {3, 4}).setFloat("eps", 1e-5),
       {rnd({2, 3, 4}, 27), rnd({3, 4}, 28), rnd({3, 4}, 29)},
       {{2, 3, 4}}});

  c.push_back({"aten.adaptive_avg_pool2d",
               {},
               {rnd({1, 2, 5, 7}, 30)},
               {{1, 2, 3, 2}}});
  c.push_back({"aten.avg_pool2d",
               AttrMap()
                   .setInts("kernel_size", {3, 3})
                   .setInts("stride", {2, 2})
                   .setInts("padding", {1, 1})
                   .setBool("ceil_mode", true)
                   .setBool("count_include_pad", false),
               {rnd({1, 2, 5, 5}, 31)},
               {{1, 2, 3, 3}}});
  c.push_back({"aten.max_pool2d",
               AttrMap()
                   .setInts("kernel_size", {3, 3})
                   .setInts("stride", {2, 2})
                   .setInts("padding", {1, 1})
                   .setInts("dilation", {2, 1})
                   .setBool("ceil_mode", false),
               {rnd({1, 2, 6, 6}, 32)},
               {{1, 2, 2, 3}}});

  c.push_back({"aten.view", {}, {rnd({2, 6}, 33)}, {{3, 4}}});
  c.push_back({"aten.permute",
               AttrMap().setInts("dims", {2, 0, 1}),
               {rnd({2, 3, 4}, 34)},
               {{4, 2, 3}}});
  c.push_back({"aten.expand", {}, {rnd({1, 3, 1}, 35)}, {{2, 3, 4}}});
  c.push_back({"aten.repeat",
               AttrMap().setInts("repeats", {2, 1, 3}),
               {rnd({3, 2}, 53)},
               {{2, 3, 6}}});
  c.push_back({"aten.slice",
               AttrMap()
                   .setInt("dim", 1)
                   .setInt("start", 1)
                   .setInt("end", 8)
                   .setInt("step", 3),
               {rnd({2, 9}, 36)},
               {{2, 3}}});
  c.push_back({"aten.select",
               AttrMap().setInt("dim", 0).setInt("index", 1),
               {rnd({3, 4}, 37)},
               {{4}}});
  c.push_back({"aten.constant_pad_nd",
               AttrMap().setInts("pad", {1, 2, -1, 1}).setFloat("value", 0.5),
               {rnd({1, 2, 3}, 38)},
               {{1, 2, 6}}});
  c.push_back(
      {"aten.cast", {}, {rnd({2, 3}, 39, -3, 3)}, {{2, 3}}, DType::i32, false});
  c.push_back({"aten.cat",
               AttrMap().setInt("dim", 1),
               {rnd({2, 1, 3}, 40), rnd({2, 2, 3}, 41)},
               {{2, 3, 3}}});
  c.push_back({"aten.split_with_sizes",
               AttrMap().setInts("split_sizes", {2, 3}).setInt("dim", 1),
               {rnd({2, 5}, 42)},
               {{2, 2}, {2, 3}}});

  c.push_back(
      {"aten.upsample_nearest2d", {}, {rnd({1, 2, 3, 4}, 43)}, {{1, 2, 5, 9}}});
  c.push_back({"aten.upsample_bilinear2d",
               AttrMap().setBool("align_corners", false),
               {rnd({1, 2, 3, 4}, 44)},
               {{1, 2, 5, 7}}});
  c.push_back({"aten.upsample_bicubic2d",
               AttrMap().setBool("align_corners", false),
               {rnd({1, 2, 3, 4}, 46)},
               {{1, 2, 5, 7}}});
  c.push_back({"aten.grid_sampler_2d",
               AttrMap()
                   .setInt("interpolation_mode", 0)
                   .setInt("padding_mode", 0)
                   .setBool("align_corners", false),
               {rnd({1, 2, 3, 4}, 47), rnd({1, 2, 5, 2}, 48, -1.1, 1.1)},
               {{1, 2, 2, 5}}});
  c.push_back({"aten.topk",
               AttrMap().setInt("k", 2).setInt("dim", 1).setBool("largest",
                                                                 true),
               {rnd({2, 5, 3}, 49)},
               {{2, 2, 3}, {2, 2, 3}},
               DType::f32,
               false});
  c.back().outputDTypes = {DType::f32, DType::i64};
  c.push_back({"aten.scatter",
               AttrMap()
                   .setInt("dim", 0)
                   .setString("reduce", "sum")
                   .setBool("include_self", true),
               {rnd({5, 3}, 56),
                Tensor::of({2, 3}, {4, 0, 1, 2, 2, 3}, DType::i64),
                rnd({2, 3}, 57)},
               {{5, 3}}});
  c.back().mayGrow = {2};
  c.push_back({"aten.pow_tensor",
               {},
               {rnd({2, 3}, 50, 0.5, 2), rnd({3}, 53)},
               {{2, 3}}});
  c.push_back(
      {"aten.embedding",
       {},
       {rnd({10, 4}, 45), Tensor::of({2, 3}, {0, 9, 3, 3, 5, 1}, DType::i64)},
       {{2, 3, 4}}});
  AttrMap perTensor = AttrMap()
                          .setFloat("scale", 0.05)
                          .setInt("zero_point", -3)
                          .setInt("quant_min", -128)
                          .setInt("quant_max", 127);
  AttrMap perChannel = AttrMap()
                           .setInt("axis", 0)
                           .setInt("quant_min", -127)
                           .setInt("quant_max", 127);
  Tensor scales = Tensor::of({3}, {0.1, 0.2, 0.05});
  Tensor zeroPoints = Tensor::of({3}, {0, 1, -2}, DType::i64);
  Tensor integers =
      Tensor::of({3, 4}, {-127, -5, 0, 3, 9, 127, -1, 2, 4, 5, -6, 100},
                 DType::i8);
  c.push_back({"aten.quantize_per_tensor", perTensor, {rnd({2, 3, 4}, 60, -8, 8)},
               {{2, 3, 4}}, DType::i8, false});
  c.push_back({"aten.dequantize_per_tensor", perTensor, {integers}, {{3, 4}}});
  c.push_back({"aten.quantize_per_channel", perChannel,
               {rnd({3, 4}, 61, -8, 8), scales, zeroPoints}, {{3, 4}},
               DType::i8, false});
  c.push_back({"aten.dequantize_per_channel", perChannel,
               {integers, scales, zeroPoints}, {{3, 4}}});
  AttrMap dynamic = AttrMap().setInt("quant_min", -128).setInt("quant_max", 127);
  Tensor scale = Tensor::of({1}, {0.05}, DType::f64);
  Tensor zeroPoint = Tensor::of({1}, {-3}, DType::i64);
  c.push_back({"aten.choose_qparams", AttrMap(dynamic).setFloat("eps", 0x1p-12),
               {rnd({2, 3, 4}, 62, -3, 2)}, {{1}, {1}}, DType::f32, false});
  c.back().mayGrow = {0};
  c.back().outputDTypes = {DType::f64, DType::i64};
  c.push_back({"aten.quantize_per_tensor_dynamic", dynamic,
               {rnd({2, 3, 4}, 63, -8, 8), scale, zeroPoint}, {{2, 3, 4}},
               DType::i8, false});
  c.push_back({"aten.dequantize_per_tensor_dynamic", dynamic,
               {integers, scale, zeroPoint}, {{3, 4}}});
  c.push_back({"aten.gather",
               AttrMap().setInt("dim", 1),
               {rnd({2, 5, 3}, 51),
                Tensor::of({2, 2, 3}, {4, 0, 1, 2, 2, 3, 0, 0, 4, 1, 3, 2},
                           DType::i64)},
               {{2, 2, 3}}});
  c.back().mayGrow = {0};
  c.push_back({"aten.index_select",
               AttrMap().setInt("dim", 2),
               {rnd({2, 3, 4}, 52), Tensor::of({3}, {3, 0, 3}, DType::i32)},
               {{2, 3, 3}}});
  c.push_back(
      {"aten.scaled_dot_product_attention",
       AttrMap().setBool("is_causal", false),
       {rnd({1, 2, 3, 4}, 46), rnd({1, 2, 5, 4}, 47), rnd({1, 2, 5, 6}, 48),
        Tensor::of({3, 5}, {1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1},
                   DType::boolean)},
       {{1, 2, 3, 6}}});
  return c;
}

std::vector<Tensor> makeOutputs(const SmokeCase &c, DType floatType) {
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    DType dtype = i < c.outputDTypes.size() ? c.outputDTypes[i] : c.outputDType;
    outputs.emplace_back(dtype == DType::f32 ? floatType : dtype, c.outputs[i]);
  }
  return outputs;
}

/// `inputs` with every tensor of dtype `from` converted to `to`.
std::vector<Tensor> convertAll(const std::vector<Tensor> &inputs, DType from,
                               DType to) {
  std::vector<Tensor> out;
  for (const Tensor &t : inputs)
    out.push_back(t.dtype() == from ? t.to(to) : t);
  return out;
}

Status runCase(const SmokeCase &c, const std::vector<Tensor> &inputs,
               std::vector<Tensor> &outputs) {
  return runOp(c.op, c.attrs, inputs, outputs);
}

/// Mnemonics of the ops AtenOps.td defines (`def Aten_XOp : Aten_...<"x"`).
std::set<std::string> atenMnemonics() {
  std::ifstream file(DUET_ATEN_OPS_TD);
  REQUIRE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  std::string content = text.str();
  std::regex def(R"re(def\s+Aten_\w+Op\s*:\s*Aten_\w+<\s*"([a-z0-9_]+)")re");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(content.begin(), content.end(), def);
       it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}

} // namespace

TEST_CASE("every op of AtenOps.td has a portable kernel, and no other does",
          "[registry]") {
  std::set<std::string> ops = atenMnemonics();
  // Guards the parse itself: the dialect has dozens of ops.
  REQUIRE(ops.size() >= 50);
  for (const std::string &op : ops) {
    INFO("aten." << op);
    CHECK(findKernel("aten." + op) != nullptr);
  }
  for (std::string_view name : kernelOpNames()) {
    INFO(name);
    REQUIRE(name.substr(0, 5) == "aten.");
    CHECK(ops.count(std::string(name.substr(5))) == 1);
  }
}

TEST_CASE("kernel names are sorted and unique, unknown ops have none",
          "[registry]") {
  std::vector<std::string_view> names = kernelOpNames();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  CHECK(findKernel("aten.not_an_op") == nullptr);
  CHECK(findKernel("relu") == nullptr);
}

TEST_CASE("every kernel has a smoke case, and every smoke case runs",
          "[registry]") {
  std::set<std::string> covered;
  for (const SmokeCase &c : smokeCases()) {
    INFO(c.op);
    covered.insert(c.op);
    std::vector<Tensor> outputs = makeOutputs(c, DType::f32);
    Status s = runCase(c, c.inputs, outputs);
    INFO(s.message());
    REQUIRE(s.isOk());
    for (const Tensor &t : outputs)
      CHECK(t.guardsIntact());
  }
  for (std::string_view name : kernelOpNames()) {
    INFO(name);
    CHECK(covered.count(std::string(name)) == 1);
  }
}

TEST_CASE("float16 and bfloat16 give the float32 result, rounded",
          "[registry][dtype]") {
  for (DType dtype : {DType::f16, DType::bf16}) {
    // Each widening loses at most half an ulp of the 16-bit type; chained
    // through a kernel the error stays within a few ulps of the result's
    // scale.
    const double tolerance = dtype == DType::f16 ? 4e-3 : 3e-2;
    for (const SmokeCase &c : smokeCases()) {
      INFO(c.op << " in " << dtypeName(dtype));
      std::vector<Tensor> narrow = convertAll(c.inputs, DType::f32, dtype);
      std::vector<Tensor> outputs = makeOutputs(c, dtype);
      Status s = runCase(c, narrow, outputs);
      INFO(s.message());
      REQUIRE(s.isOk());

      // Exact: the float32 kernel on the same (widened) values, rounded.
      std::vector<Tensor> widened = convertAll(narrow, dtype, DType::f32);
      std::vector<Tensor> reference = makeOutputs(c, DType::f32);
      REQUIRE(runCase(c, widened, reference).isOk());
      for (size_t i = 0; i < outputs.size(); ++i) {
        Tensor rounded = reference[i].dtype() == DType::f32
                             ? reference[i].to(dtype)
                             : reference[i];
        CHECK(outputs[i].bytes() == rounded.bytes());
      }

      // Close: the float32 kernel on the original inputs.
      if (!c.continuous)
        continue;
      std::vector<Tensor> exact = makeOutputs(c, DType::f32);
      REQUIRE(runCase(c, c.inputs, exact).isOk());
      for (size_t i = 0; i < outputs.size(); ++i) {
        std::vector<double> want = exact[i].values();
        std::vector<double> got = outputs[i].values();
        double scale = 1;
        for (double v : want)
          scale = std::max(scale, std::fabs(v));
        for (size_t j = 0; j < want.size(); ++j) {
          INFO("element " << j << ": " << got[j] << " vs " << want[j]);
          CHECK(std::fabs(got[j] - want[j]) <= tolerance * scale);
        }
      }
    }
  }
}

TEST_CASE("a wrong number of inputs or outputs is an error",
          "[registry][errors]") {
  for (const SmokeCase &c : smokeCases()) {
    INFO(c.op);
    std::vector<Tensor> outputs = makeOutputs(c, DType::f32);
    std::vector<Tensor> none;
    Status s = runCase(c, none, outputs);
    CHECK(!s.isOk());
    CHECK(s.message().find(c.op) == 0);

    std::vector<Tensor> tooMany = c.inputs;
    for (int i = 0; i < 4; ++i)
      tooMany.push_back(rnd({7, 7, 7}, 99));
    CHECK(!runCase(c, tooMany, outputs).isOk());

    std::vector<Tensor> noOutputs;
    CHECK(!runCase(c, c.inputs, noOutputs).isOk());
    std::vector<Tensor> extraOutputs = outputs;
    extraOutputs.emplace_back(DType::f32, Shape{7, 7});
    CHECK(!runCase(c, c.inputs, extraOutputs).isOk());
  }
}

TEST_CASE("an output or input of the wrong shape is an error",
          "[registry][errors]") {
  auto grown = [](const Shape &s) {
    Shape g = s;
    for (int64_t &d : g)
      ++d;
    return g;
  };
  for (const SmokeCase &c : smokeCases()) {
    for (size_t i = 0; i < c.outputs.size(); ++i) {
      INFO(c.op << ", output " << i << " grown by one in every dim");
      std::vector<Tensor> outputs = makeOutputs(c, DType::f32);
      outputs[i] = Tensor(outputs[i].dtype(), grown(outputs[i].sizes()));
      CHECK(!runCase(c, c.inputs, outputs).isOk());
      for (const Tensor &t : outputs)
        CHECK(t.guardsIntact());
    }
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      if (c.mayGrow.count(i))
        continue;
      INFO(c.op << ", input " << i << " grown by one in every dim");
      std::vector<Tensor> inputs = c.inputs;
      inputs[i] = Tensor(inputs[i].dtype(), grown(inputs[i].sizes()));
      std::vector<Tensor> outputs = makeOutputs(c, DType::f32);
      CHECK(!runCase(c, inputs, outputs).isOk());
      for (const Tensor &t : outputs)
        CHECK(t.guardsIntact());
    }
  }
}

TEST_CASE("kernels never write out of bounds for any size off by one",
          "[registry][errors]") {
  // Every dim of every operand in turn is shrunk or grown by one (shrinking
  // to 0 included). Some of these calls are consistent and succeed; either
  // way the guard bytes around every output must survive.
  for (const SmokeCase &c : smokeCases()) {
    std::vector<Tensor> baseOutputs = makeOutputs(c, DType::f32);
    size_t operands = c.inputs.size() + baseOutputs.size();
    for (size_t k = 0; k < operands; ++k) {
      bool isInput = k < c.inputs.size();
      const Tensor &original =
          isInput ? c.inputs[k] : baseOutputs[k - c.inputs.size()];
      for (size_t d = 0; d < original.sizes().size(); ++d)
        for (int delta : {-1, 1}) {
          Shape sizes = original.sizes();
          sizes[d] += delta;
          if (sizes[d] < 0)
            continue;
          INFO(c.op << ", operand " << k << ", dim " << d << " by " << delta);
          std::vector<Tensor> inputs = c.inputs;
          std::vector<Tensor> outputs = baseOutputs;
          Tensor changed(original.dtype(), sizes);
          (isInput ? inputs[k] : outputs[k - c.inputs.size()]) = changed;
          (void)runCase(c, inputs, outputs);
          for (const Tensor &t : outputs)
            CHECK(t.guardsIntact());
        }
    }
  }
}
