//===- BisectCommand.h - duet-run bisect ------------------------*- C++ -*-===//

#ifndef DUET_RUNTIME_DUET_RUN_BISECTCOMMAND_H
#define DUET_RUNTIME_DUET_RUN_BISECTCOMMAND_H

#include "runtime/cli/Command.h"

namespace duet::cli {

/// `duet-run bisect`: the first op, in execution order, whose result in the
/// program's delegates leaves the portable reference (docs/debugging.md).
Runner addBisectCommand(CLI::App &app);

} // namespace duet::cli

#endif // DUET_RUNTIME_DUET_RUN_BISECTCOMMAND_H
