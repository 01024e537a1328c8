//===- duet.cpp - the duet command line ----------------------------------===//

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>

int main(int argc, char **argv) {
  CLI::App app{"duet: ahead-of-time compiler and partitioner for torch.export "
               "models (Vulkan GPU + XNNPACK CPU)"};
  app.set_version_flag("--version", "duet 0.1.0");
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  if (app.get_subcommands().empty()) {
    fmt::print("{}", app.help());
    return 0;
  }
  return 0;
}
