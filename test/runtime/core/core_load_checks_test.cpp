//===- core_load_checks_test.cpp - malformed programs fail at load --------===//
//
// Each case is a program the loader once accepted and that then failed, or
// read or wrote out of bounds, when its bad instruction ran: it must now be
// refused by Program::load, with a message that names the instruction, the
// tensor or the limit and quotes the file's own bytes escaped. Then the
// property they add up to: a program mutated at random either fails to load
// or runs.
//
//===----------------------------------------------------------------------===//

#include "core_test_support.h"

#include "../ProgramMutation.h"
#include "runtime/core/Escape.h"
#include "runtime/core/FlatVectors.h"
#include "runtime/core/Limits.h"
#include "runtime/core/Runtime.h"

#include "runtime/schema/program_generated.h"

#include <chrono>
#include <tuple>

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

/// The error of loading `bytes` with this runtime's own kernels; fails the
/// test when they load.
std::string loadError(const std::vector<uint8_t> &bytes,
                      const LoadOptions &options = LoadOptions()) {
  std::unique_ptr<Program> program;
  Status status = loadBytes(bytes, options, program);
  REQUIRE_FALSE(status.isOk());
  CHECK(status.message().rfind("test.duet: ", 0) == 0);
  CHECK(status.message().find('\n') == std::string::npos);
  return status.message();
}

/// Programs whose arena tensors lie one after another, 64-aligned.
class ArenaProgram {
public:
  int32_t input(std::string name, std::vector<int64_t> sizes) {
    int32_t id = arena(std::move(name), std::move(sizes), TensorKind::input);
    inputs_.push_back(id);
    return id;
  }
  int32_t activation(std::string name, std::vector<int64_t> sizes,
                     TensorKind kind = TensorKind::activation) {
    return arena(std::move(name), std::move(sizes), kind);
  }
  int32_t output(std::string name, std::vector<int64_t> sizes) {
    int32_t id = arena(std::move(name), std::move(sizes), TensorKind::output);
    outputs_.push_back(id);
    return id;
  }
  /// A float32 constant of small, distinct values.
  int32_t constant(std::string name, std::vector<int64_t> sizes) {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    std::vector<float> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = static_cast<float>((i * 7) % 11) / 8.0f - 0.5f;
    return builder.addConstant(tensor(std::move(name), DType::f32,
                                      std::move(sizes), TensorKind::constant),
                               bytesOf(values));
  }
  void call(std::string op, std::vector<Attribute> attributes,
            std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
    builder.addKernelCall({std::move(op), std::move(attributes),
                           std::move(inputs), std::move(outputs)});
  }
  std::vector<uint8_t> finish() {
    builder.setInputs(inputs_);
    builder.setOutputs(outputs_);
    builder.setMemoryPlan({next_, next_});
    return serialize(builder);
  }

  ProgramBuilder builder;

private:
  int32_t arena(std::string name, std::vector<int64_t> sizes, TensorKind kind) {
    TensorInfo info = tensor(
        std::move(name), DType::f32, std::move(sizes), kind,
        kind == TensorKind::delegateInternal ? -1
                                             : static_cast<int64_t>(next_));
    uint64_t bytes = 0;
    REQUIRE(tensorBytes(info.dtype, info.sizes, bytes));
    if (kind != TensorKind::delegateInternal)
      next_ = alignUp(next_ + bytes, kConstantAlignment);
    return builder.addTensor(std::move(info));
  }
  std::vector<int32_t> inputs_, outputs_;
  uint64_t next_ = 0;
};

using Ints = std::vector<int64_t>;

