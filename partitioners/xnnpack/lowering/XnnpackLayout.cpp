//===- XnnpackLayout.cpp - layouts and subgraphs of an XNNPACK partition --===//

#include "partitioners/xnnpack/lowering/XnnpackLayout.h"

#include "partitioners/common/Rules.h"
#include "partitioners/xnnpack/dialect/XnnDialect.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace duet::partition {

namespace {

using xnn::Layout;
using xnn::Transfer;

bool isConstant(Value value) {
  return value.getDefiningOp<arith::ConstantOp>() != nullptr;
}

bool isBf16(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType().isBF16();
}

Layout otherThan(Layout layout) {
  return layout == Layout::plain ? Layout::nhwc : Layout::plain;
}

/// When a value can be read: by nodes of subgraph `ready` on, and by host
/// copies after subgraph `hostAfter` (-1: before the first).
struct Timing {
  int64_t ready = 0;
  int64_t hostAfter = -1;
};

class Planner {
public:
  explicit Planner(DelegateOp delegate)
      : delegate(delegate), context(delegate.getContext()), builder(context) {}

  FailureOr<XnnpackLayoutPlan> run() {
    Block &body = delegate.getBody().front();
    // A bf16 input is no value a node can read: only a host copy that
    // converts it to fp32 reads it.
    for (BlockArgument arg : body.getArguments())
      if (!isBf16(arg))
        views[key(arg, Layout::plain)] = arg;
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      if (!isa<arith::ConstantOp>(op))
        ops.push_back(&op);
    for (Operation *op : ops) {
      builder.setInsertionPoint(op);
      if (failed(planOp(op)))
        return failure();
    }
    plan.subgraphs = static_cast<unsigned>(lastSubgraph + 1);
    return plan;
  }

private:
  static std::pair<Value, int> key(Value value, Layout layout) {
    return {value, static_cast<int>(layout)};
  }

  bool has(Value value, Layout layout) const {
    return views.count(key(value, layout)) != 0;
  }

  /// The layout an op that does not care reads `value` in: NHWC when it has
  /// that already.
  Layout current(Value value) const {
    return shapeOf(value).size() == 4 && has(value, Layout::nhwc)
               ? Layout::nhwc
               : Layout::plain;
  }

  void setSubgraph(Operation *op, int64_t subgraph) {
    op->setAttr(xnn::XnnDialect::kSubgraphAttrName,
                IntegerAttr::get(IntegerType::get(context, 64), subgraph));
  }

  /// A layout change of `input` at the builder's insertion point, timed: a
  /// reshape node runs in the subgraph where its input is ready, a host copy
  /// after the subgraph that writes its input.
  Value change(Value input, Layout from, Layout to, Transfer by) {
    auto op = builder.create<xnn::LayoutChangeOp>(
        input.getLoc(), input.getType(), input,
        xnn::LayoutAttr::get(context, from), xnn::LayoutAttr::get(context, to),
        xnn::TransferAttr::get(context, by));
    Timing source = timing.lookup(input), result;
    switch (by) {
    case Transfer::repack:
      ++plan.repacks;
      break;
    case Transfer::reshape:
      result = {source.ready, source.ready};
      setSubgraph(op, source.ready);
      lastSubgraph = std::max(lastSubgraph, source.ready);
      ++plan.reshapes;
      break;
    case Transfer::host_copy:
      result = {source.hostAfter + 1, source.hostAfter};
      setSubgraph(op, source.hostAfter + 1);
      ++plan.hostCopies;
      break;
    }
    timing[op.getResult()] = result;
    return op.getResult();
  }

