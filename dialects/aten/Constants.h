//===- Constants.h - reading and building constant tensors ------*- C++ -*-===//
//
// Weights reach the passes as `arith.constant` holding either a
// DenseElementsAttr (`dense<...>`) or a DenseResourceElementsAttr
// (`dense_resource<...>`, the importer's memory-mapped blobs). These helpers
// read both forms the same way and build the constants a rewrite produces, so
// no pass handles the two encodings or the float formats on its own.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_DIALECTS_ATEN_CONSTANTS_H
#define DUET_DIALECTS_ATEN_CONSTANTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace duet {

/// The elements of the `arith.constant` that defines `value`, or null when
/// `value` is not such a constant or its data cannot be read (a resource whose
/// blob is missing, e.g. elided).
mlir::ElementsAttr getConstantElements(mlir::Value value);

/// The bytes of a constant whose element type is a whole number of bytes wide:
/// `data` holds `byteWidth` bytes per element in row-major order, or a single
/// element that every position repeats when `splat` is set.
struct RawElements {
  llvm::ArrayRef<char> data;
  unsigned byteWidth = 0;
  bool splat = false;
};

/// The raw bytes of `attr`; std::nullopt for bit-packed (i1) elements, for a
/// missing resource blob, or for a blob whose size does not match its type.
std::optional<RawElements> getRawElements(mlir::ElementsAttr attr);

/// Whether `type` is one of the float element types the passes compute on:
/// f16, bf16, f32 or f64.
bool isComputableFloat(mlir::Type type);

/// The elements of a float constant as doubles (exact for every supported
/// format), one per element even when the attribute is a splat.
std::optional<llvm::SmallVector<double>>
readFloatElements(mlir::ElementsAttr attr);

/// The elements of an integer constant of 8 to 64 bits as int64 (unsigned
/// ones zero-extended), one per element even when the attribute is a splat;
/// std::nullopt for other element types.
std::optional<llvm::SmallVector<int64_t>>
readIntegerElements(mlir::ElementsAttr attr);

/// readFloatElements on the constant that defines `value`.
std::optional<llvm::SmallVector<double>> readFloatConstant(mlir::Value value);

/// `value` rounded to the nearest number of the float type `elementType`
/// (ties to even), as a double.
double roundToFloatType(double value, mlir::Type elementType);

/// A dense attribute of the float tensor type `type` holding `values`, each
/// rounded once to the element type (ties to even).
mlir::DenseElementsAttr makeFloatElements(mlir::RankedTensorType type,
                                          llvm::ArrayRef<double> values);

/// An `arith.constant` of `type` holding `values` (see makeFloatElements).
mlir::Value createFloatConstant(mlir::OpBuilder &builder, mlir::Location loc,
                                mlir::RankedTensorType type,
                                llvm::ArrayRef<double> values);

/// A 0-d `arith.constant dense<value> : tensor<elementType>`, the dialect's
/// form of a `.Scalar` argument.
mlir::Value createScalarConstant(mlir::OpBuilder &builder, mlir::Location loc,
                                 mlir::Type elementType, double value);

/// The value of a scalar constant: a float constant with one element (0-d, or
/// every dimension 1 so that it broadcasts like a scalar).
std::optional<double> getScalarConstant(mlir::Value value);

/// Whether `value` is a scalar constant equal to `expected` exactly.
bool isScalarConstant(mlir::Value value, double expected);

/// Whether `value` is a scalar constant within one unit in the last place of
/// its element type from `expected`: it accepts `expected` however it was
/// rounded into that type (1/6 as f32, f16 or bf16) and nothing further away.
bool isScalarConstantNear(mlir::Value value, double expected);

//===--- Index arithmetic on row-major data -------------------------------===//

/// The row-major strides of `shape`, in elements.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Strides that read an operand of shape `in` at every index of the broadcast
/// shape `out`: 0 along the dims it is broadcast over.
llvm::SmallVector<int64_t> broadcastStrides(llvm::ArrayRef<int64_t> in,
                                            llvm::ArrayRef<int64_t> out);

/// Walks the row-major indices of a shape and keeps, for each operand, the
/// element offset that index reads through the operand's strides; this avoids
/// a division per element. The strides must outlive the walker.
class OffsetWalker {
public:
  OffsetWalker(llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<llvm::SmallVector<int64_t>> strides)
      : shape(shape), strides(strides), index(shape.size(), 0),
        offsets(strides.size(), 0) {}

  int64_t offset(unsigned operand) const { return offsets[operand]; }
  void next();

private:
  llvm::ArrayRef<int64_t> shape;
  llvm::ArrayRef<llvm::SmallVector<int64_t>> strides;
  llvm::SmallVector<int64_t> index;
  llvm::SmallVector<int64_t> offsets;
};

/// The elements of `attr` that a result of type `resultType` reads: result
/// index i reads the element at `offset + sum(i[d] * strides[d])`, the one
/// re-indexing that permute and slice make; null where the bytes cannot be
/// read.
mlir::DenseElementsAttr readElements(mlir::ElementsAttr attr,
                                     llvm::ArrayRef<int64_t> strides,
                                     int64_t offset,
                                     mlir::RankedTensorType resultType);

/// The elements of `attr` reordered so that result dim `i` is input dim
/// `dims[i]`, as the attribute of type `resultType`.
mlir::DenseElementsAttr permuteElements(mlir::ElementsAttr attr,
                                        llvm::ArrayRef<int64_t> dims,
                                        mlir::RankedTensorType resultType);

} // namespace duet

#endif // DUET_DIALECTS_ATEN_CONSTANTS_H
