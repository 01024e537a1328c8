//===- duet.cpp - the duet command line ----------------------------------===//
//
// Each subcommand lives in its own file (`*Command.cpp`; run and bench in
// runtime/cli, shared with duet-run) and registers itself here. Messages go
// to stderr, data to stdout; exit codes are listed in runtime/cli/ExitCodes.h
// and docs/cli.md.
//
//===----------------------------------------------------------------------===//

#include "compiler/duet/Commands.h"

#include "runtime/core/Backend.h"

#include <map>

int main(int argc, char **argv) {
  using namespace duet::cli;
  CLI::App app{"duet: ahead-of-time compiler and partitioner for torch.export "
               "models (Vulkan GPU + XNNPACK CPU)"};
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
  return runTool(app, "duet " DUET_VERSION, runners, argc, argv);
}
