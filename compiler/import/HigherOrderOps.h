//===- HigherOrderOps.h - the higher-order ops duet inlines -----*- C++ -*-===//
//
// torch.export writes a region of forward() that runs under a context manager
// (`with torch.autocast(...)`, `with torch.no_grad()`) as a higher-order op:
// a node `torch.ops.higher_order.wrap_with_autocast` or
// `wrap_with_set_grad_enabled` whose arguments are the context's parameters,
// a submodule graph and the tensors that graph takes. duet imports such a
// node by inlining its graph where the node stands, when that computes what
// PyTorch does; every other higher-order op (cond, while_loop, map, ...) is
// unsupported.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_HIGHERORDEROPS_H
#define DUET_COMPILER_IMPORT_HIGHERORDEROPS_H

#include "compiler/import/JsonView.h"

#include "mlir/IR/BuiltinTypes.h"

#include <vector>

namespace duet::import {

/// How deep regions may nest (a region inside a region counts one more): a
/// bound on the importer's recursion, far above what models use.
constexpr unsigned kMaxRegionDepth = 32;

/// Whether `target` is a higher-order op (`torch.ops.higher_order.*`).
bool isHigherOrder(llvm::StringRef target);

/// Whether duet imports the higher-order op `target` by inlining its graph.
bool isInlinedHigherOrder(llvm::StringRef target);

/// The higher-order ops duet inlines, for messages
/// ("wrap_with_autocast and wrap_with_set_grad_enabled").
llvm::StringRef inlinedHigherOrderOps();

/// A higher-order node's positional arguments (torch.export writes them
/// unnamed), split at its submodule graph.
struct RegionCall {
  /// The arguments before the graph: the context's parameters.
  std::vector<JsonView> params;
  /// The submodule graph, as the schema's Graph.
  JsonView graph;
  /// The arguments after the graph: the tensors the graph takes, in order.
  std::vector<JsonView> operands;
};

/// Reads the inputs of a higher-order node that takes one submodule graph.
llvm::Expected<RegionCall> readRegionCall(const JsonView &node);

/// Why inlining the region of the inlined higher-order op `target` as written
/// would not compute what PyTorch does, or success. `regionTypes` are the
/// types recorded for the region's tensors. An enabled autocast region is
/// exact only when it casts nothing: autocast to float32 over float32 tensors.
/// The error is an unsupported one, its message without the node.
llvm::Error checkRegion(llvm::StringRef target, const RegionCall &call,
                        llvm::ArrayRef<mlir::RankedTensorType> regionTypes);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_HIGHERORDEROPS_H
