//===- core_executor_test.cpp - programs run through the executor --------===//
//
// Expected values are worked out by hand in each case's comment.
//
//===----------------------------------------------------------------------===//

#include "core_test_support.h"

#include "runtime/core/Npy.h"
#include "runtime/core/Runtime.h"

#include <cmath>

using namespace duet::rt;
using namespace duet::rt::test;

namespace {

std::vector<float> outputValues(const Runtime &runtime, size_t index) {
  TensorView view = runtime.output(index);
  REQUIRE(view.present());
  REQUIRE(view.dtype == DType::f32);
  return std::vector<float>(view.as<float>(), view.as<float>() + view.numel());
}

TensorView floatView(std::vector<float> &values, std::vector<int64_t> sizes) {
  TensorView view;
  view.dtype = DType::f32;
  view.sizes = std::move(sizes);
  view.data = values.data();
  return view;
}

std::unique_ptr<Runtime> loadRuntime(const std::vector<uint8_t> &bytes,
                                     const LoadOptions &options) {
  std::unique_ptr<Runtime> runtime;
  Status status = Runtime::loadFromBytes(bytes.data(), bytes.size(),
                                         "test.duet", options, runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  return runtime;
}

/// `y = f(x)` for x, y of f32 [2, 3], where f is delegate 0 on `backend` with
/// a blob holding 3.0; the recorded ops compute the same f in aten form:
/// inner = x * k (k = 3.0, a constant), y = relu(inner) — so the backend
/// (a plain scale) and the reference agree on non-negative inputs.
ProgramBuilder delegateProgram(const std::string &backend,
                               const std::string &mulNode = "",
                               const std::string &reluNode = "") {
  ProgramBuilder builder;
  int32_t x =
      builder.addTensor(tensor("x", DType::f32, {2, 3}, TensorKind::input, 0));
  int32_t k =
      builder.addConstant(tensor("k", DType::f32, {}, TensorKind::constant),
                          bytesOf(std::vector<float>{3.0f}));
  int32_t inner = builder.addTensor(
      tensor("inner", DType::f32, {2, 3}, TensorKind::delegateInternal));
  int32_t y = builder.addTensor(
      tensor("y", DType::f32, {2, 3}, TensorKind::output, 64));
  builder.setInputs({x});
  builder.setOutputs({y});
  DelegateSpec delegate;
  delegate.backend = backend;
  delegate.blob = bytesOf(std::vector<float>{3.0f});
  delegate.ops = {{"aten.mul", {}, {x, k}, {inner}, mulNode},
                  {"aten.relu", {}, {inner}, {y}, reluNode}};
  uint32_t index = builder.addDelegate(delegate);
  builder.addDelegateCall({index, {x}, {y}});
  builder.setMemoryPlan({128, 48});
  return builder;
}

} // namespace

// add then relu on the portable kernels: x + 2*c with
// x = [1, 2, 3, -4, -5, 6], c = [1, -1, 0.5, -2, 3, -0.25] is
// [3, 0, 4, -8, 1, 5.5], and relu gives [3, 0, 4, 0, 1, 5.5].
TEST_CASE("executor runs add and relu on the portable kernels", "[executor]") {
  std::vector<uint8_t> bytes = serialize(addReluProgram());
  std::unique_ptr<Runtime> runtime = loadRuntime(bytes, LoadOptions());
  REQUIRE(runtime->inputCount() == 1);
  REQUIRE(runtime->outputCount() == 1);
  CHECK(runtime->inputInfo(0).name == "x");
  CHECK(runtime->inputInfo(0).sizes == std::vector<int64_t>{2, 3});
  CHECK(runtime->outputInfo(0).name == "y");
  CHECK(runtime->outputInfo(0).dtype == DType::f32);

  std::vector<float> x = {1, 2, 3, -4, -5, 6};
  REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
  Status status = runtime->run();
  INFO(status.message());
  REQUIRE(status.isOk());
  CHECK(outputValues(*runtime, 0) == std::vector<float>{3, 0, 4, 0, 1, 5.5f});

  // A second run with new inputs: x = 0 gives relu(2c) = [2, 0, 1, 0, 6, 0].
  std::vector<float> zeros(6, 0.0f);
  REQUIRE(runtime->setInput(0, floatView(zeros, {2, 3})).isOk());
  REQUIRE(runtime->run().isOk());
  CHECK(outputValues(*runtime, 0) == std::vector<float>{2, 0, 1, 0, 6, 0});
}

// LoadOptions::faults.nondeterminismPeriod 3 changes the runs numbered 2
// and 5 of 0..6: their first output element is 1 more than the 3 of
// relu(x + 2c) = [3, 0, 4, 0, 1, 5.5] (the case above), the rest are exact.
TEST_CASE("a planted fault changes every K-th run", "[executor][faults]") {
  LoadOptions options;
  options.faults.nondeterminismPeriod = 3;
  std::unique_ptr<Runtime> runtime =
      loadRuntime(serialize(addReluProgram()), options);
  std::vector<float> x = {1, 2, 3, -4, -5, 6};
  for (int run = 0; run < 7; ++run) {
    REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
    REQUIRE(runtime->run().isOk());
    float first = run % 3 == 2 ? 4.0f : 3.0f;
    INFO("run " << run);
    CHECK(outputValues(*runtime, 0) ==
          std::vector<float>{first, 0, 4, 0, 1, 5.5f});
  }
}

// A node fault (LoadOptions::faults.nodes) on a kernel call acts after its
// kernel, so the ops after it read the wrong value: with 10 added at the add
// node, s = [3, 0, 4, -8, 1, 5.5] + 10 and relu leaves [13, 10, 14, 2, 11,
// 15.5]. The observer sees s and y, in that order, right after their steps.
TEST_CASE("a node fault acts after its kernel, and the observer sees it",
          "[executor][faults]") {
  LoadOptions options;
  options.faults.nodes = {{"add_1", duet::runtime::FaultKind::add, 10.0}};
  std::vector<std::pair<int32_t, std::vector<float>>> seen;
  options.observer = [&](int32_t id, const TensorView &value) {
    seen.push_back({id, std::vector<float>(value.as<float>(),
                                           value.as<float>() + value.numel())});
  };
  std::vector<uint8_t> bytes = serialize(addReluProgram("add_1", "relu_1"));
  std::unique_ptr<Runtime> runtime = loadRuntime(bytes, options);
  std::vector<float> x = {1, 2, 3, -4, -5, 6};
  REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
  REQUIRE(runtime->run().isOk());
  std::vector<float> y = {13, 10, 14, 2, 11, 15.5f};
  CHECK(outputValues(*runtime, 0) == y);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].second == std::vector<float>{13, 10, 14, 2, 11, 15.5f});
  CHECK(seen[1].second == y);

  // zero at the relu: the output is all 0; nan: all NaN.
  options.observer = nullptr;
  options.faults.nodes = {{"relu_1", duet::runtime::FaultKind::zero, 0}};
  runtime = loadRuntime(bytes, options);
  REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
  REQUIRE(runtime->run().isOk());
  CHECK(outputValues(*runtime, 0) == std::vector<float>(6, 0.0f));
  options.faults.nodes = {{"relu_1", duet::runtime::FaultKind::nan, 0}};
  runtime = loadRuntime(bytes, options);
  REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
  REQUIRE(runtime->run().isOk());
  for (float v : outputValues(*runtime, 0))
    CHECK(std::isnan(v));
}

