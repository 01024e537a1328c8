// The XNNPACK backend on hand-written blobs: one that is right runs, and
// each kind of damage is refused at load with a message naming what is
// wrong, never a crash. Also the host copies between subgraphs against
// plainly written loops.

#include "../ProgramMutation.h"
#include "runtime/backends/xnnpack/HostCopy.h"
#include "runtime/core/ProgramBuilder.h"
#include "runtime/core/Runtime.h"
#include "runtime/schema/xnnpack_generated.h"

#include <pthreadpool.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <map>
#include <random>

using namespace duet;
using namespace duet::rt;
namespace fb = ::duet::xnnpack::schema;

namespace {

/// What a test blob is made of, before it is written.
struct BlobSpec {
  struct Value {
    fb::ValueKind kind;
    int32_t index;
    fb::DataType type;
    std::vector<uint64_t> dims;
  };
  struct Node {
    fb::NodeType type;
    std::vector<uint32_t> inputs;
    uint32_t output;
  };
  struct Copy {
    uint32_t input;
    uint32_t output;
    std::vector<uint8_t> permutation;
  };
  std::vector<Value> values;
  /// A step is a subgraph (nodes) or a copy.
  std::vector<std::variant<std::vector<Node>, Copy>> steps;
};

std::vector<uint8_t> writeBlob(const BlobSpec &spec) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Value>> values;
  for (const auto &v : spec.values)
    values.push_back(
        fb::CreateValueDirect(fbb, v.kind, v.index, v.type, &v.dims));
  std::vector<fb::Step> types;
  std::vector<flatbuffers::Offset<void>> steps;
  for (const auto &step : spec.steps) {
    if (const auto *copy = std::get_if<BlobSpec::Copy>(&step)) {
      types.push_back(fb::Step::Copy);
      steps.push_back(fb::CreateCopyDirect(fbb, copy->input, copy->output,
                                           &copy->permutation)
                          .Union());
      continue;
    }
    std::vector<flatbuffers::Offset<fb::Node>> nodes;
    for (const auto &node : std::get<std::vector<BlobSpec::Node>>(step))
      nodes.push_back(
          fb::CreateNodeDirect(fbb, node.type, &node.inputs, node.output));
    types.push_back(fb::Step::Subgraph);
    steps.push_back(fb::CreateSubgraphDirect(fbb, &nodes).Union());
  }
  fbb.Finish(fb::CreateDelegateDirect(fbb, &values, &types, &steps),
             fb::DelegateIdentifier());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

TensorInfo tensor(std::string name, std::vector<int64_t> sizes, TensorKind kind,
                  int64_t arenaOffset = -1) {
  TensorInfo info;
  info.name = std::move(name);
  info.sizes = std::move(sizes);
  info.kind = kind;
  info.arenaOffset = arenaOffset;
  return info;
}

/// y = x + c on [2, 3] with c a constant [3], through a delegate whose blob
/// is `blob`: x is tensor 0 (input), c tensor 1, y tensor 2 (output).
std::vector<uint8_t> program(std::vector<uint8_t> blob) {
  ProgramBuilder builder;
  int32_t x = builder.addTensor(tensor("x", {2, 3}, TensorKind::input, 0));
  std::vector<float> c = {10, 20, 30};
  std::vector<uint8_t> bytes(sizeof(float) * 3);
  std::memcpy(bytes.data(), c.data(), bytes.size());
  int32_t cId = builder.addConstant(tensor("c", {3}, TensorKind::constant),
                                    std::move(bytes));
  int32_t y = builder.addTensor(tensor("y", {2, 3}, TensorKind::output, 64));
  builder.setInputs({x});
  builder.setOutputs({y});
  DelegateSpec delegate;
  delegate.backend = "xnnpack";
  delegate.blob = std::move(blob);
  delegate.ops.push_back(
      {"aten.add", {{"alpha", AttrValue(1.0)}}, {x, cId}, {y}});
  uint32_t index = builder.addDelegate(std::move(delegate));
  builder.addDelegateCall({index, {x}, {y}});
  builder.setMemoryPlan({128, 128});
  std::vector<uint8_t> file;
  REQUIRE(builder.serialize(file).isOk());
  return file;
}

/// The blob of y = x + c, which `damage` may change first.
std::vector<uint8_t>
addBlob(const std::function<void(BlobSpec &)> &damage = {}) {
  BlobSpec spec;
  spec.values = {{fb::ValueKind::Input, 0, fb::DataType::Fp32, {2, 3}},
                 {fb::ValueKind::Constant, 1, fb::DataType::Fp32, {3}},
                 {fb::ValueKind::Output, 0, fb::DataType::Fp32, {2, 3}}};
  spec.steps.push_back(
      std::vector<BlobSpec::Node>{{fb::NodeType::Add, {0, 1}, 2}});
  if (damage)
    damage(spec);
  return writeBlob(spec);
}

Status load(const std::vector<uint8_t> &file,
            std::unique_ptr<Runtime> &runtime) {
  LoadOptions options;
  options.threads = 1;
  return Runtime::loadFromBytes(file.data(), file.size(), "blob.duet", options,
                                runtime);
}

std::string loadError(const std::vector<uint8_t> &blob) {
  std::unique_ptr<Runtime> runtime;
  Status status = load(program(blob), runtime);
  REQUIRE_FALSE(status.isOk());
  return status.message();
}

} // namespace

