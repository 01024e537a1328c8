//===- GraphImporter.h - an ExportedProgram to a module ---------*- C++ -*-===//
//
// Walks the ExportedProgram JSON (graph_module.graph and its signature) and
// builds `func.func @forward`: user inputs become arguments, parameters,
// buffers and constants become resource constants, every node goes through
// the op table, and the user outputs are returned.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_GRAPHIMPORTER_H
#define DUET_COMPILER_IMPORT_GRAPHIMPORTER_H

#include "compiler/import/JsonView.h"
#include "compiler/import/Pt2Archive.h"
#include "compiler/import/Pt2Importer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace duet::import {

/// The memory the module's weights live in, and what was done to get them.
struct WeightMemory {
  Pt2Archive *archive = nullptr;
  /// Contiguous copies of weights that could not be used in place.
  std::vector<std::unique_ptr<llvm::WritableMemoryBuffer>> copies;
  /// Every blob the module refers to, emptied when the memory goes away.
  std::vector<mlir::DenseResourceElementsHandle> blobs;
  ImportStats stats;
};

/// The inputs of buildProgram: the parsed model and payload configs.
struct ProgramJson {
  JsonView program;
  /// The `config` objects of model_weights_config.json and
  /// model_constants_config.json, when the archive has them.
  std::optional<JsonView> weights;
  std::optional<JsonView> constants;
};

/// Builds the module of `json`. `fileName` goes into locations. Errors are
/// one line without the file name (the caller prefixes it).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildProgram(mlir::MLIRContext &ctx, llvm::StringRef fileName,
             const ProgramJson &json, WeightMemory &memory);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_GRAPHIMPORTER_H
