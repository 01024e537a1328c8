// The importer's NodeContext as a target builder uses it: after a helper
// fails and returns a missing value or type, the ops built from it neither
// crash nor read the missing value, and the node fails with the first error.

#include "compiler/import/NodeContext.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

using namespace mlir;
using duet::import::NodeContext;

namespace {

struct Fixture {
  MLIRContext context;
  OpBuilder builder{&context};
  OwningOpRef<ModuleOp> module;
  NodeContext ctx;
  Fixture()
      : ctx(init(), builder.getUnknownLoc(), {}, {},
            [](llvm::StringRef) -> llvm::Expected<Value> {
              return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                             "no tensors in this test");
            },
            {}) {}
  OpBuilder &init() {
    context.loadDialect<duet::aten::AtenDialect, arith::ArithDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    return builder;
  }
  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }
  std::string error() { return llvm::toString(ctx.finish()); }
};

} // namespace

TEST_CASE("an op built on a missing type fails the node instead of crashing",
          "[import]") {
  Fixture f;
  Value x = f.ctx.splat(f.f32({2, 3}), {false, 0, 1.5});
  REQUIRE(f.ctx.ok());
  Value missing;
  auto neg = f.ctx.create<duet::aten::NegOp>(NodeContext::typeOf(missing),
                                             missing);
  REQUIRE(neg);
  CHECK_FALSE(f.ctx.ok());
  CHECK(f.error().find("an op was built on a missing value") !=
        std::string::npos);
  // The ops after it still build, on what is there.
  auto neg2 = f.ctx.create<duet::aten::NegOp>(NodeContext::typeOf(x), x);
  CHECK(neg2);
}

TEST_CASE("after an error, the first error is the node's and missing values "
          "are stood in for",
          "[import]") {
  Fixture f;
  f.ctx.fail("argument 'dim': 7 is out of range for a tensor of rank 2");
  Value missing;
  auto neg = f.ctx.create<duet::aten::NegOp>(f.f32({2}), missing);
  REQUIRE(neg);
  CHECK(neg->getOperand(0));
  CHECK(f.ctx.castTo(missing, f.builder.getF16Type()));
  CHECK(f.error() ==
        "argument 'dim': 7 is out of range for a tensor of rank 2");
}

TEST_CASE("typeOf a missing value is a missing type", "[import]") {
  CHECK_FALSE(NodeContext::typeOf(Value()));
}
