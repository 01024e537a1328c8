//===- Sorting.cpp - the k extreme elements of each line ------------------===//
//
// aten.topk serves topk, sort, argsort, argmax and argmin: each line along
// `dim` is ordered by value with NaN above every number (PyTorch's order),
// ties kept in index order, so a full sort is stable and k = 1 picks the
// first extreme.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

namespace duet::rt::portable {

namespace {

/// Each line of `x` along its middle dim (`outer` x `n` x `inner`), its `k`
/// first elements in order.
template <typename T>
void topkLines(const TensorView &x, const TensorView &values,
               const TensorView &indices, int64_t outer, int64_t n,
               int64_t inner, int64_t k, bool largest) {
  const T *in = x.as<const T>();
  T *outValues = values.as<T>();
  int64_t *outIndices = indices.as<int64_t>();
  std::vector<int64_t> order(n);
  std::vector<T> line(n);
  // Whether element a comes before element b.
  auto before = [&](int64_t a, int64_t b) {
    T va = line[a], vb = line[b];
    if constexpr (std::is_floating_point_v<T>) {
      bool nanA = std::isnan(va), nanB = std::isnan(vb);
      if (nanA || nanB) {
        if (nanA && nanB)
          return a < b;
        return largest ? nanA : nanB;
      }
    }
    if (va != vb)
      return largest ? va > vb : va < vb;
    return a < b;
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T *src = in + o * n * inner + i;
      for (int64_t j = 0; j < n; ++j)
        line[j] = src[j * inner];
      std::iota(order.begin(), order.end(), int64_t(0));
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        int64_t at = o * k * inner + j * inner + i;
        outValues[at] = line[order[j]];
        outIndices[at] = order[j];
      }
    }
  }
}

} // namespace

Status topk(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &values = ctx.out(0),
                   &indices = ctx.out(1);
  AttrReader attrs(ctx);
  int64_t k = attrs.getInt("k"), dim = attrs.getInt("dim");
  bool largest = attrs.getBool("largest");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(
      ctx.requireDType(x, "input", {DType::f32, DType::i32, DType::i64}));
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&x, &values}));
  DUET_RETURN_IF_ERROR(ctx.requireDType(indices, "indices", {DType::i64}));
  if (x.rank() == 0)
    return ctx.error("needs a tensor of rank 1 or more");
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, x.rank(), "dim"));
  if (k < 0 || k > x.sizes[dim])
    return ctx.error("k {} is outside [0, {}], the size of dim {}", k,
                     x.sizes[dim], dim);
  Shape shape = x.sizes;
  shape[dim] = k;
  DUET_RETURN_IF_ERROR(ctx.requireShape(values, "values", shape));
  DUET_RETURN_IF_ERROR(ctx.requireShape(indices, "indices", shape));
  if (ctx.checking())
    return Status::ok();

  int64_t outer = 1, n = x.sizes[dim], inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != dim)
      (d < dim ? outer : inner) *= x.sizes[d];
  switch (x.dtype) {
  case DType::i32:
    topkLines<int32_t>(x, values, indices, outer, n, inner, k, largest);
    break;
  case DType::i64:
    topkLines<int64_t>(x, values, indices, outer, n, inner, k, largest);
    break;
  default:
    topkLines<float>(x, values, indices, outer, n, inner, k, largest);
    break;
  }
  return Status::ok();
}

} // namespace duet::rt::portable
