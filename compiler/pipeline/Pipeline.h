//===- Pipeline.h - .pt2 in, .duet out --------------------------*- C++ -*-===//
//
// The whole compiler as one call: import, the graph passes, partitioning and
// per-backend legalization, the lowering of each partition for its emitter
// (its backend's passes, then duet-fuse-activations), then the program
// emitter.
// The CLI and the library API are thin layers over this.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_PIPELINE_PIPELINE_H
#define DUET_COMPILER_PIPELINE_PIPELINE_H

#include "compiler/emit/ProgramEmitter.h"
#include "compiler/import/Pt2Importer.h"
#include "partitioners/Partitioner.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace duet {

/// The delegate backends whose programs this build can write, in the
/// default priority order.
std::vector<std::string> emittableBackends();

struct CompileOptions {
  /// Delegate backends in priority order; "portable" entries are dropped (it
  /// is always the last resort). Empty: emittableBackends().
  std::vector<std::string> backends;
  /// The backends' options (partition.backendOptions) go to partitioning
  /// and to the emitters alike; partition.backends is set from `backends`.
  PartitionOptions partition;
  /// The most work one run of the program may take (runtime/core/OpWork.h's
  /// workBound steps); 0: kDefaultMaxWork. A model over it is refused,
  /// naming the op that takes the most, as the loader would refuse it.
  double maxWork = 0;
};

/// Why a compile failed, for distinct exit codes.
enum class CompileErrorKind { badInput, unsupported, internal };

struct CompileResult {
  std::vector<uint8_t> program;
  import::ImportStats importStats;
  EmitStats emitStats;
  PartitionReport report;
  /// The backends actually used, in priority order.
  std::vector<std::string> backends;
};

/// Compiles the archive at `path`. The error message is one line naming what
/// is at fault; `errorKind` (when given) says which kind it was.
llvm::Expected<CompileResult> compileModel(llvm::StringRef path,
                                           const CompileOptions &options,
                                           CompileErrorKind *errorKind = nullptr);

} // namespace duet

#endif // DUET_COMPILER_PIPELINE_PIPELINE_H
