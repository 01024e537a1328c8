//===- core_test_support.h - programs and helpers the core tests share ----===//

#ifndef DUET_TEST_RUNTIME_CORE_TEST_SUPPORT_H
#define DUET_TEST_RUNTIME_CORE_TEST_SUPPORT_H

#include "runtime/core/Backend.h"
#include "runtime/core/Program.h"
#include "runtime/core/ProgramBuilder.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace duet::rt::test {

/// A kernel that accepts anything and does nothing: for programs that are
/// only loaded.
inline Status acceptAnything(const OpAttrs &, const std::vector<TensorView> &,
                             const std::vector<TensorView> &) {
  return Status::ok();
}

/// Options whose kernel lookup knows every op, so a test can load a program
/// without caring which kernels exist.
inline LoadOptions anyKernelOptions(const BackendRegistry *backends) {
  LoadOptions options;
  options.backends = backends;
  options.kernels = [](std::string_view) -> KernelFn {
    return &acceptAnything;
  };
  return options;
}

inline TensorInfo tensor(std::string name, DType dtype,
                         std::vector<int64_t> sizes, TensorKind kind,
                         int64_t arenaOffset = -1) {
  TensorInfo info;
  info.name = std::move(name);
  info.dtype = dtype;
  info.sizes = std::move(sizes);
  info.kind = kind;
  info.arenaOffset = arenaOffset;
  return info;
}

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  if (!bytes.empty())
    std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

/// `y = relu(x + 2 * c)` on [2, 3] float32, with c a constant:
/// x input (arena 0), c constant, s activation (arena 64), y output (arena
/// 128); the two calls' nodes are `addNode` and `reluNode`.
inline ProgramBuilder addReluProgram(const std::string &addNode = "",
                                     const std::string &reluNode = "") {
  ProgramBuilder builder;
  int32_t x =
      builder.addTensor(tensor("x", DType::f32, {2, 3}, TensorKind::input, 0));
  int32_t c = builder.addConstant(
      tensor("c", DType::f32, {2, 3}, TensorKind::constant),
      bytesOf(std::vector<float>{1, -1, 0.5f, -2, 3, -0.25f}));
  int32_t s = builder.addTensor(
      tensor("s", DType::f32, {2, 3}, TensorKind::activation, 64));
  int32_t y = builder.addTensor(
      tensor("y", DType::f32, {2, 3}, TensorKind::output, 128));
  builder.setInputs({x});
  builder.setOutputs({y});
  builder.addKernelCall({"aten.add", {{"alpha", 2.0}}, {x, c}, {s}, addNode});
  builder.addKernelCall({"aten.relu", {}, {s}, {y}, reluNode});
  builder.setMemoryPlan({192, 192});
  return builder;
}

inline std::vector<uint8_t> serialize(const ProgramBuilder &builder) {
  std::vector<uint8_t> bytes;
  Status status = builder.serialize(bytes);
  INFO(status.message());
  REQUIRE(status.isOk());
  return bytes;
}

/// Loads `bytes` as "test.duet"; returns the status.
inline Status loadBytes(const std::vector<uint8_t> &bytes,
                        const LoadOptions &options,
                        std::unique_ptr<Program> &program) {
  return Program::loadFromBytes(bytes.data(), bytes.size(), "test.duet",
                                options, program);
}

/// A backend for tests: its blob is one float32 `scale`, and a call writes
/// `input * scale` (float32) to its output. It counts what it is asked.
class ScaleBackend final : public Backend {
public:
  explicit ScaleBackend(std::string name) : name_(std::move(name)) {}

  std::string_view name() const override { return name_; }

  Status init(const Program &, uint32_t index, ByteSpan blob,
              const DelegateIo &,
              std::unique_ptr<PreparedDelegate> &prepared) override {
    ++inits;
    lastIndex = index;
    if (blob.size != sizeof(float))
      return Status::error("expected a 4-byte blob, got {} bytes", blob.size);
    auto delegate = std::make_unique<Prepared>();
    std::memcpy(&delegate->scale, blob.data, sizeof(float));
    prepared = std::move(delegate);
    return Status::ok();
  }

  Status execute(PreparedDelegate &delegate,
                 const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs) override {
    ++executions;
    float scale = static_cast<Prepared &>(delegate).scale;
    const float *in = inputs.at(0).as<float>();
    float *out = outputs.at(0).as<float>();
    for (int64_t i = 0; i < outputs[0].numel(); ++i)
      out[i] = in[i] * scale;
    return Status::ok();
  }

  int inits = 0;
  int executions = 0;
  uint32_t lastIndex = ~0u;

private:
  struct Prepared final : PreparedDelegate {
    float scale = 0;
  };
  std::string name_;
};

/// A file in the system's temporary folder, removed when the test ends.
class TempFile {
public:
  explicit TempFile(const std::string &name);
  ~TempFile();
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace duet::rt::test

#endif // DUET_TEST_RUNTIME_CORE_TEST_SUPPORT_H
