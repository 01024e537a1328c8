//===- Partitioner.cpp - placing ops on the delegate backends -------------===//

#include "partitioners/Partitioner.h"

#include "partitioners/common/CostPlacement.h"
#include "partitioners/common/Grouping.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>

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

/// Whether `op` is placed at all: constants and quantized weights are copied
/// into the partitions that read them, and existing delegates are left as
/// they are.
bool isPlaceable(Operation *op) {
  return !op->hasTrait<OpTrait::ConstantLike>() && !isQuantizedWeightOp(op) &&
         !isa<DelegateOp>(op);
}

/// Moves each quantized weight of `block` to just after the last of its
/// constants, so that it comes before every op, in or out of a partition,
/// that reads it.
void hoistQuantizedWeights(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (!isQuantizedWeightOp(&op))
      continue;
    Operation *last = nullptr;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == &block &&
          (!last || last->isBeforeInBlock(def)))
        last = def;
    }
    if (last)
      op.moveAfter(last);
    else
      op.moveBefore(&block.front());
  }
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

/// A quantize or dequantize node left on the portable kernels, named `node`;
/// with the reasons of the backends that refused it (`decision`'s), where
/// they did (dynamic quantization, a rank XNNPACK cannot hold).
QuantizationNode portableQuantization(Operation &op, std::string node,
                                      const OpDecision *decision = nullptr) {
  QuantizationNode entry;
  entry.node = std::move(node);
  entry.op = op.getName().getStringRef().str();
  entry.why = "runs on the portable kernels";
  if (decision)
    for (auto [i, rejection] : llvm::enumerate(decision->rejections))
      entry.why += (i ? "; " : ": ") + rejection.reason;
  return entry;
}

} // namespace

namespace partition {

std::string backendNames(llvm::StringRef separator, llvm::StringRef last) {
  std::string out;
  ArrayRef<const BackendLowering *> backends = backendLowerings();
  for (auto [index, backend] : llvm::enumerate(backends)) {
    if (index)
      out += (index + 1 == backends.size() ? last : separator).str();
    out += backend->name().str();
  }
  return out;
}

llvm::Error checkBackendOptions(const BackendOptions &options) {
  for (const auto &[name, value] : options.values()) {
    const OptionSpec *spec = nullptr;
    std::string known;
    for (const BackendLowering *backend : backendLowerings())
      for (const OptionSpec &option : backend->options()) {
        if (option.name == name)
          spec = &option;
        known += (known.empty() ? "" : ", ") + option.name.str();
      }
    if (!spec)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "unknown backend option '" + name +
                                         "'; the options are " + known);
    if (spec->isFlag() && value != "true" && value != "false")
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     name + " takes true or false, got '" +
                                         value + "'");
  }
  return llvm::Error::success();
}

} // namespace partition

std::optional<PlacementPolicy> parsePlacementPolicy(llvm::StringRef text) {
  if (text == "priority")
    return PlacementPolicy::priority;
  if (text == "cost")
    return PlacementPolicy::cost;
  return std::nullopt;
}

std::vector<std::string> knownBackends() {
  std::vector<std::string> names;
  for (const BackendLowering *backend : backendLowerings())
    names.push_back(backend->name().str());
  return names;
}

PartitionReport portableReport(ModuleOp module) {
  PartitionReport report;
  for (const BackendLowering *backend : backendLowerings())
    report.sections.push_back(backend->unconfiguredReport());
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    int64_t index = 0;
    for (Block &block : function.getBody())
      for (Operation &op : block.without_terminator()) {
        if (isPlaceable(&op))
          report.ops.push_back(portableDecision(op, function, index++));
        if (isQuantizationOp(&op))
          // A placed op is named as its decision just was; a quantized
          // weight, which is not placed, by its location.
          report.quantization.push_back(portableQuantization(
              op, isPlaceable(&op) ? report.ops.back().node
                                   : locationName(op.getLoc())));
      }
  }
  return report;
}

llvm::Expected<std::string>
targetCostsJson(MLIRContext *context, const BackendOptions &options) {
  if (llvm::Error error = checkBackendOptions(options))
    return std::move(error);
  for (const BackendLowering *backend : backendLowerings()) {
    auto setUp = backend->configure(context, options);
    if (!setUp)
      return setUp.takeError();
    if (const TargetCosts *costs = (*setUp)->targetCosts())
      return costs->toJson();
  }
  return std::string();
}

namespace {

/// One partitioning of a module (partitionModule): the backends asked, set
/// up under the options, what placement by cost reads, and the report each
/// step fills in.
class ModulePartitioner {
public:
  ModulePartitioner(ModuleOp module, const PartitionOptions &options)
      : module(module), options(options),
        byCost(options.placement == PlacementPolicy::cost) {}

