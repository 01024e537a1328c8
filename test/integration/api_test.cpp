//===- api_test.cpp - the installed C++ API ------------------------------===//

#include "duet/compiler.h"
#include "duet/runtime.h"

#include <WriteFailures.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

namespace {

const std::string kModels = DUET_TEST_MODELS;
const std::string kModel = kModels + "/conv_bn_relu.training.pt2";

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Compiles the small fixture for the portable kernels only, so the test
/// does not depend on which delegates this build has.
duet::compiler::Result compilePortable() {
  duet::compiler::Options options;
  options.backends = {"portable"};
  duet::compiler::Result result;
  duet::Status status = duet::compiler::compileFile(kModel, options, result);
  INFO(status.message());
  REQUIRE(status.isOk());
  return result;
}

/// The small fixture, compiled for portable, loaded and run once on its
/// stored input.
std::unique_ptr<duet::runtime::Model> ranModel() {
  duet::compiler::Result compiled = compilePortable();
  std::unique_ptr<duet::runtime::Model> model;
  REQUIRE(duet::runtime::Model::loadFromBytes(compiled.program.data(),
                                              compiled.program.size(), model)
              .isOk());
  REQUIRE(
      model->setInputFromNpy(0, kModels + "/conv_bn_relu.input0.npy").isOk());
  REQUIRE(model->run().isOk());
  return model;
}

} // namespace

TEST_CASE("compileFile returns the program and a report that adds up",
          "[api][compiler]") {
  duet::compiler::Result result;
  duet::Status status =
      duet::compiler::compileFile(kModel, duet::compiler::Options(), result);
  INFO(status.message());
  REQUIRE(status.isOk());
  CHECK(result.program.size() > 64);
  CHECK(result.backends == duet::compiler::availableBackends());
  nlohmann::json report = nlohmann::json::parse(result.reportJson);
  REQUIRE(report.contains("ops"));
  CHECK(report["ops"].size() == result.ops);
  CHECK(result.ops > 0);
  // Every known backend is counted, in order, as in the report's summary.
  std::vector<duet::compiler::BackendInfo> known =
      duet::compiler::knownBackends();
  REQUIRE(result.backendOps.size() == known.size());
  size_t counted = result.portableOps;
  for (size_t i = 0; i < known.size(); ++i) {
    CHECK(result.backendOps[i].first == known[i].name);
    CHECK(report["summary"][known[i].name] == result.backendOps[i].second);
    counted += result.backendOps[i].second;
  }
  CHECK(counted == result.ops);
  CHECK(result.portableOpReasons.size() == result.portableOps);
}

TEST_CASE("compileBuffer gives the bytes compileFile gives, and names the "
          "buffer in errors",
          "[api][compiler]") {
  duet::compiler::Options options;
  options.backends = {"portable"};
  std::vector<uint8_t> bytes = readBytes(kModel);
  REQUIRE(!bytes.empty());
  duet::compiler::Result fromMemory;
  duet::Status status = duet::compiler::compileBuffer(
      bytes.data(), bytes.size(), options, fromMemory, "conv_bn_relu");
  INFO(status.message());
  REQUIRE(status.isOk());
  CHECK(fromMemory.program == compilePortable().program);

  const char garbage[] = "not a zip archive";
  duet::compiler::Result failed;
  status = duet::compiler::compileBuffer(garbage, sizeof garbage, options,
                                         failed, "upload.pt2");
  CHECK(status.code() == duet::ErrorCode::badInput);
  CHECK(status.message().rfind("upload.pt2: ", 0) == 0);
  // The private temporary copy stays private.
  CHECK(status.message().find("duet-model") == std::string::npos);
  CHECK(failed.program.empty());

  status = duet::compiler::compileBuffer(nullptr, 10, options, failed, "x");
  CHECK(status.code() == duet::ErrorCode::badInput);
}

