//===- Constants.cpp - reading and building constant tensors --------------===//

#include "dialects/aten/Constants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <vector>

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

//===----------------------------------------------------------------------===//
// Index arithmetic on row-major data
//===----------------------------------------------------------------------===//

SmallVector<int64_t> duet::rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

SmallVector<int64_t> duet::broadcastStrides(ArrayRef<int64_t> in,
                                            ArrayRef<int64_t> out) {
  SmallVector<int64_t> strides(out.size(), 0);
  SmallVector<int64_t> own = rowMajorStrides(in);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1)
      strides[lead + i] = own[i];
  return strides;
}

void duet::OffsetWalker::next() {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (++index[d] < shape[d]) {
      for (auto [o, s] : llvm::zip(offsets, strides))
        o += s[d];
      return;
    }
    for (auto [o, s] : llvm::zip(offsets, strides))
      o -= (shape[d] - 1) * s[d];
    index[d] = 0;
  }
}

DenseElementsAttr duet::readElements(ElementsAttr attr,
                                     ArrayRef<int64_t> strides, int64_t offset,
                                     RankedTensorType resultType) {
  std::optional<RawElements> raw = getRawElements(attr);
  if (!raw)
    return nullptr;
  unsigned width = raw->byteWidth;
  if (raw->splat)
    return DenseElementsAttr::getFromRawBuffer(resultType,
                                               raw->data.take_front(width));
  SmallVector<SmallVector<int64_t>> walked = {SmallVector<int64_t>(strides)};
  OffsetWalker walker(resultType.getShape(), walked);
  int64_t count = resultType.getNumElements();
  std::vector<char> bytes(count * width);
  for (int64_t i = 0; i < count; ++i, walker.next())
    std::memcpy(bytes.data() + i * width,
                raw->data.data() + (offset + walker.offset(0)) * width, width);
  return DenseElementsAttr::getFromRawBuffer(resultType, bytes);
}

DenseElementsAttr duet::permuteElements(ElementsAttr attr,
                                        ArrayRef<int64_t> dims,
                                        RankedTensorType resultType) {
  auto inShape = cast<ShapedType>(attr.getType()).getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape), source;
  for (int64_t d : dims)
    source.push_back(inStrides[d]);
  return readElements(attr, source, 0, resultType);
}
