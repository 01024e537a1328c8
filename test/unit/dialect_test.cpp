// The dialects as a C++ user of them sees them: ops built with the generated
// builders verify when their shapes are right and say why when they are not.

#include "dialects/aten/AtenDialect.h"
#include "dialects/duet/DuetDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <catch2/catch.hpp>

#include <string>

using namespace mlir;

namespace {

struct Fixture {
  MLIRContext context;
  OpBuilder builder{&context};
  std::string diagnostics;
  ScopedDiagnosticHandler handler{&context, [this](Diagnostic &d) {
                                    diagnostics += d.str() + "\n";
                                    return success();
                                  }};
  /// Every op of a test lives in this module, so it goes away with the test.
  OwningOpRef<ModuleOp> module;
  Fixture() {
    context.loadDialect<duet::aten::AtenDialect, duet::DuetDialect,
                        arith::ArithDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }
  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }
  /// A placeholder value of the given type, from an op that is never verified.
  Value value(Type type) {
    OperationState state(builder.getUnknownLoc(), "test.source");
    state.addTypes(type);
    return builder.create(state)->getResult(0);
  }
};

} // namespace

TEST_CASE("convolution computes its output shape", "[aten]") {
  Fixture f;
  auto make = [&](ArrayRef<int64_t> resultShape) {
    return f.builder.create<duet::aten::ConvolutionOp>(
        f.builder.getUnknownLoc(), f.f32(resultShape),
        f.value(f.f32({1, 3, 8, 8})), f.value(f.f32({16, 3, 3, 3})),
        f.value(f.f32({16})), f.builder.getDenseI64ArrayAttr({2, 2}),
        f.builder.getDenseI64ArrayAttr({1, 1}),
        f.builder.getDenseI64ArrayAttr({1, 1}),
        f.builder.getDenseI64ArrayAttr({0, 0}), f.builder.getI64IntegerAttr(1),
        f.builder.getBoolAttr(false));
  };
  auto good = make({1, 16, 4, 4});
  CHECK(succeeded(verify(good)));
  auto bad = make({1, 16, 8, 8});
  CHECK(failed(verify(bad)));
  CHECK_THAT(f.diagnostics,
             Catch::Contains("result shape [1, 16, 8, 8] does not match the "
                             "computed shape [1, 16, 4, 4]"));
  good->erase();
  bad->erase();
}

TEST_CASE("binary ops broadcast and keep one element type", "[aten]") {
  Fixture f;
  Value x = f.value(f.f32({2, 1, 4})), y = f.value(f.f32({3, 1}));
  auto add = f.builder.create<duet::aten::AddOp>(
      f.builder.getUnknownLoc(), f.f32({2, 3, 4}), x, y,
      f.builder.getF64FloatAttr(1.0));
  CHECK(succeeded(verify(add)));
  Value half = f.value(RankedTensorType::get({3, 1}, f.builder.getF16Type()));
  auto mixed = f.builder.create<duet::aten::MulOp>(f.builder.getUnknownLoc(),
                                                   f.f32({2, 3, 4}), x, half);
  CHECK(failed(verify(mixed)));
  CHECK_THAT(f.diagnostics, Catch::Contains("share one element type"));
  add->erase();
  mixed->erase();
}

TEST_CASE("a Vulkan layout pairs storage with a packing it can have",
          "[duet]") {
  Fixture f;
  auto ok = duet::VkLayoutAttr::getChecked(
      [&] { return emitError(f.builder.getUnknownLoc()); }, &f.context,
      duet::Storage::texture3d, duet::PackedDim::width_packed);
  CHECK(ok);
  auto bad = duet::VkLayoutAttr::getChecked(
      [&] { return emitError(f.builder.getUnknownLoc()); }, &f.context,
      duet::Storage::buffer, duet::PackedDim::channels_packed);
  CHECK_FALSE(bad);
  CHECK_THAT(f.diagnostics, Catch::Contains("a buffer is contiguous"));
}
