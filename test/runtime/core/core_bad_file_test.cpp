//===- core_bad_file_test.cpp - bad program files are clear errors --------===//
//
// Each case damages a good file (or builds a wrong one) and expects one line
// naming the file and the fault; none may crash. Run under ASan or valgrind
// to see that no check reads out of bounds.
//
//===----------------------------------------------------------------------===//

#include "core_test_support.h"

#include "runtime/core/Executor.h"
#include "runtime/core/Runtime.h"

#include "runtime/schema/program_generated.h"

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

/// The error of loading `bytes`; fails the test when they load.
std::string loadError(const std::vector<uint8_t> &bytes,
                      const LoadOptions &options = anyKernelOptions(nullptr)) {
  std::unique_ptr<Program> program;
  Status status = loadBytes(bytes, options, program);
  REQUIRE_FALSE(status.isOk());
  CHECK_FALSE(program);
  CHECK(status.message().rfind("test.duet: ", 0) == 0);
  CHECK(status.message().find('\n') == std::string::npos);
  return status.message();
}

duet::schema::Program *mutableRoot(std::vector<uint8_t> &bytes) {
  return duet::schema::GetMutableSizePrefixedProgram(bytes.data());
}

uint64_t segmentOffset(const std::vector<uint8_t> &bytes) {
  uint32_t fbBytes;
  std::memcpy(&fbBytes, bytes.data(), 4);
  return (fbBytes + 4 + 63) / 64 * 64;
}

} // namespace

// Cut short anywhere — in the header, inside the FlatBuffer, in the padding,
// inside the constant segment — the file is reported, never read past.
TEST_CASE("truncated files", "[bad-file]") {
  std::vector<uint8_t> good = serialize(addReluProgram());
  uint64_t segment = segmentOffset(good);
  REQUIRE(good.size() == segment + 64); // 24 bytes of c, then zeros
  for (size_t length :
       {size_t{0}, size_t{3}, size_t{11}, size_t{12}, size_t{40},
        size_t(segment / 2), size_t(segment - 1), size_t(segment),
        size_t(segment + 10), size_t(good.size() - 1)}) {
    INFO("length " << length);
    std::vector<uint8_t> cut(good.begin(), good.begin() + length);
    std::string message = loadError(cut);
    CHECK(message.find("truncated") != std::string::npos);
  }
  CHECK(loadError({}) == "test.duet: the file is 0 bytes long, too short for "
                         "a duet program; it is truncated or not a program");
  std::vector<uint8_t> inSegment(good.begin(), good.begin() + segment + 10);
  CHECK(loadError(inSegment) ==
        fmt::format("test.duet: the 64-byte constant segment starting at byte "
                    "{} runs past the end of the {}-byte file; the file is "
                    "truncated",
                    segment, segment + 10));
  std::vector<uint8_t> inBuffer(good.begin(), good.begin() + 40);
  CHECK_THAT(loadError(inBuffer),
             Catch::Matches("test\\.duet: the program's FlatBuffer is [0-9]+ "
                            "bytes but only 36 follow its size prefix; the "
                            "file is truncated"));
}

// Bytes after the segment mean the file is not what the writer wrote.
TEST_CASE("trailing bytes", "[bad-file]") {
  std::vector<uint8_t> bytes = serialize(addReluProgram());
  bytes.resize(bytes.size() + 5, 0);
  CHECK_THAT(loadError(bytes), Catch::StartsWith("test.duet: 5 unexpected "
                                                 "bytes follow the constant "
                                                 "segment"));
}

// Another kind of file, or a damaged identifier, is named as not a program.
TEST_CASE("wrong file identifier", "[bad-file]") {
  std::vector<uint8_t> bytes = serialize(addReluProgram());
  std::memcpy(bytes.data() + 8, "PK\x03\x04", 4);
  CHECK(loadError(bytes) == "test.duet: not a duet program (file identifier "
                            "'PK\\x03\\x04', expected 'DUET')");
}

// A flipped bit in the size prefix or the root offset is caught.
TEST_CASE("flipped byte in the header", "[bad-file]") {
  std::vector<uint8_t> good = serialize(addReluProgram());
  SECTION("size prefix") {
    std::vector<uint8_t> bytes = good;
    bytes[1] ^= 0x40;
    CHECK(loadError(bytes).find("truncated") != std::string::npos);
  }
  SECTION("root offset") {
    std::vector<uint8_t> bytes = good;
    bytes[5] ^= 0x10;
    CHECK(loadError(bytes) ==
          "test.duet: the program's FlatBuffer does not verify (an offset or a "
          "size points outside it); the file is corrupt");
  }
}