  /// `value` as `user` reads it in `layout`, changing it before `user` when
  /// nothing holds it so yet. With `broadcast`, a lower-rank operand read in
  /// NHWC is broadcast against a 4-D one.
  FailureOr<Value> read(Value value, Layout layout, Operation *user,
                        bool broadcast) {
    ArrayRef<int64_t> shape = shapeOf(value);
    if (isConstant(value)) {
      // Repacked at compile time for an NHWC reader: a 4-D constant, or a
      // lower-rank one that broadcasts; a scalar reads the same either way.
      bool nhwc =
          layout == Layout::nhwc &&
          (shape.size() == 4 || (broadcast && shape.size() < 4 &&
                                 ShapedType::getNumElements(shape) > 1));
      if (!nhwc)
        return value;
      Value &view = repacked[value];
      if (!view)
        view = change(value, Layout::plain, Layout::nhwc, Transfer::repack);
      return view;
    }
    if (shape.size() != 4)
      layout = Layout::plain;
    if (Value view = views.lookup(key(value, layout)))
      return view;
    bool bf16Input = isa<BlockArgument>(value) && isBf16(value);
    Layout from = bf16Input ? Layout::plain : otherThan(layout);
    Value source = bf16Input ? value : views.lookup(key(value, from));
    if (!source)
      return user->emitError() << "an operand of this op has no XNNPACK value "
                                  "yet (is the partition in program order?)";
    Transfer by = !bf16Input && xnn::sameOrder(shape) ? Transfer::reshape
                                                      : Transfer::host_copy;
    Value view = change(source, from, layout, by);
    views[key(value, layout)] = view;
    return view;
  }

  /// Makes `user`'s operand read its value in `layout`.
  LogicalResult readOperand(OpOperand &operand, Layout layout,
                            bool broadcast = false) {
    FailureOr<Value> view =
        read(operand.get(), layout, operand.getOwner(), broadcast);
    if (failed(view))
      return failure();
    operand.set(*view);
    return success();
  }

  /// Records that `op`'s result is in `layout` and when its node runs; a
  /// result the partition yields in NHWC or bf16 is copied out to the plain
  /// output in the program's type.
  void define(Operation *op, Layout layout) {
    Value result = op->getResult(0);
    if (shapeOf(result).size() != 4)
      layout = Layout::plain;
    op->setAttr(xnn::XnnDialect::kLayoutAttrName,
                xnn::LayoutAttr::get(context, layout));
    int64_t subgraph = 0;
    for (Value operand : op->getOperands())
      subgraph = std::max(subgraph, timing.lookup(operand).ready);
    setSubgraph(op, subgraph);
    lastSubgraph = std::max(lastSubgraph, subgraph);
    timing[result] = {subgraph, subgraph};
    views[key(result, layout)] = result;
    if (layout == Layout::plain && !isBf16(result))
      return;
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
      if (!isa<YieldOp>(use.getOwner()))
        continue;
      builder.setInsertionPointAfter(op);
      use.set(change(result, layout, Layout::plain, Transfer::host_copy));
    }
  }

  /// An op reading operand `operand` in `reads` and writing `writes`.
  LogicalResult node(Operation *op, OpOperand &operand, Layout reads,
                     Layout writes) {
    if (failed(readOperand(operand, reads)))
      return failure();
    define(op, writes);
    return success();
  }

  /// An op that reads its operand in the layout it has.
  LogicalResult follows(Operation *op) {
    Layout layout = current(op->getOperand(0));
    return node(op, op->getOpOperand(0), layout, layout);
  }

  LogicalResult binary(Operation *op) {
    Value operands[2] = {op->getOperand(0), op->getOperand(1)};
    Layout layout = Layout::plain;
    if (shapeOf(op->getResult(0)).size() == 4) {
      // NHWC when every operand can be read so and it costs no more host
      // copies than plain; a lower-rank operand that is neither a constant
      // (repacked) nor a scalar nor in the same order in both layouts would
      // need a host copy of its own, so it keeps the op plain.
      bool nhwcPossible = true, anyNhwc = false;
      int nhwcCost = 0, plainCost = 0;
      for (Value operand : operands) {
        if (isConstant(operand))
          continue;
        ArrayRef<int64_t> shape = shapeOf(operand);
        if (shape.size() == 4) {
          anyNhwc |= has(operand, Layout::nhwc);
          if (!xnn::sameOrder(shape)) {
            nhwcCost += !has(operand, Layout::nhwc);
            plainCost += !has(operand, Layout::plain);
          }
        } else if (ShapedType::getNumElements(shape) > 1 &&
                   !xnn::sameOrder(xnn::expandTo4(shape))) {
          nhwcPossible = false;
        }
      }
      if (nhwcPossible &&
          (nhwcCost < plainCost || (nhwcCost == plainCost && anyNhwc)))
        layout = Layout::nhwc;
    }
    for (OpOperand &operand : op->getOpOperands()) {
      ArrayRef<int64_t> shape = shapeOf(operand.get());
      bool lower = shape.size() < 4 && ShapedType::getNumElements(shape) > 1;
      if (layout == Layout::plain || !lower || isConstant(operand.get())) {
        if (failed(readOperand(operand, layout, /*broadcast=*/true)))
          return failure();
        continue;
      }
      // A runtime operand of lower rank, broadcast in NHWC: a reshape of its
      // plain value for this reader alone.
      FailureOr<Value> plainView =
          read(operand.get(), Layout::plain, op, /*broadcast=*/false);
      if (failed(plainView))
        return failure();
      operand.set(
          change(*plainView, Layout::plain, Layout::nhwc, Transfer::reshape));
    }
    define(op, layout);
    return success();
  }

