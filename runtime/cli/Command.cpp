//===- Command.cpp - subcommands of duet's command-line tools -------------===//

#include "runtime/cli/Command.h"

#include <fmt/core.h>

namespace duet::cli {

int runTool(CLI::App &app, const std::string &version,
            const std::map<std::string, Runner> &runners, int argc,
            char **argv) {
  app.set_version_flag("--version", version);
  app.require_subcommand(0, 1);
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

CLI::App *addProgramCommand(CLI::App &app, const std::string &name,
                            const std::string &description,
                            std::string &program) {
  CLI::App *cmd = app.add_subcommand(name, description);
  cmd->add_option("program", program, "the .duet program")->required();
  return cmd;
}

void addInputOption(CLI::App &cmd, std::vector<std::string> &inputs,
                    bool randomDefault) {
  cmd.add_option("-i,--input", inputs,
                 randomDefault
                     ? "an input .npy, once per model input in the model's "
                       "order (default: seeded random values)"
                     : "an input .npy, once per model input in the model's "
                       "order (a float32 file is converted for a "
                       "float16/bfloat16 input, with a note)");
}

void addThreadsOption(CLI::App &cmd, unsigned &threads) {
  cmd.add_option("--threads", threads,
                 "threads of the CPU work (XNNPACK and the portable kernels); "
                 "0, the default, uses one per CPU this process may run on "
                 "(its affinity mask)")
      ->check(CLI::Range(0u, 1024u));
}

void addMaxWorkOption(CLI::App &cmd, double &maxWork) {
  cmd.add_option("--max-work", maxWork,
                 "refuse a program whose one run takes more work than this "
                 "(multiply-adds or elements visited; 0, the default, is "
                 "1e15)")
      ->check(CLI::NonNegativeNumber);
}

} // namespace duet::cli