TEST_CASE("compile errors are values with the CLI's exit codes",
          "[api][compiler]") {
  duet::compiler::Result result;
  duet::compiler::Options options;
  duet::Status status = duet::compiler::compileFile(
      kModels + "/no-such-model.pt2", options, result);
  CHECK(status.code() == duet::ErrorCode::badInput);
  CHECK(status.message().find("no-such-model.pt2") != std::string::npos);

  status = duet::compiler::compileFile(kModels + "/bad_unknown_op.pt2", options,
                                       result);
  CHECK(status.code() == duet::ErrorCode::unsupported);
  CHECK(status.message().find("special_airy_ai") != std::string::npos);

  options.backends = {"tpu"};
  status = duet::compiler::compileFile(kModel, options, result);
  CHECK(status.code() == duet::ErrorCode::badInput);
  CHECK(status.message().find("unknown backend 'tpu'") != std::string::npos);

  options.backends = {};
  options.backendOptions = {{"target-profile", "no-such-gpu"}};
  status = duet::compiler::compileFile(kModel, options, result);
  if (!duet::compiler::availableBackends().empty())
    CHECK(!status.isOk());

  // Backend options are checked by name and, for a flag, by value.
  options.backendOptions = {{"no-such-option", "1"}};
  status = duet::compiler::compileFile(kModel, options, result);
  CHECK(status.code() == duet::ErrorCode::badInput);
  CHECK(status.message().find("unknown backend option 'no-such-option'") !=
        std::string::npos);
  options.backendOptions = {{"enable-bf16", "yes"}};
  status = duet::compiler::compileFile(kModel, options, result);
  CHECK(status.code() == duet::ErrorCode::badInput);
  CHECK(status.message().find("takes true or false") != std::string::npos);
}

TEST_CASE("strict compilation fails on a portable op but still reports",
          "[api][compiler]") {
  duet::compiler::Options options;
  options.backends = {"portable"};
  options.strict = true;
  duet::compiler::Result result;
  duet::Status status = duet::compiler::compileFile(kModel, options, result);
  CHECK(status.code() == duet::ErrorCode::strictFallback);
  CHECK(status.message().find("strict") != std::string::npos);
  CHECK(!result.program.empty());
  CHECK(!result.reportJson.empty());
  CHECK(result.portableOps == result.ops);
  CHECK(!result.portableOpReasons.empty());
}

TEST_CASE("a compiled program runs through the runtime API and matches "
          "eager PyTorch",
          "[api][runtime]") {
  duet::compiler::Result compiled = compilePortable();
  std::unique_ptr<duet::runtime::Model> model;
  duet::Status status = duet::runtime::Model::loadFromBytes(
      compiled.program.data(), compiled.program.size(), model, {},
      "conv_bn_relu.duet");
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(model->inputCount() == 1);
  REQUIRE(model->outputCount() == 1);
  const duet::runtime::TensorInfo &input = model->inputs()[0];
  CHECK(input.dtype == duet::runtime::DType::float32);
  CHECK(input.shape == std::vector<int64_t>{1, 3, 16, 16});
  CHECK(input.bytes == 3 * 16 * 16 * 4);
  CHECK(model->outputs()[0].shape == std::vector<int64_t>{1, 8, 8, 8});

  duet::runtime::Tensor image;
  REQUIRE(duet::runtime::readNpy(kModels + "/conv_bn_relu.input0.npy", image)
              .isOk());
  REQUIRE(model->setInput(0, image.view()).isOk());
  REQUIRE(model->run().isOk());
  std::vector<float> out, ref;
  REQUIRE(model->outputAsFloat32(0, out).isOk());
  duet::runtime::Tensor expected;
  REQUIRE(
      duet::runtime::readNpy(kModels + "/conv_bn_relu.output0.npy", expected)
          .isOk());
  REQUIRE(duet::runtime::toFloat32(expected.view(), ref).isOk());
  REQUIRE(out.size() == ref.size());
  double maxDiff = 0, maxRef = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    maxDiff = std::max(maxDiff, std::fabs(double(out[i]) - ref[i]));
    maxRef = std::max(maxRef, std::fabs(double(ref[i])));
  }
  // The fp32 tolerance of docs/cli.md.
  CHECK(maxDiff <= 1e-4 * maxRef + 1e-5);

  // Raw bytes and .npy input give the same result.
  REQUIRE(model->setInput(0, image.data.data(), image.data.size()).isOk());
  REQUIRE(
      model->setInputFromNpy(0, kModels + "/conv_bn_relu.input0.npy").isOk());
  REQUIRE(model->run().isOk());
  std::vector<float> again;
  REQUIRE(model->outputAsFloat32(0, again).isOk());
  CHECK(again == out);

  // Inputs stay as they were set: running again without setting them gives
  // the same output (the arena never reuses an input's memory).
  REQUIRE(model->run().isOk());
  std::vector<float> third;
  REQUIRE(model->outputAsFloat32(0, third).isOk());
  CHECK(third == out);
}

