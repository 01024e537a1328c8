//===- FaultOption.cpp - --inject-fault and --fail-call -------------------===//

#include "runtime/cli/FaultOption.h"

#include "runtime/backends/CallFaults.h"
#include "runtime/cli/ExitCodes.h"
#include "runtime/cli/Messages.h"
#include "runtime/cli/PrintableText.h"
#include "runtime/core/Faults.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace duet::cli {

void addInjectFaultOption(CLI::App &cmd, std::vector<std::string> &specs) {
  cmd.add_option("--inject-fault", specs,
                 "fault injection, for trying a check: NODE:add:VALUE, "
                 "NODE:zero or NODE:nan makes the result of .pt2 node NODE "
                 "(`duet inspect --json` \"node\") wrong where it is computed, "
                 "inside its Vulkan or XNNPACK partition or after its "
                 "portable kernel (LoadOptions::faults); repeatable");
}

int parseFaults(const std::vector<std::string> &specs,
                std::vector<runtime::NodeFault> &faults) {
  for (const std::string &spec : specs) {
    auto bad = [&](const std::string &why) {
      printError(fmt::format("--inject-fault '{}': {}; give NODE:add:VALUE, "
                             "NODE:zero or NODE:nan",
                             printableName(spec), why));
      return kBadInput;
    };
    size_t colon = spec.find(':');
    if (colon == std::string::npos || colon == 0)
      return bad("no node name before a ':'");
    runtime::NodeFault fault;
    fault.node = spec.substr(0, colon);
    std::string kind = spec.substr(colon + 1), value;
    if (size_t second = kind.find(':'); second != std::string::npos) {
      value = kind.substr(second + 1);
      kind = kind.substr(0, second);
    }
    if (kind == "add") {
      char *end = nullptr;
      fault.value = value.empty() ? NAN : std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !std::isfinite(fault.value))
        return bad(fmt::format("add needs a finite number to add, got '{}'",
                               printableName(value)));
      fault.kind = runtime::FaultKind::add;
    } else if (kind == "zero" || kind == "nan") {
      if (!value.empty())
        return bad(fmt::format("{} takes no value", kind));
      fault.kind =
          kind == "zero" ? runtime::FaultKind::zero : runtime::FaultKind::nan;
    } else {
      return bad(fmt::format("unknown kind '{}' (add, zero or nan)",
                             printableName(kind)));
    }
    faults.push_back(std::move(fault));
  }
  return kOk;
}

namespace {

/// "vulkan.allocate, vulkan.pipeline, ...".
std::string callNames() {
  std::vector<std::string> names;
  for (const rt::BackendCallName &entry : rt::kBackendCallNames)
    names.push_back(entry.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

} // namespace

void addFailCallOption(CLI::App &cmd, std::vector<std::string> &specs) {
  cmd.add_option("--fail-call", specs,
                 "fault injection, for trying failure handling: CALL[:N] "
                 "makes the N-th call (default 1) of CALL of each delegate "
                 "of its backend fail as a failing device or library would (" +
                     callNames() +
                     "; LoadOptions::faults.calls, docs/reliability.md); "
                     "repeatable");
}

int parseFailCalls(const std::vector<std::string> &specs,
                   std::vector<runtime::BackendCallFault> &calls) {
  for (const std::string &spec : specs) {
    auto bad = [&](const std::string &why) {
      printError(fmt::format("--fail-call '{}': {}; give CALL or CALL:N, "
                             "CALL one of {}",
                             printableName(spec), why, callNames()));
      return kBadInput;
    };
    size_t colon = spec.find(':');
    std::string name = spec.substr(0, colon);
    runtime::BackendCallFault fault;
    if (!rt::parseBackendCall(name, fault.call))
      return bad(fmt::format("unknown call '{}'", printableName(name)));
    if (colon != std::string::npos) {
      std::string count = spec.substr(colon + 1);
      char *end = nullptr;
      unsigned long n = std::strtoul(count.c_str(), &end, 10);
      if (count.empty() || *end != '\0' || count[0] == '-' || n == 0 ||
          n > UINT32_MAX)
        return bad(fmt::format("N must be a whole number from 1, got '{}'",
                               printableName(count)));
      fault.occurrence = static_cast<uint32_t>(n);
    }
    calls.push_back(fault);
  }
  return kOk;
}

void noteFaults(const rt::Runtime &runtime) {
  const rt::Program &program = runtime.program();
  std::vector<rt::TensorFault> faults;
  if (!rt::resolveFaults(program, faults).isOk())
    return;
  for (const rt::TensorFault &fault : faults) {
    std::string where = "after its portable kernel";
    if (const auto *call = std::get_if<rt::DelegateCall>(
            &program.instructions()[fault.instruction]))
      where =
          program.referenceMode()
              ? "after its portable kernel (reference mode)"
              : fmt::format(
                    "inside {} delegate {}",
                    printableName(program.delegates()[call->delegate].backend),
                    call->delegate);
    fmt::print(stderr, "note: --inject-fault: {} planted {}, on {}\n",
               rt::describeFault(fault), where,
               printableName(program.describeTensor(fault.tensor)));
  }
}

} // namespace duet::cli