// Every single-byte change of the FlatBuffer either still loads (the byte
// held a value the checks accept) and then runs on the portable kernels, or
// fails to load with a message; none crashes, and none fails at run: the
// loader checks every instruction before anything runs.
TEST_CASE("every byte of the FlatBuffer flipped", "[bad-file]") {
  std::vector<uint8_t> good = serialize(addReluProgram());
  uint32_t fbBytes;
  std::memcpy(&fbBytes, good.data(), 4);
  size_t failures = 0, runs = 0;
  for (size_t i = 0; i < fbBytes + 4; ++i) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      std::vector<uint8_t> bytes = good;
      bytes[i] ^= mask;
      std::unique_ptr<Runtime> runtime;
      Status status = Runtime::loadFromBytes(
          bytes.data(), bytes.size(), "test.duet", LoadOptions(), runtime);
      if (!status.isOk()) {
        ++failures;
        CHECK(status.message().rfind("test.duet: ", 0) == 0);
        continue;
      }
      ++runs;
      status = runtime->run();
      INFO("byte " << i << " ^ " << int(mask) << ": " << status.message());
      CHECK(status.isOk());
    }
  }
  CHECK(failures > 0);
  CHECK(runs > 0);
}

// A version from the future is refused with both numbers.
TEST_CASE("format version from the future", "[bad-file]") {
  std::vector<uint8_t> bytes = serialize(addReluProgram());
  REQUIRE(mutableRoot(bytes)->mutate_format_version(kProgramFormatVersion + 1));
  CHECK(loadError(bytes) ==
        fmt::format("test.duet: format version {} is newer than this runtime "
                    "reads (up to {}); run it with a runtime as new as the "
                    "compiler that wrote it",
                    kProgramFormatVersion + 1, kProgramFormatVersion));
}

// Tensor records that contradict the segment, the arena or themselves.
TEST_CASE("bad tensor records", "[bad-file]") {
  std::vector<uint8_t> bytes = serialize(addReluProgram());
  auto *tensors = mutableRoot(bytes)->mutable_tensors();
  SECTION("constant offset past the end of the segment") {
    REQUIRE(tensors->GetMutableObject(1)->mutate_constant_offset(4096));
    CHECK(loadError(bytes) ==
          "test.duet: tensor 1 (c): constant bytes [4096, 4120) lie outside "
          "the 64-byte constant segment; the file is truncated or corrupt");
  }
  SECTION("constant offset that wraps around") {
    REQUIRE(
        tensors->GetMutableObject(1)->mutate_constant_offset(~uint64_t{63}));
    CHECK(loadError(bytes).find("lie outside the 64-byte constant segment") !=
          std::string::npos);
  }
  SECTION("misaligned constant") {
    REQUIRE(tensors->GetMutableObject(1)->mutate_constant_offset(8));
    CHECK(loadError(bytes) == "test.duet: tensor 1 (c): constant offset 8 is "
                              "not 64-byte aligned; the file is corrupt");
  }
  SECTION("byte count that disagrees with the sizes") {
    REQUIRE(tensors->GetMutableObject(0)->mutate_nbytes(25));
    CHECK(loadError(bytes) ==
          "test.duet: tensor 0 (x): sizes [2, 3] of float32 take 24 bytes but "
          "the file records 25; the file is corrupt");
  }
  SECTION("negative size") {
    tensors->GetMutableObject(0)->mutable_sizes()->Mutate(1, -3);
    CHECK(loadError(bytes) ==
          "test.duet: tensor 0 (x): sizes [2, -3] hold a negative size or a "
          "byte count that overflows; the file is corrupt");
  }
  SECTION("sizes whose byte count overflows") {
    auto *sizes = tensors->GetMutableObject(0)->mutable_sizes();
    sizes->Mutate(0, int64_t{1} << 40);
    sizes->Mutate(1, int64_t{1} << 40);
    CHECK(loadError(bytes).find("overflows") != std::string::npos);
  }
  SECTION("arena bytes past the arena") {
    REQUIRE(tensors->GetMutableObject(3)->mutate_arena_offset(180));
    CHECK(loadError(bytes) ==
          "test.duet: tensor 3 (y): arena bytes [180, 204) lie outside the "
          "192-byte arena; the plan is corrupt");
  }
  SECTION("activation without an arena offset") {
    REQUIRE(tensors->GetMutableObject(2)->mutate_arena_offset(-1));
    CHECK(loadError(bytes) == "test.duet: tensor 2 (s): an activation tensor "
                              "has no arena offset; the file is corrupt");
  }
  SECTION("unknown dtype") {
    REQUIRE(
        tensors->GetMutableObject(2)->mutate_dtype(static_cast<DType>(200)));
    CHECK(loadError(bytes) ==
          "test.duet: tensor 2 (s): dtype number 200 is unknown to this "
          "runtime; the file is corrupt or from a newer duet");
  }
  SECTION("unknown kind") {
    REQUIRE(
        tensors->GetMutableObject(2)->mutate_kind(static_cast<TensorKind>(9)));
    CHECK(loadError(bytes).find("kind number 9 is unknown") !=
          std::string::npos);
  }
  SECTION("plan whose arena is below its own peak") {
    REQUIRE(mutableRoot(bytes)->mutable_memory_plan()->mutate_peak_bytes(500));
    CHECK(loadError(bytes) == "test.duet: the memory plan's 192-byte arena is "
                              "smaller than its 500 bytes alive at once; the "
                              "plan is corrupt");
  }
}