TEST_CASE("a fault planted through LoadOptions changes every K-th run",
          "[api][runtime][faults]") {
  duet::compiler::Result compiled = compilePortable();
  duet::runtime::LoadOptions options;
  options.faults.nondeterminismPeriod = 2;
  std::unique_ptr<duet::runtime::Model> model;
  REQUIRE(duet::runtime::Model::loadFromBytes(
              compiled.program.data(), compiled.program.size(), model, options)
              .isOk());
  REQUIRE(
      model->setInputFromNpy(0, kModels + "/conv_bn_relu.input0.npy").isOk());
  std::vector<std::vector<float>> outputs(4);
  for (std::vector<float> &output : outputs) {
    REQUIRE(model->run().isOk());
    REQUIRE(model->outputAsFloat32(0, output).isOk());
  }
  // Runs 1 and 3 (K - 1 and 2K - 1) add 1 to the first element; runs 0
  // and 2 are the program's own result.
  CHECK(outputs[2] == outputs[0]);
  CHECK(outputs[3] == outputs[1]);
  CHECK(outputs[1][0] == outputs[0][0] + 1.0f);
  CHECK(std::equal(outputs[1].begin() + 1, outputs[1].end(),
                   outputs[0].begin() + 1));
}

TEST_CASE("runtime misuse is an error value, never a crash", "[api][runtime]") {
  std::unique_ptr<duet::runtime::Model> model;
  duet::Status status =
      duet::runtime::Model::load(kModels + "/no-such.duet", model);
  CHECK(!status.isOk());
  CHECK(status.message().find("no-such.duet") != std::string::npos);
  CHECK(!model);

  const char garbage[] = "certainly not a program";
  status = duet::runtime::Model::loadFromBytes(garbage, sizeof garbage, model,
                                               {}, "upload.duet");
  CHECK(status.code() == duet::ErrorCode::badInput);
  CHECK(status.message().find("upload.duet") != std::string::npos);
  CHECK(duet::runtime::Model::loadFromBytes(nullptr, 5, model).code() ==
        duet::ErrorCode::badInput);

  duet::compiler::Result compiled = compilePortable();
  REQUIRE(duet::runtime::Model::loadFromBytes(compiled.program.data(),
                                              compiled.program.size(), model)
              .isOk());
  std::vector<float> small(3);
  CHECK(model->setInput(0, small.data(), small.size() * 4).code() ==
        duet::ErrorCode::badInput);
  CHECK(model->setInput(1, small.data(), 12).code() ==
        duet::ErrorCode::badInput);
  duet::runtime::TensorView wrongDtype{
      duet::runtime::DType::int32, {1, 3, 16, 16}, small.data()};
  CHECK(model->setInput(0, wrongDtype).code() == duet::ErrorCode::badInput);
  CHECK(model->output(7).data == nullptr);
  std::vector<float> values;
  CHECK(model->outputAsFloat32(7, values).code() == duet::ErrorCode::badInput);
  CHECK(!model->setInputFromNpy(0, kModels + "/no-such.npy").isOk());
  CHECK(model->writeOutputNpy(0, "/no-such-folder/out.npy").code() ==
        duet::ErrorCode::ioError);
}

TEST_CASE("writeOutputNpy replaces the file whole or leaves it as it was",
          "[api][runtime][files]") {
  std::unique_ptr<duet::runtime::Model> model = ranModel();

  duet::test::TempFolder folder;
  std::string path = folder.file("y.npy");
  const std::string old = "old bytes\n";
  duet::test::writeFile(path, old);
  duet::Status status;
  {
    // The output is 2 KiB of data: 1 KiB cuts it midway.
    duet::test::FileSizeLimit limit(1024);
    status = model->writeOutputNpy(0, path);
  }
  CHECK(status.code() == duet::ErrorCode::ioError);
  CHECK(status.message() == "cannot write '" + path + "': File too large");
  CHECK(duet::test::readFile(path) == old);
  CHECK(folder.entries() == std::vector<std::string>{"y.npy"});

  status = model->writeOutputNpy(0, "/dev/full");
  CHECK(status.code() == duet::ErrorCode::ioError);
  CHECK(status.message() ==
        "cannot write '/dev/full': No space left on device");

  REQUIRE(model->writeOutputNpy(0, path).isOk());
  duet::runtime::Tensor written;
  REQUIRE(duet::runtime::readNpy(path, written).isOk());
  std::vector<float> values, expected;
  REQUIRE(duet::runtime::toFloat32(written.view(), values).isOk());
  REQUIRE(model->outputAsFloat32(0, expected).isOk());
  CHECK(values == expected);
  CHECK(folder.entries() == std::vector<std::string>{"y.npy"});
}

