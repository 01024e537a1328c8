//===- GraphScan.h - what a graph holds, read before import -----*- C++ -*-===//
//
// Facts the importer reads off a whole graph (and the submodule graphs of its
// higher-order ops) before it builds the first op, so that one error can name
// everything wrong of its kind: every op duet lacks with the nodes using it,
// every symbol a tensor's shape depends on. Also how nodes are named, which
// those errors and the import share.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_GRAPHSCAN_H
#define DUET_COMPILER_IMPORT_GRAPHSCAN_H

#include "compiler/import/JsonView.h"

#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <vector>

namespace duet::import {

/// A node's outputs, flattened: one name per tensor (a tensor list gives one
/// per element), "" for a None or non-tensor output.
llvm::Expected<llvm::SmallVector<std::string>>
nodeOutputNames(const JsonView &node);

/// A node's name: the one newer exporters record, else its first named
/// output, else "#<index>".
std::string nodeName(const JsonView &node, llvm::ArrayRef<std::string> outputs,
                     size_t index);

/// A target duet does not import and the nodes that use it, in graph order.
/// The tensor names a graph reads: node arguments and graph outputs, in its
/// submodule graphs too (a union of their scopes, so a name counts as read
/// when any scope reads it). Nothing when the JSON nests too deep to walk:
/// then every name may be read.
std::optional<llvm::StringSet<>> namesRead(const JsonView &graph);

/// Whether `node` is one duet may leave out: a target no static program
/// holds that writes nothing (`rand` for a LayerDrop draw in eval mode), none
/// of whose outputs is read.
bool isUnreadUnsupported(const JsonView &node,
                         const std::optional<llvm::StringSet<>> &read);

/// Why the ATen target `target` has no place in a static inference program
/// (a gradient, a random draw, a symbolic size, a data-dependent shape), or
/// "" for an op duet simply does not implement.
std::string outsideStaticInference(llvm::StringRef target);

struct UnsupportedTarget {
  std::string target;
  std::vector<std::string> nodes;
};

/// Every target of `graph` and of the graphs duet inlines (wrap_with_autocast,
/// ...) that is neither in the op table nor an inlined higher-order op, in
/// order of first use. Malformed nodes are skipped: the import reports them.
/// The targets duet does not import, with their nodes, leaving out the
/// nodes `isUnreadUnsupported` says may be left out.
std::vector<UnsupportedTarget>
unsupportedTargets(const JsonView &graph,
                   const std::optional<llvm::StringSet<>> &read);

/// The error for node `name`, whose `target` duet does not import (an op
/// outside the table or a higher-order op it does not inline), in a model
/// whose unsupported targets are `all`: its first line names the node, as
/// for a single one; when the model has more nodes without an op, the lines
/// below list every target with its nodes (a DetailedError).
llvm::Error unsupportedTargetError(llvm::StringRef name, llvm::StringRef target,
                                   llvm::ArrayRef<UnsupportedTarget> all);

/// The symbols (`s77`) that the sizes, strides or storage offsets of the
/// tensors of `graph` and of every submodule graph in it depend on, in order
/// of first use; a symbolic expression naming no symbol is listed whole.
std::vector<std::string> shapeSymbols(const JsonView &graph);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_GRAPHSCAN_H
