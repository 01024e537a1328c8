//===- duet.cpp - the duet command line ----------------------------------===//
//
// Each subcommand lives in its own file (`*Command.cpp`) and registers
// itself here. Messages go to stderr, data to stdout; exit codes are listed in
// Commands.h and docs/cli.md.
//
//===----------------------------------------------------------------------===//

#include "compiler/tools/duet/Commands.h"
#include "compiler/tools/duet/PrintableText.h"

#include "runtime/core/Backend.h"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <unistd.h>

namespace duet::cli {

bool useColor() {
  const char *noColor = std::getenv("NO_COLOR");
  return (!noColor || !*noColor) && isatty(fileno(stderr));
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

int main(int argc, char **argv) {
  using namespace duet::cli;
  CLI::App app{"duet: ahead-of-time compiler and partitioner for torch.export "
               "models (Vulkan GPU + XNNPACK CPU)"};
  app.set_version_flag("--version", "duet " DUET_VERSION);
  app.require_subcommand(0, 1);
  std::map<std::string, Runner> runners = {
      {"import", addImportCommand(app)},
      {"compile", addCompileCommand(app)},
      {"run", addRunCommand(app)},
      {"inspect", addInspectCommand(app)},
      {"bench", addBenchCommand(app)},
  };
  duet::rt::BackendRegistry &runtime = duet::rt::defaultBackends();
  for (const std::string &name : runtime.names())
    if (runtime.find(name)->listsDevices()) {
      runners.emplace("devices", addDevicesCommand(app));
      break;
    }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version end parsing with success; a bad command line is
    // bad input (exit 2), reported like every other error.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return app.exit(e);
    printError(fmt::format("{}; run with --help for the options", e.what()));
    return kBadInput;
  }
  for (CLI::App *sub : app.get_subcommands())
    return runners.at(sub->get_name())();
  fmt::print("{}", app.help());
  return kOk;
}
