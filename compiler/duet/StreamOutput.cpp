//===- StreamOutput.cpp - outputs the compiler streams out ----------------===//

#include "compiler/duet/StreamOutput.h"

#include "runtime/cli/ExitCodes.h"
#include "runtime/cli/OutputFiles.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace duet::cli {

int writeOutput(const std::string &path,
                llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::unique_ptr<PendingOutput> pending;
  if (int code = PendingOutput::create(path, pending))
    return code;
  llvm::raw_fd_ostream os(pending->fd(), /*shouldClose=*/false);
  write(os);
  os.flush();
  if (os.has_error()) {
    std::string reason = os.error().message();
    // An error left set would make the stream's destructor abort.
    os.clear_error();
    return pending->failed(reason);
  }
  return pending->commit();
}

} // namespace duet::cli
