//===- Commands.h - the subcommands of the duet CLI -------------*- C++ -*-===//
//
// The subcommands only the compiler's CLI has; `run` and `bench`, which
// duet-run has too, and the exit codes come from runtime/cli.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_DUET_COMMANDS_H
#define DUET_COMPILER_DUET_COMMANDS_H

#include "runtime/cli/Command.h"

namespace duet::cli {

Runner addImportCommand(CLI::App &app);
Runner addCompileCommand(CLI::App &app);
Runner addInspectCommand(CLI::App &app);
/// `duet devices`, in builds with a runtime backend that runs on devices.
Runner addDevicesCommand(CLI::App &app);

} // namespace duet::cli

#endif // DUET_COMPILER_DUET_COMMANDS_H
