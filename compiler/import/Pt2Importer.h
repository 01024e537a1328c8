//===- Pt2Importer.h - torch.export .pt2 archives to the aten dialect -*- C++
//-*-===//
//
// Reads a `.pt2` archive written by torch.export.save (schema major version 8)
// into a module holding one `func.func @forward` of aten-dialect ops. The
// function's arguments are the model's user inputs and its results the user
// outputs, in order, each named by a `duet.name` attribute. Parameters, buffers
// and constants become `arith.constant dense_resource<...>` values whose bytes
// stay in the memory-mapped archive whenever they are stored uncompressed and
// contiguous.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_PT2IMPORTER_H
#define DUET_COMPILER_IMPORT_PT2IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace duet::import {

/// The attribute naming a function argument or result after the model's input
/// or output.
constexpr llvm::StringLiteral kNameAttr = "duet.name";

/// How the weights reached the module.
struct ImportStats {
  /// Parameters, buffers and constants the graph uses.
  size_t tensors = 0;
  /// Bytes used in place, inside the file mapping.
  uint64_t bytesMapped = 0;
  /// Bytes the importer copied: gathered strided views, misaligned data and
  /// entries that had to be inflated.
  uint64_t bytesCopied = 0;
};

/// An imported module together with the memory its weights live in (the file
/// mapping and any copied buffers). The module's resource blobs point into that
/// memory, so the module must not be used after this object is destroyed; on
/// destruction the blobs are emptied so the context keeps no dangling pointer.
class ImportedProgram {
public:
  ImportedProgram(ImportedProgram &&) noexcept;
  ImportedProgram &operator=(ImportedProgram &&) noexcept;
  ~ImportedProgram();

  mlir::ModuleOp module() const { return *moduleOp; }
  const ImportStats &stats() const;

  /// The memory behind the resource blobs; defined by the importer.
  struct Storage;

private:
  friend llvm::Expected<ImportedProgram> importPt2(llvm::StringRef path,
                                                   mlir::MLIRContext &ctx);
  friend llvm::Expected<ImportedProgram>
  importPt2FromMemory(llvm::ArrayRef<char> bytes, llvm::StringRef name,
                      mlir::MLIRContext &ctx);
  ImportedProgram(std::unique_ptr<Storage> storage,
                  mlir::OwningOpRef<mlir::ModuleOp> moduleOp);

  // Declared first so that it is destroyed after the module.
  std::unique_ptr<Storage> storage;
  mlir::OwningOpRef<mlir::ModuleOp> moduleOp;
};

/// Imports the archive at `path`. Loads the dialects it needs into `ctx`. On
/// failure the error is one line that starts with `path` and names the node,
/// the op or the entry at fault and what to do; when the model uses several
/// nodes duet has no op for, a DetailedError (ImportError.h) lists every such
/// target with its nodes on lines below that one.
llvm::Expected<ImportedProgram> importPt2(llvm::StringRef path,
                                          mlir::MLIRContext &ctx);

/// Imports an archive given as bytes (a model in memory, a fuzzer's input):
/// as importPt2, with `name` standing for the file in errors and locations.
/// The bytes are copied, so they need not outlive the call.
llvm::Expected<ImportedProgram> importPt2FromMemory(llvm::ArrayRef<char> bytes,
                                                    llvm::StringRef name,
                                                    mlir::MLIRContext &ctx);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_PT2IMPORTER_H
