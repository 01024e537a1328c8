//===- OutputFiles.cpp - how every duet tool writes its files -------------===//

#include "runtime/cli/OutputFiles.h"

#include "runtime/cli/ExitCodes.h"
#include "runtime/cli/Messages.h"
#include "runtime/cli/RemoveOnSignal.h"

#include <fmt/core.h>

#include <sys/stat.h>

namespace duet::cli {
namespace {

using rt::OutputTarget;

bool sameFile(const OutputTarget &a, const OutputTarget &b) {
  if (a.kind == OutputTarget::special || a.kind != b.kind)
    return false;
  return a.device == b.device && a.inode == b.inode && a.name == b.name;
}

} // namespace

//===----------------------------------------------------------------------===//
// CommandFiles
//===----------------------------------------------------------------------===//

void CommandFiles::addInput(std::string role, std::string path) {
  inputs_.push_back({std::move(role), std::move(path)});
}

void CommandFiles::addOutput(std::string role, std::string path) {
  outputs_.push_back({std::move(role), std::move(path)});
}

int CommandFiles::check() const {
  std::vector<OutputTarget> targets(outputs_.size());
  // An output that cannot be written is reported after the aliases, which
  // are the graver mistake; it can alias nothing.
  std::vector<bool> writable(outputs_.size());
  std::string unwritable;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    std::string problem = rt::resolveOutputTarget(outputs_[i].path, targets[i]);
    writable[i] = problem.empty();
    if (!writable[i] && unwritable.empty())
      unwritable = problem;
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const File &out = outputs_[i];
    if (!writable[i] || targets[i].kind != OutputTarget::regularFile)
      continue;
    for (const File &in : inputs_) {
      struct stat st;
      if (::stat(in.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
          st.st_dev != targets[i].device || st.st_ino != targets[i].inode)
        continue;
      printError(fmt::format("{} '{}' is the same file as {} '{}': writing "
                             "it would destroy the input; give {} another "
                             "path",
                             out.role, out.path, in.role, in.path, out.role));
      return kBadInput;
    }
  }
  for (size_t i = 0; i < outputs_.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (writable[i] && writable[j] && sameFile(targets[i], targets[j])) {
        printError(fmt::format("{} '{}' is the same file as {} '{}': give "
                               "each output its own path",
                               outputs_[i].role, outputs_[i].path,
                               outputs_[j].role, outputs_[j].path));
        return kBadInput;
      }
  if (!unwritable.empty()) {
    printError(unwritable);
    return kIoError;
  }
  return kOk;
}

//===----------------------------------------------------------------------===//
// PendingOutput
//===----------------------------------------------------------------------===//

int PendingOutput::create(const std::string &path,
                          std::unique_ptr<PendingOutput> &out) {
  std::unique_ptr<PendingOutput> pending(new PendingOutput());
  if (rt::Status status = rt::AtomicFile::create(path, pending->file_);
      !status) {
    printError(status.message());
    return kIoError;
  }
  if (pending->file_->isTemporary())
    removeOnSignal(pending->file_->writePath());
  out = std::move(pending);
  return kOk;
}

PendingOutput::~PendingOutput() { finish(); }

void PendingOutput::finish() {
  if (!file_)
    return;
  std::string written = file_->writePath();
  bool temporary = file_->isTemporary();
  file_.reset();
  if (temporary)
    keepOnSignal(written);
}

int PendingOutput::write(std::string_view bytes) {
  return report(file_->write(bytes.data(), bytes.size()));
}

int PendingOutput::failed(const std::string &reason) const {
  return report(file_->failed(reason));
}

int PendingOutput::commit() {
  int code = report(file_->commit());
  finish();
  return code;
}

int PendingOutput::report(const rt::Status &status) const {
  if (status)
    return kOk;
  printError(status.message());
  return kIoError;
}

//===----------------------------------------------------------------------===//
// Whole files
//===----------------------------------------------------------------------===//

int writeOutputs(const std::vector<OutputBytes> &outputs) {
  std::vector<std::unique_ptr<PendingOutput>> pending(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (int code = PendingOutput::create(outputs[i].path, pending[i]))
      return code;
    if (int code = pending[i]->write(outputs[i].bytes))
      return code;
  }
  for (std::unique_ptr<PendingOutput> &output : pending)
    if (int code = output->commit())
      return code;
  return kOk;
}

} // namespace duet::cli
