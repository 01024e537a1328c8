//===- ExitCodes.h - what duet's command-line tools exit with ---*- C++ -*-===//
//
// Shared by `duet` and `duet-run`, documented in docs/cli.md; CI scripts
// depend on the numbers (test/integration/docs-cli.test checks the table).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_EXITCODES_H
#define DUET_RUNTIME_CLI_EXITCODES_H

#include "duet/status.h"

namespace duet::cli {

/// The library's ErrorCode numbers (include/duet/status.h), which the tools
/// exit with as they are, and the one code only a tool gives.
enum ExitCode : int {
  kOk = static_cast<int>(ErrorCode::ok),
  /// Anything not listed below (including an internal error).
  kFailure = static_cast<int>(ErrorCode::failure),
  /// The input model or program is malformed or unreadable as such.
  kBadInput = static_cast<int>(ErrorCode::badInput),
  /// The model uses an op, dtype or backend this build cannot handle.
  kUnsupported = static_cast<int>(ErrorCode::unsupported),
  /// `--strict` and some op fell to the portable kernels.
  kStrictFallback = static_cast<int>(ErrorCode::strictFallback),
  /// A file could not be read or written.
  kIoError = static_cast<int>(ErrorCode::ioError),
  /// `duet run --expect`: an output differs from the reference; `duet-run
  /// replay`: a run's outputs differ from the first run's.
  kMismatch = 6,
};

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_EXITCODES_H