/// conv -> relu -> max_pool2d -> view -> linear -> softmax.
std::vector<uint8_t> convProgram(Ints padding = {1, 1}, int64_t inChannels = 2,
                                 Ints poolKernel = {2, 2},
                                 Ints poolStride = {2, 2},
                                 Ints poolPadding = {0, 0}) {
  ArenaProgram l;
  int32_t x = l.input("x", {1, inChannels, 6, 6});
  int32_t w = l.constant("conv.weight", {3, 2, 3, 3});
  int32_t b = l.constant("conv.bias", {3});
  int32_t c = l.activation("conv", {1, 3, 6, 6});
  int32_t r = l.activation("relu", {1, 3, 6, 6});
  int32_t m = l.activation("pool", {1, 3, 3, 3});
  int32_t v = l.activation("flat", {1, 27});
  int32_t fw = l.constant("fc.weight", {4, 27});
  int32_t fb = l.constant("fc.bias", {4});
  int32_t f = l.activation("fc", {1, 4});
  int32_t y = l.output("probs", {1, 4});
  l.call("aten.convolution",
         {{"stride", Ints{1, 1}},
          {"padding", std::move(padding)},
          {"dilation", Ints{1, 1}},
          {"output_padding", Ints{0, 0}},
          {"groups", int64_t{1}},
          {"transposed", false}},
         {x, w, b}, {c});
  l.call("aten.relu", {}, {c}, {r});
  l.call("aten.max_pool2d",
         {{"kernel_size", std::move(poolKernel)},
          {"stride", std::move(poolStride)},
          {"padding", std::move(poolPadding)},
          {"dilation", Ints{1, 1}},
          {"ceil_mode", false}},
         {r}, {m});
  l.call("aten.view", {}, {m}, {v});
  l.call("aten.linear", {}, {v, fw, fb}, {f});
  l.call("aten.softmax", {{"dim", int64_t{1}}}, {f}, {y});
  return l.finish();
}

/// permute -> mm -> layer_norm -> slice -> cat -> split_with_sizes, then a
/// mean and a constant_pad_nd of the two pieces.
std::vector<uint8_t> shapeProgram() {
  ArenaProgram l;
  int32_t x = l.input("x", {2, 4});
  int32_t t = l.activation("t", {4, 2});
  int32_t w = l.constant("w", {2, 5});
  int32_t p = l.activation("p", {4, 5});
  int32_t g = l.constant("ln.weight", {5});
  int32_t be = l.constant("ln.bias", {5});
  int32_t n = l.activation("n", {4, 5});
  int32_t s = l.activation("s", {4, 2});
  int32_t c = l.activation("c", {4, 4});
  int32_t a = l.activation("a", {1, 4});
  int32_t b = l.activation("b", {3, 4});
  int32_t y1 = l.output("mean", {4});
  int32_t y2 = l.output("padded", {1, 6});
  l.call("aten.permute", {{"dims", Ints{1, 0}}}, {x}, {t});
  l.call("aten.mm", {}, {t, w}, {p});
  l.call("aten.layer_norm", {{"normalized_shape", Ints{5}}, {"eps", 1e-5}},
         {p, g, be}, {n});
  l.call("aten.slice",
         {{"dim", int64_t{1}},
          {"start", int64_t{1}},
          {"end", int64_t{5}},
          {"step", int64_t{2}}},
         {n}, {s});
  l.call("aten.cat", {{"dim", int64_t{1}}}, {s, s}, {c});
  l.call("aten.split_with_sizes",
         {{"split_sizes", Ints{1, 3}}, {"dim", int64_t{0}}}, {c}, {a, b});
  l.call("aten.mean", {{"dim", Ints{0}}, {"keepdim", false}}, {b}, {y1});
  l.call("aten.constant_pad_nd", {{"pad", Ints{1, 1}}, {"value", 0.5}}, {a},
         {y2});
  return l.finish();
}

/// A delegate whose recorded ops (add, hardtanh) run in reference mode.
std::vector<uint8_t> delegateProgram() {
  ArenaProgram l;
  int32_t x = l.input("x", {2, 3});
  int32_t c = l.constant("c", {2, 3});
  int32_t s = l.activation("s", {2, 3}, TensorKind::delegateInternal);
  int32_t y = l.output("y", {2, 3});
  DelegateSpec delegate;
  delegate.backend = "fakegpu";
  delegate.ops = {
      {"aten.add", {{"alpha", 2.0}}, {x, c}, {s}},
      {"aten.hardtanh", {{"min_val", -1.0}, {"max_val", 1.0}}, {s}, {y}}};
  uint32_t index = l.builder.addDelegate(std::move(delegate));
  l.builder.addDelegateCall({index, {x}, {y}});
  return l.finish();
}

