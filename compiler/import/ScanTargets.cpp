//===- ScanTargets.cpp - running reductions along one dim -----------------===//
//
// cumprod, cummax, cummin and logcumsumexp, written as ceil(log2 n) steps of
// shift-and-combine (Hillis and Steele's scan): step k combines each element
// with the running value 2^k places before it, and elements with none that
// far back keep theirs. A step is two slices, the combining ops and a cat,
// so the scans run wherever those do. Each combination is associative, so
// the result is the sequential scan's; a product is rounded in another order
// than PyTorch's left-to-right one.
//
// (cumsum is an op of its own: the backends have kernels for it.)
//
//===----------------------------------------------------------------------===//

#include "compiler/import/Compose.h"
#include "compiler/import/DecomposedTargets.h"

#include "dialects/aten/AtenDialect.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <limits>

using namespace duet::import;
using namespace duet::import::compose;
using namespace duet::aten;
using namespace mlir;

namespace {

/// The running values: one tensor, or a value and its index.
using State = SmallVector<Value, 2>;
using Combine =
    llvm::function_ref<State(ArrayRef<Value> earlier, ArrayRef<Value> later)>;

/// The inclusive scan of `state` along `dim` by `combine`.
State scan(NodeContext &ctx, State state, int64_t dim, Combine combine) {
  int64_t n = typeOf(state[0]).getDimSize(dim);
  for (int64_t shift = 1; shift < n && ctx.ok(); shift *= 2) {
    State earlier, later, head;
    for (Value v : state) {
      head.push_back(slice(ctx, v, dim, 0, shift));
      earlier.push_back(slice(ctx, v, dim, 0, n - shift));
      later.push_back(slice(ctx, v, dim, shift, n));
    }
    if (!ctx.ok())
      break;
    State combined = combine(earlier, later);
    for (size_t i = 0; i < state.size(); ++i)
      state[i] = cat(ctx, ValueRange{head[i], combined[i]}, dim);
  }
  return state;
}

/// The operand and dim of a scan: a 0-d tensor is scanned as one element.
struct ScanOperand {
  Value x;
  int64_t dim = 0;
  RankedTensorType type;
};

std::optional<ScanOperand> scanOperand(NodeContext &ctx, Value x) {
  int64_t dim = ctx.integer("dim");
  if (!ctx.ok())
    return std::nullopt;
  ScanOperand operand;
  operand.type = typeOf(x);
  operand.dim = ctx.normalizeDim(dim, operand.type.getRank());
  operand.x = operand.type.getRank() == 0 ? view(ctx, x, {1}) : x;
  if (!ctx.ok())
    return std::nullopt;
  return operand;
}

/// cummax and cummin, values and indices. PyTorch's loop keeps the later
/// element on a tie and on a NaN, and a NaN once met stays.
void emitRunningExtreme(NodeContext &ctx, bool largest) {
  RankedTensorType type = ctx.resultType(0);
  RankedTensorType indexType = ctx.resultType(1);
  Value self = ctx.tensor("self");
  if (!ctx.ok())
    return;
  std::optional<ScanOperand> operand = scanOperand(ctx, self);
  if (!operand)
    return;
  Value x = operand->x;
  Type element = typeOf(x).getElementType();
  // Booleans compare as integers.
  if (element.isInteger(1))
    x = ctx.castTo(x, ctx.builder.getIntegerType(8));
  RankedTensorType shape = typeOf(x);
  int64_t dim = operand->dim;
  int64_t n = shape.getDimSize(dim);
  if (!checkIndexCount(ctx, n, largest ? "cummax" : "cummin"))
    return;
  SmallVector<int64_t> positions(n), along(shape.getRank(), 1);
  for (int64_t i = 0; i < n; ++i)
    positions[i] = i;
  along[dim] = n;
  Type i64 = ctx.builder.getI64Type();
  Value index = ctx.create<ExpandOp>(
      shape.clone(i64), view(ctx, indexConstant(ctx, positions), along));
  State result =
      scan(ctx, {x, index}, dim,
           [&](ArrayRef<Value> earlier, ArrayRef<Value> later) {
             RankedTensorType flags =
                 typeOf(earlier[0]).clone(ctx.builder.getI1Type());
             Value beats = largest
                               ? Value(ctx.create<GtOp>(earlier[0], later[0]))
                               : Value(ctx.create<LtOp>(earlier[0], later[0]));
             Value keep = ctx.create<LogicalAndOp>(
                 ctx.create<LogicalNotOp>(flags, isNan(ctx, later[0])),
                 ctx.create<LogicalOrOp>(isNan(ctx, earlier[0]), beats));
             return State{ctx.create<WhereOp>(keep, earlier[0], later[0]),
                          ctx.create<WhereOp>(keep, earlier[1], later[1])};
           });
  if (!ctx.ok())
    return;
  ctx.setResult(0, view(ctx, ctx.castTo(result[0], type.getElementType()),
                        type.getShape()));
  ctx.setResult(1, view(ctx, ctx.castTo(result[1], indexType.getElementType()),
                        indexType.getShape()));
}

} // namespace

void duet::import::buildCumprod(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (!ctx.ok())
    return;
  std::optional<ScanOperand> operand = scanOperand(ctx, self);
  if (!operand)
    return;
  State result = scan(ctx, {operand->x}, operand->dim,
                      [&](ArrayRef<Value> earlier, ArrayRef<Value> later) {
                        return State{mul(ctx, earlier[0], later[0])};
                      });
  ctx.setResult(view(ctx, result[0], type.getShape()));
}

void duet::import::buildCummax(NodeContext &ctx) {
  emitRunningExtreme(ctx, /*largest=*/true);
}

void duet::import::buildCummin(NodeContext &ctx) {
  emitRunningExtreme(ctx, /*largest=*/false);
}

/// logcumsumexp: the running log(sum(exp)), each step log(e^a + e^b) =
/// max + log1p(e^(min - max)), in float32 at least; two equal infinities
/// give themselves, as PyTorch's does.
void duet::import::buildLogcumsumexp(NodeContext &ctx) {
  RankedTensorType type;
  Value self = unaryOperand(ctx, type);
  if (!requireFloatResult(ctx, type, "logcumsumexp"))
    return;
  std::optional<ScanOperand> operand = scanOperand(ctx, self);
  if (!operand)
    return;
  Type element = type.getElementType();
  Type wide = element.isF64() ? element : ctx.builder.getF32Type();
  Value x = ctx.castTo(operand->x, wide);
  State result = scan(
      ctx, {x}, operand->dim,
      [&](ArrayRef<Value> earlier, ArrayRef<Value> later) {
        RankedTensorType t = typeOf(earlier[0]);
        Value high = ctx.create<MaximumOp>(earlier[0], later[0]);
        Value low = ctx.create<MinimumOp>(earlier[0], later[0]);
        Value sum = add(
            ctx, high,
            ctx.create<Log1pOp>(t, ctx.create<ExpOp>(t, sub(ctx, low, high))));
        Value infinite = ctx.create<EqOp>(
            ctx.create<AbsOp>(t, low),
            realOf(ctx, wide, std::numeric_limits<double>::infinity()));
        Value same =
            ctx.create<LogicalAndOp>(ctx.create<EqOp>(low, high), infinite);
        return State{ctx.create<WhereOp>(same, high, sum)};
      });
  ctx.setResult(view(ctx, ctx.castTo(result[0], element), type.getShape()));
}
