// dialects/aten/Constants: reading and building float constants in every format
// the passes compute on, from dense and dense_resource attributes alike.

#include "dialects/aten/Constants.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace mlir;

namespace {

struct Fixture {
  MLIRContext context;
  OpBuilder builder{&context};
  OwningOpRef<ModuleOp> module;

  Fixture() {
    context.loadDialect<duet::aten::AtenDialect, arith::ArithDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }

  Value constant(Attribute attr) {
    return builder.create<arith::ConstantOp>(builder.getUnknownLoc(),
                                             cast<TypedAttr>(attr));
  }
};

} // namespace

TEST_CASE_METHOD(Fixture, "f16 and bf16 round-trip exactly through double") {
  for (Type element : {Type(builder.getF16Type()), Type(builder.getBF16Type()),
                       Type(builder.getF32Type())}) {
    auto type = tensor({4}, element);
    // Each value is exact in all three formats.
    SmallVector<double> values = {1.5, -0.375, 1024.0, 0.0};
    DenseElementsAttr attr = duet::makeFloatElements(type, values);
    std::optional<SmallVector<double>> read = duet::readFloatElements(attr);
    REQUIRE(read);
    CHECK(*read == values);
  }
}

TEST_CASE_METHOD(Fixture, "values are rounded once, to nearest even") {
  // 1 + 2^-11 lies halfway between the f16 neighbours 1 and 1 + 2^-10: ties
  // to even give 1. 1/6 in bf16 is 0.1669921875.
  CHECK(duet::roundToFloatType(1.0 + std::ldexp(1.0, -11),
                               builder.getF16Type()) == 1.0);
  CHECK(duet::roundToFloatType(1.0 / 6.0, builder.getBF16Type()) ==
        0.1669921875);
  CHECK(std::isinf(duet::roundToFloatType(1e6, builder.getF16Type())));
}

TEST_CASE_METHOD(Fixture, "a splat is read as one value per element") {
  auto type = tensor({2, 3}, builder.getF32Type());
  auto attr = DenseElementsAttr::get(type, builder.getF32FloatAttr(2.5));
  std::optional<SmallVector<double>> read = duet::readFloatElements(attr);
  REQUIRE(read);
  CHECK(read->size() == 6);
  CHECK(llvm::all_of(*read, [](double v) { return v == 2.5; }));
}

TEST_CASE_METHOD(Fixture, "integers read sign- or zero-extended to int64") {
  auto i64 = tensor({3}, builder.getI64Type());
  auto attr = DenseElementsAttr::get(i64, ArrayRef<int64_t>{-3, 0, 1LL << 40});
  CHECK(duet::readIntegerElements(attr) ==
        SmallVector<int64_t>{-3, 0, 1LL << 40});
  auto i8 = tensor({2}, builder.getIntegerType(8));
  CHECK(duet::readIntegerElements(DenseElementsAttr::get(
            i8, ArrayRef<int8_t>{-1, 5})) == SmallVector<int64_t>{-1, 5});
  auto u8 = tensor({2}, builder.getIntegerType(8, /*isSigned=*/false));
  CHECK(duet::readIntegerElements(DenseElementsAttr::get(
            u8, ArrayRef<uint8_t>{255, 5})) == SmallVector<int64_t>{255, 5});
  auto splat = DenseElementsAttr::get(tensor({2, 2}, builder.getI32Type()),
                                      builder.getI32IntegerAttr(7));
  CHECK(duet::readIntegerElements(splat) == SmallVector<int64_t>(4, 7));
  // Neither float nor bit-packed booleans are integers here.
  CHECK_FALSE(duet::readIntegerElements(DenseElementsAttr::get(
      tensor({1}, builder.getF32Type()), builder.getF32FloatAttr(1))));
  CHECK_FALSE(duet::readIntegerElements(DenseElementsAttr::get(
      tensor({2}, builder.getI1Type()), ArrayRef<bool>{true, false})));
}

TEST_CASE_METHOD(Fixture, "a dense_resource blob reads like a dense constant") {
  float data[] = {1.0f, -2.0f, 0.5f};
  auto type = tensor({3}, builder.getF32Type());
  auto attr = DenseResourceElementsAttr::get(
      type, "weights",
      HeapAsmResourceBlob::allocateAndCopyInferAlign(
          ArrayRef<char>(reinterpret_cast<const char *>(data), sizeof data)));
  Value value = constant(attr);
  REQUIRE(duet::getConstantElements(value));
  std::optional<SmallVector<double>> read = duet::readFloatConstant(value);
  REQUIRE(read);
  CHECK(*read == SmallVector<double>{1.0, -2.0, 0.5});
}

TEST_CASE_METHOD(Fixture, "a resource blob of the wrong size is not read") {
  float data[] = {1.0f, 2.0f};
  auto type = tensor({3}, builder.getF32Type());
  auto attr = DenseResourceElementsAttr::get(
      type, "short",
      HeapAsmResourceBlob::allocateAndCopyInferAlign(
          ArrayRef<char>(reinterpret_cast<const char *>(data), sizeof data)));
  CHECK_FALSE(duet::readFloatConstant(constant(attr)));
}

TEST_CASE_METHOD(Fixture, "scalars match exactly or within one ulp") {
  Value six = duet::createScalarConstant(builder, builder.getUnknownLoc(),
                                         builder.getF32Type(), 6.0);
  CHECK(duet::isScalarConstant(six, 6.0));
  CHECK_FALSE(duet::isScalarConstant(six, 5.0));

  // 1/6 as stored in f16 and in f32 both match 1/6; 0.1667 does not in f32.
  for (Type element :
       {Type(builder.getF16Type()), Type(builder.getF32Type())}) {
    Value sixth = duet::createScalarConstant(builder, builder.getUnknownLoc(),
                                             element, 1.0 / 6.0);
    CHECK(duet::isScalarConstantNear(sixth, 1.0 / 6.0));
  }
  Value near = duet::createScalarConstant(builder, builder.getUnknownLoc(),
                                          builder.getF32Type(), 0.1667);
  CHECK_FALSE(duet::isScalarConstantNear(near, 1.0 / 6.0));

  // A one-element tensor of higher rank counts as a scalar; two elements do
  // not.
  Value one = constant(
      duet::makeFloatElements(tensor({1, 1}, builder.getF32Type()), {3.0}));
  CHECK(duet::getScalarConstant(one) == 3.0);
  Value two = constant(
      duet::makeFloatElements(tensor({2}, builder.getF32Type()), {3.0, 3.0}));
  CHECK_FALSE(duet::getScalarConstant(two));
}
