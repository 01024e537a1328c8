//===- Grouping.cpp - claimed ops into acyclic partitions -----------------===//

#include "partitioners/common/Grouping.h"

#include "partitioners/common/Rules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <queue>

using namespace mlir;

namespace duet::partition {

namespace {

/// The graph of one block's ops: position of each op, and union-find over
/// partition ids.
class Grouper {
public:
  explicit Grouper(Block &block) {
    for (Operation &op : block.without_terminator()) {
      position[&op] = ops.size();
      ops.push_back(&op);
    }
    groupOf.assign(ops.size(), -1);
  }

  SmallVector<Partition> run(const DenseMap<Operation *, int> &assignment) {
    for (auto [index, op] : llvm::enumerate(ops)) {
      auto found = assignment.find(op);
      if (found == assignment.end() || found->second < 0)
        continue;
      int backend = found->second;
      int group = newGroup(index, backend);
      // Producers of the same backend, each partition considered once, in
      // the order the operands name them.
      SmallVector<int> candidates;
      for (Value operand : op->getOperands()) {
        int producer = nodeOf(operand);
        if (producer < 0 || groupOf[producer] < 0)
          continue;
        int candidate = find(groupOf[producer]);
        if (backendOf[candidate] == backend &&
            !llvm::is_contained(candidates, candidate))
          candidates.push_back(candidate);
      }
      for (int candidate : candidates) {
        int a = find(candidate), b = find(group);
        if (a != b && canMerge(a, b))
          group = merge(a, b);
      }
    }

    // Collect partitions by their first op.
    DenseMap<int, unsigned> slot;
    SmallVector<Partition> partitions;
    for (auto [index, op] : llvm::enumerate(ops)) {
      if (groupOf[index] < 0)
        continue;
      int root = find(groupOf[index]);
      auto [it, inserted] = slot.try_emplace(root, partitions.size());
      if (inserted)
        partitions.push_back({backendOf[root], {}});
      partitions[it->second].ops.push_back(op);
    }
    return partitions;
  }

private:
  /// The node index of `value`'s defining op in this block, or -1.
  int nodeOf(Value value) const {
    Operation *def = value.getDefiningOp();
    if (!def)
      return -1;
    auto found = position.find(def);
    return found == position.end() ? -1 : static_cast<int>(found->second);
  }

  int newGroup(unsigned node, int backend) {
    int id = parent.size();
    parent.push_back(id);
    backendOf.push_back(backend);
    members.push_back({node});
    groupOf[node] = id;
    return id;
  }

  int find(int id) {
    while (parent[id] != id)
      id = parent[id] = parent[parent[id]];
    return id;
  }

  int merge(int a, int b) {
    if (members[a].size() < members[b].size())
      std::swap(a, b);
    parent[b] = a;
    members[a].append(members[b].begin(), members[b].end());
    members[b].clear();
    return a;
  }

  /// Whether any op of `from` depends on the union M of groups `a` and `b`
  /// in the graph where every other group is contracted to one node: the
  /// search walks operands backwards, and on reaching an op of another group
  /// continues from every op of that group, since after outlining the group
  /// runs as one call that needs all of its inputs. (Block order does not
  /// bound this search: an op before M can read a group that reads M.)
  bool dependsOn(ArrayRef<unsigned> from, int a, int b) {
    SmallVector<unsigned> stack;
    DenseSet<unsigned> seen;
    DenseSet<int> expanded;
    auto visit = [&](unsigned node) {
      if (!seen.insert(node).second)
        return;
      if (groupOf[node] < 0) {
        stack.push_back(node);
        return;
      }
      int root = find(groupOf[node]);
      if (!expanded.insert(root).second)
        return;
      for (unsigned member : members[root]) {
        seen.insert(member);
        stack.push_back(member);
      }
    };
    for (unsigned node : from)
      visit(node);
    while (!stack.empty()) {
      unsigned node = stack.pop_back_val();
      for (Value operand : ops[node]->getOperands()) {
        int producer = nodeOf(operand);
        if (producer < 0)
          continue;
        if (groupOf[producer] >= 0) {
          int root = find(groupOf[producer]);
          if (root == a || root == b)
            return true;
        }
        visit(producer);
      }
    }
    return false;
  }

