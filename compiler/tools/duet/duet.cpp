//===- duet.cpp - the duet command line ----------------------------------===//

#include "compiler/import/Pt2Importer.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <string>

namespace {

/// Options of `duet import`.
struct ImportOptions {
  std::string input;
  std::string output = "-";
  bool stats = false;
  bool locations = false;
};

void addImportCommand(CLI::App &app, ImportOptions &options) {
  CLI::App *cmd = app.add_subcommand(
      "import", "Read a .pt2 archive (torch.export.save) and print its "
                "aten-dialect IR with the weights as resources");
  cmd->add_option("model", options.input, "the .pt2 archive")->required();
  cmd->add_option("-o,--output", options.output,
                  "where to write the IR (default: stdout)");
  cmd->add_flag("--stats", options.stats,
                "print on stderr how many weight bytes were used in place "
                "(memory-mapped) and how many were copied");
  cmd->add_flag("--locations", options.locations,
                "print each op's location: its graph node and the line of "
                "the model's Python source that made it");
}

int runImport(const ImportOptions &options) {
  mlir::MLIRContext ctx;
  llvm::Expected<duet::import::ImportedProgram> program =
      duet::import::importPt2(options.input, ctx);
  if (!program) {
    fmt::print(stderr, "error: {}\n", llvm::toString(program.takeError()));
    return 1;
  }
  if (options.stats) {
    const duet::import::ImportStats &stats = program->stats();
    fmt::print(stderr,
               "weights: {} tensors, {} bytes mapped without copy, {} bytes "
               "copied\n",
               stats.tensors, stats.bytesMapped, stats.bytesCopied);
  }
  std::error_code ec;
  llvm::ToolOutputFile out(options.output, ec, llvm::sys::fs::OF_None);
  if (ec) {
    fmt::print(stderr, "error: cannot write '{}': {}\n", options.output,
               ec.message());
    return 1;
  }
  mlir::OpPrintingFlags flags;
  if (options.locations)
    flags.enableDebugInfo();
  program->module().print(out.os(), flags);
  out.os() << "\n";
  out.keep();
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"duet: ahead-of-time compiler and partitioner for torch.export "
               "models (Vulkan GPU + XNNPACK CPU)"};
  app.set_version_flag("--version", "duet 0.1.0");
  app.require_subcommand(0, 1);
  ImportOptions importOptions;
  addImportCommand(app, importOptions);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  if (app.get_subcommands().empty()) {
    fmt::print("{}", app.help());
    return 0;
  }
  if (app.got_subcommand("import"))
    return runImport(importOptions);
  return 0;
}
