//===- VulkanLowering.cpp - the Vulkan backend, compiler side -------------===//

#include "partitioners/vulkan/lowering/VulkanLowering.h"

#include "partitioners/common/ActivationFusion.h"
#include "partitioners/vulkan/emit/VulkanEmitter.h"
#include "partitioners/vulkan/lowering/LayoutPlanner.h"
#include "partitioners/vulkan/rules/VulkanRules.h"
#include "runtime/schema/vulkan_generated.h"

#include "dialects/aten/AtenDialect.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace mlir;

namespace duet::partition {

namespace {

using ordered_json = nlohmann::ordered_json;

constexpr llvm::StringLiteral kTextureLimits = "texture-limits";
constexpr llvm::StringLiteral kTargetProfile = "target-profile";

constexpr OptionSpec kOptions[] = {
    {kTextureLimits, "X,Y,Z",
     "Vulkan 3-D image extent limits X,Y,Z (overrides the profile's)"},
    {kTargetProfile, "NAME|FILE",
     "a device profile name (generic, lavapipe, nvidia-desktop, adreno, "
     "mali, powervr-dxt-48-1536) or a profile .json file",
     /*readsFile=*/true},
    {kForceFp16Option, "",
     "keep Vulkan textures in RGBA16F images instead of RGBA32F (fp16 "
     "storage; fp16 math in convolutions and products on a device with "
     "shaderFloat16; inputs and outputs keep their dtypes)",
     /*readsFile=*/false, /*emitOnly=*/true},
};

/// texture-limits as three extents; nothing when it is not given.
llvm::Expected<std::optional<std::array<int64_t, 3>>>
textureLimits(const BackendOptions &options) {
  std::optional<StringRef> text = options.get(kTextureLimits);
  if (!text || text->empty())
    return std::nullopt;
  auto bad = [](const std::string &got) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        kTextureLimits.str() + " takes three numbers X,Y,Z, got " + got);
  };
  SmallVector<StringRef, 3> parts;
  text->split(parts, ',');
  if (parts.size() != 3)
    return bad(std::to_string(parts.size()));
  std::array<int64_t, 3> limits;
  for (auto [index, part] : llvm::enumerate(parts))
    if (part.trim().getAsInteger(10, limits[index]))
      return bad("'" + text->str() + "'");
  return limits;
}

//===----------------------------------------------------------------------===//
// The report
//===----------------------------------------------------------------------===//

std::string join(const std::vector<int64_t> &values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? "," : "") + std::to_string(values[i]);
  return out;
}

/// The limits planned against ("vulkan_limits", zero when nothing was
/// planned) and every tensor of every Vulkan partition ("vulkan_tensors").
class VulkanReport : public ReportSection {
public:
  VulkanReport()
      : ReportSection(stringifyDelegateKind(DelegateKind::vulkan).str()) {}
  explicit VulkanReport(const VulkanLimits &limits) : VulkanReport() {
    extent = limits.maxExtent;
    bufferRange = limits.maxStorageBufferRange;
    origin = limits.origin;
  }

  void addJson(Part part, ordered_json &report) const override {
    if (part == Part::target) {
      report["vulkan_limits"] = {{"max_image_extent", extent},
                                 {"max_storage_buffer_range", bufferRange},
                                 {"origin", origin}};
      return;
    }
    if (part != Part::plans)
      return;
    ordered_json list = ordered_json::array();
    for (const TensorPlacement &tensor : tensors) {
      ordered_json out;
      out["partition"] = tensor.partition;
      out["tensor"] = tensor.tensor;
      out["producer"] = tensor.producer;
      out["shape"] = tensor.shape;
      out["dtype"] = tensor.dtype;
      out["storage"] = tensor.storage;
      out["packing"] = tensor.packing;
      if (!tensor.extents.empty())
        out["extents"] = tensor.extents;
      out["bytes"] = tensor.bytes;
      list.push_back(std::move(out));
    }
    report["vulkan_tensors"] = std::move(list);
  }

