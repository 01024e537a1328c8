//===- CostPlacement.cpp - the placement with the least estimated time ----===//

#include "partitioners/common/CostPlacement.h"

#include "partitioners/common/Rules.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace duet::partition {

PlacementCosts::PlacementCosts(Block &block, ArrayRef<Operation *> ops,
                               ArrayRef<SmallVector<bool>> claims,
                               ArrayRef<const BackendCosts *> backends,
                               const BackendCosts &portable)
    : block(block), ops(ops.begin(), ops.end()),
      claims(claims.begin(), claims.end()),
      backends(backends.begin(), backends.end()), portable(portable) {
  for (auto [index, op] : llvm::enumerate(this->ops))
    indexOf[op] = index;
  size_t n = this->ops.size();
  opCost.resize(n);
  producers.resize(n);
  consumers.resize(n);
  feedsTerminator.assign(n, false);
  resultBytes.assign(n, 0);
  outerInputs.resize(n);
  for (auto [i, op] : llvm::enumerate(this->ops)) {
    opCost[i].push_back(TargetCosts::opUs(portable, op));
    for (const BackendCosts *costs : this->backends)
      opCost[i].push_back(costs ? TargetCosts::opUs(*costs, op) : 0);
    for (Value result : op->getResults()) {
      resultBytes[i] += tensorBytes(result);
      for (Operation *user : result.getUsers()) {
        auto found = indexOf.find(user);
        if (found == indexOf.end())
          feedsTerminator[i] = true;
      }
    }
    for (Value operand : op->getOperands()) {
      if (isConstant(operand) || isQuantizedWeight(operand))
        continue;
      Operation *def = operand.getDefiningOp();
      auto found = def ? indexOf.find(def) : indexOf.end();
      if (found == indexOf.end()) {
        if (!llvm::any_of(outerInputs[i],
                          [&](auto &entry) { return entry.first == operand; }))
          outerInputs[i].push_back({operand, tensorBytes(operand)});
        continue;
      }
      if (!llvm::is_contained(producers[i], found->second)) {
        producers[i].push_back(found->second);
        consumers[found->second].push_back(i);
      }
    }
  }
}

double PlacementCosts::opUs(Operation *op, int backend) const {
  return opCost[indexOf.lookup(op)][backend + 1];
}

bool PlacementCosts::canRun(Operation *op, int backend) const {
  return backend == kPortable || claims[indexOf.lookup(op)][backend];
}

PlacementCosts::Boundary
PlacementCosts::boundaryOf(const Partition &partition) const {
  const BackendCosts &costs = *backends[partition.backend];
  llvm::SmallPtrSet<Operation *, 16> inside(partition.ops.begin(),
                                            partition.ops.end());
  Boundary boundary;
  boundary.callUs = costs.callUs;
  auto add = [&](Value value) {
    int64_t bytes = tensorBytes(value);
    ++boundary.transfers;
    boundary.transferBytes += bytes;
    boundary.transferUs += TargetCosts::transferUs(costs, bytes);
  };
  llvm::DenseSet<Value> inputs;
  for (Operation *op : partition.ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (isConstant(operand) || isQuantizedWeight(operand) ||
          (def && inside.contains(def)) ||
          !inputs.insert(operand).second)
        continue;
      add(operand);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inside.contains(user); }))
        add(result);
  }
  return boundary;
}

double
PlacementCosts::planUs(const DenseMap<Operation *, int> &assignment) const {
  double total = 0;
  for (auto [i, op] : llvm::enumerate(ops)) {
    auto found = assignment.find(op);
    int backend = found == assignment.end() ? kPortable : found->second;
    total += opCost[i][backend + 1];
  }
  for (const Partition &partition : groupPartitions(block, assignment)) {
    Boundary boundary = boundaryOf(partition);
    total += boundary.callUs + boundary.transferUs;
  }
  return total;
}

