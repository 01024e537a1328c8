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
#include <vector>

namespace duet::rt::portable {

Status topk(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &values = ctx.out(0),
                   &indices = ctx.out(1);
  AttrReader attrs(ctx);
  int64_t k = attrs.getInt("k"), dim = attrs.getInt("dim");
  bool largest = attrs.getBool("largest");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(values, "values"));
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
  const float *in = x.as<const float>();
  float *outValues = values.as<float>();
  int64_t *outIndices = indices.as<int64_t>();
  std::vector<int64_t> order(n);
  std::vector<float> line(n);
  // Whether element a comes before element b.
  auto before = [&](int64_t a, int64_t b) {
    float va = line[a], vb = line[b];
    bool nanA = std::isnan(va), nanB = std::isnan(vb);
    if (nanA || nanB) {
      if (nanA && nanB)
        return a < b;
      return largest ? nanA : nanB;
    }
    if (va != vb)
      return largest ? va > vb : va < vb;
    return a < b;
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const float *src = in + o * n * inner + i;
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
  return Status::ok();
}

} // namespace duet::rt::portable