/// addReluProgram with its instruction `index` replaced by `call`.
std::vector<uint8_t> withInstruction(size_t index, KernelCall call) {
  std::unique_ptr<Program> program;
  std::vector<uint8_t> bytes = serialize(addReluProgram());
  REQUIRE(loadBytes(bytes, LoadOptions(), program).isOk());
  ProgramSpec spec = ProgramSpec::of(*program);
  spec.instructions.at(index) = std::move(call);
  REQUIRE(spec.serialize(bytes));
  return bytes;
}

} // namespace

// The programs the property below mutates are good ones.
TEST_CASE("the test programs load and run", "[load-checks]") {
  LoadOptions reference;
  reference.reference = true;
  for (const auto &[name, bytes, options] :
       {std::tuple{"addRelu", serialize(addReluProgram()), LoadOptions()},
        std::tuple{"conv", convProgram(), LoadOptions()},
        std::tuple{"shapes", shapeProgram(), LoadOptions()},
        std::tuple{"delegate", delegateProgram(), reference}}) {
    INFO(name);
    CHECK(loadAndRun(bytes, options, name) == Outcome::ran);
  }
}

// Found by the mutation harness: a call with the wrong number of operands
// loaded, and failed (or read past its operands) only when it ran.
TEST_CASE("a call with the wrong number of operands is refused at load",
          "[load-checks]") {
  CHECK(loadError(withInstruction(1, {"aten.relu", {}, {2, 0}, {3}})) ==
        "test.duet: instruction 1: aten.relu: expects 1 inputs, got 2");
  ArenaProgram twice;
  int32_t x = twice.input("x", {2, 3});
  int32_t y = twice.output("y", {2, 3});
  int32_t z = twice.output("z", {2, 3});
  twice.call("aten.relu", {}, {x}, {y, z});
  CHECK(loadError(twice.finish()) ==
        "test.duet: instruction 0: aten.relu: expects 1 outputs, got 2");
  CHECK(loadError(
            withInstruction(0, {"aten.add", {{"alpha", 2.0}}, {0, -1}, {2}})) ==
        "test.duet: instruction 0: aten.add: input 1 is required but the call "
        "leaves it out");
}

TEST_CASE("a call without a required attribute is refused at load",
          "[load-checks]") {
  CHECK(loadError(withInstruction(0, {"aten.add", {}, {0, 1}, {2}})) ==
        "test.duet: instruction 0: aten.add: missing attribute 'alpha' (a "
        "float)");
  // In a delegate's recorded ops too, whether or not they will run.
  BackendRegistry backends;
  REQUIRE(backends.add(std::make_shared<ScaleBackend>("fakegpu")).isOk());
  LoadOptions options;
  options.backends = &backends;
  std::unique_ptr<Program> program;
  std::vector<uint8_t> bytes = delegateProgram();
  LoadOptions reference;
  reference.reference = true;
  REQUIRE(loadBytes(bytes, reference, program).isOk());
  ProgramSpec spec = ProgramSpec::of(*program);
  spec.delegates[0].ops[1].attributes.pop_back();
  REQUIRE(spec.serialize(bytes));
  CHECK(loadError(bytes, options) ==
        "test.duet: delegate 0 op 1: aten.hardtanh: missing attribute "
        "'max_val' (a float)");
}

TEST_CASE("an attribute of the wrong kind is refused at load",
          "[load-checks]") {
  CHECK(loadError(withInstruction(
            0, {"aten.add", {{"alpha", std::string("2")}}, {0, 1}, {2}})) ==
        "test.duet: instruction 0: aten.add: attribute 'alpha' is not a "
        "float");
  CHECK(loadError(withInstruction(
            0, {"aten.add", {{"alpha", 2.0}, {"alpha", 3.0}}, {0, 1}, {2}})) ==
        "test.duet: instruction 0 (aten.add): attribute 'alpha' is given "
        "twice");
}

