//===- VulkanRules.cpp - the Vulkan rule table ----------------------------===//
//
// Kernels read and write tensors as 3-D images (RGBA, four elements of the
// packed dim per texel) or, where a buffer kernel exists, as storage buffers.
// Textures are the fast path: an op keeps the packings whose image extents are
// within the device's limits, and runs its buffer kernel only when none is
// left. Everything the runtime's Vulkan delegate must implement is named here.
//
//===----------------------------------------------------------------------===//

#include "partitioners/vulkan/rules/VulkanRules.h"

#include "dialects/aten/AtenDialect.h"
#include "dialects/aten/Constants.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace duet::aten;

namespace duet::partition {

namespace {

//===----------------------------------------------------------------------===//
// Argument predicates
//===----------------------------------------------------------------------===//

std::optional<std::string> convolutionArgs(Operation *op) {
  auto conv = cast<ConvolutionOp>(op);
  ArrayRef<int64_t> input = shapeOf(conv.getInput());
  if (input.size() == 5)
    return std::string("3-D convolution (input 0 ") + formatShape(input) +
           "): the Vulkan convolution is 1-D or 2-D";
  if (input[0] != 1)
    return "convolution batch " + std::to_string(input[0]) + " > 1 (input 0 " +
           formatShape(input) + "): the Vulkan convolution runs batch 1";
  return std::nullopt;
}

std::optional<std::string> batchNormArgs(Operation *op) {
  auto norm = cast<BatchNormOp>(op);
  int64_t rank = norm.getInput().getType().getRank();
  if (rank != 4)
    return "batch_norm on a rank-" + std::to_string(rank) +
           " input: the Vulkan kernel normalizes the channels of [N,C,H,W]";
  return std::nullopt;
}

std::optional<std::string> layerNormArgs(Operation *op) {
  auto norm = cast<LayerNormOp>(op);
  size_t dims = norm.getNormalizedShape().size();
  if (dims != 1)
    return "layer_norm over the last " + std::to_string(dims) +
           " dims: the Vulkan kernel normalizes the last dim only";
  return std::nullopt;
}

std::optional<std::string> reductionArgs(Operation *op) {
  auto dims = op->getAttrOfType<DenseI64ArrayAttr>("dim");
  size_t count = dims ? dims.size() : 0;
  if (count == 0 || count > 2)
    return op->getName().getStringRef().str() + " over " +
           (count == 0 ? std::string("every dim")
                       : std::to_string(count) + " dims") +
           ": the Vulkan reduction kernels reduce one or two given dims";
  return std::nullopt;
}

std::optional<std::string> matmulArgs(Operation *op) {
  auto matmul = cast<MatmulOp>(op);
  for (auto [index, value] :
       llvm::enumerate(ValueRange{matmul.getSelf(), matmul.getOther()})) {
    int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
    if (rank < 2)
      return "matmul of a rank-" + std::to_string(rank) + " " +
             tensorName(false, index) +
             ": the Vulkan kernel multiplies matrices (rank >= 2)";
  }
  return std::nullopt;
}

std::optional<std::string> rank4Only(Operation *op) {
  int64_t rank = cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
  if (rank != 4)
    return op->getName().getStringRef().str() + " on a rank-" +
           std::to_string(rank) + " input: the Vulkan kernel takes [N,C,H,W]";
  return std::nullopt;
}

std::optional<std::string> padArgs(Operation *op) {
  auto pad = cast<ConstantPadNdOp>(op);
  ArrayRef<int64_t> amounts = pad.getPad();
  if (amounts.size() > 6)
    return "constant_pad_nd pads " + std::to_string(amounts.size() / 2) +
           " dims: the Vulkan kernel pads W, H and C";
  for (int64_t amount : amounts)
    if (amount < 0)
      return "constant_pad_nd with a negative pad " + std::to_string(amount) +
             " (a crop): the Vulkan kernel only pads";
  return std::nullopt;
}

/// The shader reads its index without bounds checks, so every value must
/// name a position of the indexed dim (the load checks it again).
std::optional<std::string> indexArgs(Operation *op) {
  int64_t dim = op->getAttrOfType<IntegerAttr>("dim").getInt();
  int64_t size = shapeOf(op->getOperand(0))[dim];
  std::string name = op->getName().getStringRef().str();
  std::optional<SmallVector<int64_t>> values =
      readIntegerElements(getConstantElements(op->getOperand(1)));
  if (!values)
    return name + " index (input 1) is a constant without readable data";
  for (auto [position, value] : llvm::enumerate(*values))
    if (value < 0 || value >= size)
      return name + " index " + std::to_string(value) + " at position " +
             std::to_string(position) + " is outside [0, " +
             std::to_string(size) + ") of dim " + std::to_string(dim) +
             ": the portable kernel reports it when the op runs";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

constexpr auto &kAttentionPieces =
    kOpNames<MatmulOp, PermuteOp, MulOp, AddOp, SoftmaxOp>;

/// An op whose kernels share one packing across its tensors.
template <typename Op>
constexpr VulkanRule shared(PackingSet packings, bool bufferKernel,
                            unsigned weights = kNoWeights,
                            Predicate predicate = nullptr) {
  return {{Op::getOperationName(), Lowering::Native, weights, predicate, {}},
          LayoutKind::Shared,
          packings,
          bufferKernel};
}

/// An op that re-indexes every element: any packing for each tensor, and a
/// buffer kernel.
template <typename Op> constexpr VulkanRule independent() {
  return {{Op::getOperationName(), Lowering::Native, kNoWeights, nullptr, {}},
          LayoutKind::Independent,
          kAnyPacking,
          true};
}

/// An op that runs as `pieces`.
template <typename Op>
constexpr VulkanRule decomposed(llvm::ArrayRef<llvm::StringLiteral> pieces) {
  return {{Op::getOperationName(), Lowering::Decomposed, kNoWeights, nullptr,
           pieces},
          LayoutKind::Shared,
          kAnyPacking,
          false};
}

/// An elementwise op: any packing, shared by its tensors, and a buffer kernel.
template <typename Op> constexpr VulkanRule elementwise() {
  return shared<Op>(kAnyPacking, /*bufferKernel=*/true);
}

/// `rule` with its packings those that pack C (VulkanRule::packsChannels).
constexpr VulkanRule packingChannels(VulkanRule rule) {
  rule.packsChannels = true;
  return rule;
}

const VulkanRule kRules[] = {
    // Convolution and matrix products. Convolution reads textures that pack
    // C (channels-packed 2-D, height-packed 1-D); the matrix kernels read
    // rows as width-packed texels.
    packingChannels(shared<ConvolutionOp>(kChannelsPacked, false,
                                          kWeightAndBias, convolutionArgs)),
    shared<LinearOp>(kWidthPacked, true, kWeightAndBias),
    shared<AddmmOp>(kWidthPacked, true),
    shared<MmOp>(kWidthPacked, true),
    shared<BmmOp>(kWidthPacked, true),
    shared<MatmulOp>(kWidthPacked, true, kNoWeights, matmulArgs),
    // Normalization.
    shared<BatchNormOp>(kChannelsPacked, false, kNormParams, batchNormArgs),
    shared<LayerNormOp>(kWidthPacked, false, kWeightAndBias, layerNormArgs),
// Elementwise: every activation has its own shader, so hardswish,
// hardsigmoid, silu and hardshrink stay whole (a decomposed hardswish is
// what produced Inf/NaN on PowerVR where the native shader was right).
// Every unary op of the dialect (each has a function in unary.comp).
#define DUET_ATEN_UNARY(Class, Fn, mnemonic) elementwise<Class>(),
#include "dialects/aten/AtenUnaryOps.inc"
#undef DUET_ATEN_UNARY
    elementwise<HardtanhOp>(),
    elementwise<ClampOp>(),
    elementwise<HardshrinkOp>(),
    elementwise<GeluOp>(),
    elementwise<LeakyReluOp>(),
    elementwise<EluOp>(),
    elementwise<PowOp>(),
    elementwise<AddOp>(),
    elementwise<SubOp>(),
    elementwise<MulOp>(),
    elementwise<DivOp>(),
    elementwise<MaximumOp>(),
    elementwise<MinimumOp>(),
    elementwise<RemainderOp>(),
    elementwise<CloneOp>(),
    // Reductions, pooling, softmax: texture kernels only.
    shared<MeanOp>(kAnyPacking, false, kNoWeights, reductionArgs),
    shared<SumOp>(kAnyPacking, false, kNoWeights, reductionArgs),
    shared<AmaxOp>(kAnyPacking, false, kNoWeights, reductionArgs),
    shared<SoftmaxOp>(kAnyPacking, false),
    shared<LogSoftmaxOp>(kAnyPacking, false),
    shared<AdaptiveAvgPool2dOp>(kChannelsPacked, false, kNoWeights, rank4Only),
    shared<AvgPool2dOp>(kChannelsPacked, false, kNoWeights, rank4Only),
    shared<MaxPool2dOp>(kChannelsPacked, false, kNoWeights, rank4Only),
    shared<UpsampleNearest2dOp>(kChannelsPacked, false, kNoWeights, rank4Only),
    shared<UpsampleBilinear2dOp>(kChannelsPacked, false, kNoWeights, rank4Only),
    // A scan: each element sums its prefix along the dim, on textures or
    // buffers.
    shared<CumsumOp>(kAnyPacking, true),
    // Data movement. view and permute re-index every element, so input and
    // output packings are independent; buffers hold any rank up to 8.
    independent<ViewOp>(),
    independent<PermuteOp>(),
    // On buffers these are copies, so each has a buffer kernel: a detection
    // head's [1,84,8400] concatenation stays on the GPU when no texture
    // holds it.
    shared<ExpandOp>(kAnyPacking, true),
    shared<RepeatOp>(kAnyPacking, true),
    shared<SliceOp>(kAnyPacking, true),
    shared<SelectOp>(kAnyPacking, true),
    shared<ConstantPadNdOp>(kAnyPacking, true, kNoWeights, padArgs),
    shared<CatOp>(kAnyPacking, true),
    shared<SplitWithSizesOp>(kAnyPacking, true),
    // The index is an integer weight, so only a constant one: the delegate
    // holds float tensors, and uploads an index as int32 at load.
    shared<GatherOp>(kAnyPacking, true, kIndexOperand, indexArgs),
    shared<IndexSelectOp>(kAnyPacking, true, kIndexOperand, indexArgs),
    // Attention runs as its pieces.
    decomposed<ScaledDotProductAttentionOp>(kAttentionPieces),
};

/// Ops the Vulkan delegate does not run, with the reason.
constexpr UnsupportedOp kUnsupported[] = {
    never<EmbeddingOp>(
        "the Vulkan delegate stores float tensors only, and embedding reads "
        "integer indices"),
    never<CastOp>("the Vulkan delegate computes in one float type per model "
                  "(fp32, or fp16 with force-fp16) and has no conversion"),
};

constexpr TableFacts kTable = {kMaxBufferRank, "Vulkan kernel", "Vulkan kernel",
                               DecomposedCheck::predicate, kUnsupported};

std::string formatExtents(ArrayRef<int64_t> extents) {
  return "(" + std::to_string(extents[0]) + "," + std::to_string(extents[1]) +
         "," + std::to_string(extents[2]) + ")";
}

/// The packings in `allowed` whose extents for `shape` are within `limits`.
PackingSet fittingPackings(ArrayRef<int64_t> shape, PackingSet allowed,
                           const VulkanLimits &limits) {
  if (static_cast<int64_t>(shape.size()) > kMaxTextureRank)
    return 0;
  PackingSet fits = 0;
  for (PackedDim packing : texturePackings()) {
    if (!(allowed & packingBit(packing)))
      continue;
    SmallVector<int64_t, 3> extents = textureExtents(shape, packing);
    bool within = true;
    for (int axis = 0; axis < 3; ++axis)
      within &= extents[axis] <= limits.maxExtent[axis];
    if (within)
      fits |= packingBit(packing);
  }
  return fits;
}

std::string formatLimits(const VulkanLimits &limits) {
  return formatExtents(limits.maxExtent);
}

std::string formatPackings(PackingSet set) {
  std::string out;
  for (PackedDim packing : texturePackings())
    if (set & packingBit(packing))
      out += (out.empty() ? "" : ", ") + stringifyPackedDim(packing).str();
  return out.empty() ? "none" : out;
}

/// "output 0 [1,84,8400] fits no texture layout under limits (...): ..."
std::string describeNoTexture(const StorageOptions::Tensor &tensor,
                              PackingSet allowed, StringRef opName,
                              const VulkanLimits &limits) {
  ArrayRef<int64_t> shape = shapeOf(tensor.value);
  std::string name =
      tensorName(tensor.isResult, tensor.index) + " " + formatShape(shape);
  if (static_cast<int64_t>(shape.size()) > kMaxTextureRank)
    return name + " has rank " + std::to_string(shape.size()) + " > " +
           std::to_string(kMaxTextureRank) + ", which only buffers hold";
  std::string out = name + " fits no texture layout under limits " +
                    formatLimits(limits) + ":";
  static constexpr char kAxes[] = {'x', 'y', 'z'};
  bool first = true;
  for (PackedDim packing : texturePackings()) {
    if (!(allowed & packingBit(packing)))
      continue;
    SmallVector<int64_t, 3> extents = textureExtents(shape, packing);
    out += (first ? " " : "; ") + stringifyPackedDim(packing).str() + " " +
           formatExtents(extents);
    first = false;
    bool firstAxis = true;
    for (int axis = 0; axis < 3; ++axis) {
      if (extents[axis] <= limits.maxExtent[axis])
        continue;
      out += (firstAxis ? " " : ", ") + std::string(1, kAxes[axis]) + ">" +
             std::to_string(limits.maxExtent[axis]);
      firstAxis = false;
    }
  }
  if (allowed != kAnyPacking)
    out += " (" + opName.str() + " reads " + formatPackings(allowed) +
           " textures only)";
  return out;
}

} // namespace

int64_t bufferBytes(RankedTensorType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

ArrayRef<PackedDim> texturePackings() {
  static constexpr PackedDim kOrder[] = {PackedDim::width_packed,
                                         PackedDim::height_packed,
                                         PackedDim::channels_packed};
  return kOrder;
}

PackingSet VulkanRule::packingsOf(Operation *op) const {
  if (packsChannels && op->getNumOperands() > 0 &&
      shapeOf(op->getOperand(0)).size() == 3)
    return kHeightPacked;
  return packings;
}

ArrayRef<VulkanRule> VulkanRules::table() { return kRules; }

ArrayRef<UnsupportedOp> VulkanRules::unsupportedOps() { return kUnsupported; }

VulkanRules::VulkanRules(MLIRContext *context, VulkanLimits limits)
    : RuleTable(context, kTable, kRules), limitsInUse(std::move(limits)) {}

std::optional<StorageOptions> VulkanRules::storageOptions(Operation *op) const {
  StringRef opName = op->getName().getStringRef();
  const VulkanRule *found = find(opName);
  if (!found || found->lowering != Lowering::Native)
    return std::nullopt;
  const VulkanRule &rule = *found;

  PackingSet packings = rule.packingsOf(op);
  StorageOptions options;
  options.kind = rule.layout;
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (!(rule.weights >> index & 1) &&
        isa<RankedTensorType>(operand.getType()))
      options.tensors.push_back(
          {operand, false, static_cast<unsigned>(index),
           fittingPackings(shapeOf(operand), packings, limitsInUse)});
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    options.tensors.push_back(
        {result, true, static_cast<unsigned>(index),
         fittingPackings(shapeOf(result), packings, limitsInUse)});

  const StorageOptions::Tensor *unfit = nullptr;
  for (const StorageOptions::Tensor &tensor : options.tensors)
    if (!tensor.fits && !unfit)
      unfit = &tensor;
  if (rule.layout == LayoutKind::Shared) {
    options.shared = packings;
    for (const StorageOptions::Tensor &tensor : options.tensors)
      options.shared &= tensor.fits;
    options.texture = options.shared != 0;
  } else {
    options.texture = !unfit;
  }

  const StorageOptions::Tensor *tooLarge = nullptr;
  for (const StorageOptions::Tensor &tensor : options.tensors)
    if (bufferBytes(cast<RankedTensorType>(tensor.value.getType())) >
            limitsInUse.maxStorageBufferRange &&
        !tooLarge)
      tooLarge = &tensor;
  options.buffer = rule.bufferKernel && !tooLarge;
  if (options.texture || options.buffer)
    return options;

  if (unfit) {
    options.whyNeither =
        describeNoTexture(*unfit, packings, opName, limitsInUse);
  } else {
    options.whyNeither = "no texture packing fits every tensor of " +
                         opName.str() + " under limits " +
                         formatLimits(limitsInUse) + ":";
    for (const StorageOptions::Tensor &tensor : options.tensors)
      options.whyNeither += " " + tensorName(tensor.isResult, tensor.index) +
                            " fits " + formatPackings(tensor.fits) + ";";
    options.whyNeither.pop_back();
  }
  if (!rule.bufferKernel)
    options.whyNeither += "; and " + opName.str() + " has no buffer kernel";
  else
    options.whyNeither +=
        "; and as a buffer " + tensorName(tooLarge->isResult, tooLarge->index) +
        " needs " +
        std::to_string(
            bufferBytes(cast<RankedTensorType>(tooLarge->value.getType()))) +
        " bytes > maxStorageBufferRange " +
        std::to_string(limitsInUse.maxStorageBufferRange);
  return options;
}

std::optional<std::string>
VulkanRules::checkTensors(Operation *op, const VulkanRule &rule) const {
  // Weights are the delegate's to convert: fp32, or int32 for an index.
  if (auto why = checkDTypes(op, kF32 | kF16, rule.weights))
    return why;
  if (auto why = checkNotEmpty(op, "Vulkan images and buffers cannot be "
                                   "empty (an extent or size of 0)"))
    return why;
  std::optional<StorageOptions> storage = storageOptions(op);
  if (!storage->texture && !storage->buffer)
    return storage->whyNeither;
  return std::nullopt;
}

} // namespace duet::partition
