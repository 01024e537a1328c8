//===- duet-run.cpp - running duet programs without the compiler ----------===//
//
// The tool a user copies next to a program: it links the runtime alone (no
// LLVM or MLIR). `run` and `bench` are duet's own (runtime/cli); `replay`
// `bisect` and `tune` are its own. Messages, files and exit codes follow
// docs/cli.md.
//
//===----------------------------------------------------------------------===//

#include "runtime/cli/Command.h"
#include "runtime/duet-run/BisectCommand.h"
#include "runtime/duet-run/ReplayCommand.h"
#include "runtime/duet-run/TuneCommand.h"

int main(int argc, char **argv) {
  using namespace duet::cli;
  CLI::App app{
      "duet-run: run, time, replay and bisect duet programs (.duet) with the "
      "runtime alone, without the compiler"};
  // A braced list is evaluated in order: the help lists the commands so.
  return runTool(app, "duet-run " DUET_VERSION,
                 {{"run", addRunCommand(app)},
                  {"bench", addBenchCommand(app)},
                  {"replay", addReplayCommand(app)},
                  {"bisect", addBisectCommand(app)},
                  {"tune", addTuneCommand(app)}},
                 argc, argv);
}