// Shapes a kernel relies on to stay inside its operands.
TEST_CASE("operand shapes that do not fit the op are refused at load",
          "[load-checks]") {
  CHECK(loadError(convProgram({1, 1}, /*inChannels=*/3)) ==
        "test.duet: instruction 0: aten.convolution: input has 3 channels but "
        "weight [3, 2, 3, 3] expects 2 x 1 groups");
  ArenaProgram l;
  int32_t a = l.input("a", {2, 3});
  int32_t b = l.constant("b", {4, 2});
  int32_t y = l.output("y", {2, 2});
  l.call("aten.mm", {}, {a, b}, {y});
  CHECK(loadError(l.finish()) == "test.duet: instruction 0: aten.mm: "
                                 "operands [2, 3] and [4, 2] do not multiply");
  ArenaProgram wide;
  int32_t x = wide.input("x", {2, 3});
  int32_t z = wide.output("z", {3, 3});
  wide.call("aten.relu", {}, {x}, {z});
  CHECK(loadError(wide.finish()) ==
        "test.duet: instruction 0: aten.relu: output has shape [3, 3] but the "
        "operands and attributes give [2, 3]");
}

// Found under ASan by the property below: an output planned over an operand
// had cat copy between overlapping ranges.
TEST_CASE("an output that overlaps an operand in the arena is refused",
          "[load-checks]") {
  std::unique_ptr<Program> program;
  std::vector<uint8_t> bytes = serialize(addReluProgram());
  REQUIRE(loadBytes(bytes, LoadOptions(), program).isOk());
  ProgramSpec spec = ProgramSpec::of(*program);
  spec.tensors[3].arenaOffset = 80;
  REQUIRE(spec.serialize(bytes));
  CHECK(loadError(bytes) ==
        "test.duet: instruction 1 (aten.relu): output 0 is tensor 3 (y), "
        "whose arena bytes overlap those of input 0, tensor 2 (s); the plan "
        "is corrupt");
}

// readConvShape computed in + 2 * padding - ... in int64: a padding of 2^62
// was a signed overflow (undefined behaviour) at run.
TEST_CASE("convolution attributes whose output size overflows are refused",
          "[load-checks]") {
  int64_t huge = int64_t{1} << 62;
  CHECK(loadError(convProgram({huge, huge})) ==
        "test.duet: instruction 0: aten.convolution: the output size "
        "overflows 64 bits; the attributes or operand sizes are absurd");
}

// The arena size was trusted: a plan of 4 GiB ... 2^63 bytes was stopped
// only by calloc failing when the executor was created.
TEST_CASE("an arena or tensor over the limits is refused with the limit",
          "[load-checks]") {
  for (uint64_t arena : {kMaxArenaBytes + 64, uint64_t{1} << 40,
                         (uint64_t{1} << 63) - 64, uint64_t{1} << 63}) {
    INFO(arena);
    ProgramBuilder builder = addReluProgram();
    builder.setMemoryPlan({arena, 192});
    CHECK(loadError(serialize(builder)) ==
          fmt::format("test.duet: the memory plan asks for an arena of {} "
                      "bytes, over the limit of 17179869184 bytes "
                      "(kMaxArenaBytes, 16 GiB) a program may plan; the plan "
                      "is corrupt or the model too large for duet",
                      arena));
  }
  ProgramBuilder builder = addReluProgram();
  builder.addTensor(tensor("big", DType::f32, {int64_t{1} << 31, 2},
                           TensorKind::activation, 0));
  builder.setMemoryPlan({kMaxArenaBytes, 192});
  CHECK(loadError(serialize(builder)) ==
        "test.duet: tensor 4 (big): sizes [2147483648, 2] of float32 take "
        "17179869184 bytes, over the limit of 4294967296 bytes "
        "(kMaxTensorBytes, 4 GiB) one tensor may hold; the file is corrupt "
        "or the model too large for duet");
  std::vector<int64_t> deep(kMaxTensorRank + 1, 1);
  ProgramBuilder deeper = addReluProgram();
  deeper.addTensor(tensor("deep", DType::f32, deep, TensorKind::activation, 0));
  CHECK(loadError(serialize(deeper)) ==
        "test.duet: tensor 4 (deep): rank 17 is over the limit of 16 dims "
        "(kMaxTensorRank); the file is corrupt");
}