TEST_CASE("a hand-written XNNPACK blob runs", "[xnnpack]") {
  std::unique_ptr<Runtime> runtime;
  Status status = load(program(addBlob()), runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  REQUIRE(runtime->setInput(0, {DType::f32, {2, 3}, x.data()}).isOk());
  REQUIRE(runtime->run().isOk());
  const float *y = runtime->output(0).as<float>();
  CHECK(std::vector<float>(y, y + 6) ==
        std::vector<float>{11, 22, 33, 14, 25, 36});
}

/// y = transpose(transpose(x + c)) as [2,3] -> [3,2] -> [2,3] on the host:
/// the add blob with a host copy on each side of an abs subgraph.
static void transposeTwice(BlobSpec &spec) {
  spec.values[2] = {fb::ValueKind::Internal, -1, fb::DataType::Fp32, {2, 3}};
  spec.values.push_back(
      {fb::ValueKind::Internal, -1, fb::DataType::Fp32, {3, 2}});
  spec.values.push_back(
      {fb::ValueKind::Internal, -1, fb::DataType::Fp32, {3, 2}});
  spec.values.push_back(
      {fb::ValueKind::Output, 0, fb::DataType::Fp32, {2, 3}});
  spec.steps.push_back(BlobSpec::Copy{2, 3, {1, 0}});
  spec.steps.push_back(
      std::vector<BlobSpec::Node>{{fb::NodeType::Abs, {3}, 4}});
  spec.steps.push_back(BlobSpec::Copy{4, 5, {1, 0}});
}

TEST_CASE("a transpose between two subgraphs runs", "[xnnpack]") {
  std::vector<uint8_t> blob = addBlob(transposeTwice);
  std::unique_ptr<Runtime> runtime;
  Status status = load(program(blob), runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  std::vector<float> x = {-11, -22, -33, 4, 5, 6};
  REQUIRE(runtime->setInput(0, {DType::f32, {2, 3}, x.data()}).isOk());
  REQUIRE(runtime->run().isOk());
  const float *y = runtime->output(0).as<float>();
  CHECK(std::vector<float>(y, y + 6) ==
        std::vector<float>{1, 2, 3, 14, 25, 36});
}

// XNNPACK calls failing on purpose (LoadOptions::faults.calls): the failure
// is one error naming the call, its status and what to do, of kind
// ErrorCode::failure (the tools' exit 1), and the program loads and runs
// again in the same process.
TEST_CASE("a failing XNNPACK call is reported, and the program loads and "
          "runs again",
          "[xnnpack][faults]") {
  // Two subgraphs: the second's creation fails after the first's runtime
  // was made.
  const std::vector<uint8_t> file = program(addBlob(transposeTwice));
  std::vector<float> x = {-11, -22, -33, 4, 5, 6};
  auto loadFailing = [&](runtime::BackendCall call, uint32_t occurrence,
                         std::unique_ptr<Runtime> &runtime) {
    LoadOptions options;
    options.threads = 1;
    options.faults.calls = {{call, occurrence}};
    return Runtime::loadFromBytes(file.data(), file.size(), "blob.duet",
                                  options, runtime);
  };
  auto run = [&](Runtime &runtime) {
    REQUIRE(runtime.setInput(0, {DType::f32, {2, 3}, x.data()}).isOk());
    return runtime.run();
  };
  auto expectOutput = [](const Runtime &runtime) {
    const float *y = runtime.output(0).as<float>();
    CHECK(std::vector<float>(y, y + 6) ==
          std::vector<float>{1, 2, 3, 14, 25, 36});
  };
  auto expectFailure = [](const Status &status, const std::string &part) {
    REQUIRE_FALSE(status.isOk());
    INFO(status.message());
    CHECK(status.message().find(part) != std::string::npos);
    CHECK(status.message().find("; the host is out of memory: free memory") !=
          std::string::npos);
    CHECK(status.codeOr(ErrorCode::badInput) == ErrorCode::failure);
  };

  SECTION("the second runtime creation fails the load") {
    std::unique_ptr<Runtime> runtime;
    expectFailure(
        loadFailing(runtime::BackendCall::xnnpackCreate, 2, runtime),
        "initializing delegate 0 on xnnpack: step 2: xnn_create_runtime_v2 "
        "failed: out of memory (injected on purpose: xnnpack.create:2)");
  }
  SECTION("the first setup fails the first run; the next run sets up "
          "again") {
    std::unique_ptr<Runtime> runtime;
    Status status = loadFailing(runtime::BackendCall::xnnpackSetup, 1, runtime);
    INFO(status.message());
    REQUIRE(status.isOk());
    expectFailure(run(*runtime),
                  "delegate 0 on xnnpack: step 0: xnn_setup_runtime failed: "
                  "out of memory (injected on purpose: xnnpack.setup:1)");
    REQUIRE(run(*runtime).isOk());
    expectOutput(*runtime);
  }
  std::unique_ptr<Runtime> clean;
  Status status = load(file, clean);
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(run(*clean).isOk());
  expectOutput(*clean);
}

TEST_CASE("damaged XNNPACK blobs are refused with a reason", "[xnnpack]") {
  // Each case proves one check of the loader.
  using Damage = std::function<void(BlobSpec &)>;
  struct Case {
    const char *what;
    Damage damage;
    const char *message;
  };
  const Case cases[] = {
      {"an input position past the call's inputs",
       [](BlobSpec &s) { s.values[0].index = 3; },
       "value 0 is input 3, but the delegate has 1 inputs"},
      {"dims that do not match the call's tensor",
       [](BlobSpec &s) {
         s.values[0].dims = {2, 4};
       },
       "value 0 (input) has dims [2,4] (8 elements), but tensor 0 (x) has 6"},
      {"a datatype other than the tensor's",
       [](BlobSpec &s) { s.values[2].type = fb::DataType::Bf16; },
       "value 2 (output of the delegate) is bf16, but tensor 2 (y) is float32"},
      {"a constant that names an input",
       [](BlobSpec &s) { s.values[1].index = 0; },
       "value 1 names tensor 0 as its constant, which is not a constant"},
      {"an output no value is",
       [](BlobSpec &s) { s.values[2].kind = fb::ValueKind::Internal; },
       "no value of the blob is output 0"},
      {"a rank XNNPACK cannot hold",
       [](BlobSpec &s) { s.values[1].dims = {1, 1, 1, 1, 1, 1, 3}; },
       "value 1 has rank 7; XNNPACK takes ranks 1 to 6"},
      {"a read of a value no step wrote",
       [](BlobSpec &s) {
         s.values.push_back(
             {fb::ValueKind::Internal, -1, fb::DataType::Fp32, {2, 3}});
         std::get<0>(s.steps[0])[0].inputs = {3, 1};
       },
       "step 0 node 0 (Add) reads value 3 before any step writes it"},
      {"a write to an input",
       [](BlobSpec &s) { std::get<0>(s.steps[0])[0].output = 0; },
       "writes value 0, a delegate input or a constant"},
      {"a node with too few operands",
       [](BlobSpec &s) { std::get<0>(s.steps[0])[0].inputs = {0}; },
       "step 0 node 0 (Add) has 1 operands, expected 2"},
      {"a value id past the end",
       [](BlobSpec &s) {
         std::get<0>(s.steps[0])[0].inputs = {0, 7};
       },
       "reads value 7, but the blob has 3 values"},
      {"a copy whose permutation does not fit",
       [](BlobSpec &s) {
         s.values.push_back(
             {fb::ValueKind::Internal, -1, fb::DataType::Fp32, {2, 3}});
         s.steps.push_back(BlobSpec::Copy{2, 3, {1, 0}});
       },
       "copy of value 2 [2,3] into value 3 [2,3] with permutation [1,0] does "
       "not fit"},
      {"a subgraph without nodes",
       [](BlobSpec &s) { s.steps.push_back(std::vector<BlobSpec::Node>{}); },
       "step 1 is a subgraph without nodes"},
      {"an output whose dims do not follow from the operands",
       [](BlobSpec &s) {
         std::get<0>(s.steps[0])[0] = {fb::NodeType::Softmax, {1}, 2};
       },
       "step 0 node 0 (Softmax): the output is [2,3], but the operands make "
       "it [3]"},
      {"operands that do not broadcast",
       [](BlobSpec &s) {
         s.values[1].dims = {1, 3};
         s.values[0].dims = {3, 2};
       },
       "[3,2] and [1,3] do not broadcast"},
      {"a convolution without its window",
       [](BlobSpec &s) {
         s.values[0].dims = {1, 1, 2, 3};
         s.values[2].dims = {1, 1, 2, 3};
         std::get<0>(s.steps[0])[0].type = fb::NodeType::Convolution2d;
       },
       "the node has no window"},
      {"a node XNNPACK refuses (fp16 in a node other than convert)",
       [](BlobSpec &s) {
         // x + c -> 3 (fp32), abs(3) -> 4 (fp16), convert(4) -> y.
         s.values.push_back(
             {fb::ValueKind::Internal, -1, fb::DataType::Fp32, {2, 3}});
         s.values.push_back(
             {fb::ValueKind::Internal, -1, fb::DataType::Fp16, {2, 3}});
         std::get<0>(s.steps[0]) = {{fb::NodeType::Add, {0, 1}, 3},
                                    {fb::NodeType::Abs, {3}, 4},
                                    {fb::NodeType::Convert, {4}, 2}};
       },
       "xnn_define_abs failed: invalid parameter"},
      {"a computed value nothing reads, which XNNPACK leaves without memory",
       [](BlobSpec &s) {
         s.values.push_back(
             {fb::ValueKind::Internal, -1, fb::DataType::Fp32, {2, 3}});
         std::get<0>(s.steps[0]) = {{fb::NodeType::Add, {0, 1}, 3},
                                    {fb::NodeType::Multiply, {0, 1}, 2}};
       },
       "value 3 is computed but never read"},
      {"a bf16 value in a node",
       [](BlobSpec &s) {
         s.values.push_back(
             {fb::ValueKind::Internal, -1, fb::DataType::Bf16, {2, 3}});
         std::get<0>(s.steps[0]) = {{fb::NodeType::Add, {0, 1}, 3},
                                    {fb::NodeType::Abs, {3}, 2}};
       },
       "step 0 node 0 (Add): value 3 is bf16, which XNNPACK cannot compute"},
      {"dims whose product overflows",
       [](BlobSpec &s) {
         s.values[1].dims = {uint64_t(1) << 32, uint64_t(1) << 32, 3};
       },
       "value 1 has dims [4294967296,4294967296,3], which XNNPACK cannot "
       "hold"},
  };
  for (const Case &c : cases) {
    DYNAMIC_SECTION(c.what) {
      std::string message = loadError(addBlob(c.damage));
      INFO(message);
      CHECK(message.find(c.message) != std::string::npos);
      CHECK(message.find("initializing delegate 0 on xnnpack") !=
            std::string::npos);
    }
  }
  SECTION("bytes that are not a blob") {
    std::string message = loadError({1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(message.find("the blob is not an XNNPACK delegate") !=
          std::string::npos);
  }
}

TEST_CASE("host copies permute and convert like plain loops", "[xnnpack]") {
  using rt::xnnpack::hostCopy;
  using rt::xnnpack::HostType;
  std::mt19937 random(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  SECTION("NCHW to NHWC and back, fp32") {
    std::vector<size_t> dims = {2, 5, 17, 19};
    std::vector<float> in(2 * 5 * 17 * 19), nhwc(in.size()), back(in.size());
    for (float &v : in)
      v = dist(random);
    hostCopy(in.data(), HostType::f32, dims, nhwc.data(), HostType::f32,
             {0, 2, 3, 1});
    for (size_t n = 0; n < 2; ++n)
      for (size_t c = 0; c < 5; ++c)
        for (size_t h = 0; h < 17; ++h)
          for (size_t w = 0; w < 19; ++w)
            REQUIRE(nhwc[((n * 17 + h) * 19 + w) * 5 + c] ==
                    in[((n * 5 + c) * 17 + h) * 19 + w]);
    hostCopy(nhwc.data(), HostType::f32, {2, 17, 19, 5}, back.data(),
             HostType::f32, {0, 3, 1, 2});
    CHECK(back == in);
  }
  SECTION("NCHW to NHWC on two threads, fp32 to bf16") {
    std::vector<size_t> dims = {2, 3, 64, 100};
    std::vector<float> in(2 * 3 * 64 * 100);
    for (float &v : in)
      v = dist(random);
    std::vector<uint16_t> serial(in.size()), parallel(in.size());
    std::unique_ptr<pthreadpool, void (*)(pthreadpool *)> pool(
        pthreadpool_create(2), pthreadpool_destroy);
    REQUIRE(pool);
    hostCopy(in.data(), HostType::f32, dims, serial.data(), HostType::bf16,
             {0, 2, 3, 1});
    hostCopy(in.data(), HostType::f32, dims, parallel.data(), HostType::bf16,
             {0, 2, 3, 1}, pool.get());
    CHECK(parallel == serial);
    for (size_t n = 0; n < 2; ++n)
      for (size_t c = 0; c < 3; ++c)
        for (size_t p = 0; p < 6400; ++p)
          REQUIRE(parallel[(n * 6400 + p) * 3 + c] ==
                  floatToBf16(in[(n * 3 + c) * 6400 + p]));
  }
  SECTION("a 5-D permutation with size-1 dims") {
    std::vector<size_t> dims = {3, 1, 4, 1, 6};
    std::vector<float> in(72), out(72);
    for (float &v : in)
      v = dist(random);
    hostCopy(in.data(), HostType::f32, dims, out.data(), HostType::f32,
             {4, 1, 0, 3, 2});
    for (size_t a = 0; a < 3; ++a)
      for (size_t c = 0; c < 4; ++c)
        for (size_t e = 0; e < 6; ++e)
          REQUIRE(out[(e * 3 + a) * 4 + c] == in[(a * 4 + c) * 6 + e]);
  }
  SECTION("bf16 to fp32 and back") {
    std::vector<uint16_t> in(37), back(37);
    for (uint16_t &v : in)
      v = floatToBf16(dist(random));
    std::vector<float> wide(37);
    hostCopy(in.data(), HostType::bf16, {37}, wide.data(), HostType::f32, {});
    for (size_t i = 0; i < 37; ++i)
      REQUIRE(wide[i] == bf16ToFloat(in[i]));
    hostCopy(wide.data(), HostType::f32, {37}, back.data(), HostType::bf16, {});
    CHECK(back == in);
  }
  SECTION("fp32 to fp16 with a transpose") {
    std::vector<float> in(6);
    for (float &v : in)
      v = dist(random);
    std::vector<uint16_t> out(6);
    hostCopy(in.data(), HostType::f32, {2, 3}, out.data(), HostType::f16,
             {1, 0});
    for (size_t r = 0; r < 2; ++r)
      for (size_t c = 0; c < 3; ++c)
        REQUIRE(out[c * 2 + r] == floatToHalf(in[r * 3 + c]));
  }
}

namespace {

/// One random change of meaning to a blob: a value's dims, kind, position
/// or datatype, a node's operands, output or type, or a copy's permutation.
std::string mutateBlob(BlobSpec &spec, std::mt19937 &random) {
  auto below = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(random);
  };
  std::vector<BlobSpec::Node *> nodes;
  std::vector<BlobSpec::Copy *> copies;
  for (auto &step : spec.steps) {
    if (auto *copy = std::get_if<BlobSpec::Copy>(&step))
      copies.push_back(copy);
    else
      for (BlobSpec::Node &node : std::get<std::vector<BlobSpec::Node>>(step))
        nodes.push_back(&node);
  }
  uint32_t anyValue = static_cast<uint32_t>(below(spec.values.size() + 1));
  BlobSpec::Value &value = spec.values[below(spec.values.size())];
  BlobSpec::Node &node = *nodes[below(nodes.size())];
  switch (below(7)) {
  case 0: {
    const uint64_t dims[] = {1, 2, 3, 6};
    if (value.dims.size() > 1 && below(3) == 0)
      value.dims.pop_back();
    else if (below(3) == 0)
      value.dims.push_back(dims[below(4)]);
    else
      value.dims[below(value.dims.size())] = dims[below(4)];
    return "value dims changed";
  }
  case 1:
    value.kind = static_cast<fb::ValueKind>(below(4));
    value.index = static_cast<int32_t>(below(4)) - 1;
    return "value kind or index changed";
  case 2:
    value.type = static_cast<fb::DataType>(below(3));
    return "value datatype changed";
  case 3:
    if (!node.inputs.empty() && below(3) == 0)
      node.inputs.pop_back();
    else if (below(3) == 0)
      node.inputs.push_back(anyValue);
    else if (!node.inputs.empty())
      node.inputs[below(node.inputs.size())] =
          below(5) == 0 ? 0xFFFFFFFFu : anyValue;
    return "node operands changed";
  case 4:
    node.output = anyValue;
    return "node output changed";
  case 5:
    node.type = static_cast<fb::NodeType>(
        below(static_cast<size_t>(fb::NodeType::MAX) + 1));
    return "node type changed";
  default:
    if (copies.empty())
      return "nothing changed";
    std::vector<uint8_t> &permutation =
        copies[below(copies.size())]->permutation;
    if (permutation.empty() || below(3) == 0)
      permutation.push_back(static_cast<uint8_t>(below(3)));
    else
      permutation[below(permutation.size())] = static_cast<uint8_t>(below(3));
    return "copy permutation changed";
  }
}

} // namespace

// The loader's property on XNNPACK partitions: a program whose blob or
// program-level tensors and calls are mutated is refused at load or runs,
// and XNNPACK is never handed a value without memory or of the wrong size
// (its asserts abort the process even in release builds).
TEST_CASE("a mutated XNNPACK program is refused at load or runs",
          "[xnnpack][property]") {
  LoadOptions options;
  options.threads = 1;
  const std::function<void(BlobSpec &)> transpose = transposeTwice;
  std::mt19937 random(20261201);
  std::map<test::Outcome, int> outcomes;
  for (const auto &shape : {std::function<void(BlobSpec &)>(), transpose}) {
    for (int trial = 0; trial < 150; ++trial) {
      std::string what = fmt::format("blob mutant {}:", trial);
      std::vector<uint8_t> file = program(addBlob([&](BlobSpec &spec) {
        if (shape)
          shape(spec);
        for (size_t m = 0, count = 1 + random() % 2; m < count; ++m)
          what += " " + mutateBlob(spec, random) + ";";
      }));
      ++outcomes[test::loadAndRun(file, options, what)];
    }
    std::unique_ptr<Program> good;
    std::vector<uint8_t> file = program(addBlob(shape));
    REQUIRE(Program::loadFromBytes(file.data(), file.size(), "good.duet",
                                   options, good)
                .isOk());
    const test::ProgramSpec spec = test::ProgramSpec::of(*good);
    for (int trial = 0; trial < 150; ++trial) {
      test::ProgramSpec mutant = spec;
      std::string what = fmt::format("program mutant {}:", trial);
      for (size_t m = 0, count = 1 + random() % 2; m < count; ++m)
        what += " " + test::mutate(mutant, random) + ";";
      std::vector<uint8_t> bytes;
      ++outcomes[mutant.serialize(bytes)
                     ? test::loadAndRun(bytes, options, what)
                     : test::Outcome::unwritable];
    }
  }
  CHECK(outcomes[test::Outcome::refused] > 100);
  CHECK(outcomes[test::Outcome::ran] > 20);
}
