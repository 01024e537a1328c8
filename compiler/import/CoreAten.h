//===- CoreAten.h - the core ATen opset duet measures itself by -*- C++ -*-===//
//
// The overloads of torch.ops.aten that PyTorch tags `core` (the opset any
// model lowers to with run_decompositions(), and that ExecuTorch's portable
// library covers), and those that run_decompositions() rewrites, as
// tools/core_aten_ops.py read them from the PyTorch the fixtures come from
// (compiler/import/core_aten_ops.json). docs/ops.md's coverage table and
// the import error's advice come from them.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_COREATEN_H
#define DUET_COMPILER_IMPORT_COREATEN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace duet::import {

/// Every core overload, as "op.overload" (`add.Tensor`).
llvm::ArrayRef<llvm::StringRef> coreAtenOps();

/// The PyTorch version the list was read from.
llvm::StringRef coreAtenTorchVersion();

/// Whether run_decompositions() rewrites `target`
/// (`torch.ops.aten.op.overload`) into other ops.
bool decomposedByExport(llvm::StringRef target);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_COREATEN_H
