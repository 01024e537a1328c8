//===- LayoutPlanner.cpp - storage and packing per Vulkan tensor ----------===//

#include "partitioners/vulkan/lowering/LayoutPlanner.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/MapVector.h"

#include <limits>

using namespace mlir;

namespace duet::partition {

namespace {

// A layout is a PackedDim: contiguous is a buffer, the others are textures.
// A set of layouts is a PackingSet, the contiguous bit standing for a buffer.

constexpr PackingSet kBufferBit = packingBit(PackedDim::contiguous);

/// Every layout, in the order ties go: width, height, channels, buffer.
constexpr PackedDim kLayouts[] = {
    PackedDim::width_packed, PackedDim::height_packed,
    PackedDim::channels_packed, PackedDim::contiguous};

/// Cost for tie-breaking: a texture costs its texel count, a buffer more than
/// any texture.
int64_t cost(Value value, PackedDim layout) {
  if (layout == PackedDim::contiguous)
    return std::numeric_limits<int64_t>::max() / 4;
  SmallVector<int64_t, 3> extents = textureExtents(shapeOf(value), layout);
  return extents[0] * extents[1] * extents[2];
}

VkLayoutAttr toAttr(MLIRContext *context, Value value, PackedDim layout) {
  if (layout == PackedDim::contiguous)
    return VkLayoutAttr::get(context, Storage::buffer, PackedDim::contiguous);
  return VkLayoutAttr::get(context, Storage::texture3d, layout,
                           textureExtents(shapeOf(value), layout));
}

/// What one use of a value reads.
struct Demand {
  OpOperand *use;
  PackingSet accepts;
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
  PackingSet freeLayouts(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    PackingSet set = kBufferBit;
    if (type.getRank() > kMaxTextureRank)
      return set;
    for (PackedDim layout : texturePackings()) {
      SmallVector<int64_t, 3> extents = textureExtents(type.getShape(), layout);
      bool fits = true;
      for (int axis = 0; axis < 3; ++axis)
        fits &= extents[axis] <= rules.limits().maxExtent[axis];
      if (fits)
        set |= packingBit(layout);
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
      PackingSet bufferBit = options->buffer ? kBufferBit : 0;
      if (options->kind == LayoutKind::Independent) {
        for (const StorageOptions::Tensor &tensor : options->tensors)
          if (tensor.isResult)
            lean[tensor.value] =
                (options->texture ? tensor.fits : 0) | bufferBit;
        continue;
      }
      PackingSet narrowed =
          (options->texture ? options->shared : 0) | bufferBit;
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
  unsigned satisfied(Value value, PackedDim layout) {
    unsigned count = 0;
    for (const Demand &demand : demands.lookup(value))
      count += (demand.accepts & packingBit(layout)) != 0;
    return count;
  }

  /// The layout in `options` that the most uses of `value` read; ties by
  /// cost, then by the order of kLayouts.
  PackedDim bestFor(Value value, PackingSet options) {
    std::optional<PackedDim> best;
    for (PackedDim layout : kLayouts) {
      if (!(options & packingBit(layout)))
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
  void place(Value value, PackedDim layout) {
    chosen[value] = layout;
    llvm::MapVector<PackedDim, SmallVector<OpOperand *>> unmet;
    for (const Demand &demand : demands.lookup(value)) {
      if (demand.accepts & packingBit(layout))
        continue;
      PackedDim wanted = PackedDim::contiguous;
      int64_t wantedCost = 0;
      bool found = false;
      for (PackedDim candidate : kLayouts) {
        if (!(demand.accepts & packingBit(candidate)))
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
      SmallVector<PackingSet> layouts;
    };
    SmallVector<Variant> variants;
    if (options->texture && options->kind == LayoutKind::Shared) {
      for (PackedDim layout : texturePackings())
        if (options->shared & packingBit(layout))
          variants.push_back({SmallVector<PackingSet>(options->tensors.size(),
                                                      packingBit(layout))});
    } else if (options->texture) {
      Variant variant;
      for (const StorageOptions::Tensor &tensor : options->tensors)
        variant.layouts.push_back(tensor.fits);
      variants.push_back(variant);
    }
    if (options->buffer)
      variants.push_back(
          {SmallVector<PackingSet>(options->tensors.size(), kBufferBit)});

    // Score each variant by the conversions it avoids: one point per
    // consumer its results satisfy, one per input whose producer can write
    // the layout it reads.
    std::optional<size_t> best;
    SmallVector<PackedDim> bestResults;
    unsigned bestScore = 0;
    int64_t bestCost = 0;
    for (auto [index, variant] : llvm::enumerate(variants)) {
      SmallVector<PackedDim> results;
      unsigned score = 0;
      int64_t total = 0;
      for (auto [tensor, layouts] :
           llvm::zip(options->tensors, variant.layouts)) {
        if (!tensor.isResult) {
          score += (lean.lookup(tensor.value) & layouts) != 0;
          continue;
        }
        PackedDim layout = bestFor(tensor.value, layouts);
        results.push_back(layout);
        score += satisfied(tensor.value, layout);
        // Saturating: a buffer costs a quarter of int64's range, and an op
        // with many results (chunk, unbind) has more than four.
        int64_t more = cost(tensor.value, layout);
        total = more > std::numeric_limits<int64_t>::max() - total
                    ? std::numeric_limits<int64_t>::max()
                    : total + more;
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
        PackedDim layout = bestResults[resultIndex++];
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
  DenseMap<Value, PackedDim> chosen;
  DenseMap<Value, PackingSet> lean;
  unsigned conversions = 0;
};

} // namespace

FailureOr<LayoutPlan> planVulkanLayouts(DelegateOp delegate,
                                        const VulkanRules &rules) {
  return Planner(delegate, rules).run();
}

} // namespace duet::partition