// A node no op computes fails the load, naming it.
TEST_CASE("a fault at an unknown node fails the load", "[executor][faults]") {
  std::vector<uint8_t> bytes = serialize(addReluProgram("add_1", "relu_1"));
  LoadOptions options;
  options.faults.nodes = {{"conv1", duet::runtime::FaultKind::nan, 0}};
  std::unique_ptr<Runtime> runtime;
  Status status = Runtime::loadFromBytes(bytes.data(), bytes.size(),
                                         "test.duet", options, runtime);
  CHECK(status.message() ==
        "test.duet: fault at node 'conv1': no op of the program computes a "
        "node of that name; `duet inspect --json` gives each op's \"node\"");
}

// Kernels come from the lookup in LoadOptions when one is given: here an
// "aten.add" that writes 7 everywhere and an "aten.relu" that adds 1,
// so y = 8 whatever x is.
TEST_CASE("executor takes kernels from the load options", "[executor]") {
  LoadOptions options;
  options.kernels = [](std::string_view op) -> KernelFn {
    if (op == "aten.add")
      return [](const OpAttrs &attrs, const std::vector<TensorView> &,
                const std::vector<TensorView> &out) {
        // The attribute arrives under its recorded name.
        if (attrs.getFloat("alpha") != 2.0)
          return Status::error("alpha missing");
        for (int64_t i = 0; i < out[0].numel(); ++i)
          out[0].as<float>()[i] = 7;
        return Status::ok();
      };
    if (op == "aten.relu")
      return [](const OpAttrs &, const std::vector<TensorView> &in,
                const std::vector<TensorView> &out) {
        for (int64_t i = 0; i < out[0].numel(); ++i)
          out[0].as<float>()[i] = in[0].as<float>()[i] + 1;
        return Status::ok();
      };
    return nullptr;
  };
  std::unique_ptr<Runtime> runtime =
      loadRuntime(serialize(addReluProgram()), options);
  std::vector<float> x(6, -100.0f);
  REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
  REQUIRE(runtime->run().isOk());
  CHECK(outputValues(*runtime, 0) == std::vector<float>(6, 8.0f));
}

