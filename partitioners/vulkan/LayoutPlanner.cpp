//===- LayoutPlanner.cpp - storage and packing per Vulkan tensor ----------===//

#include "partitioners/vulkan/LayoutPlanner.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace duet::partition {

namespace {

/// A layout as a small code: a buffer, or a texture of one packing.
enum Layout : uint8_t { kBuffer, kWidth, kHeight, kChannels };
/// A set of layouts, bit (1 << Layout).
using LayoutSet = uint8_t;

constexpr Layout kTextures[] = {kWidth, kHeight, kChannels};

LayoutSet bit(Layout layout) { return LayoutSet(1) << layout; }

PackedDim packingOf(Layout layout) {
  switch (layout) {
  case kWidth:
    return PackedDim::width_packed;
  case kHeight:
    return PackedDim::height_packed;
  case kChannels:
    return PackedDim::channels_packed;
  case kBuffer:
    break;
  }
  return PackedDim::contiguous;
}

/// The texture layouts in a packing set.
LayoutSet texturesOf(PackingSet packings) {
  LayoutSet set = 0;
  for (Layout layout : kTextures)
    if (packings & packingBit(packingOf(layout)))
      set |= bit(layout);
  return set;
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Cost for tie-breaking: a texture costs its texel count, a buffer more than
/// any texture.
int64_t cost(Value value, Layout layout) {
  if (layout == kBuffer)
    return std::numeric_limits<int64_t>::max() / 4;
  SmallVector<int64_t, 3> extents =
      textureExtents(shapeOf(value), packingOf(layout));
  return extents[0] * extents[1] * extents[2];
}

VkLayoutAttr toAttr(MLIRContext *context, Value value, Layout layout) {
  if (layout == kBuffer)
    return VkLayoutAttr::get(context, Storage::buffer, PackedDim::contiguous);
  PackedDim packing = packingOf(layout);
  return VkLayoutAttr::get(context, Storage::texture3d, packing,
                           textureExtents(shapeOf(value), packing));
}

/// What one use of a value reads.
struct Demand {
  OpOperand *use;
  LayoutSet accepts;
};

class Planner {
public:
  Planner(DelegateOp delegate, const VulkanRules &rules)
      : delegate(delegate), rules(rules), context(delegate.getContext()) {}

  FailureOr<LayoutPlan> run() {
    Block &body = delegate.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    if (failed(computeLeans(body, ops)))
      return failure();
    for (Operation *op : llvm::reverse(ops)) {
      if (op->hasTrait<OpTrait::ConstantLike>()) {
        // A constant other ops read as a tensor (not a packed weight) is
        // uploaded in the layout most of its readers want.
        if (demands.count(op->getResult(0))) {
          Value value = op->getResult(0);
          place(value, bestFor(value, freeLayouts(value)));
          op->setAttr(
              DuetDialect::kVkLayoutsAttrName,
              ArrayAttr::get(context, {toAttr(context, value, chosen[value])}));
        }
        continue;
      }
      if (failed(planOp(op)))
        return failure();
    }
    SmallVector<Attribute> argLayouts;
    for (BlockArgument arg : body.getArguments()) {
      place(arg, bestFor(arg, freeLayouts(arg)));
      argLayouts.push_back(toAttr(context, arg, chosen[arg]));
    }
    delegate->setAttr(DuetDialect::kVkArgLayoutsAttrName,
                      ArrayAttr::get(context, argLayouts));

    LayoutPlan plan;
    plan.conversions = conversions;
    for (BlockArgument arg : body.getArguments())
      plan.tensors.push_back({arg, toAttr(context, arg, chosen[arg])});
    for (Operation &op : body.without_terminator()) {
      if (auto convert = dyn_cast<LayoutConvertOp>(op)) {
        plan.tensors.push_back({convert.getResult(), convert.getTo()});
        continue;
      }
      auto layouts =
          op.getAttrOfType<ArrayAttr>(DuetDialect::kVkLayoutsAttrName);
      if (!layouts)
        continue;
      for (auto [result, layout] : llvm::zip(op.getResults(), layouts))
        plan.tensors.push_back({result, cast<VkLayoutAttr>(layout)});
    }
    return plan;
  }

private:
  /// The layouts a partition input or a constant can take: the textures that
  /// fit, and a buffer.
  LayoutSet freeLayouts(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    LayoutSet set = bit(kBuffer);
    if (type.getRank() > kMaxTextureRank)
      return set;
    for (Layout layout : kTextures) {
      SmallVector<int64_t, 3> extents =
          textureExtents(type.getShape(), packingOf(layout));
      bool fits = true;
      for (int axis = 0; axis < 3; ++axis)
        fits &= extents[axis] <= rules.limits().maxExtent[axis];
      if (fits)
        set |= bit(layout);
    }
    return set;
  }

  /// The storage options of a native op in this partition, or an error.
  FailureOr<StorageOptions> optionsOf(Operation *op) {
    std::optional<StorageOptions> options = rules.storageOptions(op);
    if (!options || (!options->texture && !options->buffer))
      return op->emitOpError()
             << "has no Vulkan layout under limits "
             << ArrayRef<int64_t>(rules.limits().maxExtent)
             << (options ? ": " + options->whyNeither : std::string());
    return *options;
  }

  /// The layouts each op's results can take with its inputs as their
  /// producers would write them, visiting producers first: partition inputs
  /// and constants can take any layout that fits, an op with one packing for
  /// all its tensors narrows its choice to what its inputs can be. The
  /// backward pass uses this to avoid choosing a layout the producers of an
  /// op's inputs cannot write.
  LogicalResult computeLeans(Block &body, ArrayRef<Operation *> ops) {
    for (BlockArgument arg : body.getArguments())
      lean[arg] = freeLayouts(arg);
    for (Operation *op : ops) {
      if (op->hasTrait<OpTrait::ConstantLike>()) {
        lean[op->getResult(0)] = freeLayouts(op->getResult(0));
        continue;
      }
      FailureOr<StorageOptions> options = optionsOf(op);
      if (failed(options))
        return failure();
      LayoutSet bufferBit = options->buffer ? bit(kBuffer) : 0;
      if (options->kind == LayoutKind::Independent) {
        for (const StorageOptions::Tensor &tensor : options->tensors)
          if (tensor.isResult)
            lean[tensor.value] =
                (options->texture ? texturesOf(tensor.fits) : 0) | bufferBit;
        continue;
      }
      LayoutSet narrowed =
          (options->texture ? texturesOf(options->shared) : 0) | bufferBit;
      for (const StorageOptions::Tensor &tensor : options->tensors)
        if (!tensor.isResult && (narrowed & lean.lookup(tensor.value)))
          narrowed &= lean.lookup(tensor.value);
      for (const StorageOptions::Tensor &tensor : options->tensors)
        if (tensor.isResult)
          lean[tensor.value] = narrowed;
    }
    return success();
  }

  /// How many recorded uses of `value` read `layout`.
  unsigned satisfied(Value value, Layout layout) {
    unsigned count = 0;
    for (const Demand &demand : demands.lookup(value))
      count += (demand.accepts & bit(layout)) != 0;
    return count;
  }

  /// The layout in `options` that the most uses of `value` read; ties by
  /// cost, then by the order width, height, channels, buffer.
  Layout bestFor(Value value, LayoutSet options) {
    std::optional<Layout> best;
    for (Layout layout : {kWidth, kHeight, kChannels, kBuffer}) {
      if (!(options & bit(layout)))
        continue;
      if (!best)
        best = layout;
      unsigned a = satisfied(value, layout), b = satisfied(value, *best);
      if (a > b || (a == b && cost(value, layout) < cost(value, *best)))
        best = layout;
    }
    return *best;
  }

  /// Records `value`'s layout and converts it for the uses that read another.
  void place(Value value, Layout layout) {
    chosen[value] = layout;
    llvm::MapVector<Layout, SmallVector<OpOperand *>> unmet;
    for (const Demand &demand : demands.lookup(value)) {
      if (demand.accepts & bit(layout))
        continue;
      Layout wanted = kBuffer;
      int64_t wantedCost = 0;
      bool found = false;
      for (Layout candidate : {kWidth, kHeight, kChannels, kBuffer}) {
        if (!(demand.accepts & bit(candidate)))
          continue;
        int64_t c = cost(value, candidate);
        if (!found || c < wantedCost) {
          wanted = candidate;
          wantedCost = c;
          found = true;
        }
      }
      unmet[wanted].push_back(demand.use);
    }
    if (unmet.empty())
      return;
    OpBuilder builder(context);
    if (auto arg = dyn_cast<BlockArgument>(value))
      builder.setInsertionPointToStart(arg.getOwner());
    else
      builder.setInsertionPointAfter(value.getDefiningOp());
    for (auto &[wanted, uses] : unmet) {
      auto convert = builder.create<LayoutConvertOp>(
          value.getLoc(), value, toAttr(context, value, layout),
          toAttr(context, value, wanted));
      for (OpOperand *use : uses)
        use->set(convert.getResult());
      ++conversions;
    }
  }

  LogicalResult planOp(Operation *op) {
    FailureOr<StorageOptions> options = optionsOf(op);
    if (failed(options))
      return failure();

    // Candidate variants: per tensor, the layouts it may take. A shared
    // packing gives one variant per packing; independent packings one
    // variant where each tensor picks; the buffer kernel one more.
    struct Variant {
      SmallVector<LayoutSet> layouts;
    };
    SmallVector<Variant> variants;
    if (options->texture && options->kind == LayoutKind::Shared) {
      for (Layout layout : kTextures)
        if (options->shared & packingBit(packingOf(layout)))
          variants.push_back(
              {SmallVector<LayoutSet>(options->tensors.size(), bit(layout))});
    } else if (options->texture) {
      Variant variant;
      for (const StorageOptions::Tensor &tensor : options->tensors)
        variant.layouts.push_back(texturesOf(tensor.fits));
      variants.push_back(variant);
    }
    if (options->buffer)
      variants.push_back(
          {SmallVector<LayoutSet>(options->tensors.size(), bit(kBuffer))});

    // Score each variant by the conversions it avoids: one point per
    // consumer its results satisfy, one per input whose producer can write
    // the layout it reads.
    std::optional<size_t> best;
    SmallVector<Layout> bestResults;
    unsigned bestScore = 0;
    int64_t bestCost = 0;
    for (auto [index, variant] : llvm::enumerate(variants)) {
      SmallVector<Layout> results;
      unsigned score = 0;
      int64_t total = 0;
      for (auto [tensor, layouts] :
           llvm::zip(options->tensors, variant.layouts)) {
        if (!tensor.isResult) {
          score += (lean.lookup(tensor.value) & layouts) != 0;
          continue;
        }
        Layout layout = bestFor(tensor.value, layouts);
        results.push_back(layout);
        score += satisfied(tensor.value, layout);
        total += cost(tensor.value, layout);
      }
      if (!best || score > bestScore ||
          (score == bestScore && total < bestCost)) {
        best = index;
        bestResults = results;
        bestScore = score;
        bestCost = total;
      }
    }

    const Variant &variant = variants[*best];
    SmallVector<Attribute> resultLayouts;
    unsigned resultIndex = 0;
    for (auto [tensor, layouts] :
         llvm::zip(options->tensors, variant.layouts)) {
      if (tensor.isResult) {
        Layout layout = bestResults[resultIndex++];
        resultLayouts.push_back(toAttr(context, tensor.value, layout));
        place(tensor.value, layout);
      } else {
        demands[tensor.value].push_back(
            {&op->getOpOperand(tensor.index), layouts});
      }
    }
    op->setAttr(DuetDialect::kVkLayoutsAttrName,
                ArrayAttr::get(context, resultLayouts));
    return success();
  }

  DelegateOp delegate;
  const VulkanRules &rules;
  MLIRContext *context;
  DenseMap<Value, SmallVector<Demand>> demands;
  DenseMap<Value, Layout> chosen;
  DenseMap<Value, LayoutSet> lean;
  unsigned conversions = 0;
};

} // namespace

FailureOr<LayoutPlan> planVulkanLayouts(DelegateOp delegate,
                                        const VulkanRules &rules) {
  return Planner(delegate, rules).run();
}

} // namespace duet::partition
