//===- BackendLowering.h - a delegate backend, compiler side ----*- C++ -*-===//
//
// Everything the compiler knows of one delegate backend is one registration,
// a BackendLowering: its options, its rule table under them, what it plans
// for its partitions and adds to the report, the passes that lower its
// partitions for its emitter, the emitter, the fusion parameters and the
// rows of the ops table. The partitioner, the pipeline, the library API and
// the tools iterate the registered backends (backendLowerings(), listed in
// partitioners/Backends.cpp) and never name one; each backend's pieces live
// in its folder, partitioners/<backend>/ (docs/architecture.md, "Backends").
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_BACKENDLOWERING_H
#define DUET_PARTITIONERS_COMMON_BACKENDLOWERING_H

#include "partitioners/common/CostModel.h"
#include "partitioners/common/Report.h"
#include "partitioners/common/Rules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace duet {
class DelegateEmitter;
} // namespace duet

namespace duet::partition {

struct FusionTarget;

/// An option of a backend. Every front end spells it by `name`: `duet
/// compile --<name>`, the `duet-partition` pass option `<name>=`, and
/// `compiler::Options::backendOptions`.
struct OptionSpec {
  llvm::StringLiteral name;
  /// What the value is, for help ("X,Y,Z"); empty for a flag, whose value
  /// is "true" or "false".
  llvm::StringLiteral value;
  llvm::StringLiteral help;
  /// Whether the value may name a file the compilation reads, which no
  /// output of `duet compile` may overwrite.
  bool readsFile = false;
  /// Whether it is read when the partitions are emitted only, so that the
  /// partitioning passes do not offer it.
  bool emitOnly = false;

  bool isFlag() const { return value.empty(); }
};

/// Values of backend options by name, as text, in the order they were given.
class BackendOptions {
public:
  /// Sets option `name`; a later value replaces an earlier one.
  void set(llvm::StringRef name, llvm::StringRef value);
  void setFlag(llvm::StringRef name, bool value) {
    set(name, value ? "true" : "false");
  }
  /// The value given for `name`, if any.
  std::optional<llvm::StringRef> get(llvm::StringRef name) const;
  /// Whether flag `name` is "true" (checkBackendOptions allows "true" and
  /// "false" only).
  bool flag(llvm::StringRef name) const { return get(name) == "true"; }
  const std::vector<std::pair<std::string, std::string>> &values() const {
    return entries;
  }

private:
  std::vector<std::pair<std::string, std::string>> entries;
};

/// A backend set up for one compilation by BackendLowering::configure.
class ConfiguredLowering {
public:
  virtual ~ConfiguredLowering() = default;
  /// Its rule table under the compilation's options.
  virtual BackendRules &rules() = 0;
  /// Plans `delegate`, one of its partitions after legalization (Vulkan:
  /// the storage and packing of every tensor), and records what it planned
  /// in `info` and in its report section; `names` names values as the
  /// report does. Fails with an error on the op.
  virtual mlir::LogicalResult
  plan(DelegateOp delegate, PartitionInfo &info,
       llvm::function_ref<std::string(mlir::Value)> names) {
    return mlir::success();
  }
  /// Its section of the report, with what it planned so far.
  virtual std::shared_ptr<const ReportSection> report() const = 0;
  /// The costs of every backend on the compilation's target, when this
  /// backend reads the target profile that states them (Vulkan's
  /// target-profile); nullptr otherwise. Placement by cost uses the first
  /// backend's, in registration order, that has them.
  virtual const TargetCosts *targetCosts() const { return nullptr; }
};

/// One delegate backend of the compiler.
class BackendLowering {
public:
  virtual ~BackendLowering() = default;

  /// The backend, as `duet.delegate` names it.
  virtual DelegateKind kind() const = 0;
  /// Its name: how options, reports and programs name it.
  llvm::StringRef name() const { return stringifyDelegateKind(kind()); }
  /// Its title, as docs and messages write it.
  virtual llvm::StringRef title() const = 0;
  /// The fill and border colours of its partitions in `duet inspect --svg`.
  virtual std::pair<llvm::StringRef, llvm::StringRef> colors() const = 0;

  /// The options it reads.
  virtual llvm::ArrayRef<OptionSpec> options() const { return {}; }
  /// Sets the backend up under `options` (checked by checkBackendOptions);
  /// an error names the option at fault.
  virtual llvm::Expected<std::unique_ptr<ConfiguredLowering>>
  configure(mlir::MLIRContext *context,
            const BackendOptions &options) const = 0;
  /// Its report section in a compilation that set up no backend
  /// (`--backends portable`).
  virtual std::shared_ptr<const ReportSection> unconfiguredReport() const = 0;

  /// Registers the dialects its lowering writes, for duet-opt.
  virtual void registerDialects(mlir::DialectRegistry &registry) const {}
  /// Registers its passes, for duet-opt.
  virtual void registerPasses() const {}
  /// Adds the passes that lower its partitions for its emitter; they run
  /// after partitioning, before activation fusion.
  virtual void addLoweringPasses(mlir::OpPassManager &pm) const {}
  /// What its nodes can fold (ActivationFusion.h); nullptr: nothing.
  virtual const FusionTarget *fusionTarget() const { return nullptr; }
  /// The writer of its blobs; nullptr when this build has none.
  virtual DelegateEmitter *emitter() const = 0;
  /// What `duet inspect --json` shows of one of its blobs beside the ops,
  /// as fields of the partition ("image_format": "rgba16f"); nothing for a
  /// blob that does not verify, which the loader reports.
  virtual std::vector<std::pair<std::string, std::string>>
  describeBlob(llvm::ArrayRef<uint8_t> blob) const {
    return {};
  }

  /// How it runs each op its table names, for docs/ops.md.
  virtual std::vector<OpDoc> describeOps() const = 0;
  /// The other sections of the docs generated from it, by the name
  /// `duet-docgen <name>` gives them ("profiles").
  virtual llvm::ArrayRef<llvm::StringLiteral> docSections() const { return {}; }
  /// The text of section `name`, one of docSections().
  virtual llvm::Expected<std::string> docSection(llvm::StringRef name) const {
    llvm_unreachable("the backend generates no doc sections");
  }
};

/// `text` as the text of a Markdown table cell.
std::string markdownCell(llvm::StringRef text);

//===----------------------------------------------------------------------===//
// The registered backends
//===----------------------------------------------------------------------===//

/// Every delegate backend of the compiler, in the default priority order:
/// the registration list, partitioners/Backends.cpp.
llvm::ArrayRef<const BackendLowering *> backendLowerings();

/// The registered backend named `name`, or nullptr.
inline const BackendLowering *findBackendLowering(llvm::StringRef name) {
  for (const BackendLowering *backend : backendLowerings())
    if (backend->name() == name)
      return backend;
  return nullptr;
}
inline const BackendLowering &backendLowering(DelegateKind kind) {
  for (const BackendLowering *backend : backendLowerings())
    if (backend->kind() == kind)
      return *backend;
  llvm_unreachable("a backend of the dialect is not registered");
}

/// The registered names, joined by `separator` and the last two by `last`
/// ("vulkan and xnnpack"; Partitioner.cpp).
std::string backendNames(llvm::StringRef separator, llvm::StringRef last);

/// An error (Partitioner.cpp) unless every option of `options` is an option of
/// a registered backend and every flag among them is "true" or "false".
llvm::Error checkBackendOptions(const BackendOptions &options);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_COMMON_BACKENDLOWERING_H