// Placement numbers outside types.fbs's enums, or numbered as version 1 did.
TEST_CASE("bad placements", "[bad-file]") {
  ProgramBuilder builder = addReluProgram();
  TensorInfo placed =
      tensor("p", DType::f32, {2, 3}, TensorKind::activation, 192);
  placed.placement =
      Placement{"vulkan", Storage::buffer, Layout::contiguous, {0, 0, 0}};
  builder.addTensor(placed);
  builder.setMemoryPlan({256, 192});
  std::vector<uint8_t> bytes = serialize(builder);
  auto *placement = mutableRoot(bytes)
                        ->mutable_tensors()
                        ->GetMutableObject(4)
                        ->mutable_placement();
  SECTION("unknown storage") {
    REQUIRE(placement->mutate_storage(static_cast<Storage>(7)));
    CHECK(loadError(bytes) ==
          "test.duet: tensor 4 (p): placement storage 7 or layout 3 is "
          "unknown; the file is corrupt or from a newer duet");
  }
  SECTION("unknown layout") {
    REQUIRE(placement->mutate_layout(static_cast<Layout>(4)));
    CHECK(loadError(bytes) ==
          "test.duet: tensor 4 (p): placement storage 1 or layout 4 is "
          "unknown; the file is corrupt or from a newer duet");
  }
  SECTION("a placement of format version 1") {
    REQUIRE(mutableRoot(bytes)->mutate_format_version(1));
    CHECK(loadError(bytes) ==
          "test.duet: tensor 4 (p): its placement is numbered as in format "
          "version 1, which this runtime reads otherwise; recompile the "
          "model");
  }
}

// Version 1 differs from 2 only in its placements: a file without any loads.
TEST_CASE("format version 1 without placements", "[bad-file]") {
  std::vector<uint8_t> bytes = serialize(addReluProgram());
  REQUIRE(mutableRoot(bytes)->mutate_format_version(1));
  std::unique_ptr<Program> program;
  Status status = loadBytes(bytes, anyKernelOptions(nullptr), program);
  INFO(status.message());
  CHECK(status.isOk());
}

// Instructions that name tensors that do not exist, or misuse them.
TEST_CASE("bad instructions", "[bad-file]") {
  auto build = [](KernelCall call) {
    ProgramBuilder builder = addReluProgram();
    builder.addKernelCall(std::move(call));
    return serialize(builder);
  };
  SECTION("tensor id out of range") {
    CHECK(loadError(build({"aten.relu", {}, {99}, {2}})) ==
          "test.duet: instruction 2 (aten.relu): input 0 names tensor 99, but "
          "the program has 4 tensors");
    CHECK(loadError(build({"aten.relu", {}, {0}, {-1}})) ==
          "test.duet: instruction 2 (aten.relu): output 0 names tensor -1, but "
          "the program has 4 tensors");
  }
  SECTION("writing a constant") {
    CHECK(loadError(build({"aten.relu", {}, {0}, {1}})) ==
          "test.duet: instruction 2 (aten.relu): output 0 is tensor 1 (c), a "
          "constant tensor, which no instruction may write");
  }
  SECTION("writing an input") {
    CHECK(loadError(build({"aten.relu", {}, {1}, {0}})) ==
          "test.duet: instruction 2 (aten.relu): output 0 is tensor 0 (x), an "
          "input tensor, which no instruction may write");
  }
  SECTION("an op with no kernel") {
    LoadOptions options;
    options.kernels = [](std::string_view op) -> KernelFn {
      return op == "aten.frobnicate" ? nullptr : &acceptAnything;
    };
    CHECK(loadError(build({"aten.frobnicate", {}, {0}, {2}}), options) ==
          "test.duet: instruction 2: no portable kernel implements "
          "aten.frobnicate; this runtime cannot run the op");
  }
  SECTION("reading a value before it is written") {
    ProgramBuilder builder;
    int32_t x =
        builder.addTensor(tensor("x", DType::f32, {1}, TensorKind::input, 0));
    int32_t a = builder.addTensor(
        tensor("a", DType::f32, {1}, TensorKind::activation, 64));
    int32_t y = builder.addTensor(
        tensor("y", DType::f32, {1}, TensorKind::output, 128));
    builder.setInputs({x});
    builder.setOutputs({y});
    builder.addKernelCall({"aten.add", {}, {x, a}, {y}});
    builder.addKernelCall({"aten.relu", {}, {x}, {a}});
    builder.setMemoryPlan({192, 12});
    CHECK(loadError(serialize(builder)) ==
          "test.duet: instruction 0 (aten.add): input 1 reads tensor 1 (a) "
          "before any instruction writes it");
  }
  SECTION("an output nothing writes") {
    ProgramBuilder builder = addReluProgram();
    builder.addTensor(tensor("z", DType::f32, {1}, TensorKind::output, 160));
    builder.setOutputs({3, 4});
    CHECK(loadError(serialize(builder)) ==
          "test.duet: program output 1 is tensor 4 (z), which no instruction "
          "writes");
  }
  SECTION("an input tensor left out of the inputs") {
    ProgramBuilder builder = addReluProgram();
    builder.setInputs({});
    CHECK(loadError(serialize(builder)) ==
          "test.duet: tensor 0 (x) is an input tensor missing from the "
          "program's inputs");
  }
}

