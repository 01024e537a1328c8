//===- soak_test.cpp - many runs in one process leak nothing --------------===//
//
// One program run many times on each backend through the installed API
// (setInput, run, outputAsFloat32, as an application does), with the
// process's resident memory (VmRSS of /proc/self/status) and open
// descriptors (the entries of /proc/self/fd) measured after a warm-up and at
// the end. docs/reliability.md, "Soak", says why the bounds are what they
// are and records a run of the full count.
//
// DUET_SOAK_RUNS sets the runs per backend after the warm-up: `make test`
// uses the default below (about 1 s for the three backends on two cores);
// the full count is 10,000:
//
//   DUET_SOAK_RUNS=10000 build/bin/soak-tests
//
//===----------------------------------------------------------------------===//

#include "duet/compiler.h"
#include "duet/runtime.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <string>

namespace {

const std::string kModels = DUET_TEST_MODELS;

/// Runs per backend when DUET_SOAK_RUNS is not set.
constexpr long kDefaultRuns = 2000;
/// Runs before the first measurement: the allocator's pools, XNNPACK's
/// workspace and the Vulkan driver's lazily made objects reach their size.
constexpr long kWarmUpRuns = 200;
/// Resident memory may grow this much from the warm-up to the end. It is
/// read in 4 KiB pages, and malloc may touch a page late or keep a trimmed
/// one, so the bound cannot be 0; 256 KiB is a few dozen pages. A leaked
/// output-sized buffer (2 KiB) per run is 4 MiB over the default count, and
/// the smallest leak malloc makes (a 32-byte chunk) per run passes the bound
/// from about 8,200 runs on, which the full count of 10,000 covers.
constexpr long kRssGrowthBoundKiB = 256;

long soakRuns() {
  const char *text = std::getenv("DUET_SOAK_RUNS");
  if (!text || !*text)
    return kDefaultRuns;
  char *end = nullptr;
  long runs = std::strtol(text, &end, 10);
  if (*end || runs < 1) {
    FAIL("DUET_SOAK_RUNS must be a positive number of runs, got '" << text
                                                                   << "'");
  }
  return runs;
}

/// VmRSS of /proc/self/status, in KiB.
long residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::strtol(line.c_str() + 6, nullptr, 10);
  FAIL("/proc/self/status has no VmRSS line");
  return 0;
}

/// Open descriptors: the entries of /proc/self/fd, less the one that
/// reading the folder opens.
long openDescriptors() {
  DIR *dir = ::opendir("/proc/self/fd");
  REQUIRE(dir);
  long count = 0;
  while (dirent *entry = ::readdir(dir))
    count += entry->d_name[0] != '.';
  ::closedir(dir);
  return count - 1;
}

/// AddressSanitizer keeps freed memory in quarantine, which grows the
/// resident size without a leak (LeakSanitizer reports real leaks there).
constexpr bool kUnderAddressSanitizer =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

void soak(const std::string &backend) {
  const std::string fixture = "mobilenet_block";
  duet::compiler::Options options;
  options.backends = {backend};
  duet::compiler::Result compiled;
  duet::Status status = duet::compiler::compileFile(
      kModels + "/" + fixture + ".training.pt2", options, compiled);
  INFO(status.message());
  REQUIRE(status.isOk());
  if (backend != "portable") {
    INFO("every op of " << fixture << " runs on " << backend);
    REQUIRE(compiled.portableOps == 0);
  }
  std::unique_ptr<duet::runtime::Model> model;
  status = duet::runtime::Model::loadFromBytes(compiled.program.data(),
                                               compiled.program.size(), model,
                                               {}, fixture + "." + backend);
  INFO(status.message());
  REQUIRE(status.isOk());
  duet::runtime::Tensor input;
  REQUIRE(duet::runtime::readNpy(kModels + "/" + fixture + ".input0.npy", input)
              .isOk());

  std::vector<float> first, values;
  auto runOnce = [&](long round) {
    duet::Status s = model->setInput(0, input.view());
    if (s)
      s = model->run();
    if (s)
      s = model->outputAsFloat32(0, values);
    if (!s)
      FAIL("run " << round << ": " << s.message());
    if (first.empty())
      first = values;
    else if (values != first)
      FAIL("run " << round << " gave another output than the first run");
  };

  long runs = soakRuns();
  for (long round = 0; round < kWarmUpRuns; ++round)
    runOnce(round);
  long rssStart = residentKiB(), fdsStart = openDescriptors();
  auto begin = std::chrono::steady_clock::now();
  for (long round = 0; round < runs; ++round)
    runOnce(kWarmUpRuns + round);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  long rssEnd = residentKiB(), fdsEnd = openDescriptors();

  // The figures docs/reliability.md records, for a run by hand.
  std::printf("soak %s: %ld runs after %ld warm-up runs in %.2f s; VmRSS "
              "%ld -> %ld KiB (%+ld); open fds %ld -> %ld\n",
              backend.c_str(), runs, kWarmUpRuns, seconds, rssStart, rssEnd,
              rssEnd - rssStart, fdsStart, fdsEnd);
  std::fflush(stdout);

  // The output is still the eager one (the suites' fp32 tolerance).
  duet::runtime::Tensor expected;
  REQUIRE(
      duet::runtime::readNpy(kModels + "/" + fixture + ".output0.npy", expected)
          .isOk());
  std::vector<float> ref;
  REQUIRE(duet::runtime::toFloat32(expected.view(), ref).isOk());
  REQUIRE(ref.size() == values.size());
  double maxDiff = 0, maxRef = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    maxDiff = std::max(maxDiff, std::abs(double(values[i]) - ref[i]));
    maxRef = std::max(maxRef, std::abs(double(ref[i])));
  }
  CHECK(maxDiff <= 1e-4 * maxRef + 1e-5);

  INFO(backend << ": VmRSS " << rssStart << " -> " << rssEnd << " KiB over "
               << runs << " runs");
  CHECK(fdsEnd == fdsStart);
  if (!kUnderAddressSanitizer)
    CHECK(rssEnd - rssStart <= kRssGrowthBoundKiB);
}

bool runtimeHas(const std::string &backend) {
  std::vector<std::string> backends = duet::runtime::availableBackends();
  return std::find(backends.begin(), backends.end(), backend) != backends.end();
}

} // namespace

TEST_CASE("soak: the portable kernels", "[soak]") { soak("portable"); }

TEST_CASE("soak: XNNPACK", "[soak]") {
  if (!runtimeHas("xnnpack")) {
    WARN("this build has no XNNPACK delegate");
    return;
  }
  soak("xnnpack");
}

TEST_CASE("soak: Vulkan", "[soak]") {
  if (!runtimeHas("vulkan")) {
    WARN("this build has no Vulkan delegate");
    return;
  }
  soak("vulkan");
}