  LogicalResult planOp(Operation *op) {
    using namespace aten;
    constexpr Layout plain = Layout::plain, nhwc = Layout::nhwc;
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case<ConvolutionOp>([&](ConvolutionOp conv) {
          return node(op, conv.getInputMutable(), nhwc, nhwc);
        })
        .Case<LinearOp>([&](LinearOp linear) {
          return node(op, linear.getInputMutable(), plain, plain);
        })
        .Case<AddmmOp>([&](AddmmOp addmm) {
          return node(op, addmm.getMat1Mutable(), plain, plain);
        })
        .Case<MmOp, MatmulOp>([&](auto mm) {
          return node(op, mm.getSelfMutable(), plain, plain);
        })
        .Case<AddOp, SubOp, DivOp>([&](auto) { return binary(op); })
    // A one-node op: a binary one broadcasts, a unary one follows its input.
#define DUET_XNNPACK_NODE(Class, arity, Node, define)                          \
  .Case<Class>([&](auto) { return arity == 2 ? binary(op) : follows(op); })
#include "dialects/aten/AtenXnnpackNodes.inc"
#undef DUET_XNNPACK_NODE
        .Case<SoftmaxOp>([&](SoftmaxOp softmax) {
          return node(op, softmax.getSelfMutable(), plain, plain);
        })
        .Case<MeanOp, AdaptiveAvgPool2dOp, AvgPool2dOp, MaxPool2dOp,
              UpsampleBilinear2dOp>(
            [&](auto) { return node(op, op->getOpOperand(0), nhwc, nhwc); })
        .Case<ViewOp>([&](ViewOp view) {
          // A reshape works on NCHW element order; a value whose NHWC order
          // is the same is read as it is.
          Value input = view.getSelf();
          Layout reads = plain;
          if (xnn::sameOrder(shapeOf(input)) && !has(input, plain))
            reads = current(input);
          return node(op, view.getSelfMutable(), reads, plain);
        })
        .Case<ReluOp, HardtanhOp, ClampOp, LeakyReluOp, EluOp, PowOp, CastOp,
              CloneOp, ConstantPadNdOp, QuantizePerTensorOp,
              DequantizePerTensorOp>([&](auto) { return follows(op); })
        // Anything else is no XNNPACK node; the emitter reports it.
        .Default([](Operation *) { return success(); });
  }

  DelegateOp delegate;
  MLIRContext *context;
  OpBuilder builder;
  /// The value holding a value in a layout, by (value, layout).
  DenseMap<std::pair<Value, int>, Value> views;
  /// Constants repacked to NHWC, by constant.
  DenseMap<Value, Value> repacked;
  DenseMap<Value, Timing> timing;
  int64_t lastSubgraph = -1;
  XnnpackLayoutPlan plan;
};

} // namespace

bool hasXnnpackLayouts(DelegateOp delegate) {
  for (Operation &op : delegate.getBody().front())
    if (isa<xnn::LayoutChangeOp>(op) ||
        op.hasAttr(xnn::XnnDialect::kLayoutAttrName))
      return true;
  return false;
}

FailureOr<XnnpackLayoutPlan> planXnnpackLayouts(DelegateOp delegate) {
  return Planner(delegate).run();
}

} // namespace duet::partition
