//===- Embedding.cpp - rows of a table picked by index --------------------===//

#include "runtime/kernels/Ops.h"

#include <algorithm>

namespace duet::rt::portable {
namespace {

template <typename Index>
Status gather(const KernelContext &ctx, const TensorView &weight,
              const TensorView &indices, float *out) {
  const int64_t rows = weight.sizes[0], width = weight.sizes[1];
  const Index *ids = indices.as<const Index>();
  const float *table = weight.as<const float>();
  for (int64_t i = 0, n = indices.numel(); i < n; ++i) {
    int64_t row = static_cast<int64_t>(ids[i]);
    if (row < 0 || row >= rows)
      return ctx.error("index {} at position {} is out of range for a table "
                       "of {} rows",
                       row, i, rows);
    std::copy(table + row * width, table + (row + 1) * width, out + i * width);
  }
  return Status::ok();
}

} // namespace

Status embedding(const KernelContext &ctx) {
  const TensorView &weight = ctx.in(0), &indices = ctx.in(1);
  const TensorView &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireFloat(weight, "weight"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireRank(weight, "weight", {2}));
  DUET_RETURN_IF_ERROR(
      ctx.requireDType(indices, "indices", {DType::i64, DType::i32}));
  Shape expected = indices.sizes;
  expected.push_back(weight.sizes[1]);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", expected));
  // No index is valid in an empty table: refused at load, not left to fail
  // every run.
  if (weight.sizes[0] == 0 && indices.numel() > 0)
    return ctx.error("has {} indices into a table of 0 rows", indices.numel());
  if (ctx.checking())
    return Status::ok();
  if (indices.dtype == DType::i64)
    return gather<int64_t>(ctx, weight, indices, y.as<float>());
  return gather<int32_t>(ctx, weight, indices, y.as<float>());
}

} // namespace duet::rt::portable
