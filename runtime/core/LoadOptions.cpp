//===- LoadOptions.cpp - how a program is loaded --------------------------===//

#include "runtime/core/LoadOptions.h"

#include <sched.h>

#include <thread>

namespace duet::rt {

unsigned usableCpuCount() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0)
    if (int count = CPU_COUNT(&mask); count > 0)
      return static_cast<unsigned>(count);
  // A mask wider than cpu_set_t (over 1024 CPUs) or a system without the
  // call: what is online.
  unsigned online = std::thread::hardware_concurrency();
  return online ? online : 1;
}

} // namespace duet::rt
