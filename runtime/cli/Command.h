//===- Command.h - subcommands of duet's command-line tools -----*- C++ -*-===//
//
// A tool (`duet`, `duet-run`) is a CLI11 app with one subcommand per file;
// each registers its options and returns the function that runs it. The
// tools parse and report a bad command line the same way (runTool).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_COMMAND_H
#define DUET_RUNTIME_CLI_COMMAND_H

#include "runtime/cli/ExitCodes.h"
#include "runtime/cli/Messages.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace duet::cli {

/// Runs a subcommand after parsing; returns its exit code.
using Runner = std::function<int()>;

/// Parses the command line into `app` and runs the subcommand given, by its
/// name in `runners`. --help and --version (which prints `version`) print
/// and exit 0; a bad command line is one error line and exit 2; no
/// subcommand prints the help.
int runTool(CLI::App &app, const std::string &version,
            const std::map<std::string, Runner> &runners, int argc,
            char **argv);

/// Adds subcommand `name` of a command on one .duet program, which its
/// positional `program` names.
CLI::App *addProgramCommand(CLI::App &app, const std::string &name,
                            const std::string &description,
                            std::string &program);

/// The options several subcommands take, with one help text each:
/// `-i,--input FILE...` (seeded random values without them when
/// `randomDefault`) and `--threads N` (the XNNPACK delegate's).
void addInputOption(CLI::App &cmd, std::vector<std::string> &inputs,
                    bool randomDefault);
void addThreadsOption(CLI::App &cmd, unsigned &threads);
/// `--max-work N`: LoadOptions::maxWork (0, the default: kDefaultMaxWork).
void addMaxWorkOption(CLI::App &cmd, double &maxWork);

/// `duet run` and `duet-run run` (RunCommand.cpp).
Runner addRunCommand(CLI::App &app);
/// `duet bench` and `duet-run bench` (BenchCommand.cpp).
Runner addBenchCommand(CLI::App &app);

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_COMMAND_H