  FailureOr<PartitionReport> run() {
    module.getContext()->getOrLoadDialect<DuetDialect>();
    if (failed(setUpBackends()) || failed(readCosts()))
      return failure();
    FailureOr<SmallVector<func::FuncOp>> functions = functionsOf(module);
    if (failed(functions))
      return failure();
    for (func::FuncOp function : *functions)
      if (failed(partitionFunction(function)))
        return failure();
    return std::move(report);
  }

private:
  /// What the backends said of the placeable ops of one function.
  struct Claims {
    /// The backend (rank among those asked) each placed op has.
    DenseMap<Operation *, int> assignment;
    /// Each placeable op's entry in report.ops.
    DenseMap<Operation *, size_t> decisionOf;
    SmallVector<Operation *> placeable;
    /// Per placeable op, per backend: whether it claimed the op, and the
    /// pieces it decomposes it into.
    SmallVector<SmallVector<bool>> claimed;
    SmallVector<SmallVector<SmallVector<std::string>>> pieces;
  };

  /// Checks the backends asked and their options, and sets up every backend
  /// of the build (each has a report section).
  LogicalResult setUpBackends() {
    report.backends =
        options.backends.empty() ? knownBackends() : options.backends;
    for (auto [index, name] : llvm::enumerate(report.backends)) {
      if (!findBackendLowering(name))
        return module.emitError()
               << "unknown backend \"" << name << "\"; backends are "
               << backendNames(", ", " and ") << ", in priority order";
      if (llvm::is_contained(ArrayRef(report.backends).take_front(index), name))
        return module.emitError()
               << "backend \"" << name << "\" is listed twice";
    }
    if (llvm::Error error = checkBackendOptions(options.backendOptions))
      return module.emitError() << llvm::toString(std::move(error));

    for (const BackendLowering *backend : backendLowerings()) {
      auto setUp =
          backend->configure(module.getContext(), options.backendOptions);
      if (!setUp)
        return module.emitError() << llvm::toString(setUp.takeError());
      report.sections.push_back((*setUp)->report());
      configured[backend->name()] = std::move(*setUp);
    }
    // The ones asked, in priority order.
    for (const std::string &name : report.backends) {
      backends.push_back(configured[name].get());
      kinds.push_back(findBackendLowering(name)->kind());
    }
    return success();
  }

  /// The target's costs (recorded in the report whenever a backend reads
  /// them), and placed by cost, each asked backend's and the portable
  /// kernels'.
  LogicalResult readCosts() {
    const TargetCosts *targetCosts = nullptr;
    for (const BackendLowering *backend : backendLowerings())
      if ((targetCosts = configured[backend->name()]->targetCosts()))
        break;
    if (targetCosts)
      report.targetCostsJson = targetCosts->toJson();
    if (!byCost)
      return success();
    if (!targetCosts)
      return module.emitError()
             << "placement by cost needs a target profile with costs; "
                "none of this build's backends reads one";
    for (const std::string &name : report.backends) {
      backendCosts.push_back(targetCosts->find(name));
      if (!backendCosts.back())
        return module.emitError()
               << "the costs of " << targetCosts->origin()
               << " have no entry for backend \"" << name
               << "\"; add one (docs/profiles.md) or leave the backend out";
    }
    portableCosts = targetCosts->find("portable");
    if (!portableCosts)
      return module.emitError()
             << "the costs of " << targetCosts->origin()
             << " have no entry for \"portable\" (docs/profiles.md)";
    report.placement.mode = "cost";
    report.placement.costsOrigin = targetCosts->origin();
    report.placement.costsSource = targetCosts->source();
    return success();
  }

  LogicalResult partitionFunction(func::FuncOp function) {
    Block &block = function.getBody().front();
    hoistQuantizedWeights(block);
    Claims claims = askBackends(block, function);
    std::optional<PlacementCosts> costs;
    if (byCost) {
      costs.emplace(block, claims.placeable, claims.claimed, backendCosts,
                    *portableCosts);
      placeByCostIn(*costs, claims);
    }
    SmallVector<Partition> partitions =
        groupPartitions(block, claims.assignment);
    int64_t firstId = report.partitions.size();
    recordPartitions(function, partitions, claims, costs ? &*costs : nullptr);
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
      ConfiguredLowering *backend = backends[partitions[offset].backend];
      if (failed(backend->rules().legalize(delegate)) ||
          failed(backend->plan(delegate, info, names)))
        return failure();
    }
    recordQuantization(block, *delegates, firstId, claims);
    return success();
  }

  /// Asks the backends in priority order: by priority, until one claims the
  /// op; by cost, all of them. Each placeable op gets its decision in the
  /// report.
  Claims askBackends(Block &block, func::FuncOp function) {
    Claims claims;
    int64_t index = 0;
    for (Operation &op : block.without_terminator()) {
      if (!isPlaceable(&op))
        continue;
      OpDecision decision = portableDecision(op, function, index++);
      SmallVector<bool> &claimed =
          claims.claimed.emplace_back(backends.size(), false);
      SmallVector<SmallVector<std::string>> &decomposed =
          claims.pieces.emplace_back(backends.size());
      claims.placeable.push_back(&op);
      for (auto [rank, backend] : llvm::enumerate(backends)) {
        BackendRules &rules = backend->rules();
        Verdict verdict = rules.check(&op);
        if (!verdict.claimed) {
          decision.rejections.push_back(
              {rules.name().str(), std::move(verdict.reason)});
          continue;
        }
        claimed[rank] = true;
        decomposed[rank].assign(verdict.decomposedInto.begin(),
                                verdict.decomposedInto.end());
        if (!claims.assignment.count(&op)) {
          decision.backend = rules.name().str();
          decision.decomposedInto.assign(decomposed[rank].begin(),
                                        decomposed[rank].end());
          claims.assignment[&op] = rank;
        }
        if (!byCost)
          break;
      }
      names.nameOp(&op, decision.node);
      claims.decisionOf[&op] = report.ops.size();
      report.ops.push_back(std::move(decision));
    }
    return claims;
  }

