//===- Predicates.cpp - comparisons, logical ops and where ----------------===//
//
// These ops compute no arithmetic, so they run on every dtype as stored:
// comparisons widen 16-bit floats exactly, logical ops read any dtype as
// "non-zero is true", and where only moves elements.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/ElementTypes.h"
#include "runtime/kernels/Ops.h"

#include <functional>

namespace duet::rt::portable {
namespace {

/// `t` as bools (non-zero is true), in a buffer the view points into; a
/// bool tensor is itself.
TensorView truthOf(const TensorView &t, std::vector<uint8_t> &storage) {
  if (t.dtype == DType::boolean)
    return t;
  int64_t n = t.numel();
  storage.assign(n, 0);
  visitDType(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i)
      storage[i] = convertElement<bool>(t.as<const T>()[i]);
  });
  TensorView truth = t;
  truth.dtype = DType::boolean;
  truth.data = storage.data();
  return truth;
}

template <typename Relation> Status compare(const KernelContext &ctx) {
  const TensorView &a = ctx.in(0), &b = ctx.in(1), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&a, &b}));
  DUET_RETURN_IF_ERROR(ctx.requireDType(y, "output", {DType::boolean}));
  DUET_RETURN_IF_ERROR(requireBroadcastResult(ctx, a, b, y));
  if (ctx.checking())
    return Status::ok();
  visitDType(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    broadcastBinary<bool, T, T>(
        y, a, b, [](T x, T z) { return Relation()(widen(x), widen(z)); });
  });
  return Status::ok();
}

template <typename Relation> Status logical(const KernelContext &ctx) {
  const TensorView &a = ctx.in(0), &b = ctx.in(1), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireDType(y, "output", {DType::boolean}));
  DUET_RETURN_IF_ERROR(requireBroadcastResult(ctx, a, b, y));
  if (ctx.checking())
    return Status::ok();
  std::vector<uint8_t> truthA, truthB;
  broadcastBinary<bool, uint8_t, uint8_t>(
      y, truthOf(a, truthA), truthOf(b, truthB),
      [](uint8_t x, uint8_t z) { return Relation()(x != 0, z != 0); });
  return Status::ok();
}

/// where() for elements of one size: which bytes they hold does not matter.
template <typename T>
void select3(const TensorView &y, const TensorView &condition,
             const TensorView &a, const TensorView &b) {
  const uint8_t *pc = condition.as<const uint8_t>();
  const T *pa = a.as<const T>(), *pb = b.as<const T>();
  T *py = y.as<T>();
  forEachRow<4>(
      y.sizes,
      {contiguousStrides(y.sizes), broadcastStrides(condition.sizes, y.sizes),
       broadcastStrides(a.sizes, y.sizes), broadcastStrides(b.sizes, y.sizes)},
      [&](const std::array<int64_t, 4> &off, int64_t count,
          const std::array<int64_t, 4> &inner) {
        for (int64_t i = 0; i < count; ++i)
          py[off[0] + i] = pc[off[1] + i * inner[1]]
                               ? pa[off[2] + i * inner[2]]
                               : pb[off[3] + i * inner[3]];
      });
}

} // namespace

Status eq(const KernelContext &ctx) { return compare<std::equal_to<>>(ctx); }
Status ne(const KernelContext &ctx) {
  return compare<std::not_equal_to<>>(ctx);
}
Status lt(const KernelContext &ctx) { return compare<std::less<>>(ctx); }
Status le(const KernelContext &ctx) { return compare<std::less_equal<>>(ctx); }
Status gt(const KernelContext &ctx) { return compare<std::greater<>>(ctx); }
Status ge(const KernelContext &ctx) {
  return compare<std::greater_equal<>>(ctx);
}

Status logicalAnd(const KernelContext &ctx) {
  return logical<std::logical_and<>>(ctx);
}
Status logicalOr(const KernelContext &ctx) {
  return logical<std::logical_or<>>(ctx);
}

Status logicalNot(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireDType(y, "output", {DType::boolean}));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  if (ctx.checking())
    return Status::ok();
  std::vector<uint8_t> truth;
  const uint8_t *in = truthOf(x, truth).as<const uint8_t>();
  bool *out = y.as<bool>();
  for (int64_t i = 0, n = x.numel(); i < n; ++i)
    out[i] = in[i] == 0;
  return Status::ok();
}

Status where(const KernelContext &ctx) {
  const TensorView &condition = ctx.in(0), &a = ctx.in(1), &b = ctx.in(2);
  const TensorView &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(
      ctx.requireDType(condition, "condition", {DType::boolean}));
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&a, &b, &y}));
  Shape partial, shape;
  if (!broadcastShapes(condition.sizes, a.sizes, partial) ||
      !broadcastShapes(partial, b.sizes, shape))
    return ctx.error("condition {}, self {} and other {} do not broadcast",
                     formatShape(condition.sizes), formatShape(a.sizes),
                     formatShape(b.sizes));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", shape));
  if (ctx.checking())
    return Status::ok();
  switch (dtypeSize(y.dtype)) {
  case 1:
    select3<uint8_t>(y, condition, a, b);
    break;
  case 2:
    select3<uint16_t>(y, condition, a, b);
    break;
  case 4:
    select3<uint32_t>(y, condition, a, b);
    break;
  default:
    select3<uint64_t>(y, condition, a, b);
    break;
  }
  return Status::ok();
}

} // namespace duet::rt::portable
