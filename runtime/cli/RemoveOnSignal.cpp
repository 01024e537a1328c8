//===- RemoveOnSignal.cpp - temporary files a fatal signal removes --------===//
//
// The handler may run at any point, on any thread, so the list of files is
// a chain of entries that are never freed, each holding its path through an
// atomic pointer: whoever swaps a path out (the handler to remove the file,
// keepOnSignal to forget it) owns it, so neither reads a freed path.
//
//===----------------------------------------------------------------------===//

#include "runtime/cli/RemoveOnSignal.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <unistd.h>

namespace duet::cli {
namespace {

struct Entry {
  std::atomic<char *> path{nullptr};
  Entry *next = nullptr;
};

/// The newest entry; entries are only ever added in front.
std::atomic<Entry *> gHead{nullptr};
/// Serializes removeOnSignal and keepOnSignal (the handler takes no lock).
std::mutex gMutex;

/// Signals whose default ends the process. The first four are faults of
/// the instruction that raised them: returning from the handler runs it
/// again, now under the handler that was there before (a sanitizer's, or
/// the default), which then reports it where it happened.
constexpr int kFaults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
constexpr int kOthers[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGPIPE,
                           SIGXCPU, SIGXFSZ, SIGABRT, SIGTRAP, SIGSYS,
                           SIGUSR1, SIGUSR2, SIGALRM};
struct sigaction gPrevious[NSIG];

bool isFault(int signal) {
  return std::find(std::begin(kFaults), std::end(kFaults), signal) !=
         std::end(kFaults);
}

void onSignal(int signal, siginfo_t *info, void *) {
  int savedErrno = errno;
  for (Entry *entry = gHead.load(); entry; entry = entry->next)
    if (char *path = entry->path.exchange(nullptr))
      ::unlink(path);
  ::sigaction(signal, &gPrevious[signal], nullptr);
  errno = savedErrno;
  // A fault sent by kill() rather than raised by an instruction would not
  // come again by itself (si_code <= 0: sent by a process).
  if (!isFault(signal) || info->si_code <= 0)
    ::raise(signal);
}

void install(int signal) {
  struct sigaction current;
  if (::sigaction(signal, nullptr, &current) != 0)
    return;
  // A signal ignored when the tool started (`trap "" XFSZ`, nohup) stays
  // ignored.
  if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN)
    return;
  gPrevious[signal] = current;
  struct sigaction action {};
  action.sa_sigaction = onSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal, &action, nullptr);
}

} // namespace

void removeOnSignal(const std::string &path) {
  std::lock_guard<std::mutex> lock(gMutex);
  static bool installed = false;
  if (!installed) {
    for (int signal : kFaults)
      install(signal);
    for (int signal : kOthers)
      install(signal);
    installed = true;
  }
  char *copy = ::strdup(path.c_str());
  if (!copy)
    return;
  for (Entry *entry = gHead.load(); entry; entry = entry->next) {
    char *expected = nullptr;
    if (entry->path.compare_exchange_strong(expected, copy))
      return;
  }
  auto *entry = new Entry();
  entry->path.store(copy);
  entry->next = gHead.load();
  gHead.store(entry);
}

void keepOnSignal(const std::string &path) {
  std::lock_guard<std::mutex> lock(gMutex);
  for (Entry *entry = gHead.load(); entry; entry = entry->next) {
    char *held = entry->path.load();
    if (!held || path != held)
      continue;
    if (char *taken = entry->path.exchange(nullptr))
      std::free(taken);
    return;
  }
}

} // namespace duet::cli
