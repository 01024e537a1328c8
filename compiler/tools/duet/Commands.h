//===- Commands.h - the subcommands of the duet CLI -------------*- C++ -*-===//

#ifndef DUET_COMPILER_TOOLS_DUET_COMMANDS_H
#define DUET_COMPILER_TOOLS_DUET_COMMANDS_H

#include <CLI/CLI.hpp>

#include <functional>

namespace duet::cli {

/// Exit codes, documented in docs/cli.md; CI scripts depend on them.
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
  /// `duet run --expect`: an output differs from the reference.
  kMismatch = 6,
};

/// Adds a subcommand to `app`; the returned function runs it after parsing.
using Runner = std::function<int()>;
Runner addImportCommand(CLI::App &app);
Runner addCompileCommand(CLI::App &app);
Runner addRunCommand(CLI::App &app);
Runner addInspectCommand(CLI::App &app);
Runner addBenchCommand(CLI::App &app);
/// `duet devices`, in builds with a runtime backend that runs on devices.
Runner addDevicesCommand(CLI::App &app);

/// Whether messages may use colour: stderr is a terminal and NO_COLOR is unset.
bool useColor();
/// Prints "error: <message>" on stderr.
void printError(const std::string &message);

} // namespace duet::cli

#endif // DUET_COMPILER_TOOLS_DUET_COMMANDS_H