// A kernel's error comes back with the program and the instruction.
TEST_CASE("executor reports a failing kernel", "[executor]") {
  LoadOptions options;
  options.kernels = [](std::string_view) -> KernelFn {
    return [](const OpAttrs &, const std::vector<TensorView> &,
              const std::vector<TensorView> &) {
      return Status::error("aten.add: shapes do not broadcast");
    };
  };
  std::unique_ptr<Runtime> runtime =
      loadRuntime(serialize(addReluProgram()), options);
  CHECK(runtime->run().message() ==
        "test.duet: instruction 0: aten.add: shapes do not broadcast");
}

// A DelegateCall runs on its registered backend: the blob's scale 3 turns
// x = [0, 1, 2, 3, 4, 5] into [0, 3, 6, 9, 12, 15]. The backend prepares
// the delegate once and executes it on every run.
TEST_CASE("executor runs a delegate on its backend", "[executor]") {
  auto backend = std::make_shared<ScaleBackend>("fakegpu");
  BackendRegistry backends;
  REQUIRE(backends.add(backend).isOk());
  LoadOptions options;
  options.backends = &backends;
  std::unique_ptr<Runtime> runtime =
      loadRuntime(serialize(delegateProgram("fakegpu")), options);
  CHECK(backend->inits == 1);
  CHECK(backend->lastIndex == 0);
  std::vector<float> x = {0, 1, 2, 3, 4, 5};
  REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
  REQUIRE(runtime->run().isOk());
  REQUIRE(runtime->run().isOk());
  CHECK(backend->executions == 2);
  CHECK(outputValues(*runtime, 0) == std::vector<float>{0, 3, 6, 9, 12, 15});
}

// In reference mode the recorded ops run instead, on portable kernels, with
// the delegate's internal tensor given memory: x = [-1, 1, -2, 2, 0, 5]
// gives x*3 = [-3, 3, -6, 6, 0, 15] and relu [0, 3, 0, 6, 0, 15]. The
// backend need not be registered and is never asked.
TEST_CASE("reference mode runs a delegate's recorded ops", "[executor]") {
  auto backend = std::make_shared<ScaleBackend>("fakegpu");
  BackendRegistry backends;
  REQUIRE(backends.add(backend).isOk());
  std::vector<uint8_t> bytes = serialize(delegateProgram("fakegpu"));
  for (const BackendRegistry *registry :
       {static_cast<const BackendRegistry *>(&backends),
        static_cast<const BackendRegistry *>(nullptr)}) {
    LoadOptions options;
    options.reference = true;
    options.backends = registry;
    std::unique_ptr<Runtime> runtime = loadRuntime(bytes, options);
    std::vector<float> x = {-1, 1, -2, 2, 0, 5};
    REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
    Status status = runtime->run();
    INFO(status.message());
    REQUIRE(status.isOk());
    CHECK(outputValues(*runtime, 0) == std::vector<float>{0, 3, 0, 6, 0, 15});
  }
  CHECK(backend->inits == 0);
  CHECK(backend->executions == 0);
}

// In reference mode a fault at a delegate's op acts after its portable
// kernel, and the observer sees the delegate's internal tensor: zeroing the
// mul gives inner = 0 and y = relu(0) = 0.
TEST_CASE("reference mode plants a fault at a delegate's op",
          "[executor][faults]") {
  ProgramBuilder builder = delegateProgram("fakegpu", "mul_1", "relu_1");
  LoadOptions options;
  options.reference = true;
  options.faults.nodes = {{"mul_1", duet::runtime::FaultKind::zero, 0}};
  std::vector<int32_t> seen;
  options.observer = [&](int32_t id, const TensorView &) {
    seen.push_back(id);
  };
  std::unique_ptr<Runtime> runtime = loadRuntime(serialize(builder), options);
  std::vector<float> x = {-1, 1, -2, 2, 0, 5};
  REQUIRE(runtime->setInput(0, floatView(x, {2, 3})).isOk());
  REQUIRE(runtime->run().isOk());
  CHECK(outputValues(*runtime, 0) == std::vector<float>(6, 0.0f));
  // inner (tensor 2), then y (tensor 3).
  CHECK(seen == std::vector<int32_t>{2, 3});
}

