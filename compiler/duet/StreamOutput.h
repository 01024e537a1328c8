//===- StreamOutput.h - outputs the compiler streams out --------*- C++ -*-===//
//
// The IR printer writes to an llvm::raw_ostream; this puts such a writer
// behind the tools' PendingOutput (runtime/cli/OutputFiles.h), so a streamed
// output follows the same rules as every other.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_DUET_STREAMOUTPUT_H
#define DUET_COMPILER_DUET_STREAMOUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace duet::cli {

/// Writes `path` through `write`; kOk, or prints one error and returns
/// kIoError.
int writeOutput(const std::string &path,
                llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace duet::cli

#endif // DUET_COMPILER_DUET_STREAMOUTPUT_H
