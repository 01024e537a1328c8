//===- BackendPassOptions.cpp - backend options as pass options -----------===//

#include "partitioners/common/BackendPassOptions.h"

namespace duet::partition {

void BackendPassOptions::add(mlir::Pass &pass,
                             llvm::ArrayRef<OptionSpec> specs) {
  for (const OptionSpec &spec : specs)
    if (!spec.emitOnly)
      options.push_back(std::make_unique<mlir::Pass::Option<std::string>>(
          pass, spec.name, llvm::cl::desc(spec.help)));
}

BackendOptions BackendPassOptions::values() const {
  BackendOptions values;
  for (const auto &option : options)
    if (option->hasValue())
      values.set(option->getArgStr(), *option);
  return values;
}

} // namespace duet::partition