// Outside reference mode, an unregistered backend stops the load.
TEST_CASE("a delegate on an unregistered backend fails to load", "[executor]") {
  BackendRegistry backends;
  REQUIRE(backends.add(std::make_shared<ScaleBackend>("xnnpack")).isOk());
  LoadOptions options;
  options.backends = &backends;
  std::vector<uint8_t> bytes = serialize(delegateProgram("fakegpu"));
  std::unique_ptr<Runtime> runtime;
  Status status = Runtime::loadFromBytes(bytes.data(), bytes.size(),
                                         "test.duet", options, runtime);
  CHECK(status.message() ==
        "test.duet: delegate 0 needs the 'fakegpu' backend, which this "
        "runtime has not registered (registered: xnnpack); register it, or "
        "run in reference mode to use the portable kernels");
  CHECK_FALSE(runtime);
}

// A backend that cannot prepare its blob fails the load, and says which
// delegate it was.
TEST_CASE("a backend's init error names the delegate", "[executor]") {
  BackendRegistry backends;
  REQUIRE(backends.add(std::make_shared<ScaleBackend>("fakegpu")).isOk());
  LoadOptions options;
  options.backends = &backends;
  ProgramBuilder builder;
  int32_t x =
      builder.addTensor(tensor("x", DType::f32, {1}, TensorKind::input, 0));
  int32_t y =
      builder.addTensor(tensor("y", DType::f32, {1}, TensorKind::output, 64));
  builder.setInputs({x});
  builder.setOutputs({y});
  builder.addDelegate({"fakegpu", {1, 2, 3}, {}});
  builder.addDelegateCall({0, {x}, {y}});
  builder.setMemoryPlan({128, 8});
  std::vector<uint8_t> bytes = serialize(builder);
  std::unique_ptr<Runtime> runtime;
  Status status = Runtime::loadFromBytes(bytes.data(), bytes.size(),
                                         "test.duet", options, runtime);
  CHECK(status.message() ==
        "test.duet: instruction 0: initializing delegate 0 on fakegpu: "
        "expected a 4-byte blob, got 3 bytes");
}

// The registry refuses a second backend of the same name.
TEST_CASE("backend registry", "[executor]") {
  BackendRegistry backends;
  REQUIRE(backends.add(std::make_shared<ScaleBackend>("vulkan")).isOk());
  CHECK(backends.add(std::make_shared<ScaleBackend>("vulkan")).message() ==
        "a backend named 'vulkan' is already registered");
  CHECK(backends.find("vulkan") != nullptr);
  CHECK(backends.find("xnnpack") == nullptr);
  CHECK(backends.names() == std::vector<std::string>{"vulkan"});
}

// The Runtime API checks what the caller hands it.
TEST_CASE("runtime API errors", "[executor]") {
  std::unique_ptr<Runtime> runtime =
      loadRuntime(serialize(addReluProgram()), LoadOptions());
  std::vector<float> x(4, 0.0f);
  CHECK(runtime->setInput(0, floatView(x, {4})).message() ==
        "test.duet: input 0 (x) takes float32 of shape [2, 3], not float32 of "
        "shape [4]");
  CHECK(runtime->setInput(1, floatView(x, {4})).message() ==
        "test.duet: there is no input 1; the program has 1");
  CHECK_FALSE(runtime->output(1).present());
  std::string notice;
  CHECK(runtime->writeOutputNpy(3, "/tmp/unused.npy", notice).message() ==
        "test.duet: there is no output 3; the program has 1");
}

// .npy in and out through the Runtime: the same add/relu as above.
TEST_CASE("runtime reads inputs from and writes outputs to .npy",
          "[executor]") {
  std::unique_ptr<Runtime> runtime =
      loadRuntime(serialize(addReluProgram()), LoadOptions());
  TempFile input("x.npy"), output("y.npy");
  std::vector<float> x = {1, 2, 3, -4, -5, 6};
  std::string notice;
  REQUIRE(writeNpy(input.path(), floatView(x, {2, 3}), notice).isOk());
  REQUIRE(runtime->setInputFromNpy(0, input.path(), notice).isOk());
  CHECK(notice.empty());
  REQUIRE(runtime->run().isOk());
  REQUIRE(runtime->writeOutputNpy(0, output.path(), notice).isOk());
  NpyArray y;
  REQUIRE(readNpy(output.path(), y).isOk());
  CHECK(y.dtype == DType::f32);
  CHECK(y.sizes == std::vector<int64_t>{2, 3});
  std::vector<float> values(6);
  std::memcpy(values.data(), y.data.data(), 24);
  CHECK(values == std::vector<float>{3, 0, 4, 0, 1, 5.5f});
}