  /// Replaces the priority assignment with the cheapest one found, and
  /// records each op's estimated times and its new backend.
  void placeByCostIn(const PlacementCosts &costs, Claims &claims) {
    CostSearchStats stats;
    DenseMap<Operation *, int> chosen =
        placeByCost(costs, claims.assignment, stats);
    report.placement.priorityUs += costs.planUs(claims.assignment);
    report.placement.estimatedUs += costs.planUs(chosen);
    report.placement.evaluations += stats.evaluations;
    report.placement.moves += stats.moves;
    report.placement.budgetReached |= stats.budgetReached;
    claims.assignment = std::move(chosen);
    for (auto [i, op] : llvm::enumerate(claims.placeable)) {
      OpDecision &decision = report.ops[claims.decisionOf[op]];
      for (auto [rank, backend] : llvm::enumerate(backends))
        if (claims.claimed[i][rank])
          decision.costsUs.push_back(
              {backend->rules().name().str(), costs.opUs(op, rank)});
      decision.costsUs.push_back({"portable", costs.opUs(op, kPortable)});
      auto found = claims.assignment.find(op);
      decision.backend = found == claims.assignment.end()
                             ? "portable"
                             : report.backends[found->second];
      decision.decomposedInto.clear();
      if (found != claims.assignment.end())
        decision.decomposedInto.assign(claims.pieces[i][found->second].begin(),
                                       claims.pieces[i][found->second].end());
    }
  }

  /// A report entry per partition, made before outlining rebinds the outer
  /// values the partitions read.
  void recordPartitions(func::FuncOp function, ArrayRef<Partition> partitions,
                        const Claims &claims, const PlacementCosts *costs) {
    for (const Partition &partition : partitions) {
      PartitionInfo info;
      info.id = report.partitions.size();
      info.function = function.getSymName().str();
      info.backend = report.backends[partition.backend];
      for (Operation *op : partition.ops) {
        OpDecision &decision = report.ops[claims.decisionOf.at(op)];
        decision.partition = info.id;
        info.nodes.push_back(decision.node);
      }
      if (costs) {
        PlacementCosts::Boundary boundary = costs->boundaryOf(partition);
        info.callUs = boundary.callUs;
        info.transferUs = boundary.transferUs;
        info.transfers = boundary.transfers;
        info.transferBytes = boundary.transferBytes;
        info.estimatedUs = boundary.callUs + boundary.transferUs;
        for (Operation *op : partition.ops)
          info.estimatedUs += costs->opUs(op, partition.backend);
      }
      report.partitions.push_back(std::move(info));
    }
  }

  /// The quantization nodes in program order: each partition's as its
  /// backend planned them, the others on the portable kernels.
  void recordQuantization(Block &block, ArrayRef<DelegateOp> delegates,
                          int64_t firstId, const Claims &claims) {
    DenseMap<Operation *, int64_t> partitionOf;
    for (auto [offset, delegate] : llvm::enumerate(delegates))
      partitionOf[delegate] = firstId + offset;
    for (Operation &op : block.without_terminator()) {
      if (auto found = partitionOf.find(&op); found != partitionOf.end()) {
        const PartitionInfo &info = report.partitions[found->second];
        llvm::append_range(report.quantization, info.quantization);
        continue;
      }
      if (isQuantizationOp(&op)) {
        // A placed op is named as its decision is (choose_qparams has two
        // results); a quantized weight, which is not placed, by its value.
        auto found = claims.decisionOf.find(&op);
        const OpDecision *decision = found == claims.decisionOf.end()
                                         ? nullptr
                                         : &report.ops[found->second];
        report.quantization.push_back(portableQuantization(
            op, decision ? decision->node : names(op.getResult(0)), decision));
      }
    }
  }

  ModuleOp module;
  const PartitionOptions &options;
  const bool byCost;
  PartitionReport report;
  llvm::StringMap<std::unique_ptr<ConfiguredLowering>> configured;
  /// The backends asked, in priority order, and their kinds.
  SmallVector<ConfiguredLowering *> backends;
  SmallVector<DelegateKind> kinds;
  SmallVector<const BackendCosts *> backendCosts;
  const BackendCosts *portableCosts = nullptr;
  ValueNames names;
};

} // namespace

FailureOr<PartitionReport> partitionModule(ModuleOp module,
                                           const PartitionOptions &options) {
  return ModulePartitioner(module, options).run();
}

} // namespace duet