  void addText(Part part, std::string &table) const override {
    llvm::raw_string_ostream os(table);
    if (part == Part::target) {
      os << "vulkan limits: image extent (" << extent[0] << "," << extent[1]
         << "," << extent[2] << "), storage buffer " << bufferRange
         << " bytes; " << origin << "\n";
      return;
    }
    if (part != Part::plans || tensors.empty())
      return;
    os << "\nvulkan tensors:\n";
    for (const TensorPlacement &tensor : tensors) {
      os << "  " << tensor.partition << " " << tensor.tensor << " ("
         << tensor.producer << ") [" << join(tensor.shape) << "] "
         << tensor.dtype << ": " << tensor.storage;
      if (tensor.extents.empty())
        os << ", " << tensor.bytes << " bytes\n";
      else
        os << " " << tensor.packing << " (" << join(tensor.extents) << ")\n";
    }
  }

  std::array<int64_t, 3> extent = {0, 0, 0};
  int64_t bufferRange = 0;
  std::string origin;
  std::vector<TensorPlacement> tensors;
};

//===----------------------------------------------------------------------===//
// One compilation
//===----------------------------------------------------------------------===//

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

class ConfiguredVulkan : public ConfiguredLowering {
public:
  ConfiguredVulkan(MLIRContext *context, const VulkanLimits &limits)
      : table(context, limits), section(std::make_shared<VulkanReport>(limits)),
        costs(limits.costs) {}

  BackendRules &rules() override { return table; }

  /// Plans the storage and packing of every tensor and records each one.
  LogicalResult plan(DelegateOp delegate, PartitionInfo &info,
                     llvm::function_ref<std::string(Value)> names) override {
    FailureOr<LayoutPlan> plan = planVulkanLayouts(delegate, table);
    if (failed(plan))
      return failure();
    info.layoutConversions = plan->conversions;
    for (auto [value, layout] : plan->tensors) {
      TensorPlacement tensor;
      tensor.partition = info.id;
      auto type = cast<RankedTensorType>(value.getType());
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        tensor.tensor = names(delegate.getInputs()[arg.getArgNumber()]);
        tensor.producer = "input";
      } else {
        tensor.tensor = names(value);
        tensor.producer = value.getDefiningOp()->getName().getStringRef();
      }
      tensor.shape.assign(type.getShape().begin(), type.getShape().end());
      tensor.dtype = typeText(type.getElementType());
      tensor.storage = stringifyStorage(layout.getStorage()).str();
      tensor.packing = stringifyPackedDim(layout.getPacking()).str();
      tensor.extents.assign(layout.getExtents().begin(),
                            layout.getExtents().end());
      tensor.bytes = bufferBytes(type);
      section->tensors.push_back(std::move(tensor));
    }
    return success();
  }

  std::shared_ptr<const ReportSection> report() const override {
    return section;
  }

  const TargetCosts *targetCosts() const override { return costs.get(); }

private:
  VulkanRules table;
  std::shared_ptr<VulkanReport> section;
  std::shared_ptr<const TargetCosts> costs;
};

//===----------------------------------------------------------------------===//
// Docs
//===----------------------------------------------------------------------===//

std::string describePackings(PackingSet set) {
  if (set == kAnyPacking)
    return "any packing";
  std::string out;
  if (set & kWidthPacked)
    out += "width";
  if (set & kHeightPacked)
    out += std::string(out.empty() ? "" : "/") + "height";
  if (set & kChannelsPacked)
    out += std::string(out.empty() ? "" : "/") + "channels";
  return out + "-packed";
}

constexpr llvm::StringLiteral kProfilesSection = "profiles";

/// The table of docs/profiles.md: every built-in device profile.
llvm::Expected<std::string> profilesTable() {
  std::string table = "| profile | devices | maxImageDimension3D | "
                      "maxStorageBufferRange | source |\n"
                      "|---|---|---|---|---|\n";
  for (const std::string &name : builtinProfileNames()) {
    auto profile = loadDeviceProfile(name);
    if (!profile)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "built-in profile " + name + ": " +
                                         llvm::toString(profile.takeError()));
    table += "| `" + profile->name + "` | " + markdownCell(profile->device) +
             " | " + std::to_string(profile->maxImageDimension3D) + " | " +
             std::to_string(profile->maxStorageBufferRange) + " | " +
             markdownCell(profile->source) + " |\n";
  }
  return table;
}

