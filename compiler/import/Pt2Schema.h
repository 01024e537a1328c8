//===- Pt2Schema.h - the parts of the torch.export schema duet reads -*- C++
//-*-===//
//
// Facts of torch/_export/serde/schema.py that more than one part of the
// importer needs: the schema version duet reads, the dtype enumeration and
// TensorMeta (dtype, sizes, strides, storage offset).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_PT2SCHEMA_H
#define DUET_COMPILER_IMPORT_PT2SCHEMA_H

#include "compiler/import/JsonView.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

namespace duet::import {

/// The serialization schema major version duet reads (PyTorch 2.9 to 2.11).
constexpr int64_t kSchemaMajorVersion = 8;

/// A tensor's dtype, shape and placement in its storage.
struct TensorMeta {
  int64_t dtype = 0;
  mlir::Type elementType;
  /// Bytes per element in the serialized storage.
  unsigned elementBytes = 0;
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<int64_t> strides;
  /// In elements, not bytes.
  int64_t storageOffset = 0;

  mlir::RankedTensorType type() const {
    return mlir::RankedTensorType::get(sizes, elementType);
  }
};

/// The MLIR element type of schema dtype `dtype` and its size in bytes, or an
/// error listing the dtypes duet supports.
llvm::Expected<std::pair<mlir::Type, unsigned>>
elementTypeOf(int64_t dtype, mlir::MLIRContext &ctx);

/// Reads a TensorMeta object. A symbolic size or stride (`as_expr`) is a
/// dynamic-shape error.
llvm::Expected<TensorMeta> readTensorMeta(const JsonView &meta,
                                          mlir::MLIRContext &ctx);

/// Reads a SymInt union that must hold a concrete `as_int`; `what` names it in
/// the dynamic-shape error.
llvm::Expected<int64_t> readStaticSymInt(const JsonView &symInt,
                                         llvm::StringRef what);

/// The advice every dynamic-shape error ends with.
llvm::StringRef dynamicShapeAdvice();

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_PT2SCHEMA_H
