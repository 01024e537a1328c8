//===- compiler.h - compile torch.export models with duet -------*- C++ -*-===//
//
// Part of duet's installed, stable C++ API (include/duet/), CMake target
// `duet::compiler`. The whole compiler as one call, the same one `duet
// compile` makes:
//
//   duet::compiler::Options options;
//   options.backends = {"xnnpack"};
//   options.backendOptions = {{"enable-bf16", "true"}};
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

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace duet::compiler {

/// What one compilation is asked to do (the options of `duet compile`).
struct Options {
  /// Delegate backends in priority order (names of knownBackends());
  /// "portable" entries are ignored, as the portable kernels are always the
  /// last resort, and {"portable"} alone means no delegate. Empty: every
  /// delegate backend this build can write (availableBackends()).
  std::vector<std::string> backends;
  /// Options of the delegate backends, by the names `duet compile` gives
  /// them without the dashes (knownBackends() lists each backend's, and
  /// docs/cli.md says what they do): {"target-profile", "mali"},
  /// {"texture-limits", "4096,4096,4096"}, {"enable-bf16", "true"}. A flag
  /// takes "true" or "false". An unknown name or a bad value is
  /// ErrorCode::badInput.
  std::vector<std::pair<std::string, std::string>> backendOptions;
  /// "priority": the first backend in `backends` order that can run an op
  /// takes it. "cost": the placement with the least estimated time under
  /// the target profile's costs, `backends` being the candidates
  /// (docs/partitioning.md, "Placement by cost"). Anything else is
  /// ErrorCode::badInput. The library never probes the machine: `duet
  /// compile` without --backends does (docs/cli.md).
  std::string placement = "priority";
  /// Fail with ErrorCode::strictFallback when any op falls to the portable
  /// kernels. The Result is filled all the same, so the report says why.
  bool strict = false;
  /// The most work one run of the program may take (multiply-adds, or
  /// elements visited; docs/reliability.md, "Limits"); 0: the default,
  /// 10^15. A model over it is ErrorCode::unsupported, naming its largest
  /// op; the runtime's LoadOptions::maxWork must then allow it too.
  double maxWork = 0;
};

/// What a compilation produced.
struct Result {
  /// The .duet program file's bytes.
  std::vector<uint8_t> program;
  /// The placement report as JSON (docs/report-json.md).
  std::string reportJson;
  /// The delegate backends used, in priority order.
  std::vector<std::string> backends;
  /// Ops of the model.
  size_t ops = 0;
  /// How many ops each delegate backend took: every backend of
  /// knownBackends(), in that order, asked or not (the report's summary).
  std::vector<std::pair<std::string, size_t>> backendOps;
  /// How many ops fell to the portable kernels.
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

/// An option of a delegate backend (Options::backendOptions).
struct BackendOption {
  /// "target-profile".
  std::string name;
  /// What the value is ("NAME|FILE"); empty for a flag.
  std::string value;
  std::string help;
};

/// A delegate backend the compiler knows.
struct BackendInfo {
  /// Its name: how options, reports and programs name it.
  std::string name;
  /// Its title, as docs write it.
  std::string title;
  std::vector<BackendOption> options;
};

/// Every delegate backend the compiler knows, in the default priority order
/// (availableBackends() says which this build can write).
std::vector<BackendInfo> knownBackends();

/// How one backend runs one op, from its rule table.
struct OpSupport {
  enum class How {
    /// No rule: the backend never takes the op.
    no,
    /// A kernel (or node) of its own.
    native,
    /// Rewritten inside the partition into ops the backend runs natively.
    decomposed,
  };
  How how = How::no;
  /// The rule has an argument predicate: some calls of the op are refused,
  /// and the report's reason names the argument.
  bool conditional = false;
  /// Details from the backend's rule table (its node or kernel, the pieces
  /// of a decomposition), or why the op is not supported.
  std::string detail;
};

/// One op of the aten dialect and where it can run.
struct OpRow {
  /// "aten.convolution".
  std::string op;
  /// Whether the portable kernels (the fallback) run it.
  bool portable = false;
  /// How each backend of knownBackends() runs it, in that order.
  std::vector<OpSupport> backends;
};

/// Every op of the aten dialect with its support per backend, sorted by op
/// name: the table docs/ops.md is generated from.
std::vector<OpRow> opSupportTable();

} // namespace duet::compiler

#endif // DUET_COMPILER_H
