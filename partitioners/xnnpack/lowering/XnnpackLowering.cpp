//===- XnnpackLowering.cpp - the XNNPACK backend, compiler side -----------===//

#include "partitioners/xnnpack/lowering/XnnpackLowering.h"

#include "partitioners/common/ActivationFusion.h"
#include "partitioners/xnnpack/dialect/XnnDialect.h"
#include "partitioners/xnnpack/emit/XnnpackEmitter.h"
#include "partitioners/xnnpack/rules/XnnpackQuantization.h"
#include "partitioners/xnnpack/rules/XnnpackRules.h"

#include "mlir/IR/DialectRegistry.h"

#include <nlohmann/json.hpp>

using namespace mlir;

namespace duet::partition {

namespace {

constexpr llvm::StringLiteral kEnableBf16 = "enable-bf16";

constexpr OptionSpec kOptions[] = {
    {kEnableBf16, "",
     "let XNNPACK take bf16 ops it can compute in fp32 (decided per op)"},
};

/// Whether enable-bf16 was given ("enable_bf16").
class XnnpackReport : public ReportSection {
public:
  explicit XnnpackReport(bool enableBf16)
      : ReportSection(stringifyDelegateKind(DelegateKind::xnnpack).str()),
        enableBf16(enableBf16) {}

  void addJson(Part part, nlohmann::ordered_json &report) const override {
    if (part == Part::options)
      report["enable_bf16"] = enableBf16;
  }
  void addText(Part, std::string &) const override {}

private:
  bool enableBf16;
};

class ConfiguredXnnpack : public ConfiguredLowering {
public:
  ConfiguredXnnpack(MLIRContext *context, bool enableBf16)
      : table(context, enableBf16),
        section(std::make_shared<XnnpackReport>(enableBf16)) {}

  BackendRules &rules() override { return table; }

  // Which nodes compute in qint8, decided now that the partition exists.
  LogicalResult plan(DelegateOp delegate, PartitionInfo &info,
                     llvm::function_ref<std::string(Value)> names) override {
    for (const QuantizationFold &fold : planXnnpackQuantization(delegate)) {
      QuantizationNode node;
      node.node = names(fold.op->getResult(0));
      node.op = fold.op->getName().getStringRef().str();
      node.partition = info.id;
      node.folded = fold.into != nullptr;
      if (fold.into)
        node.into = names(fold.into->getResult(0));
      node.why = fold.why;
      info.quantization.push_back(std::move(node));
    }
    return success();
  }

  std::shared_ptr<const ReportSection> report() const override {
    return section;
  }

private:
  XnnpackRules table;
  std::shared_ptr<const XnnpackReport> section;
};

// Every node whose xnn_define_* call takes output_min/output_max (the rule
// table knows which node each op becomes). Successive activations intersect
// into one pair of bounds, exact because XNNPACK needs min < max anyway (its
// clamp and every bound it fuses); a pair that would break that stays a
// clamp node of its own. The layouts are duet-xnnpack-layout's.
const FusionTarget kFusion = {&XnnpackRules::takesOutputBounds,
                              /*chains=*/true, /*needsMinBelowMax=*/true,
                              xnn::XnnDialect::kLayoutAttrName};

class Xnnpack : public BackendLowering {
public:
  DelegateKind kind() const override { return DelegateKind::xnnpack; }
  StringRef title() const override { return "XNNPACK"; }
  std::pair<StringRef, StringRef> colors() const override {
    return {"#dbeafe", "#1d4ed8"};
  }
  ArrayRef<OptionSpec> options() const override { return kOptions; }

  llvm::Expected<std::unique_ptr<ConfiguredLowering>>
  configure(MLIRContext *context,
            const BackendOptions &options) const override {
    return std::make_unique<ConfiguredXnnpack>(context,
                                               options.flag(kEnableBf16));
  }

  std::shared_ptr<const ReportSection> unconfiguredReport() const override {
    return std::make_shared<XnnpackReport>(false);
  }

  void registerDialects(DialectRegistry &registry) const override {
    registry.insert<xnn::XnnDialect>();
  }
  void registerPasses() const override { registerXnnpackPasses(); }
  void addLoweringPasses(OpPassManager &pm) const override {
    addXnnpackLayoutPass(pm);
  }
  const FusionTarget *fusionTarget() const override { return &kFusion; }
  DelegateEmitter *emitter() const override { return &xnnpackEmitter(); }

  std::vector<OpDoc> describeOps() const override {
    std::vector<OpDoc> docs;
    for (const XnnpackRule &rule : XnnpackRules::table()) {
      OpDoc doc = describeRule(rule, rule.node.str());
      if (rule.bf16)
        doc.detail += "; bf16 with enable-bf16";
      docs.push_back(std::move(doc));
    }
    for (auto [op, why] : XnnpackRules::unsupportedOps())
      docs.push_back({op, std::nullopt, false, why.str()});
    return docs;
  }
};

} // namespace

const BackendLowering &xnnpackBackend() {
  static const Xnnpack backend;
  return backend;
}

} // namespace duet::partition