// Mutating only memory_plan.arena_bytes of a valid program made the loader
// allocate it (4 GiB for tensors of 192 bytes): the arena is what the
// planned tensors need, rounded up to kArenaAlignment, and no more.
TEST_CASE("an arena larger than its tensors need is refused", "[load-checks]") {
  for (uint64_t arena : {uint64_t{256}, uint64_t{1} << 32}) {
    INFO(arena);
    ProgramBuilder builder = addReluProgram();
    builder.setMemoryPlan({arena, 192});
    auto start = std::chrono::steady_clock::now();
    CHECK(loadError(serialize(builder)) ==
          fmt::format("test.duet: the memory plan asks for an arena of {} "
                      "bytes, but its tensors need 192; the plan is corrupt",
                      arena));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  }
  // Exactly what they need loads.
  ProgramBuilder builder = addReluProgram();
  builder.setMemoryPlan({192, 192});
  std::unique_ptr<Program> program;
  CHECK(loadBytes(serialize(builder), LoadOptions(), program).isOk());
}

// A max_pool2d window of 2^40 (padded by 2^39, so it fits its padded input
// as PyTorch requires) visited every window position for each output, which
// ran for hours. Its work is bounded at load, and the kernel now visits only
// the positions inside the input.
TEST_CASE("a run's work is bounded at load, naming the op", "[load-checks]") {
  const int64_t huge = int64_t{1} << 40, half = int64_t{1} << 39;
  std::vector<uint8_t> bytes =
      convProgram({1, 1}, 2, {huge, huge}, {3, 3}, {half, half});
  auto start = std::chrono::steady_clock::now();
  std::string error = loadError(bytes);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  INFO(error);
  CHECK(error.rfind("test.duet: one run's work estimate is 3.26e+25 steps, "
                    "over the limit of 1e+15 (kDefaultMaxWork; raise it with "
                    "--max-work or LoadOptions::maxWork); (aten.max_pool2d) "
                    "alone takes 3.26e+25",
                    0) == 0);

  SECTION("raised, the limit lets it load, and it runs at once") {
    LoadOptions options;
    options.maxWork = 1e30;
    std::unique_ptr<Runtime> runtime;
    REQUIRE(Runtime::loadFromBytes(bytes.data(), bytes.size(), "test.duet",
                                   options, runtime)
                .isOk());
    start = std::chrono::steady_clock::now();
    CHECK(runtime->run().isOk());
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  }
  SECTION("a lower limit refuses a small program, naming its largest op") {
    LoadOptions options;
    options.maxWork = 1000;
    CHECK(loadError(convProgram(), options) ==
          "test.duet: one run's work estimate is 2.3e+03 steps, over the "
          "limit of 1e+03 (kDefaultMaxWork; raise it with --max-work or "
          "LoadOptions::maxWork); (aten.convolution) alone takes 1.94e+03: "
          "its shapes or attributes are absurd, or the model is larger than "
          "the limit allows");
  }
}

// Queries and keys of 2^31 positions with E = 0 hold no bytes, but the
// portable kernel's scores would be 2^31 x 2^31: refused at load, naming the
// op, before a run could allocate them.
TEST_CASE("attention whose scores pass the tensor limit is refused at load",
          "[load-checks]") {
  const int64_t n = int64_t{1} << 31;
  ArenaProgram l;
  int32_t q = l.input("q", {1, n, 0});
  int32_t v = l.input("v", {1, n, 0});
  int32_t y = l.output("attention", {1, n, 0});
  l.call("aten.scaled_dot_product_attention",
         {{"is_causal", true}}, {q, q, v, -1},
         {y});
  auto start = std::chrono::steady_clock::now();
  std::string error = loadError(l.finish());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  INFO(error);
  CHECK(error.find("instruction 0: aten.scaled_dot_product_attention: ") !=
        std::string::npos);
  CHECK(error.find("its [2147483648, 2147483648] scores would take over "
                   "4294967296 bytes, the most one tensor may hold "
                   "(kMaxTensorBytes)") != std::string::npos);
}