// Delegate calls that name no delegate, or a delegate twice.
TEST_CASE("bad delegate calls", "[bad-file]") {
  BackendRegistry backends;
  REQUIRE(backends.add(std::make_shared<ScaleBackend>("fakegpu")).isOk());
  LoadOptions options = anyKernelOptions(&backends);
  ProgramBuilder builder = addReluProgram();
  SECTION("delegate index out of range") {
    builder.addDelegateCall({3, {0}, {2}});
    CHECK(loadError(serialize(builder), options) ==
          "test.duet: instruction 2 calls delegate 3, but the program has 0 "
          "delegates");
  }
  SECTION("a delegate called twice") {
    builder.addDelegate({"fakegpu", {0, 0, 64, 64}, {}});
    builder.addDelegateCall({0, {0}, {2}});
    builder.addDelegateCall({0, {0}, {2}});
    CHECK(loadError(serialize(builder), options) ==
          "test.duet: instruction 3 calls delegate 0 again; each delegate is "
          "called once");
  }
  SECTION("reference mode with no recorded ops") {
    builder.addDelegate({"fakegpu", {0, 0, 64, 64}, {}});
    builder.addDelegateCall({0, {0}, {2}});
    options.reference = true;
    CHECK(loadError(serialize(builder), options) ==
          "test.duet: delegate 0 on fakegpu records no ops, so it cannot run "
          "in reference mode");
  }
  SECTION("recorded ops that do not write the delegate's output") {
    builder.addDelegate({"fakegpu", {}, {{"aten.relu", {}, {0}, {3}}}});
    builder.addDelegateCall({0, {0}, {2}});
    CHECK(loadError(serialize(builder), options) ==
          "test.duet: delegate 0 on fakegpu: no recorded op writes its output "
          "tensor 2 (s)");
  }
  SECTION("recorded op reading outside the delegate's inputs") {
    builder.addDelegate({"fakegpu", {}, {{"aten.relu", {}, {3}, {2}}}});
    builder.addDelegateCall({0, {0}, {2}});
    CHECK(loadError(serialize(builder), options) ==
          "test.duet: delegate 0 op 0 (aten.relu): input 0 reads tensor 3 (y), "
          "which is neither a constant, an input of the delegate call nor "
          "written by an earlier recorded op");
  }
}

// A path that is not there, or not a file, is named with the reason.
TEST_CASE("unreadable program paths", "[bad-file]") {
  std::unique_ptr<Program> program;
  CHECK(
      Program::load("/nonexistent/m.duet", LoadOptions(), program).message() ==
      "/nonexistent/m.duet: cannot open the program: No "
      "such file or directory");
  CHECK(Program::load("/tmp", LoadOptions(), program).message() ==
        "/tmp: not a regular file");
  CHECK_FALSE(program);
}

// Loaded for inspection, a program needs neither kernels nor backends — but
// it then cannot run.
TEST_CASE("inspect-only loading", "[bad-file]") {
  ProgramBuilder builder = addReluProgram();
  builder.addDelegate({"nowhere", {}, {}});
  builder.addDelegateCall({0, {0}, {2}});
  builder.addKernelCall({"aten.frobnicate", {}, {0}, {2}});
  std::vector<uint8_t> bytes = serialize(builder);
  LoadOptions options;
  options.inspectOnly = true;
  options.reference = true;
  std::unique_ptr<Program> program;
  Status status = loadBytes(bytes, options, program);
  INFO(status.message());
  REQUIRE(status.isOk());
  std::unique_ptr<Executor> executor;
  CHECK(Executor::create(*program, executor).message() ==
        "test.duet: the program was loaded for inspection only and cannot "
        "run");
  options.inspectOnly = false;
  CHECK(loadError(bytes, options) ==
        "test.duet: delegate 0 on nowhere records no ops, so it cannot run in "
        "reference mode");
}
