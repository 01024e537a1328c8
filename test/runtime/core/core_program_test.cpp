//===- core_program_test.cpp - the program format round-trips ------------===//
//
// A program written by ProgramBuilder and read back by Program has every
// field it was given, and its layout keeps the alignment promises.
//
//===----------------------------------------------------------------------===//

#include "core_test_support.h"

#include "runtime/schema/program_generated.h"

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

/// Each constant's bytes: `count` bytes counting up from `seed`.
std::vector<uint8_t> pattern(size_t count, uint8_t seed) {
  std::vector<uint8_t> bytes(count);
  for (size_t i = 0; i < count; ++i)
    bytes[i] = static_cast<uint8_t>(seed + i * 7);
  return bytes;
}

struct Fixture {
  ProgramBuilder builder;
  std::vector<TensorInfo> tensors;
  std::vector<std::vector<uint8_t>> constantBytes; // by tensor id; empty if not
  std::vector<Instruction> instructions;
  DelegateSpec delegate;
  MemoryPlan plan{256, 160};
  uint64_t constantsEnd = 0;
  /// The segment ends with at least 16 zero bytes, up to a multiple of 64.
  uint64_t segmentBytes() const { return (constantsEnd + 16 + 63) / 64 * 64; }

  /// Adds to the builder and to the expectation, with the offsets a correct
  /// writer must choose.
  int32_t add(TensorInfo info) {
    uint64_t bytes = 0;
    REQUIRE(tensorBytes(info.dtype, info.sizes, bytes));
    info.nbytes = bytes;
    tensors.push_back(info);
    constantBytes.emplace_back();
    return builder.addTensor(info);
  }
  int32_t addConstant(TensorInfo info, uint8_t seed) {
    uint64_t bytes = 0;
    REQUIRE(tensorBytes(info.dtype, info.sizes, bytes));
    info.kind = TensorKind::constant;
    info.nbytes = bytes;
    info.constantOffset = (constantsEnd + 63) / 64 * 64;
    constantsEnd = info.constantOffset + bytes;
    tensors.push_back(info);
    constantBytes.push_back(pattern(bytes, seed));
    // A bool holds 0 or 1; the loader refuses any other byte.
    if (info.dtype == DType::boolean)
      for (uint8_t &byte : constantBytes.back())
        byte &= 1;
    return builder.addConstant(info, constantBytes.back());
  }

  Fixture() {
    int32_t x = add(tensor("x", DType::f32, {2, 3}, TensorKind::input, 0));
    int32_t w = addConstant(
        tensor("conv.weight", DType::f32, {2, 3}, TensorKind::constant), 1);
    int32_t b = addConstant(tensor("b", DType::f16, {5}, TensorKind::constant),
                            2); // 10 bytes
    int32_t idx =
        addConstant(tensor("idx", DType::i64, {3}, TensorKind::constant), 3);
    int32_t flag =
        addConstant(tensor("flag", DType::boolean, {7}, TensorKind::constant),
                    4); // 7 bytes
    int32_t scalar =
        addConstant(tensor("scalar", DType::f64, {}, TensorKind::constant), 5);
    int32_t empty = addConstant(
        tensor("empty", DType::u8, {0, 4}, TensorKind::constant), 6);
    int32_t i32 =
        addConstant(tensor("i32", DType::i32, {1}, TensorKind::constant), 7);
    int32_t i16 =
        addConstant(tensor("i16", DType::i16, {3}, TensorKind::constant), 8);
    int32_t i8 = addConstant(
        tensor("i8", DType::i8, {1, 1, 1}, TensorKind::constant), 9);
    int32_t h =
        add(tensor("h", DType::bf16, {2, 3}, TensorKind::activation, 64));
    TensorInfo innerInfo =
        tensor("inner", DType::f32, {2, 3}, TensorKind::delegateInternal);
    innerInfo.placement = Placement{
        "vulkan", Storage::texture3d, Layout::channelsPacked, {1, 2, 3}};
    int32_t inner = add(innerInfo);
    TensorInfo yInfo = tensor("y", DType::f32, {2, 3}, TensorKind::output, 128);
    yInfo.placement =
        Placement{"vulkan", Storage::buffer, Layout::widthPacked, {4, 5, 6}};
    int32_t y = add(yInfo);
    TensorInfo unnamed =
        tensor("", DType::f32, {1}, TensorKind::activation, 192);
    int32_t spare = add(unnamed);

    builder.setInputs({x});
    builder.setOutputs({y, spare});

    KernelCall conv{"aten.convolution",
                    {{"stride", std::vector<int64_t>{1, 2}},
                     {"padding", std::vector<int64_t>{}},
                     {"groups", int64_t{-3}},
                     {"transposed", true},
                     {"eps", 1e-5},
                     {"approximate", std::string("tanh")},
                     {"empty", std::string()}},
                    {x, w, -1},
                    {h}};
    // A node name (KernelCall::node) on one call, none on the other.
    conv.node = "conv1";
    KernelCall other{
        "aten.cat", {}, {b, idx, flag, scalar, empty, i32, i16, i8}, {spare}};
    DelegateCall call{0, {h}, {y}};
    instructions = {conv, other, call};
    builder.addKernelCall(conv);
    builder.addKernelCall(other);

    delegate.backend = "vulkan";
    delegate.blob = pattern(37, 11);
    delegate.ops = {{"aten.relu", {}, {h}, {inner}, "relu"},
                    {"aten.mul", {{"alpha", 0.5}}, {inner, w}, {y}, "mul_1"}};
    REQUIRE(builder.addDelegate(delegate) == 0);
    builder.addDelegateCall(call);
    builder.setMemoryPlan(plan);
  }
};

