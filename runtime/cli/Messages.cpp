//===- Messages.cpp - how the tools report errors -------------------------===//

#include "runtime/cli/Messages.h"

#include "runtime/cli/Environment.h"
#include "runtime/cli/PrintableText.h"

#include <fmt/core.h>

#include <cstdio>
#include <unistd.h>

namespace duet::cli {

bool useColor() {
  return environmentValue("NO_COLOR").empty() && isatty(fileno(stderr));
}

void printError(const std::string &message) {
  // Messages quote names and bytes read from files.
  std::string text = printableMessage(message);
  if (useColor())
    fmt::print(stderr, "\033[1;31merror:\033[0m {}\n", text);
  else
    fmt::print(stderr, "error: {}\n", text);
}

} // namespace duet::cli