SmallVector<unsigned>
PlacementCosts::componentRoots(ArrayRef<int> placement) const {
  size_t n = placement.size();
  SmallVector<unsigned> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t i = 0; i < n; ++i)
    if (placement[i] != kPortable)
      for (unsigned j : producers[i])
        if (placement[j] == placement[i])
          parent[find(j)] = find(i);
  for (size_t i = 0; i < n; ++i)
    parent[i] = find(i);
  return parent;
}

double PlacementCosts::quickPlanUs(ArrayRef<int> placement) const {
  size_t n = ops.size();
  double total = 0;
  for (size_t i = 0; i < n; ++i)
    total += opCost[i][placement[i] + 1];
  SmallVector<unsigned> roots = componentRoots(placement);
  auto find = [&](unsigned i) { return roots[i]; };
  // Per component: one call, and each tensor that crosses its boundary.
  llvm::DenseSet<unsigned> calls;
  llvm::DenseSet<std::pair<unsigned, unsigned>> producedInputs;
  llvm::DenseSet<std::pair<unsigned, void *>> outerSeen;
  for (size_t i = 0; i < n; ++i) {
    if (placement[i] == kPortable)
      continue;
    const BackendCosts &costs = *backends[placement[i]];
    unsigned root = find(i);
    if (calls.insert(root).second)
      total += costs.callUs;
    for (unsigned j : producers[i])
      if ((placement[j] != placement[i] || find(j) != root) &&
          producedInputs.insert({root, j}).second)
        total += TargetCosts::transferUs(costs, resultBytes[j]);
    for (const auto &[value, bytes] : outerInputs[i])
      if (outerSeen.insert({root, value.getAsOpaquePointer()}).second)
        total += TargetCosts::transferUs(costs, bytes);
    bool leaves = feedsTerminator[i] ||
                  llvm::any_of(consumers[i], [&](unsigned k) {
                    return placement[k] != placement[i] || find(k) != root;
                  });
    if (leaves)
      total += TargetCosts::transferUs(costs, resultBytes[i]);
  }
  return total;
}

namespace {

/// Improvements smaller than this (relative to the plan) are noise.
constexpr double kRelativeEpsilon = 1e-6;

} // namespace

/// The local search: from a start, take any move that lowers the estimate
/// until none does or the budget is spent. A move reassigns one partition
/// (every op of it that the target can run) or one op at a partition's
/// boundary, to another backend or to the portable kernels.
class CostSearch {
public:
  CostSearch(const PlacementCosts &costs, CostSearchStats &stats,
             int64_t budget)
      : costs(costs), stats(stats), budget(budget) {}

  SmallVector<int> run(SmallVector<int> placement) {
    double best = evaluate(placement);
    int targets = static_cast<int>(costs.backends.size());
    size_t n = placement.size();
    bool changed = true;
    while (changed && !exhausted()) {
      changed = false;
      // Whole partitions (connected same-backend ops) first.
      for (const SmallVector<unsigned> &component : components(placement)) {
        int current = placement[component.front()];
        for (int target = kPortable; target < targets && !changed; ++target) {
          if (target == current || exhausted())
            continue;
          SmallVector<int> trial = placement;
          for (unsigned i : component)
            if (target == kPortable || costs.claims[i][target])
              trial[i] = target;
          if (trial == placement)
            continue;
          if (tryMove(trial, placement, best))
            changed = true;
        }
        if (changed)
          break;
      }
      if (changed)
        continue;
      // Then single ops where the placement changes along an edge.
      for (size_t i = 0; i < n && !exhausted(); ++i) {
        if (!onBoundary(placement, i))
          continue;
        for (int target = kPortable; target < targets; ++target) {
          if (target == placement[i] ||
              (target != kPortable && !costs.claims[i][target]))
            continue;
          SmallVector<int> trial = placement;
          trial[i] = target;
          if (tryMove(trial, placement, best)) {
            changed = true;
            break;
          }
        }
      }
    }
    stats.budgetReached |= exhausted();
    return placement;
  }

private:
  bool exhausted() const { return stats.evaluations >= budget; }

  double evaluate(ArrayRef<int> placement) {
    ++stats.evaluations;
    return costs.quickPlanUs(placement);
  }

