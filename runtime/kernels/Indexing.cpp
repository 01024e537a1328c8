//===- Indexing.cpp - elements picked by an integer index -----------------===//
//
// embedding, gather and index_select read an int32 or int64 index whose
// every value must name a position of the dim it indexes: PyTorch refuses
// the others (a negative index does not count from the end), and so do these
// kernels, before they move anything. embedding computes on float rows;
// gather and index_select move elements of any dtype.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <cstring>

namespace duet::rt::portable {
namespace {

/// The values of `index` (int32 or int64, checked by the caller), each in
/// [0, limit); `range` names the limit in messages ("a table of 10 rows").
Status readIndices(const KernelContext &ctx, const TensorView &index,
                   int64_t limit, std::string_view range,
                   std::vector<int64_t> &values) {
  int64_t n = index.numel();
  values.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[i] = index.dtype == DType::i64
                    ? index.as<const int64_t>()[i]
                    : static_cast<int64_t>(index.as<const int32_t>()[i]);
  for (int64_t i = 0; i < n; ++i)
    if (values[i] < 0 || values[i] >= limit)
      return ctx.error("index {} at position {} is out of range for {}",
                       values[i], i, range);
  return Status::ok();
}

Status requireIndexType(const KernelContext &ctx, const TensorView &index,
                        std::string_view what) {
  return ctx.requireDType(index, what, {DType::i64, DType::i32});
}

/// No index is valid for an empty dim: refused at load, not left to fail
/// every run.
Status requireIndexable(const KernelContext &ctx, int64_t size,
                        const TensorView &index, std::string_view what) {
  if (size == 0 && index.numel() > 0)
    return ctx.error("has {} indices into {} of size 0", index.numel(), what);
  return Status::ok();
}

/// What gather and index_select check first: `dim` (read, and within the
/// rank of self), an output of self's dtype and an integer index.
Status checkIndexOp(const KernelContext &ctx, int64_t &dim) {
  AttrReader attrs(ctx);
  dim = attrs.getInt("dim");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, ctx.in(0).rank(), "dim"));
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&ctx.in(0), &ctx.out(0)}));
  return requireIndexType(ctx, ctx.in(1), "index");
}

/// The index values of gather or index_select, each a position along `dim`
/// of self.
Status readPicked(const KernelContext &ctx, int64_t dim,
                  std::vector<int64_t> &picked) {
  int64_t size = ctx.in(0).sizes[dim];
  return readIndices(ctx, ctx.in(1), size,
                     fmt::format("size {} of dim {} of self", size, dim),
                     picked);
}

} // namespace

Status embedding(const KernelContext &ctx) {
  const TensorView &weight = ctx.in(0), &indices = ctx.in(1);
  const TensorView &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireFloat(weight, "weight"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireRank(weight, "weight", {2}));
  DUET_RETURN_IF_ERROR(requireIndexType(ctx, indices, "indices"));
  Shape expected = indices.sizes;
  expected.push_back(weight.sizes[1]);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", expected));
  if (weight.sizes[0] == 0 && indices.numel() > 0)
    return ctx.error("has {} indices into a table of 0 rows", indices.numel());
  if (ctx.checking())
    return Status::ok();
  const int64_t rows = weight.sizes[0], width = weight.sizes[1];
  std::vector<int64_t> ids;
  DUET_RETURN_IF_ERROR(readIndices(
      ctx, indices, rows, fmt::format("a table of {} rows", rows), ids));
  const float *table = weight.as<const float>();
  float *out = y.as<float>();
  for (size_t i = 0; i < ids.size(); ++i)
    std::copy(table + ids[i] * width, table + (ids[i] + 1) * width,
              out + static_cast<int64_t>(i) * width);
  return Status::ok();
}

Status gather(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &index = ctx.in(1), &y = ctx.out(0);
  int64_t dim;
  DUET_RETURN_IF_ERROR(checkIndexOp(ctx, dim));
  if (index.rank() != x.rank())
    return ctx.error("index {} must have the rank of self {}",
                     formatShape(index.sizes), formatShape(x.sizes));
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != dim && index.sizes[d] > x.sizes[d])
      return ctx.error("index {} is larger than self {} in dim {}, which is "
                       "not dim {}",
                       formatShape(index.sizes), formatShape(x.sizes), d, dim);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", index.sizes));
  DUET_RETURN_IF_ERROR(
      requireIndexable(ctx, x.sizes[dim], index, fmt::format("dim {}", dim)));
  if (ctx.checking())
    return Status::ok();
  std::vector<int64_t> picked;
  DUET_RETURN_IF_ERROR(readPicked(ctx, dim, picked));
  // Output (and index) element k reads self at the output's own position
  // in every dim but `dim`, and at picked[k] along it.
  Shape selfStrides = contiguousStrides(x.sizes);
  const int64_t dimStride = selfStrides[dim];
  selfStrides[dim] = 0;
  const size_t element = dtypeSize(x.dtype);
  forEachRow<2>(y.sizes, {contiguousStrides(y.sizes), selfStrides},
                [&](const std::array<int64_t, 2> &off, int64_t count,
                    const std::array<int64_t, 2> &inner) {
                  for (int64_t i = 0; i < count; ++i) {
                    int64_t k = off[0] + i * inner[0];
                    std::memcpy(
                        advance(y.data, k, element),
                        advance(x.data,
                                off[1] + i * inner[1] + picked[k] * dimStride,
                                element),
                        element);
                  }
                });
  return Status::ok();
}

Status indexSelect(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &index = ctx.in(1), &y = ctx.out(0);
  int64_t dim;
  DUET_RETURN_IF_ERROR(checkIndexOp(ctx, dim));
  DUET_RETURN_IF_ERROR(ctx.requireRank(index, "index", {0, 1}));
  Shape sizes = x.sizes;
  sizes[dim] = index.numel();
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", sizes));
  DUET_RETURN_IF_ERROR(
      requireIndexable(ctx, x.sizes[dim], index, fmt::format("dim {}", dim)));
  if (ctx.checking() || y.numel() == 0)
    return Status::ok();
  std::vector<int64_t> picked;
  DUET_RETURN_IF_ERROR(readPicked(ctx, dim, picked));
  // As [outer, size, inner] (size along `dim`), output row i of each outer
  // block is row picked[i] of self's: one contiguous run of inner elements.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != dim)
      (d < dim ? outer : inner) *= x.sizes[d];
  const size_t run = static_cast<size_t>(inner) * dtypeSize(x.dtype);
  const char *in = static_cast<const char *>(x.data);
  char *out = static_cast<char *>(y.data);
  const int64_t size = x.sizes[dim],
                count = static_cast<int64_t>(picked.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(out + (o * count + i) * run,
                  in + (o * size + picked[i]) * run, run);
  return Status::ok();
}

} // namespace duet::rt::portable
