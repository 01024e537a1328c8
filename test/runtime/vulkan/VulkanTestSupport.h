//===- VulkanTestSupport.h - compiling and running for Vulkan tests -*- C++
//-*-===//
//
// The Vulkan tests compile small aten functions (or the fixtures) in process,
// load the program once on the Vulkan backend and once in reference mode
// (every op on the portable kernels), and compare the outputs.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_TEST_RUNTIME_VULKAN_VULKANTESTSUPPORT_H
#define DUET_TEST_RUNTIME_VULKAN_VULKANTESTSUPPORT_H

#include "partitioners/Partitioner.h"
#include "runtime/core/Runtime.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace duet::test {

/// A program and the partitioning that produced it.
struct Compiled {
  std::vector<uint8_t> program;
  PartitionReport report;
};

/// Compiles `mlir` (a module with one func of aten ops) with the Vulkan
/// backend only; `textureLimits` replaces the generic profile's. A function
/// whose delegates are already planned by hand (`partition` false) is only
/// emitted. `forceFp16` keeps textures in RGBA16F images. Fails the test on
/// any error.
Compiled compileMlir(const std::string &mlir,
                     std::optional<std::array<int64_t, 3>> textureLimits = {},
                     bool partition = true, bool forceFp16 = false);

/// Compiles fixture `test/models/<file>` with `options`-like arguments.
std::vector<uint8_t>
compileFixture(const std::string &file,
               const std::vector<std::string> &backends,
               std::optional<std::array<int64_t, 3>> textureLimits = {});

/// The path of a file of test/models.
std::string modelPath(const std::string &file);

/// `text` with each `@W(2x3)` replaced by an f32 constant of seeded values
/// in [-2, 2) and each `@P(2x3)` by one of values in [0.5, 2.5), written as
/// raw bytes.
std::string expandConstants(const std::string &text);

/// Loads `program`; on the portable kernels only when `reference`.
rt::Status load(const std::vector<uint8_t> &program, bool reference,
                std::unique_ptr<rt::Runtime> &runtime);
/// Loads `program` with `options` (the Vulkan device's test hooks).
rt::Status load(const std::vector<uint8_t> &program,
                const rt::LoadOptions &options,
                std::unique_ptr<rt::Runtime> &runtime);

/// Sets every input to deterministic values in [-2, 2) (seeded by `seed`).
void setRandomInputs(rt::Runtime &runtime, uint32_t seed);

/// Output `index` as floats.
std::vector<float> outputFloats(const rt::Runtime &runtime, size_t index);

/// Runs `runtime` on fixture `name`'s stored input and compares output 0
/// with the stored eager PyTorch output (fp32 tolerance of `duet run
/// --expect`).
void expectFixtureOutput(rt::Runtime &runtime, const std::string &name);

/// Whether `actual` matches `expected` within the fp32 tolerance of `duet
/// run --expect` (max |a - e| <= rtol * max |e| + atol); non-finite values
/// must match exactly. `why` says what differs.
bool closeEnough(const std::vector<float> &actual,
                 const std::vector<float> &expected, double rtol, double atol,
                 std::string &why);

} // namespace duet::test

#endif // DUET_TEST_RUNTIME_VULKAN_VULKANTESTSUPPORT_H
