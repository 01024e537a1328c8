//===- ExitCodes.h - what duet's command-line tools exit with ---*- C++ -*-===//
//
// Shared by `duet` and `duet-run`, documented in docs/cli.md; CI scripts
// depend on the numbers (test/integration/docs-cli.test checks the table).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_EXITCODES_H
#define DUET_RUNTIME_CLI_EXITCODES_H

namespace duet::cli {

enum ExitCode : int {
  kOk = 0,
  /// Anything not listed below (including an internal error).
  kFailure = 1,
  /// The input model or program is malformed or unreadable as such.
  kBadInput = 2,
  /// The model uses an op, dtype or backend this build cannot handle.
  kUnsupported = 3,
  /// `--strict` and some op fell to the portable kernels.
  kStrictFallback = 4,
  /// A file could not be read or written.
  kIoError = 5,
  /// `duet run --expect`: an output differs from the reference; `duet-run
  /// replay`: a run's outputs differ from the first run's.
  kMismatch = 6,
};

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_EXITCODES_H
