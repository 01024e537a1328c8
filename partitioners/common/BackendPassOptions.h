//===- BackendPassOptions.h - backend options as pass options ---*- C++ -*-===//
//
// The passes that partition or plan (`duet-partition`, `duet-vulkan-layout`)
// take the options of the backends as pass options of the same names and
// help, made from the backends' OptionSpecs rather than declared again in
// Passes.td, so that a backend's option reaches duet-opt without a line
// outside its folder. Values are text, as the backends parse them; a flag is
// `name=true`.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_BACKENDPASSOPTIONS_H
#define DUET_PARTITIONERS_COMMON_BACKENDPASSOPTIONS_H

#include "partitioners/common/BackendLowering.h"

#include "mlir/Pass/Pass.h"

#include <memory>
#include <vector>

namespace duet::partition {

class BackendPassOptions {
public:
  /// Adds to `pass` an option for each spec of `specs` that is not
  /// emitOnly. Every constructor of the pass, the copy constructor
  /// included, adds the same specs: Pass::clone copies option values by
  /// position.
  void add(mlir::Pass &pass, llvm::ArrayRef<OptionSpec> specs);
  /// The options given to the pass.
  BackendOptions values() const;

private:
  std::vector<std::unique_ptr<mlir::Pass::Option<std::string>>> options;
};

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_BACKENDPASSOPTIONS_H