// Run by output-full-disk.test, with DUET_FULL_DISK_FILE an old file on a
// full tmpfs: hidden otherwise.
TEST_CASE("writeOutputNpy on a full disk leaves the old file", "[.full-disk]") {
  const char *path = std::getenv("DUET_FULL_DISK_FILE");
  REQUIRE(path);
  std::unique_ptr<duet::runtime::Model> model = ranModel();
  duet::Status status = model->writeOutputNpy(0, path);
  CHECK(status.code() == duet::ErrorCode::ioError);
  CHECK(status.message() ==
        "cannot write '" + std::string(path) + "': No space left on device");
}

// The contract of runtime.h and docs/api.md, "Threads": a call that overlaps
// another thread's on the same Model is refused with one message; every
// other call does its work as if alone.
TEST_CASE("two threads hammering run on one Model", "[api][runtime][threads]") {
  duet::compiler::Result compiled = compilePortable();
  std::unique_ptr<duet::runtime::Model> model;
  REQUIRE(duet::runtime::Model::loadFromBytes(compiled.program.data(),
                                              compiled.program.size(), model,
                                              {}, "shared.duet")
              .isOk());
  REQUIRE(
      model->setInputFromNpy(0, kModels + "/conv_bn_relu.input0.npy").isOk());
  REQUIRE(model->run().isOk());
  std::vector<float> alone;
  REQUIRE(model->outputAsFloat32(0, alone).isOk());

  const std::string refused =
      "shared.duet: run: this Model is already running on another thread; "
      "load one Model per thread, or serialize calls";
  constexpr int kRounds = 2000;
  std::atomic<int> refusals{0};
  std::mutex problemsMutex;
  std::vector<std::string> problems;
  auto note = [&](std::string problem) {
    std::lock_guard<std::mutex> lock(problemsMutex);
    if (problems.size() < 10)
      problems.push_back(std::move(problem));
  };
  auto hammer = [&] {
    // Rounds until both threads did kRounds and a call was refused, which
    // two threads on one program do within milliseconds; 30 s at most.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::vector<float> values;
    for (int round = 0;; ++round) {
      if (round >= kRounds &&
          (refusals > 0 || std::chrono::steady_clock::now() > deadline))
        break;
      duet::Status status = model->run();
      if (!status) {
        if (status.code() != duet::ErrorCode::failure ||
            status.message() != refused)
          note("run: " + status.message());
        ++refusals;
        continue;
      }
      status = model->outputAsFloat32(0, values);
      if (!status) {
        std::string expected = refused;
        expected.replace(expected.find("run:"), 4, "outputAsFloat32:");
        if (status.message() != expected)
          note("outputAsFloat32: " + status.message());
        ++refusals;
        continue;
      }
      if (values != alone)
        note("round " + std::to_string(round) + ": a wrong output");
    }
  };
  std::thread first(hammer), second(hammer);
  first.join();
  second.join();
  INFO("refused calls: " << refusals.load());
  for (const std::string &problem : problems)
    FAIL_CHECK(problem);
  CHECK(refusals > 0);

  // The Model is whole after all of it.
  REQUIRE(model->run().isOk());
  std::vector<float> after;
  REQUIRE(model->outputAsFloat32(0, after).isOk());
  CHECK(after == alone);
}

TEST_CASE("the op support table lists every dialect op once, sorted",
          "[api][compiler]") {
  std::vector<duet::compiler::OpRow> rows = duet::compiler::opSupportTable();
  REQUIRE(rows.size() > 40);
  CHECK(
      std::is_sorted(rows.begin(), rows.end(),
                     [](const auto &a, const auto &b) { return a.op < b.op; }));
  auto conv = std::find_if(rows.begin(), rows.end(), [](const auto &row) {
    return row.op == "aten.convolution";
  });
  REQUIRE(conv != rows.end());
  CHECK(conv->portable);
  std::vector<duet::compiler::BackendInfo> known =
      duet::compiler::knownBackends();
  REQUIRE(conv->backends.size() == known.size());
  auto xnnpack = std::find_if(known.begin(), known.end(), [](const auto &b) {
    return b.name == "xnnpack";
  });
  REQUIRE(xnnpack != known.end());
  const duet::compiler::OpSupport &support =
      conv->backends[xnnpack - known.begin()];
  CHECK(support.how == duet::compiler::OpSupport::How::native);
  CHECK(support.conditional);
}

TEST_CASE("every known backend has a title and documented options",
          "[api][compiler]") {
  for (const duet::compiler::BackendInfo &backend :
       duet::compiler::knownBackends()) {
    INFO(backend.name);
    CHECK(!backend.title.empty());
    for (const duet::compiler::BackendOption &option : backend.options)
      CHECK(!option.help.empty());
  }
}