  bool tryMove(SmallVector<int> &trial, SmallVector<int> &placement,
               double &best) {
    double estimate = evaluate(trial);
    if (estimate >= best - kRelativeEpsilon * best)
      return false;
    best = estimate;
    placement = std::move(trial);
    ++stats.moves;
    return true;
  }

  bool onBoundary(ArrayRef<int> placement, size_t i) const {
    for (unsigned j : costs.producers[i])
      if (placement[j] != placement[i])
        return true;
    for (unsigned k : costs.consumers[i])
      if (placement[k] != placement[i])
        return true;
    // A lone op with no neighbour placed like it can still move.
    return placement[i] != kPortable && costs.producers[i].empty() &&
           costs.consumers[i].empty();
  }

  /// Connected components of same-backend ops, portable ops left out.
  SmallVector<SmallVector<unsigned>> components(ArrayRef<int> placement) {
    size_t n = placement.size();
    SmallVector<unsigned> roots = costs.componentRoots(placement);
    auto find = [&](unsigned i) { return roots[i]; };
    DenseMap<unsigned, unsigned> slot;
    SmallVector<SmallVector<unsigned>> out;
    for (size_t i = 0; i < n; ++i) {
      if (placement[i] == kPortable)
        continue;
      auto [it, inserted] = slot.try_emplace(find(i), out.size());
      if (inserted)
        out.emplace_back();
      out[it->second].push_back(i);
    }
    return out;
  }

  const PlacementCosts &costs;
  CostSearchStats &stats;
  int64_t budget;
};

DenseMap<Operation *, int> placeByCost(const PlacementCosts &costs,
                                       const DenseMap<Operation *, int> &start,
                                       CostSearchStats &stats) {
  size_t n = costs.ops.size();
  int backends = static_cast<int>(costs.backends.size());
  auto toMap = [&](ArrayRef<int> placement) {
    DenseMap<Operation *, int> assignment;
    for (size_t i = 0; i < n; ++i)
      if (placement[i] != kPortable)
        assignment[costs.ops[i]] = placement[i];
    return assignment;
  };

  // Starting points: the given one, each backend first (then the others in
  // order), and the cheapest backend for each op on its own.
  SmallVector<SmallVector<int>> starts;
  SmallVector<int> given(n, kPortable);
  for (size_t i = 0; i < n; ++i) {
    auto found = start.find(costs.ops[i]);
    if (found != start.end())
      given[i] = found->second;
  }
  starts.push_back(given);
  for (int first = 0; first < backends; ++first) {
    SmallVector<int> placement(n, kPortable);
    for (size_t i = 0; i < n; ++i) {
      if (costs.claims[i][first]) {
        placement[i] = first;
        continue;
      }
      for (int other = 0; other < backends; ++other)
        if (costs.claims[i][other]) {
          placement[i] = other;
          break;
        }
    }
    starts.push_back(std::move(placement));
  }
  SmallVector<int> cheapest(n, kPortable);
  for (size_t i = 0; i < n; ++i)
    for (int b = 0; b < backends; ++b)
      if (costs.claims[i][b] &&
          costs.opCost[i][b + 1] < costs.opCost[i][cheapest[i] + 1])
        cheapest[i] = b;
  starts.push_back(std::move(cheapest));

  // A budget that keeps the search linear-ish in the block per start.
  int64_t budget = 200 + 40 * static_cast<int64_t>(n);
  DenseMap<Operation *, int> best;
  double bestUs = 0;
  bool first = true;
  for (SmallVector<int> &placement : starts) {
    CostSearch search(costs, stats, stats.evaluations + budget);
    DenseMap<Operation *, int> found = toMap(search.run(placement));
    // Compare the candidates with their real partitions.
    double us = costs.planUs(found);
    if (first || us < bestUs - kRelativeEpsilon * bestUs) {
      best = std::move(found);
      bestUs = us;
      first = false;
    }
  }
  return best;
}

} // namespace duet::partition
