//===- VulkanTestSupport.cpp - compiling and running for Vulkan tests -----===//

#include "VulkanTestSupport.h"

#include "compiler/emit/ProgramEmitter.h"
#include "compiler/pipeline/Pipeline.h"
#include "dialects/aten/AtenDialect.h"
#include "dialects/duet/DuetDialect.h"
#include "runtime/core/DType.h"
#include "runtime/core/Npy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <sstream>

namespace duet::test {

namespace {
/// The backend options of a test compilation: texture-limits when given.
partition::BackendOptions
limitsOption(std::optional<std::array<int64_t, 3>> textureLimits) {
  partition::BackendOptions options;
  if (textureLimits)
    options.set("texture-limits", std::to_string((*textureLimits)[0]) + "," +
                                      std::to_string((*textureLimits)[1]) +
                                      "," +
                                      std::to_string((*textureLimits)[2]));
  return options;
}
} // namespace

Compiled compileMlir(const std::string &mlir,
                     std::optional<std::array<int64_t, 3>> textureLimits,
                     bool partition, bool forceFp16) {
  mlir::MLIRContext context;
  context.loadDialect<aten::AtenDialect, DuetDialect, mlir::arith::ArithDialect,
                      mlir::func::FuncDialect>();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(mlir, &context);
  INFO(diagnostics);
  REQUIRE(module);
  Compiled compiled;
  if (partition) {
    PartitionOptions options;
    options.backends = {"vulkan"};
    options.backendOptions = limitsOption(textureLimits);
    mlir::FailureOr<PartitionReport> report = partitionModule(*module, options);
    INFO(diagnostics);
    REQUIRE(mlir::succeeded(report));
    compiled.report = std::move(*report);
  }
  // As the pipeline does after partitioning: record the fusions (and any
  // XNNPACK layouts) the emitters write.
  bool lowered = mlir::succeeded(lowerDelegates(*module));
  INFO(diagnostics);
  REQUIRE(lowered);
  auto funcs = module->getOps<mlir::func::FuncOp>();
  REQUIRE(std::distance(funcs.begin(), funcs.end()) == 1);
  EmitStats stats;
  EmitOptions emit;
  emit.backendOptions.setFlag("force-fp16", forceFp16);
  bool emitted = mlir::succeeded(
      emitProgram(*funcs.begin(), compiled.program, stats, emit));
  INFO(diagnostics);
  REQUIRE(emitted);
  return compiled;
}

std::string expandConstants(const std::string &text) {
  std::string out;
  uint32_t state = 12345;
  size_t pos = 0;
  while (true) {
    size_t at = text.find_first_of('@', pos);
    if (at == std::string::npos || at + 2 >= text.size() ||
        (text[at + 1] != 'W' && text[at + 1] != 'P') || text[at + 2] != '(') {
      if (at == std::string::npos) {
        out += text.substr(pos);
        return out;
      }
      out += text.substr(pos, at + 1 - pos);
      pos = at + 1;
      continue;
    }
    bool positive = text[at + 1] == 'P';
    size_t close = text.find(')', at);
    std::string shape = text.substr(at + 3, close - at - 3);
    int64_t count = 1;
    std::stringstream dims(shape);
    std::string dim;
    while (std::getline(dims, dim, 'x'))
      count *= std::stoll(dim);
    std::string hex = "0x";
    static const char kDigits[] = "0123456789ABCDEF";
    for (int64_t i = 0; i < count; ++i) {
      state = state * 1664525u + 1013904223u;
      float value = static_cast<float>(state >> 8) / 16777216.0f * 4.0f - 2.0f;
      if (positive)
        value = value / 2.0f + 1.5f;
      uint8_t bytes[4];
      std::memcpy(bytes, &value, 4);
      for (uint8_t byte : bytes) {
        hex += kDigits[byte >> 4];
        hex += kDigits[byte & 15];
      }
    }
    out += text.substr(pos, at - pos) + "dense<\"" + hex + "\"> : tensor<" +
           shape + "xf32>";
    pos = close + 1;
  }
}

std::string modelPath(const std::string &file) {
  return std::string(DUET_MODELS_DIR) + "/" + file;
}

std::vector<uint8_t>
compileFixture(const std::string &file,
               const std::vector<std::string> &backends,
               std::optional<std::array<int64_t, 3>> textureLimits) {
  CompileOptions options;
  options.backends = backends;
  options.partition.backendOptions = limitsOption(textureLimits);
  llvm::Expected<CompileResult> result = compileModel(modelPath(file), options);
  if (!result) {
    std::string message = llvm::toString(result.takeError());
    FAIL(message);
  }
  return std::move(result->program);
}

rt::Status load(const std::vector<uint8_t> &program, bool reference,
                std::unique_ptr<rt::Runtime> &runtime) {
  rt::LoadOptions options;
  options.reference = reference;
  return load(program, options, runtime);
}

rt::Status load(const std::vector<uint8_t> &program,
                const rt::LoadOptions &options,
                std::unique_ptr<rt::Runtime> &runtime) {
  return rt::Runtime::loadFromBytes(program.data(), program.size(),
                                    options.reference ? "reference" : "vulkan",
                                    options, runtime);
}

void expectFixtureOutput(rt::Runtime &runtime, const std::string &name) {
  std::string notice;
  rt::Status status =
      runtime.setInputFromNpy(0, modelPath(name + ".input0.npy"), notice);
  INFO(status.message());
  REQUIRE(status.isOk());
  status = runtime.run();
  INFO(status.message());
  REQUIRE(status.isOk());
  rt::NpyArray expected;
  REQUIRE(rt::readNpy(modelPath(name + ".output0.npy"), expected).isOk());
  std::vector<float> reference(
      reinterpret_cast<const float *>(expected.data.data()),
      reinterpret_cast<const float *>(expected.data.data()) +
          expected.data.size() / sizeof(float));
  std::string why;
  bool close =
      closeEnough(outputFloats(runtime, 0), reference, 1e-4, 1e-5, why);
  INFO(why);
  CHECK(close);
}

void setRandomInputs(rt::Runtime &runtime, uint32_t seed) {
  uint32_t state = seed * 2654435761u + 1;
  for (size_t i = 0; i < runtime.inputCount(); ++i) {
    const rt::TensorInfo &info = runtime.inputInfo(i);
    rt::TensorView view;
    view.dtype = info.dtype;
    view.sizes = info.sizes;
    std::vector<uint8_t> bytes(info.nbytes);
    view.data = bytes.data();
    for (int64_t k = 0; k < view.numel(); ++k) {
      state = state * 1664525u + 1013904223u;
      float value = static_cast<float>(state >> 8) / 16777216.0f * 4.0f - 2.0f;
      if (info.dtype == rt::DType::f16)
        view.as<uint16_t>()[k] = rt::floatToHalf(value);
      else
        view.as<float>()[k] = value;
    }
    rt::Status status = runtime.setInput(i, view);
    INFO(status.message());
    REQUIRE(status.isOk());
  }
}

std::vector<float> outputFloats(const rt::Runtime &runtime, size_t index) {
  rt::TensorView view = runtime.output(index);
  std::vector<float> values(static_cast<size_t>(view.numel()));
  for (size_t k = 0; k < values.size(); ++k)
    values[k] = view.dtype == rt::DType::f16
                    ? rt::halfToFloat(view.as<uint16_t>()[k])
                    : view.as<float>()[k];
  return values;
}

bool closeEnough(const std::vector<float> &actual,
                 const std::vector<float> &expected, double rtol, double atol,
                 std::string &why) {
  if (actual.size() != expected.size()) {
    why = "sizes differ";
    return false;
  }
  double largest = 0, worst = 0;
  size_t worstAt = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    float a = actual[i], e = expected[i];
    if (!std::isfinite(e) || !std::isfinite(a)) {
      bool same = (std::isnan(a) && std::isnan(e)) || a == e;
      if (!same) {
        why = "element " + std::to_string(i) + ": " + std::to_string(a) +
              " where the reference has " + std::to_string(e);
        return false;
      }
      continue;
    }
    largest = std::max(largest, std::fabs(static_cast<double>(e)));
    double d = std::fabs(static_cast<double>(a) - e);
    if (d > worst) {
      worst = d;
      worstAt = i;
    }
  }
  double bound = rtol * largest + atol;
  if (worst <= bound)
    return true;
  why = "max abs diff " + std::to_string(worst) + " at element " +
        std::to_string(worstAt) + " (" + std::to_string(actual[worstAt]) +
        " vs " + std::to_string(expected[worstAt]) + ") > bound " +
        std::to_string(bound);
  return false;
}

} // namespace duet::test
