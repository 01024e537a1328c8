//===- compiler.h - compile torch.export models with duet -------*- C++ -*-===//
//
// Part of duet's installed, stable C++ API (include/duet/), CMake target
// `duet::compiler`. The whole compiler as one call, the same one `duet
// compile` makes:
//
//   duet::compiler::Options options;
//   options.backends = {"xnnpack"};
//   options.strict = true;
//   duet::compiler::Result result;
//   duet::Status status = duet::compiler::compileFile("model.pt2", options,
//                                                     result);
//   if (!status) { log(status.message()); return int(status.code()); }
//   save(result.program);       // the .duet program
//   save(result.reportJson);    // the placement report (docs/report-json.md)
//
// The header needs only the C++17 standard library; LLVM and MLIR stay
// inside the library.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_H
#define DUET_COMPILER_H

#include "duet/status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace duet::compiler {

/// What one compilation is asked to do (the options of `duet compile`).
struct Options {
  /// Delegate backends in priority order ("vulkan", "xnnpack"); "portable"
  /// entries are ignored, as the portable kernels are always the last
  /// resort, and {"portable"} alone means no delegate. Empty: every delegate
  /// backend this build can write (availableBackends()).
  std::vector<std::string> backends;
  /// A built-in Vulkan device profile name (builtinProfiles()) or the path of
  /// a profile .json file (docs/profiles.md). Empty: "generic".
  std::string targetProfile;
  /// Vulkan 3-D image extent limits (x, y, z) that replace the profile's.
  std::optional<std::array<int64_t, 3>> textureLimits;
  /// Let XNNPACK take bf16 ops it can compute in fp32 (decided per op).
  bool enableBf16 = false;
  /// Keep Vulkan textures in RGBA16F images instead of RGBA32F (fp16
  /// storage, fp32 math in the shaders; inputs and outputs keep their
  /// dtypes). A device without RGBA16F storage images refuses the program.
  bool forceFp16 = false;
  /// Fail with ErrorCode::strictFallback when any op falls to the portable
  /// kernels. The Result is filled all the same, so the report says why.
  bool strict = false;
};

/// What a compilation produced.
struct Result {
  /// The .duet program file's bytes.
  std::vector<uint8_t> program;
  /// The placement report as JSON (docs/report-json.md).
  std::string reportJson;
  /// The delegate backends used, in priority order.
  std::vector<std::string> backends;
  /// Ops of the model, and how many went to each of "vulkan", "xnnpack" and
  /// "portable".
  size_t ops = 0;
  size_t vulkanOps = 0;
  size_t xnnpackOps = 0;
  size_t portableOps = 0;
  /// Delegate partitions (each one call into its backend at run time).
  size_t delegatePartitions = 0;
  /// One line per op that fell to the portable kernels: the op, its node and
  /// each backend's reason (what `--strict` prints).
  std::vector<std::string> portableOpReasons;
};

/// Compiles the .pt2 archive (written by torch.export.save) at `path`.
Status compileFile(const std::string &path, const Options &options,
                   Result &result);

/// Compiles a .pt2 archive held in memory (`size` bytes at `data`); `name`
/// stands for the file in messages. The bytes are copied to a private
/// temporary file for the importer, which memory-maps archives, and the file
/// is removed before the call returns.
Status compileBuffer(const void *data, size_t size, const Options &options,
                     Result &result, const std::string &name = "<memory>");

/// The delegate backends whose programs this build can write, in the default
/// priority order.
std::vector<std::string> availableBackends();

/// The names of the built-in Vulkan device profiles, sorted.
std::vector<std::string> builtinProfiles();

/// How one backend runs one op, from its rule table.
struct OpSupport {
  enum class How {
    /// No rule: the backend never takes the op.
    no,
    /// A kernel (or XNNPACK node) of its own.
    native,
    /// Rewritten inside the partition into ops the backend runs natively.
    decomposed,
  };
  How how = How::no;
  /// The rule has an argument predicate: some calls of the op are refused,
  /// and the report's reason names the argument.
  bool conditional = false;
  /// Details: the XNNPACK node(s), the Vulkan packings and buffer kernel,
  /// the pieces of a decomposition, or why the op is not supported.
  std::string detail;
};

/// One op of the aten dialect and where it can run.
struct OpRow {
  /// "aten.convolution".
  std::string op;
  /// Whether the portable kernels (the fallback) run it.
  bool portable = false;
  OpSupport vulkan;
  OpSupport xnnpack;
};

/// Every op of the aten dialect with its support per backend, sorted by op
/// name: the table docs/ops.md is generated from.
std::vector<OpRow> opSupportTable();

} // namespace duet::compiler

#endif // DUET_COMPILER_H