// Two refusals quoted raw NUL and control bytes of the file.
TEST_CASE("names from the file are escaped in messages", "[load-checks]") {
  CHECK(escaped(std::string("a\0b\n\x1b[2J\\\x7f\xc3\xa9", 12)) ==
        "a\\x00b\\x0a\\x1b[2J\\\\\\x7f\\xc3\\xa9");

  std::string name("x\0\r\n\x1b", 5);
  ProgramBuilder builder = addReluProgram();
  builder.addTensor(tensor(name, DType::f32, {1}, TensorKind::activation, 0));
  builder.addKernelCall({"aten.relu", {}, {4}, {2}});
  CHECK(loadError(serialize(builder)) ==
        "test.duet: instruction 2 (aten.relu): input 0 reads tensor 4 "
        "(x\\x00\\x0d\\x0a\\x1b) before any instruction writes it");

  CHECK(loadError(withInstruction(
            1, {std::string("aten.re\0lu\a", 11), {}, {2}, {3}})) ==
        "test.duet: instruction 1: no portable kernel implements "
        "aten.re\\x00lu\\x07; this runtime cannot run the op");

  ProgramBuilder delegating = addReluProgram();
  delegating.addDelegate({std::string("gpu\0\n", 5), {1}, {}});
  delegating.addDelegateCall({0, {0}, {2}});
  CHECK_THAT(loadError(serialize(delegating)),
             Catch::StartsWith("test.duet: delegate 0 needs the "
                               "'gpu\\x00\\x0a' backend"));
}

// ProgramBuilder::emit wrote padding longer than its 64-byte zeros array
// from past its end: the tail of a constant segment is up to 79 bytes, and
// its closing zero bytes were whatever followed the array.
TEST_CASE("a constant segment ends in zero bytes however long its padding",
          "[load-checks]") {
  for (int64_t floats : {1, 12, 13, 15, 16, 31}) {
    INFO(floats << " floats");
    ProgramBuilder builder = addReluProgram();
    std::vector<float> ones(floats, 1.0f);
    int32_t id = builder.addConstant(
        tensor("k", DType::f32, {floats}, TensorKind::constant), bytesOf(ones));
    std::vector<uint8_t> bytes = serialize(builder);
    std::unique_ptr<Program> program;
    REQUIRE(loadBytes(bytes, anyKernelOptions(nullptr), program).isOk());
    uint64_t end = program->constantSegmentOffset() +
                   program->tensors()[id].constantOffset + floats * 4;
    REQUIRE(end + kConstantTailBytes <= bytes.size());
    CHECK(bytes.size() % kConstantAlignment == 0);
    for (uint64_t i = end; i < bytes.size(); ++i)
      REQUIRE(bytes[i] == 0);
  }
}

// XNNPACK reads up to 16 bytes past a constant it takes in place.
TEST_CASE("a constant too close to the end of the segment is refused",
          "[load-checks]") {
  ProgramBuilder builder = addReluProgram();
  builder.addConstant(tensor("k", DType::f32, {15}, TensorKind::constant),
                      bytesOf(std::vector<float>(15, 1.0f)));
  std::vector<uint8_t> bytes = serialize(builder);
  auto *root = duet::schema::GetMutableSizePrefixedProgram(bytes.data());
  REQUIRE(root->constant_segment_bytes() == 192);
  // Tensor 4 (k) holds 60 bytes at offset 64; at 128 it would end 4 bytes
  // before the end of the segment.
  REQUIRE(root->mutable_tensors()->GetMutableObject(4)->mutate_constant_offset(
      128));
  CHECK(loadError(bytes, anyKernelOptions(nullptr)) ==
        "test.duet: tensor 4 (k): constant bytes [128, 188) end 4 bytes "
        "before the end of the 192-byte constant segment, which must close "
        "with 16 zero bytes; the file is corrupt");
}