  /// Whether merging groups `a` and `b` into M keeps the graph acyclic once
  /// every group is contracted to one node (grouping keeps that graph
  /// acyclic, so any new cycle passes through M). A cycle through M leaves
  /// M and re-enters it; follow it backwards from where it re-enters: the
  /// last edge comes from an op y outside M (an ungrouped op, or an op of a
  /// group, which stands for its whole group), and y depends on M because the
  /// rest of the cycle leads from M to y. Conversely any operand producer y
  /// of M that depends on M closes a cycle. So it suffices to ask whether any
  /// operand producer of M outside M depends on M. Without the contraction
  /// this is convexity of M; with it, it also rules out two convex partitions
  /// that each need the other's output.
  bool canMerge(int a, int b) {
    SmallVector<unsigned> outside;
    for (int group : {a, b})
      for (unsigned node : members[group])
        for (Value operand : ops[node]->getOperands()) {
          int producer = nodeOf(operand);
          if (producer < 0)
            continue;
          if (groupOf[producer] >= 0) {
            int root = find(groupOf[producer]);
            if (root == a || root == b)
              continue;
          }
          outside.push_back(producer);
        }
    return !dependsOn(outside, a, b);
  }

  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> position;
  /// Group id of each node, -1 when unclaimed; resolve with find().
  SmallVector<int> groupOf;
  SmallVector<int> parent;
  SmallVector<int> backendOf;
  SmallVector<SmallVector<unsigned>> members;
};

/// Moves the ops of `block` into a stable topological order in which each
/// partition is contiguous: partitions are contracted to single nodes and
/// sorted by Kahn's algorithm, taking the ready node with the earliest first
/// op each time.
/// Fails only if the contracted graph has a cycle, which grouping rules out.
LogicalResult makePartitionsContiguous(Block &block,
                                       ArrayRef<Partition> partitions) {
  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> position;
  for (Operation &op : block.without_terminator()) {
    position[&op] = ops.size();
    ops.push_back(&op);
  }
  // A node per partition, then one per op outside any partition.
  SmallVector<SmallVector<Operation *>> nodes;
  DenseMap<Operation *, unsigned> nodeOf;
  for (const Partition &partition : partitions) {
    for (Operation *op : partition.ops)
      nodeOf[op] = nodes.size();
    nodes.push_back(partition.ops);
  }
  for (Operation *op : ops)
    if (!nodeOf.count(op)) {
      nodeOf[op] = nodes.size();
      nodes.push_back({op});
    }

  SmallVector<SmallVector<unsigned>> successors(nodes.size());
  SmallVector<unsigned> pending(nodes.size(), 0);
  for (auto [node, members] : llvm::enumerate(nodes)) {
    DenseSet<unsigned> preds;
    for (Operation *op : members)
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (!def || !nodeOf.count(def))
            continue;
          unsigned pred = nodeOf[def];
          if (pred != node && preds.insert(pred).second) {
            successors[pred].push_back(node);
            ++pending[node];
          }
        }
      });
  }

  auto later = [&](unsigned x, unsigned y) {
    return position[nodes[x].front()] > position[nodes[y].front()];
  };
  std::priority_queue<unsigned, std::vector<unsigned>, decltype(later)> ready(
      later);
  for (unsigned node = 0; node < nodes.size(); ++node)
    if (!pending[node])
      ready.push(node);
  SmallVector<unsigned> order;
  while (!ready.empty()) {
    unsigned node = ready.top();
    ready.pop();
    order.push_back(node);
    for (unsigned next : successors[node])
      if (--pending[next] == 0)
        ready.push(next);
  }
  if (order.size() != nodes.size())
    return failure();
  Operation *terminator = block.getTerminator();
  for (unsigned node : order)
    for (Operation *op : nodes[node])
      op->moveBefore(terminator);
  return success();
}

/// Wraps `partition` in a delegate; records in `cloned` the constants it
/// copied inside.
DelegateOp outline(const Partition &partition, DelegateKind backend,
                   llvm::SmallPtrSetImpl<Operation *> &cloned) {
  DenseSet<Operation *> inside(partition.ops.begin(), partition.ops.end());
  SmallVector<Value> inputs;
  SmallVector<Operation *> constants;
  for (Operation *op : partition.ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && inside.count(def))
        continue;
      if (def && (def->hasTrait<OpTrait::ConstantLike>() ||
                  isQuantizedWeightOp(def))) {
        // A quantized weight comes with its constants, copied first.
        for (Value weightOperand : def->getOperands())
          if (Operation *constant = weightOperand.getDefiningOp();
              !llvm::is_contained(constants, constant))
            constants.push_back(constant);
        if (!llvm::is_contained(constants, def))
          constants.push_back(def);
      } else if (!llvm::is_contained(inputs, operand)) {
        inputs.push_back(operand);
      }
    }
  SmallVector<Value> outputs;
  for (Operation *op : partition.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inside.count(user); }))
        outputs.push_back(result);

  Operation *first = partition.ops.front();
  OpBuilder builder(first);
  auto delegate = builder.create<DelegateOp>(
      first->getLoc(), ValueRange(outputs).getTypes(), backend, inputs);
  Block *body = new Block();
  delegate.getBody().push_back(body);
  for (Value input : inputs)
    body->addArgument(input.getType(), input.getLoc());
  builder.setInsertionPointToStart(body);
  auto isInside = [&](OpOperand &use) {
    return delegate->isProperAncestor(use.getOwner());
  };
  auto yield = builder.create<YieldOp>(first->getLoc(), outputs);
  for (Operation *op : partition.ops)
    op->moveBefore(yield);
  builder.setInsertionPointToStart(body);
  IRMapping copies;
  for (Operation *constant : constants) {
    cloned.insert(constant);
    Operation *copy = builder.clone(*constant, copies);
    constant->getResult(0).replaceUsesWithIf(copy->getResult(0), isInside);
  }
  for (auto [input, argument] : llvm::zip(inputs, body->getArguments()))
    input.replaceUsesWithIf(argument, isInside);
  for (auto [output, result] : llvm::zip(outputs, delegate.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !delegate->isProperAncestor(use.getOwner());
    });
  return delegate;
}

} // namespace

SmallVector<Partition>
groupPartitions(Block &block, const DenseMap<Operation *, int> &assignment) {
  return Grouper(block).run(assignment);
}

FailureOr<SmallVector<DelegateOp>>
outlinePartitions(Block &block, ArrayRef<Partition> partitions,
                  ArrayRef<DelegateKind> backends) {
  if (failed(makePartitionsContiguous(block, partitions)))
    return failure();
  SmallVector<DelegateOp> delegates;
  llvm::SmallPtrSet<Operation *, 16> cloned;
  for (const Partition &partition : partitions)
    delegates.push_back(
        outline(partition, backends[partition.backend], cloned));
  // Quantized weights first: erasing one may leave its constants unused.
  SmallVector<Operation *> copied(cloned.begin(), cloned.end());
  for (bool weights : {true, false})
    for (Operation *&constant : copied)
      if (constant &&
          !constant->hasTrait<OpTrait::ConstantLike>() == weights &&
          constant->use_empty()) {
        constant->erase();
        constant = nullptr;
      }
  return delegates;
}

} // namespace duet::partition
