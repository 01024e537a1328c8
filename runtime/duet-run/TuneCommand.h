//===- TuneCommand.h - duet-run tune ----------------------------*- C++ -*-===//

#ifndef DUET_RUNTIME_DUET_RUN_TUNECOMMAND_H
#define DUET_RUNTIME_DUET_RUN_TUNECOMMAND_H

#include "runtime/cli/Command.h"

namespace duet::cli {

/// `duet-run tune`: times programs instruction by instruction on this
/// machine and writes a target profile whose costs fit the times, for
/// `duet compile --target-profile` (docs/profiles.md, "Tuning").
Runner addTuneCommand(CLI::App &app);

} // namespace duet::cli

#endif // DUET_RUNTIME_DUET_RUN_TUNECOMMAND_H
