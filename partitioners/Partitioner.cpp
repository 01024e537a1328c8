//===- Partitioner.cpp - placing ops on Vulkan, XNNPACK or portable -------===//

#include "partitioners/Partitioner.h"

#include "partitioners/common/Grouping.h"
#include "partitioners/vulkan/LayoutPlanner.h"
#include "partitioners/vulkan/VulkanRules.h"
#include "partitioners/xnnpack/XnnpackRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace mlir;

namespace duet {

using namespace partition;

namespace {

/// The name of an op's location when it is a name (the importer gives each
/// op the name of its .pt2 node), looking inside fused locations.
std::string locationName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations()) {
      std::string name = locationName(inner);
      if (!name.empty())
        return name;
    }
  return {};
}

/// Names values for the report: an op's node name (with "#k" for result k of
/// an op of several results), a function argument's location name or
/// "arg<N>".
class ValueNames {
public:
  void nameOp(Operation *op, std::string node) { nodes[op] = std::move(node); }

  std::string operator()(Value value) const {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      std::string name = locationName(arg.getLoc());
      return name.empty() ? "arg" + std::to_string(arg.getArgNumber()) : name;
    }
    Operation *op = value.getDefiningOp();
    // A partition's output is named after the op inside that produces it.
    if (auto delegate = dyn_cast<DelegateOp>(op)) {
      auto yield = cast<YieldOp>(delegate.getBody().front().getTerminator());
      return (*this)(
          yield.getValues()[cast<OpResult>(value).getResultNumber()]);
    }
    // A conversion is named after the tensor it converts.
    if (auto convert = dyn_cast<LayoutConvertOp>(op))
      return (*this)(convert.getInput());
    std::string name = nodes.lookup(op);
    if (name.empty())
      name = locationName(op->getLoc());
    if (name.empty())
      name = op->getName().getStringRef().str();
    if (op->getNumResults() > 1)
      name += "#" + std::to_string(cast<OpResult>(value).getResultNumber());
    return name;
  }

private:
  DenseMap<Operation *, std::string> nodes;
};

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Whether `op` is placed at all: constants are copied into the partitions
/// that read them, and existing delegates are left as they are.
bool isPlaceable(Operation *op) {
  return !op->hasTrait<OpTrait::ConstantLike>() && !isa<DelegateOp>(op);
}

/// The functions with a body; an error for one whose body is not one block.
FailureOr<SmallVector<func::FuncOp>> functionsOf(ModuleOp module) {
  SmallVector<func::FuncOp> functions;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    if (!function.getBody().hasOneBlock())
      return function.emitError()
             << "the partitioner takes a function body of one block, got "
             << function.getBody().getBlocks().size();
    functions.push_back(function);
  }
  return functions;
}

/// A decision for `op`, the `index`-th placeable op of `function`, as
/// portable until a backend takes it.
OpDecision portableDecision(Operation &op, func::FuncOp function,
                            int64_t index) {
  OpDecision decision;
  decision.function = function.getSymName().str();
  decision.index = index;
  decision.node = locationName(op.getLoc());
  if (decision.node.empty())
    decision.node = "#" + std::to_string(index);
  decision.op = op.getName().getStringRef().str();
  decision.backend = "portable";
  return decision;
}

} // namespace

std::vector<std::string> knownBackends() { return {"vulkan", "xnnpack"}; }

PartitionReport portableReport(ModuleOp module) {
  PartitionReport report;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    int64_t index = 0;
    for (Block &block : function.getBody())
      for (Operation &op : block.without_terminator())
        if (isPlaceable(&op))
          report.ops.push_back(portableDecision(op, function, index++));
  }
  return report;
}

