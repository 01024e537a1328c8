//===- duet-docgen.cpp - the generated parts of duet's docs --------------===//
//
//   duet-docgen ops|profiles             print the generated section
//   duet-docgen ops|profiles --check F   exit 1 when F's section differs
//   duet-docgen ops|profiles --update F  replace F's section
//
// A generated section sits between "<!-- BEGIN GENERATED: duet-docgen X -->"
// and "<!-- END GENERATED -->" lines; the prose around it is written by hand.
// Tables generated from the code cannot drift from it: a test runs --check.
//
//===----------------------------------------------------------------------===//

#include "duet/compiler.h"
#include "partitioners/vulkan/DeviceProfile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace duet;

namespace {

/// Text for a Markdown table cell.
std::string cell(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

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
    how += ": " + cell(support.detail);
  return how;
}

std::string opsSection() {
  std::vector<compiler::OpRow> rows = compiler::opSupportTable();
  size_t portable = 0, vulkan = 0, xnnpack = 0;
  std::string table = "| op | portable | vulkan | xnnpack |\n"
                      "|---|---|---|---|\n";
  for (const compiler::OpRow &row : rows) {
    portable += row.portable;
    vulkan += row.vulkan.how != compiler::OpSupport::How::no;
    xnnpack += row.xnnpack.how != compiler::OpSupport::How::no;
    table += "| `" + row.op + "` | " + (row.portable ? "yes" : "no") + " | " +
             supportCell(row.vulkan) + " | " + supportCell(row.xnnpack) +
             " |\n";
  }
  return std::to_string(rows.size()) +
         " ops in the aten dialect: " + std::to_string(portable) +
         " with a portable kernel, " + std::to_string(vulkan) +
         " Vulkan can take, " + std::to_string(xnnpack) +
         " XNNPACK can take.\n\n" + table;
}

std::string profilesSection() {
  std::string table = "| profile | devices | maxImageDimension3D | "
                      "maxStorageBufferRange | source |\n"
                      "|---|---|---|---|---|\n";
  for (const std::string &name : compiler::builtinProfiles()) {
    auto profile = partition::loadDeviceProfile(name);
    if (!profile) {
      llvm::errs() << "error: built-in profile " << name << ": "
                   << llvm::toString(profile.takeError()) << "\n";
      return {};
    }
    table += "| `" + profile->name + "` | " + cell(profile->device) + " | " +
             std::to_string(profile->maxImageDimension3D) + " | " +
             std::to_string(profile->maxStorageBufferRange) + " | " +
             cell(profile->source) + " |\n";
  }
  return table;
}

int usage() {
  llvm::errs() << "usage: duet-docgen ops|profiles [--check FILE | --update "
                  "FILE]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 && argc != 4)
    return usage();
  std::string what = argv[1];
  std::string section;
  if (what == "ops")
    section = opsSection();
  else if (what == "profiles")
    section = profilesSection();
  else
    return usage();
  if (section.empty())
    return 1;
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
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec) {
    llvm::errs() << "error: cannot write " << path << ": " << ec.message()
                 << "\n";
    return 1;
  }
  out << text;
  return 0;
}