// The property the cases above are instances of. Under ASan and UBSan (the
// sanitizer build runs this binary too) no mutant may be reported either.
TEST_CASE("a mutated program is refused at load or runs",
          "[load-checks][property]") {
  LoadOptions reference;
  reference.reference = true;
  struct Subject {
    const char *name;
    std::vector<uint8_t> bytes;
    LoadOptions options;
  };
  const Subject subjects[] = {
      {"addRelu", serialize(addReluProgram()), LoadOptions()},
      {"conv", convProgram(), LoadOptions()},
      {"shapes", shapeProgram(), LoadOptions()},
      {"delegate", delegateProgram(), reference},
  };
  auto start = std::chrono::steady_clock::now();
  for (const Subject &subject : subjects) {
    std::unique_ptr<Program> program;
    REQUIRE(loadBytes(subject.bytes, subject.options, program).isOk());
    const ProgramSpec good = ProgramSpec::of(*program);
    std::mt19937 random(20261201);
    std::map<Outcome, int> outcomes;
    for (int trial = 0; trial < 300; ++trial) {
      ProgramSpec spec = good;
      std::string what = fmt::format("{} mutant {}:", subject.name, trial);
      for (size_t m = 0, count = 1 + random() % 2; m < count; ++m)
        what += " " + mutate(spec, random) + ";";
      std::vector<uint8_t> bytes;
      Outcome outcome = spec.serialize(bytes)
                            ? loadAndRun(bytes, subject.options, what)
                            : Outcome::unwritable;
      ++outcomes[outcome];
    }
    INFO(subject.name);
    // Both outcomes occur, so the mutations neither all break nor all
    // miss the program.
    CHECK(outcomes[Outcome::refused] > 30);
    CHECK(outcomes[Outcome::ran] > 10);
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

// fuzz-program finding (regressions/fuzz-program/bool-constant-byte.duet): a
// bool constant byte other than 0 or 1 reached the kernels, which read it as
// bool (undefined behaviour); the loader refuses it and names the element.
TEST_CASE("a bool constant holding a byte other than 0 or 1 is refused",
          "[load-checks]") {
  ProgramBuilder builder = addReluProgram();
  builder.addConstant(tensor("flag", DType::boolean, {4}, TensorKind::constant),
                      std::vector<uint8_t>{0, 1, 1, 7});
  CHECK(loadError(serialize(builder), anyKernelOptions(nullptr)) ==
        "test.duet: tensor 4 (flag): bool element 3 holds the byte 7, not 0 "
        "or 1; the file is corrupt");
}

// A bool input from a caller is checked the same way before a kernel reads it.
TEST_CASE("a bool input holding a byte other than 0 or 1 is refused",
          "[load-checks]") {
  ProgramBuilder builder;
  int32_t x = builder.addTensor(
      tensor("x", DType::boolean, {3}, TensorKind::input, 0));
  int32_t y = builder.addTensor(
      tensor("y", DType::boolean, {3}, TensorKind::output, 64));
  builder.setInputs({x});
  builder.setOutputs({y});
  builder.addKernelCall({"aten.clone", {}, {x}, {y}});
  builder.setMemoryPlan({128, 128});
  std::vector<uint8_t> bytes = serialize(builder);
  std::unique_ptr<Runtime> runtime;
  REQUIRE(Runtime::loadFromBytes(bytes.data(), bytes.size(), "test.duet",
                                 LoadOptions(), runtime)
              .isOk());
  std::vector<uint8_t> good = {1, 0, 1}, bad = {1, 3, 0};
  CHECK(runtime->setInput(0, TensorView{DType::boolean, {3}, good.data()})
            .isOk());
  Status status =
      runtime->setInput(0, TensorView{DType::boolean, {3}, bad.data()});
  CHECK(status.message() == "test.duet: bool element 1 of the value given "
                            "for input 0 (x) holds the byte 3, not 0 or 1");
}

// fuzz-program finding (regressions/fuzz-program/misaligned-int64-vector.duet):
// the FlatBuffers verifier does not check the alignment of 8-byte vectors, so
// a damaged file can put tensor sizes off their alignment; the loader copies
// them bytewise (UBSan in the sanitizer suite reports a read in place).
TEST_CASE("8-byte vectors off their alignment are read bytewise",
          "[load-checks]") {
  // A FlatBuffers vector is its 32-bit length, then its elements: put the
  // elements of a [long] at an address that is 4 modulo 8.
  alignas(8) uint8_t storage[8 + 4 + 3 * 8] = {};
  uint8_t *length = storage + 8;
  const int64_t values[3] = {7, -1, int64_t(1) << 40};
  uint32_t count = 3;
  std::memcpy(length, &count, 4);
  std::memcpy(length + 4, values, sizeof values);
  const auto *vector =
      reinterpret_cast<const flatbuffers::Vector<int64_t> *>(length);
  REQUIRE(reinterpret_cast<uintptr_t>(vector->Data()) % 8 == 4);
  CHECK_FALSE(isAligned(vector));
  CHECK(copyVector(vector) == std::vector<int64_t>{7, -1, int64_t(1) << 40});
}