/// Compares everything a loaded program holds with the fixture.
void checkProgram(const Program &program, const Fixture &fixture) {
  CHECK(program.formatVersion() == kProgramFormatVersion);
  REQUIRE(program.tensors().size() == fixture.tensors.size());
  for (size_t i = 0; i < fixture.tensors.size(); ++i) {
    INFO("tensor " << i);
    CHECK(program.tensors()[i] == fixture.tensors[i]);
  }
  CHECK(program.inputs() == std::vector<int32_t>{0});
  CHECK(program.outputs() == std::vector<int32_t>{12, 13});
  CHECK(program.instructions() == fixture.instructions);
  REQUIRE(program.delegates().size() == 1);
  const DelegateInfo &delegate = program.delegates()[0];
  CHECK(delegate.backend == fixture.delegate.backend);
  CHECK(std::vector<uint8_t>(delegate.blob.data,
                             delegate.blob.data + delegate.blob.size) ==
        fixture.delegate.blob);
  CHECK(reinterpret_cast<uintptr_t>(delegate.blob.data) % kBlobAlignment == 0);
  CHECK(delegate.ops == fixture.delegate.ops);
  CHECK(program.memoryPlan() == fixture.plan);

  CHECK(program.constantSegmentBytes() == fixture.segmentBytes());
  CHECK(program.constantSegmentOffset() % 64 == 0);
  CHECK(program.constantSegmentOffset() >= program.flatBufferBytes() + 4);
  CHECK(program.constantSegmentOffset() < program.flatBufferBytes() + 4 + 64);
  CHECK(program.fileBytes() ==
        program.constantSegmentOffset() + fixture.segmentBytes());

  for (size_t i = 0; i < fixture.tensors.size(); ++i) {
    TensorView view = program.constantView(static_cast<int32_t>(i));
    if (fixture.tensors[i].kind != TensorKind::constant) {
      CHECK_FALSE(view.present());
      continue;
    }
    INFO("constant " << i);
    REQUIRE(view.present());
    CHECK(reinterpret_cast<uintptr_t>(view.data) % 64 == 0);
    CHECK(view.dtype == fixture.tensors[i].dtype);
    CHECK(view.sizes == fixture.tensors[i].sizes);
    const auto *data = static_cast<const uint8_t *>(view.data);
    CHECK(std::vector<uint8_t>(data, data + view.bytes()) ==
          fixture.constantBytes[i]);
  }
}

} // namespace

// Every field written by the builder reads back unchanged, from memory.
TEST_CASE("program round trip through bytes", "[program]") {
  Fixture fixture;
  std::vector<uint8_t> bytes = serialize(fixture.builder);
  BackendRegistry backends;
  REQUIRE(backends.add(std::make_shared<ScaleBackend>("vulkan")).isOk());
  std::unique_ptr<Program> program;
  Status status = loadBytes(bytes, anyKernelOptions(&backends), program);
  INFO(status.message());
  REQUIRE(status.isOk());
  CHECK(program->name() == "test.duet");
  checkProgram(*program, fixture);
  CHECK(program->describeTensor(1) == "tensor 1 (conv.weight)");
  CHECK(program->describeTensor(13) == "tensor 13");
}