FailureOr<PartitionReport> partitionModule(ModuleOp module,
                                           const PartitionOptions &options) {
  MLIRContext *context = module.getContext();
  context->getOrLoadDialect<DuetDialect>();

  PartitionReport report;
  report.enableBf16 = options.enableBf16;
  report.backends =
      options.backends.empty() ? knownBackends() : options.backends;
  for (auto [index, name] : llvm::enumerate(report.backends)) {
    if (!symbolizeBackend(name))
      return module.emitError()
             << "unknown backend \"" << name
             << "\"; backends are vulkan and xnnpack, in priority order";
    if (llvm::is_contained(ArrayRef(report.backends).take_front(index), name))
      return module.emitError() << "backend \"" << name << "\" is listed twice";
  }

  llvm::Expected<VulkanLimits> limits =
      resolveVulkanLimits(options.targetProfile, options.textureLimits);
  if (!limits)
    return module.emitError() << llvm::toString(limits.takeError());
  report.textureLimits = limits->maxExtent;
  report.maxStorageBufferRange = limits->maxStorageBufferRange;
  report.limitsOrigin = limits->origin;

  // One rule table per requested backend, in priority order.
  std::unique_ptr<VulkanRules> vulkan;
  std::unique_ptr<XnnpackRules> xnnpack;
  SmallVector<BackendRules *> backends;
  SmallVector<Backend> kinds;
  for (const std::string &name : report.backends) {
    Backend kind = *symbolizeBackend(name);
    kinds.push_back(kind);
    if (kind == Backend::vulkan) {
      vulkan = std::make_unique<VulkanRules>(context, *limits);
      backends.push_back(vulkan.get());
    } else {
      xnnpack = std::make_unique<XnnpackRules>(context, options.enableBf16);
      backends.push_back(xnnpack.get());
    }
  }

  FailureOr<SmallVector<func::FuncOp>> functions = functionsOf(module);
  if (failed(functions))
    return failure();

  ValueNames names;
  for (func::FuncOp function : *functions) {
    Block &block = function.getBody().front();
    std::string functionName = function.getSymName().str();

    // Ask the backends in priority order.
    DenseMap<Operation *, int> assignment;
    DenseMap<Operation *, size_t> decisionOf;
    int64_t index = 0;
    for (Operation &op : block.without_terminator()) {
      if (!isPlaceable(&op))
        continue;
      OpDecision decision = portableDecision(op, function, index++);
      for (auto [rank, backend] : llvm::enumerate(backends)) {
        Verdict verdict = backend->check(&op);
        if (!verdict.claimed) {
          decision.rejections.push_back(
              {backend->name().str(), std::move(verdict.reason)});
          continue;
        }
        decision.backend = backend->name().str();
        decision.decomposedInto.assign(verdict.decomposedInto.begin(),
                                       verdict.decomposedInto.end());
        assignment[&op] = rank;
        break;
      }
      names.nameOp(&op, decision.node);
      decisionOf[&op] = report.ops.size();
      report.ops.push_back(std::move(decision));
    }

    SmallVector<Partition> partitions = groupPartitions(block, assignment);
    // Outer values the partitions read, named before outlining rebinds them.
    for (const Partition &partition : partitions) {
      PartitionInfo info;
      info.id = report.partitions.size();
      info.function = functionName;
      info.backend = report.backends[partition.backend];
      for (Operation *op : partition.ops) {
        OpDecision &decision = report.ops[decisionOf[op]];
        decision.partition = info.id;
        info.nodes.push_back(decision.node);
      }
      report.partitions.push_back(std::move(info));
    }
    int64_t firstId = report.partitions.size() - partitions.size();
    FailureOr<SmallVector<DelegateOp>> delegates =
        outlinePartitions(block, partitions, kinds);
    if (failed(delegates))
      return function.emitError()
             << "internal error: the partitions form a cycle; please report "
                "this with the model";

    for (auto [offset, delegate] : llvm::enumerate(*delegates)) {
      PartitionInfo &info = report.partitions[firstId + offset];
      info.inputs = delegate.getInputs().size();
      info.outputs = delegate.getNumResults();
      BackendRules *backend = backends[partitions[offset].backend];
      Decomposer &decomposer = backend == vulkan.get() ? vulkan->decomposer()
                                                       : xnnpack->decomposer();
      if (failed(decomposer.legalize(delegate)))
        return failure();
      if (delegate.getBackend() != Backend::vulkan)
        continue;
      FailureOr<LayoutPlan> plan = planVulkanLayouts(delegate, *vulkan);
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
        report.vulkanTensors.push_back(std::move(tensor));
      }
    }
  }
  return report;
}

} // namespace duet
