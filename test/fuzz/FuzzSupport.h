//===- FuzzSupport.h - what the fuzz targets share --------------*- C++ -*-===//
//
// A finding in code another owner is fixing (the runtime) would stop every
// fuzz run at its first input until the fix lands. Each such finding gets a
// reproducer under test/fuzz/regressions/<target>/open/ and a guard in the
// target that skips its inputs, so that fuzzing goes on past it; the guards
// are off under DUET_FUZZ_STRICT=1, which is how scripts/fuzz.sh replays the
// open reproducers to tell which ones are fixed. A fixed finding's guard is
// deleted and its reproducer moved up into regressions/<target>/.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_TEST_FUZZ_FUZZSUPPORT_H
#define DUET_TEST_FUZZ_FUZZSUPPORT_H

#include <cstdlib>
#include <cstring>

namespace duet::fuzz {

/// Whether the guards of open findings are off (DUET_FUZZ_STRICT=1).
inline bool strict() {
  static const bool on = [] {
    const char *value = std::getenv("DUET_FUZZ_STRICT");
    return value && std::strcmp(value, "1") == 0;
  }();
  return on;
}

} // namespace duet::fuzz

#endif // DUET_TEST_FUZZ_FUZZSUPPORT_H
