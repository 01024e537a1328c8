//===- ImportCommand.cpp - duet import -----------------------------------===//

#include "compiler/import/Pt2Importer.h"
#include "compiler/duet/Commands.h"
#include "compiler/duet/StreamOutput.h"
#include "runtime/cli/OutputFiles.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/core.h>

#include <memory>

namespace duet::cli {
namespace {

struct ImportArgs {
  std::string input;
  std::string output = "-";
  bool stats = false;
  bool locations = false;
};

int runImport(const ImportArgs &args) {
  bool toStdout = args.output == "-";
  if (!toStdout) {
    CommandFiles files;
    files.addInput("the model", args.input);
    files.addOutput("-o", args.output);
    if (int code = files.check())
      return code;
  }
  mlir::MLIRContext ctx;
  llvm::Expected<import::ImportedProgram> program =
      import::importPt2(args.input, ctx);
  if (!program) {
    printError(llvm::toString(program.takeError()));
    return kBadInput;
  }
  if (args.stats) {
    const import::ImportStats &stats = program->stats();
    fmt::print(stderr,
               "weights: {} tensors, {} bytes mapped without copy, {} bytes "
               "copied\n",
               stats.tensors, stats.bytesMapped, stats.bytesCopied);
  }
  mlir::OpPrintingFlags flags;
  if (args.locations)
    flags.enableDebugInfo();
  auto print = [&](llvm::raw_ostream &os) {
    program->module().print(os, flags);
    os << "\n";
  };
  if (!toStdout)
    return writeOutput(args.output, print);
  print(llvm::outs());
  return kOk;
}

} // namespace

Runner addImportCommand(CLI::App &app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App *cmd = app.add_subcommand(
      "import", "Read a .pt2 archive (torch.export.save) and print its "
                "aten-dialect IR with the weights as resources");
  cmd->add_option("model", args->input, "the .pt2 archive")->required();
  cmd->add_option("-o,--output", args->output,
                  "where to write the IR (default: stdout)");
  cmd->add_flag("--stats", args->stats,
                "print on stderr how many weight bytes were used in place "
                "(memory-mapped) and how many were copied");
  cmd->add_flag("--locations", args->locations,
                "print each op's location: its graph node and the line of "
                "the model's Python source that made it");
  return [args] { return runImport(*args); };
}

} // namespace duet::cli
