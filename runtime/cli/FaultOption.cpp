//===- FaultOption.cpp - --inject-fault NODE:KIND[:VALUE] -----------------===//

#include "runtime/cli/FaultOption.h"

#include "runtime/cli/ExitCodes.h"
#include "runtime/cli/Messages.h"
#include "runtime/cli/PrintableText.h"
#include "runtime/core/Faults.h"

#include <fmt/core.h>

#include <cmath>
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
