//===- OpTable.h - the ATen targets duet imports ----------------*- C++ -*-===//
//
// One entry per serialized target (`torch.ops.aten.conv2d.default`): the
// schema defaults of the arguments a node may omit, and the builder that turns
// the node into aten-dialect ops. A target outside the table is an error; the
// importer never guesses.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_OPTABLE_H
#define DUET_COMPILER_IMPORT_OPTABLE_H

#include "compiler/import/NodeContext.h"

#include <string>
#include <vector>

namespace duet::import {

/// What running the op does to its first argument.
enum class Effect {
  /// A new value; the arguments are unchanged.
  Functional,
  /// Writes its result into `self` (`relu_`, `add_.Tensor`). Imported as the
  /// functional op; refused when `self` is a model input, parameter or
  /// buffer, and `self`'s old value may not be used afterwards.
  InPlace,
};

/// Builds the ops of one node; reports problems through `ctx.fail`.
using OpBuildFn = void (*)(NodeContext &ctx);

struct OpEntry {
  std::string target;
  OpBuildFn build;
  std::vector<ArgDefault> defaults;
  Effect effect = Effect::Functional;
};

/// The entry for a serialized target, or null when duet does not support it.
const OpEntry *lookupOp(llvm::StringRef target);

/// Every supported target, sorted.
const std::vector<std::string> &supportedTargets();

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_OPTABLE_H
