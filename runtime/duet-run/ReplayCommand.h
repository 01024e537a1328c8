//===- ReplayCommand.h - duet-run replay ------------------------*- C++ -*-===//

#ifndef DUET_RUNTIME_DUET_RUN_REPLAYCOMMAND_H
#define DUET_RUNTIME_DUET_RUN_REPLAYCOMMAND_H

#include "runtime/cli/Command.h"

namespace duet::cli {

/// `duet-run replay`: many runs of a program on the same inputs, compared
/// with each other and with the reference (docs/debugging.md).
Runner addReplayCommand(CLI::App &app);

} // namespace duet::cli

#endif // DUET_RUNTIME_DUET_RUN_REPLAYCOMMAND_H
