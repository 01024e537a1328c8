//===- ConstantUtils.cpp - reading and building constant tensors ----------===//

#include "passes/ConstantUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace duet {

ElementsAttr getConstantElements(Value value) {
  auto constant = value ? value.getDefiningOp<arith::ConstantOp>() : nullptr;
  if (!constant)
    return nullptr;
  auto attr = dyn_cast<ElementsAttr>(constant.getValue());
  if (!attr || !isa<RankedTensorType>(attr.getType()))
    return nullptr;
  if (isa<DenseElementsAttr>(attr))
    return attr;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    return resource.getRawHandle().getBlob() ? attr : nullptr;
  return nullptr;
}

std::optional<RawElements> getRawElements(ElementsAttr attr) {
  auto type = cast<ShapedType>(attr.getType());
  unsigned bits = type.getElementTypeBitWidth();
  if (bits < 8 || bits % 8)
    return std::nullopt;
  RawElements raw;
  raw.byteWidth = bits / 8;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    raw.data = dense.getRawData();
    raw.splat = dense.isSplat();
    return raw;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource)
    return std::nullopt;
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob)
    return std::nullopt;
  raw.data = blob->getData();
  if (raw.data.size() !=
      static_cast<size_t>(type.getNumElements()) * raw.byteWidth)
    return std::nullopt;
  return raw;
}

bool isComputableFloat(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// The APFloat semantics of a computable float type.
static const llvm::fltSemantics &semanticsOf(Type type) {
  return cast<FloatType>(type).getFloatSemantics();
}

/// Decodes one element of a computable float type from its little-endian
/// storage bytes.
static double decodeFloat(const char *bytes, Type type) {
  if (type.isF32()) {
    float f;
    std::memcpy(&f, bytes, sizeof f);
    return f;
  }
  if (type.isF64()) {
    double d;
    std::memcpy(&d, bytes, sizeof d);
    return d;
  }
  uint16_t bits;
  std::memcpy(&bits, bytes, sizeof bits);
  llvm::APFloat value(semanticsOf(type), llvm::APInt(16, bits));
  bool lost;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return value.convertToDouble();
}

/// Encodes `value` rounded to a computable float type into `bytes`.
static void encodeFloat(double value, Type type, char *bytes) {
  if (type.isF32()) {
    float f = static_cast<float>(value);
    std::memcpy(bytes, &f, sizeof f);
    return;
  }
  if (type.isF64()) {
    std::memcpy(bytes, &value, sizeof value);
    return;
  }
  llvm::APFloat converted(value);
  bool lost;
  converted.convert(semanticsOf(type), llvm::APFloat::rmNearestTiesToEven,
                    &lost);
  uint16_t bits =
      static_cast<uint16_t>(converted.bitcastToAPInt().getZExtValue());
  std::memcpy(bytes, &bits, sizeof bits);
}

/// One value per element of `attr` (a splat repeated), each decoded from its
/// storage bytes by `decode`.
template <typename T, typename Decode>
static std::optional<SmallVector<T>> decodeElements(ElementsAttr attr,
                                                    Decode decode) {
  std::optional<RawElements> raw = getRawElements(attr);
  if (!raw)
    return std::nullopt;
  int64_t count = cast<ShapedType>(attr.getType()).getNumElements();
  SmallVector<T> values;
  values.reserve(count);
  if (raw->splat) {
    values.assign(count, decode(raw->data.data()));
    return values;
  }
  for (int64_t i = 0; i < count; ++i)
    values.push_back(decode(raw->data.data() + i * raw->byteWidth));
  return values;
}

std::optional<SmallVector<double>> readFloatElements(ElementsAttr attr) {
  if (!attr)
    return std::nullopt;
  Type element = cast<ShapedType>(attr.getType()).getElementType();
  if (!isComputableFloat(element))
    return std::nullopt;
  return decodeElements<double>(
      attr, [&](const char *bytes) { return decodeFloat(bytes, element); });
}

std::optional<SmallVector<int64_t>> readIntegerElements(ElementsAttr attr) {
  if (!attr)
    return std::nullopt;
  auto element =
      dyn_cast<IntegerType>(cast<ShapedType>(attr.getType()).getElementType());
  if (!element || element.getWidth() < 8)
    return std::nullopt;
  unsigned width = element.getWidth();
  bool isUnsigned = element.isUnsigned();
  return decodeElements<int64_t>(attr, [=](const char *bytes) {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes, width / 8);
    return isUnsigned ? static_cast<int64_t>(bits)
                      : llvm::SignExtend64(bits, width);
  });
}

std::optional<SmallVector<double>> readFloatConstant(Value value) {
  return readFloatElements(getConstantElements(value));
}

double roundToFloatType(double value, Type elementType) {
  char bytes[8];
  encodeFloat(value, elementType, bytes);
  return decodeFloat(bytes, elementType);
}

DenseElementsAttr makeFloatElements(RankedTensorType type,
                                    ArrayRef<double> values) {
  Type element = type.getElementType();
  assert(isComputableFloat(element) && "not a computable float type");
  assert(static_cast<int64_t>(values.size()) == type.getNumElements() &&
         "one value per element");
  unsigned width = element.getIntOrFloatBitWidth() / 8;
  std::vector<char> bytes(values.size() * width);
  for (auto [i, v] : llvm::enumerate(values))
    encodeFloat(v, element, bytes.data() + i * width);
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

Value createFloatConstant(OpBuilder &builder, Location loc,
                          RankedTensorType type, ArrayRef<double> values) {
  return builder.create<arith::ConstantOp>(loc,
                                           makeFloatElements(type, values));
}

Value createScalarConstant(OpBuilder &builder, Location loc, Type elementType,
                           double value) {
  return createFloatConstant(builder, loc,
                             RankedTensorType::get({}, elementType), {value});
}

std::optional<double> getScalarConstant(Value value) {
  ElementsAttr attr = getConstantElements(value);
  if (!attr || cast<ShapedType>(attr.getType()).getNumElements() != 1)
    return std::nullopt;
  std::optional<SmallVector<double>> values = readFloatElements(attr);
  if (!values)
    return std::nullopt;
  return values->front();
}

bool isScalarConstant(Value value, double expected) {
  std::optional<double> actual = getScalarConstant(value);
  return actual && *actual == expected;
}

bool isScalarConstantNear(Value value, double expected) {
  std::optional<double> actual = getScalarConstant(value);
  if (!actual)
    return false;
  if (expected == 0 || !std::isfinite(expected))
    return *actual == expected;
  Type element = cast<ShapedType>(value.getType()).getElementType();
  int digits = llvm::APFloat::semanticsPrecision(semanticsOf(element));
  double ulp = std::ldexp(1.0, std::ilogb(expected) - (digits - 1));
  return std::fabs(*actual - expected) <= ulp;
}

} // namespace duet
