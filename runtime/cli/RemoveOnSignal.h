//===- RemoveOnSignal.h - temp files a fatal signal removes -----*- C++ -*-===//
//
// A tool killed by a signal (SIGINT, SIGTERM, SIGXFSZ past `ulimit -f`, a
// crash) leaves none of its temporary output files behind (OutputFiles.h).
// The handlers are installed with the first file, for every signal whose
// default is to end the process and that is not ignored; a handler removes
// the files, puts back the handler it replaced and lets the signal take its
// course.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_REMOVEONSIGNAL_H
#define DUET_RUNTIME_CLI_REMOVEONSIGNAL_H

#include <string>

namespace duet::cli {

/// Removes `path` if a signal ends the process before keepOnSignal(path).
void removeOnSignal(const std::string &path);
/// Forgets `path` (renamed into place, or removed already).
void keepOnSignal(const std::string &path);

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_REMOVEONSIGNAL_H
