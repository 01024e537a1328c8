//===- Profile.h - where the time of a run goes -----------------*- C++ -*-===//
//
// With LoadOptions::profile.enabled the executor times each instruction of a
// run, and asks each delegate for the times of the parts it timed itself
// (PreparedDelegate::profileParts). Without it nothing here is touched: a run
// reads no clock.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_PROFILE_H
#define DUET_RUNTIME_CORE_PROFILE_H

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace duet::rt {

/// Milliseconds on the steady clock since `start`.
inline double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Reports the phases of a load to a ProfileOptions::loadPhase sink, each
/// timed from the previous mark (the first from construction). With no sink
/// it reads no clock.
class LoadPhaseClock {
public:
  using Sink = std::function<void(const std::string &phase, double ms)>;
  explicit LoadPhaseClock(const Sink &sink) : sink_(sink) {
    if (sink_)
      last_ = std::chrono::steady_clock::now();
  }
  void mark(const std::string &phase) {
    if (!sink_)
      return;
    auto now = std::chrono::steady_clock::now();
    sink_(phase, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

private:
  const Sink &sink_;
  std::chrono::steady_clock::time_point last_;
};

/// A part of a delegate's run that its backend timed: "step 2: subgraph of 14
/// nodes (convolution_2d x5, ...)".
struct ProfilePart {
  std::string name;
  double ms = 0;
};

/// One prepared instruction of the latest run. In reference mode a delegate
/// is its recorded ops, each an entry of its own.
struct ProfileEntry {
  /// The instruction's index in the program.
  size_t instruction = 0;
  /// "kernel" (a portable kernel call) or "delegate".
  std::string kind;
  /// The kernel's op ("aten.add.Tensor") or the delegate's backend.
  std::string name;
  /// A kernel call's node (the name of its first output tensor, empty when
  /// it has none); a delegate call's partition ("delegate 0").
  std::string node;
  double ms = 0;
  /// What the delegate timed inside, in its order; empty for a kernel and a
  /// delegate that times nothing apart.
  std::vector<ProfilePart> parts;
};

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_PROFILE_H
