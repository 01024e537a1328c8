//===- Indexing.cpp - elements picked by an integer index -----------------===//
//
// embedding, gather and index_select read an int32 or int64 index whose
// every value must name a position of the dim it indexes: PyTorch refuses
// the others (a negative index does not count from the end), and so do these
// kernels, before they move anything. embedding computes on float rows;
// gather and index_select move elements of any dtype.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/ElementTypes.h"
#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

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

namespace {

enum class Reduce { none, sum, prod, amax, amin, mean };

/// The unsigned type integer arithmetic on T wraps in: at least `unsigned`,
/// since narrower operands promote to (signed) int, whose product of two
/// int16 values can overflow.
template <typename T>
using WrappingOf = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                      std::make_unsigned_t<T>>;

/// Combines `v` into `acc` by `how` (mean sums; the count divides after).
template <typename T> T combine(Reduce how, T acc, T v) {
  switch (how) {
  case Reduce::none:
    return v;
  case Reduce::sum:
  case Reduce::mean:
    if constexpr (std::is_same_v<T, bool>)
      return acc || v;
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<WrappingOf<T>>(acc) +
                            static_cast<WrappingOf<T>>(v));
    else
      return acc + v;
  case Reduce::prod:
    if constexpr (std::is_same_v<T, bool>)
      return acc && v;
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<WrappingOf<T>>(acc) *
                            static_cast<WrappingOf<T>>(v));
    else
      return acc * v;
  case Reduce::amax:
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(acc) || std::isnan(v))
        return std::numeric_limits<T>::quiet_NaN();
    return acc > v ? acc : v;
  case Reduce::amin:
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(acc) || std::isnan(v))
        return std::numeric_limits<T>::quiet_NaN();
    return acc < v ? acc : v;
  }
  return v;
}

} // namespace

Status scatter(const KernelContext &ctx) {
  const TensorView &self = ctx.in(0), &index = ctx.in(1), &src = ctx.in(2);
  const TensorView &y = ctx.out(0);
  AttrReader attrs(ctx);
  int64_t dim = attrs.getInt("dim");
  static constexpr std::string_view kReduce[] = {"none", "sum",  "prod",
                                                 "amax", "amin", "mean"};
  std::string reduce =
      attrs.getEnum("reduce", {"none", "sum", "prod", "amax", "amin", "mean"});
  bool includeSelf = attrs.getBool("include_self");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireDType(
      self, "self",
      {DType::f32, DType::i64, DType::i32, DType::i16, DType::i8, DType::u8,
       DType::boolean}));
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&self, &src, &y}));
  DUET_RETURN_IF_ERROR(requireIndexType(ctx, index, "index"));
  if (self.rank() == 0)
    return ctx.error("needs a tensor of rank 1 or more");
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, self.rank(), "dim"));
  if (index.rank() != self.rank() || src.rank() != self.rank())
    return ctx.error("index {} and src {} must have the rank of self {}",
                     formatShape(index.sizes), formatShape(src.sizes),
                     formatShape(self.sizes));
  for (int64_t d = 0; d < self.rank(); ++d)
    if (index.sizes[d] > src.sizes[d] ||
        (d != dim && index.sizes[d] > self.sizes[d]))
      return ctx.error("index {} is larger than src {} or, outside dim {}, "
                       "than self {}",
                       formatShape(index.sizes), formatShape(src.sizes), dim,
                       formatShape(self.sizes));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", self.sizes));
  DUET_RETURN_IF_ERROR(requireIndexable(ctx, self.sizes[dim], index,
                                        fmt::format("dim {}", dim)));
  auto how = static_cast<Reduce>(
      std::find(std::begin(kReduce), std::end(kReduce), reduce) -
      std::begin(kReduce));
  if (how == Reduce::none && !includeSelf)
    return ctx.error("include_self = false needs a reduction");
  if (how == Reduce::mean && self.dtype != DType::f32)
    return ctx.error("a mean scatter of {} is not supported",
                     dtypeName(self.dtype));
  if (ctx.checking())
    return Status::ok();
  std::vector<int64_t> picked;
  DUET_RETURN_IF_ERROR(readIndices(
      ctx, index, self.sizes[dim],
      fmt::format("size {} of dim {} of self", self.sizes[dim], dim), picked));
  if (y.data != self.data && self.numel() > 0)
    std::memmove(y.data, self.data, self.bytes());
  // Where each index position writes: its own coordinates in self, with
  // picked[k] along dim; and where it reads src.
  const Shape selfStrides = contiguousStrides(self.sizes);
  const Shape srcStrides = contiguousStrides(src.sizes);
  const Shape indexStrides = contiguousStrides(index.sizes);
  const int64_t n = index.numel();
  std::vector<int64_t> to(static_cast<size_t>(n)), from(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k, out = 0, in = 0;
    for (int64_t d = 0; d < index.rank(); ++d) {
      int64_t coordinate = rest / indexStrides[d];
      rest %= indexStrides[d];
      out += (d == dim ? picked[k] : coordinate) * selfStrides[d];
      in += coordinate * srcStrides[d];
    }
    to[k] = out;
    from[k] = in;
  }
  visitDType(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_integral_v<T>) {
      T *out = y.as<T>();
      const T *values = src.as<const T>();
      // Without self, the first value written to a position starts it.
      std::vector<int64_t> count;
      if (how == Reduce::mean || !includeSelf)
        count.assign(static_cast<size_t>(self.numel()), includeSelf ? 1 : 0);
      for (int64_t k = 0; k < n; ++k) {
        T &slot = out[to[k]];
        T v = values[from[k]];
        bool first = !count.empty() && count[to[k]] == 0;
        slot = first ? v : combine(how, slot, v);
        if (!count.empty())
          ++count[to[k]];
      }
      if constexpr (std::is_same_v<T, float>)
        if (how == Reduce::mean)
          for (int64_t k = 0; k < n; ++k)
            if (count[to[k]] > 0) {
              out[to[k]] /= static_cast<float>(count[to[k]]);
              count[to[k]] = -count[to[k]]; // divided once
            }
    }
  });
  return Status::ok();
}

} // namespace duet::rt::portable