//===----------------------------------------------------------------------===//
// The registration
//===----------------------------------------------------------------------===//

bool isConvolution(Operation *op) { return isa<aten::ConvolutionOp>(op); }

// The convolution shader's clamp_min/clamp_max, and no other shader's. One
// activation per convolution: the shader clamps as PyTorch does for any
// bounds, min >= max included, where an intersection of two clamps would not
// be exact; a second activation stays a unary dispatch. The layouts are the
// planner's (LayoutPlanner.h): the convolution writes the activation's
// tensor, so both must be the same.
const FusionTarget kFusion = {&isConvolution, /*chains=*/false,
                              /*needsMinBelowMax=*/false,
                              DuetDialect::kVkLayoutsAttrName};

class Vulkan : public BackendLowering {
public:
  DelegateKind kind() const override { return DelegateKind::vulkan; }
  StringRef title() const override { return "Vulkan"; }
  std::pair<StringRef, StringRef> colors() const override {
    return {"#fde3cf", "#c05621"};
  }
  ArrayRef<OptionSpec> options() const override { return kOptions; }

  llvm::Expected<std::unique_ptr<ConfiguredLowering>>
  configure(MLIRContext *context,
            const BackendOptions &options) const override {
    llvm::Expected<VulkanLimits> limits = vulkanLimits(options);
    if (!limits)
      return limits.takeError();
    return std::make_unique<ConfiguredVulkan>(context, *limits);
  }

  std::shared_ptr<const ReportSection> unconfiguredReport() const override {
    return std::make_shared<VulkanReport>();
  }

  void registerPasses() const override { registerVulkanPasses(); }
  const FusionTarget *fusionTarget() const override { return &kFusion; }
  DelegateEmitter *emitter() const override { return &vulkanEmitter(); }

  std::vector<std::pair<std::string, std::string>>
  describeBlob(ArrayRef<uint8_t> blob) const override {
    flatbuffers::Verifier verifier(blob.data(), blob.size());
    if (!vulkan::schema::VerifyDelegateBuffer(verifier))
      return {};
    // The image format is the blob's (force-fp16).
    bool fp16 = vulkan::schema::GetDelegate(blob.data())->fp16_images();
    return {{"image_format", fp16 ? "rgba16f" : "rgba32f"}};
  }

  std::vector<OpDoc> describeOps() const override {
    std::vector<OpDoc> docs;
    for (const VulkanRule &rule : VulkanRules::table()) {
      std::string detail = describePackings(rule.packings);
      if (rule.packsChannels)
        detail += " (rank 4; height-packed at rank 3)";
      if (rule.layout == LayoutKind::Independent)
        detail += " (per tensor)";
      detail += rule.bufferKernel ? "; buffer kernel" : "; textures only";
      docs.push_back(describeRule(rule, std::move(detail)));
    }
    for (auto [op, why] : VulkanRules::unsupportedOps())
      docs.push_back({op, std::nullopt, false, why.str()});
    return docs;
  }

  ArrayRef<llvm::StringLiteral> docSections() const override {
    static constexpr llvm::StringLiteral kSections[] = {kProfilesSection};
    return kSections;
  }
  llvm::Expected<std::string> docSection(StringRef name) const override {
    assert(name == kProfilesSection && "not a section of this backend");
    return profilesTable();
  }
};

} // namespace

llvm::Expected<VulkanLimits> vulkanLimits(const BackendOptions &options) {
  auto limits = textureLimits(options);
  if (!limits)
    return limits.takeError();
  return resolveVulkanLimits(options.get(kTargetProfile).value_or(""), *limits);
}

llvm::ArrayRef<TensorPlacement> vulkanTensors(const PartitionReport &report) {
  for (const auto &section : report.sections)
    if (section->backend == stringifyDelegateKind(DelegateKind::vulkan))
      return static_cast<const VulkanReport &>(*section).tensors;
  return {};
}

const BackendLowering &vulkanBackend() {
  static const Vulkan backend;
  return backend;
}

} // namespace duet::partition
