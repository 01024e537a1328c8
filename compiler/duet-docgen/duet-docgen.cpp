//===- duet-docgen.cpp - the generated parts of duet's docs --------------===//
//
//   duet-docgen SECTION             print the generated section
//   duet-docgen SECTION --check F   exit 1 when F's section differs
//   duet-docgen SECTION --update F  replace F's section
//
// SECTION is `ops` (docs/ops.md, from every backend's rule table and the
// portable kernel registry), `core` (docs/ops.md, the core ATen overloads
// the importer takes, compiler/import/CoreAten.h) or a section a backend
// generates
// (BackendLowering::docSections: `profiles`, docs/profiles.md). A generated
// section sits between "<!-- BEGIN GENERATED: duet-docgen X -->" and
// "<!-- END GENERATED -->" lines; the prose around it is written by hand.
// Tables generated from the code cannot drift from it: a test runs --check.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/CoreAten.h"
#include "compiler/import/GraphScan.h"
#include "compiler/import/OpTable.h"
#include "duet/compiler.h"
#include "partitioners/common/BackendLowering.h"
#include "runtime/core/AtomicFile.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace duet;

namespace {

std::string supportCell(const compiler::OpSupport &support) {
  std::string how;
  switch (support.how) {
  case compiler::OpSupport::How::no:
    how = "no";
    break;
  case compiler::OpSupport::How::native:
    how = "**native**";
    break;
  case compiler::OpSupport::How::decomposed:
    how = "**decomposed**";
    break;
  }
  if (support.conditional)
    how += "\\*";
  if (!support.detail.empty())
    how += ": " + partition::markdownCell(support.detail);
  return how;
}

std::string opsSection() {
  std::vector<compiler::BackendInfo> backends = compiler::knownBackends();
  std::vector<compiler::OpRow> rows = compiler::opSupportTable();
  size_t portable = 0;
  std::vector<size_t> taken(backends.size());
  std::string table = "| op | portable |";
  std::string rule = "|---|---|";
  for (const compiler::BackendInfo &backend : backends) {
    table += " " + backend.name + " |";
    rule += "---|";
  }
  table += "\n" + rule + "\n";
  for (const compiler::OpRow &row : rows) {
    portable += row.portable;
    table += "| `" + row.op + "` | " + (row.portable ? "yes" : "no") + " |";
    for (auto [index, support] : llvm::enumerate(row.backends)) {
      taken[index] += support.how != compiler::OpSupport::How::no;
      table += " " + supportCell(support) + " |";
    }
    table += "\n";
  }
  std::string summary =
      std::to_string(rows.size()) +
      " ops in the aten dialect: " + std::to_string(portable) +
      " with a portable kernel";
  for (auto [index, backend] : llvm::enumerate(backends))
    summary +=
        ", " + std::to_string(taken[index]) + " " + backend.title + " can take";
  return summary + ".\n\n" + table;
}

/// The core ATen coverage: how many core overloads import, and the ones that
/// do not, each marked where run_decompositions() rewrites it.
std::string coreSection() {
  llvm::ArrayRef<llvm::StringRef> core = import::coreAtenOps();
  std::vector<llvm::StringRef> missing;
  for (llvm::StringRef op : core)
    if (!import::lookupOp(("torch.ops.aten." + op).str()))
      missing.push_back(op);
  std::string text =
      std::to_string(core.size() - missing.size()) + " of the " +
      std::to_string(core.size()) + " core ATen overloads of PyTorch " +
      import::coreAtenTorchVersion().str() + " import; " +
      std::to_string(import::supportedTargets().size()) +
      " ATen targets import in all.";
  if (missing.empty())
    return text + "\n";
  // Those no static inference program holds, apart, with the reason.
  std::vector<llvm::StringRef> notYet;
  std::vector<std::pair<llvm::StringRef, std::string>> byDesign;
  for (llvm::StringRef op : missing) {
    std::string why = import::outsideStaticInference(("torch.ops.aten." + op).str());
    if (why.empty())
      notYet.push_back(op);
    else
      byDesign.emplace_back(op, why);
  }
  if (!notYet.empty()) {
    text += " The core overloads that do not yet:\n\n";
    for (llvm::StringRef op : notYet)
      text += "- `" + op.str() + "`\n";
  }
  if (!byDesign.empty()) {
    text += std::string(notYet.empty() ? " " : "\n") +
            "Refused by design, each with its reason in the error:\n\n";
    for (auto &[op, why] : byDesign)
      text += "- `" + op.str() + "`: " + why + "\n";
  }
  return text;
}

/// The backend that generates section `name`, or nullptr.
const partition::BackendLowering *sectionOwner(llvm::StringRef name) {
  for (const partition::BackendLowering *backend :
       partition::backendLowerings())
    if (llvm::is_contained(backend->docSections(), name))
      return backend;
  return nullptr;
}

int usage() {
  llvm::errs() << "usage: duet-docgen ops|core";
  for (const partition::BackendLowering *backend :
       partition::backendLowerings())
    for (llvm::StringRef section : backend->docSections())
      llvm::errs() << "|" << section;
  llvm::errs() << " [--check FILE | --update FILE]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 && argc != 4)
    return usage();
  std::string what = argv[1];
  std::string section;
  if (what == "ops") {
    section = opsSection();
  } else if (what == "core") {
    section = coreSection();
  } else if (const partition::BackendLowering *owner = sectionOwner(what)) {
    llvm::Expected<std::string> text = owner->docSection(what);
    if (!text) {
      llvm::errs() << "error: " << llvm::toString(text.takeError()) << "\n";
      return 1;
    }
    section = std::move(*text);
  } else {
    return usage();
  }
  if (argc == 2) {
    llvm::outs() << section;
    return 0;
  }

  std::string mode = argv[2], path = argv[3];
  if (mode != "--check" && mode != "--update")
    return usage();
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    llvm::errs() << "error: cannot read " << path << ": "
                 << file.getError().message() << "\n";
    return 1;
  }
  std::string text = (*file)->getBuffer().str();
  std::string begin = "<!-- BEGIN GENERATED: duet-docgen " + what + " -->\n";
  std::string end = "<!-- END GENERATED -->\n";
  size_t from = text.find(begin);
  size_t to = from == std::string::npos ? from : text.find(end, from);
  if (to == std::string::npos) {
    llvm::errs() << "error: " << path << " has no section between the lines \""
                 << llvm::StringRef(begin).rtrim() << "\" and \""
                 << llvm::StringRef(end).rtrim() << "\"\n";
    return 1;
  }
  from += begin.size();
  if (mode == "--check") {
    if (text.compare(from, to - from, section) == 0)
      return 0;
    llvm::errs() << "error: " << path << " is stale: its generated " << what
                 << " section differs from the code; run `duet-docgen " << what
                 << " --update " << path << "`\n";
    return 1;
  }
  text.replace(from, to - from, section);
  if (rt::Status status = rt::writeFileAtomically(path, text.data(),
                                                  text.size());
      !status) {
    llvm::errs() << "error: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
