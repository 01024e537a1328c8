//===- CoreAten.cpp - the core ATen opset duet measures itself by ---------===//

#include "compiler/import/CoreAten.h"

#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace {

constexpr StringRef kCore[] = {
#define DUET_CORE_ATEN(op) op,
#include "compiler/import/CoreAtenOps.inc"
};

const StringSet<> &decomposed() {
  static const StringSet<> set = {
#define DUET_EXPORT_DECOMPOSED(op) op,
#include "compiler/import/CoreAtenOps.inc"
  };
  return set;
}

} // namespace

ArrayRef<StringRef> duet::import::coreAtenOps() { return kCore; }

StringRef duet::import::coreAtenTorchVersion() {
#include "compiler/import/CoreAtenOps.inc"
  return DUET_CORE_ATEN_TORCH;
}

bool duet::import::decomposedByExport(StringRef target) {
  return target.consume_front("torch.ops.aten.") &&
         decomposed().contains(target);
}
