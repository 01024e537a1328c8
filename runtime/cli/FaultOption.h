//===- FaultOption.h - --inject-fault and --fail-call ----------*- C++ -*-===//
//
// The option `run`, `bench`, `replay` and `bisect` share: planted node faults
// (LoadOptions::faults.nodes, runtime/core/Faults.h), for trying a checking
// tool on a program known to be wrong at one node (docs/debugging.md). And
// the one `run` and `bench` share: backend calls that fail on purpose
// (LoadOptions::faults.calls, runtime/backends/CallFaults.h), to see how a
// failing device or library is reported (docs/reliability.md).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_FAULTOPTION_H
#define DUET_RUNTIME_CLI_FAULTOPTION_H

#include "runtime/core/Runtime.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace duet::cli {

/// Adds `--inject-fault NODE:KIND[:VALUE]` (repeatable) to `cmd`.
void addInjectFaultOption(CLI::App &cmd, std::vector<std::string> &specs);

/// Parses `specs` into `faults`: KIND is add (with a finite VALUE), zero or
/// nan. kOk, or prints one error naming the spec and returns kBadInput.
int parseFaults(const std::vector<std::string> &specs,
                std::vector<runtime::NodeFault> &faults);

/// Adds `--fail-call CALL[:N]` (repeatable) to `cmd`.
void addFailCallOption(CLI::App &cmd, std::vector<std::string> &specs);

/// Parses `specs` into `calls`: CALL is a name of kBackendCallNames, N a
/// whole number from 1 (default 1). kOk, or prints one error naming the spec
/// and returns kBadInput.
int parseFailCalls(const std::vector<std::string> &specs,
                   std::vector<runtime::BackendCallFault> &calls);

/// Prints one note on stderr per fault planted in `runtime` (loaded with
/// LoadOptions::faults.nodes): where it acts.
void noteFaults(const rt::Runtime &runtime);

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_FAULTOPTION_H