// The same through a file on disk, which the loader memory-maps.
TEST_CASE("program round trip through a mapped file", "[program]") {
  Fixture fixture;
  TempFile file("roundtrip.duet");
  Status written = fixture.builder.writeFile(file.path());
  INFO(written.message());
  REQUIRE(written.isOk());
  BackendRegistry backends;
  REQUIRE(backends.add(std::make_shared<ScaleBackend>("vulkan")).isOk());
  std::unique_ptr<Program> program;
  Status status =
      Program::load(file.path(), anyKernelOptions(&backends), program);
  INFO(status.message());
  REQUIRE(status.isOk());
  CHECK(program->name() == file.path());
  checkProgram(*program, fixture);
}

// The raw file: a size prefix, the DUET identifier, zero padding up to the
// 64-byte aligned segment, and constants at their recorded offsets.
TEST_CASE("program file layout", "[program]") {
  Fixture fixture;
  std::vector<uint8_t> bytes = serialize(fixture.builder);
  uint32_t fbBytes;
  std::memcpy(&fbBytes, bytes.data(), 4);
  CHECK(std::string(reinterpret_cast<const char *>(bytes.data()) + 8, 4) ==
        "DUET");
  CHECK(duet::schema::SizePrefixedProgramBufferHasIdentifier(bytes.data()));
  uint64_t segment = (fbBytes + 4 + 63) / 64 * 64;
  REQUIRE(bytes.size() == segment + fixture.segmentBytes());
  for (uint64_t i = fbBytes + 4; i < segment; ++i)
    CHECK(bytes[i] == 0);
  // The tail after the last constant is zeros, at least 16 of them.
  CHECK(fixture.segmentBytes() - fixture.constantsEnd >= 16);
  for (uint64_t i = segment + fixture.constantsEnd; i < bytes.size(); ++i)
    CHECK(bytes[i] == 0);
  const auto *root = duet::schema::GetSizePrefixedProgram(bytes.data());
  CHECK(root->format_version() == 2);
  CHECK(root->constant_segment_bytes() == fixture.segmentBytes());
  for (size_t i = 0; i < fixture.tensors.size(); ++i) {
    if (fixture.tensors[i].kind != TensorKind::constant)
      continue;
    uint64_t offset = root->tensors()->Get(i)->constant_offset();
    CHECK(offset % 64 == 0);
    CHECK(std::vector<uint8_t>(bytes.begin() + segment + offset,
                               bytes.begin() + segment + offset +
                                   fixture.constantBytes[i].size()) ==
          fixture.constantBytes[i]);
  }
}

// A program with nothing in it is still a valid file.
TEST_CASE("empty program round trip", "[program]") {
  ProgramBuilder builder;
  std::vector<uint8_t> bytes = serialize(builder);
  CHECK(bytes.size() % 64 == 0);
  std::unique_ptr<Program> program;
  Status status = loadBytes(bytes, LoadOptions(), program);
  INFO(status.message());
  REQUIRE(status.isOk());
  CHECK(program->tensors().empty());
  CHECK(program->instructions().empty());
  CHECK(program->constantSegmentBytes() == 0);
}

// The builder reports what it cannot write instead of writing it.
TEST_CASE("builder errors", "[program]") {
  SECTION("constant bytes of the wrong length") {
    ProgramBuilder builder;
    builder.addConstant(tensor("w", DType::f32, {4}, TensorKind::constant),
                        std::vector<uint8_t>(15));
    std::vector<uint8_t> bytes;
    Status status = builder.serialize(bytes);
    CHECK(status.message() ==
          "constant 0 (w) was given 15 bytes; its dtype and sizes need 16");
  }
  SECTION("a negative size") {
    ProgramBuilder builder;
    builder.addTensor(
        tensor("a", DType::f32, {2, -1}, TensorKind::activation, 0));
    std::vector<uint8_t> bytes;
    CHECK(builder.serialize(bytes).message() ==
          "tensor 0 (a): a size is negative or the byte count overflows");
  }
  SECTION("a constant added as a plain tensor") {
    ProgramBuilder builder;
    builder.addTensor(tensor("c", DType::f32, {1}, TensorKind::constant));
    std::vector<uint8_t> bytes;
    CHECK_FALSE(builder.serialize(bytes).isOk());
  }
  SECTION("an unwritable path") {
    ProgramBuilder builder;
    Status status = builder.writeFile("/nonexistent-dir/x.duet");
    CHECK_THAT(status.message(),
               Catch::StartsWith("cannot write '/nonexistent-dir/x.duet': its "
                                 "folder does not exist"));
  }
}
