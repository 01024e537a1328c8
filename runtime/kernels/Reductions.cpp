//===- Reductions.cpp - mean, sum, amax, softmax, cumsum, ... -------------===//
//
// Float sums accumulate in double: the reference should be at least as exact
// as what it checks (and PyTorch's CPU cumsum accumulates float in double
// too). Integer running sums, sums and products wrap around in int64, as the
// binary ops do.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/ElementTypes.h"
#include "runtime/kernels/Ops.h"
#include "runtime/kernels/VectorMath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace duet::rt::portable {
namespace {

enum class Reduction { mean, sum, amax, prod };

/// Reads `dim` and `keepdim`, checks the output shape, and gives for every
/// input dim the output stride its index moves (0 on a reduced dim), and how
/// many input elements each output element reduces.
Status reductionLayout(const KernelContext &ctx, const TensorView &x,
                       const TensorView &y, Shape &toOutput, int64_t &count) {
  AttrReader attrs(ctx);
  Shape dims = attrs.getInts("dim");
  bool keepdim = attrs.getBool("keepdim");
  DUET_RETURN_IF_ERROR(attrs.status());
  const int64_t rank = x.rank();
  std::vector<bool> reduced(rank, dims.empty());
  for (int64_t d : dims) {
    DUET_RETURN_IF_ERROR(ctx.requireDim(d, rank, "dim"));
    if (reduced[d])
      return ctx.error("dim {} appears twice", d);
    reduced[d] = true;
  }
  // The output with reduced dims kept as 1 has the same layout as without.
  Shape kept = x.sizes, expected;
  count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      count *= x.sizes[d];
      kept[d] = 1;
    }
    if (!reduced[d] || keepdim)
      expected.push_back(kept[d]);
  }
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", expected));
  toOutput = contiguousStrides(kept);
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d])
      toOutput[d] = 0;
  return Status::ok();
}

/// An int64 sum, product or maximum of checked operands: exact, the sum and
/// product wrapping around past 64 bits as PyTorch's integer arithmetic does.
void reduceInt64(const TensorView &x, const TensorView &y,
                 const Shape &toOutput, Reduction kind) {
  const int64_t *in = x.as<const int64_t>();
  int64_t *out = y.as<int64_t>();
  if (kind == Reduction::amax) {
    std::fill(out, out + y.numel(), std::numeric_limits<int64_t>::min());
    forEachRow<2>(x.sizes, {contiguousStrides(x.sizes), toOutput},
                  [&](const std::array<int64_t, 2> &off, int64_t n,
                      const std::array<int64_t, 2> &inner) {
                    for (int64_t i = 0; i < n; ++i) {
                      int64_t &m = out[off[1] + i * inner[1]];
                      m = std::max(m, in[off[0] + i]);
                    }
                  });
    return;
  }
  const bool product = kind == Reduction::prod;
  std::vector<uint64_t> acc(y.numel(), product ? 1 : 0);
  forEachRow<2>(x.sizes, {contiguousStrides(x.sizes), toOutput},
                [&](const std::array<int64_t, 2> &off, int64_t n,
                    const std::array<int64_t, 2> &inner) {
                  for (int64_t i = 0; i < n; ++i) {
                    uint64_t v = static_cast<uint64_t>(in[off[0] + i]);
                    uint64_t &a = acc[off[1] + i * inner[1]];
                    a = product ? a * v : a + v;
                  }
                });
  for (size_t i = 0; i < acc.size(); ++i)
    out[i] = static_cast<int64_t>(acc[i]);
}

Status reduce(const KernelContext &ctx, Reduction kind) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  const bool int64 = x.dtype == DType::i64 && kind != Reduction::mean;
  if (int64) {
    DUET_RETURN_IF_ERROR(ctx.requireSameDType({&x, &y}));
  } else {
    DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
    DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  }
  Shape toOutput;
  int64_t count;
  DUET_RETURN_IF_ERROR(reductionLayout(ctx, x, y, toOutput, count));
  if (kind == Reduction::amax && count == 0 && y.numel() > 0)
    return ctx.error("cannot take the maximum over {} elements of shape {}",
                     count, formatShape(x.sizes));
  if (ctx.checking())
    return Status::ok();
  if (int64) {
    reduceInt64(x, y, toOutput, kind);
    return Status::ok();
  }

  const float *in = x.as<const float>();
  float *out = y.as<float>();
  int64_t outCount = y.numel();
  if (kind == Reduction::amax) {
    std::fill(out, out + outCount, -std::numeric_limits<float>::infinity());
    forEachRow<2>(x.sizes, {contiguousStrides(x.sizes), toOutput},
                  [&](const std::array<int64_t, 2> &off, int64_t n,
                      const std::array<int64_t, 2> &inner) {
                    for (int64_t i = 0; i < n; ++i) {
                      float v = in[off[0] + i];
                      float &m = out[off[1] + i * inner[1]];
                      // NaN wins, as in PyTorch.
                      if (v > m || std::isnan(v))
                        m = v;
                    }
                  });
    return Status::ok();
  }

  // Sums and products accumulate in double; a product over no elements is
  // 1, as in PyTorch.
  const bool product = kind == Reduction::prod;
  std::vector<double> sums(outCount, product ? 1.0 : 0.0);
  forEachRow<2>(x.sizes, {contiguousStrides(x.sizes), toOutput},
                [&](const std::array<int64_t, 2> &off, int64_t n,
                    const std::array<int64_t, 2> &inner) {
                  for (int64_t i = 0; i < n; ++i) {
                    double &acc = sums[off[1] + i * inner[1]];
                    acc = product ? acc * in[off[0] + i] : acc + in[off[0] + i];
                  }
                });
  // Mean over no elements is 0/0, NaN, as in PyTorch.
  double divisor = kind == Reduction::mean ? static_cast<double>(count) : 1.0;
  for (int64_t i = 0; i < outCount; ++i)
    out[i] = static_cast<float>(sums[i] / divisor);
  return Status::ok();
}

/// softmax or log_softmax of the rows of [outer, n, inner] data along n:
/// per position of the inner dims the maximum, the sum of e^(x - max) in
/// double, then e^(x - max) / sum or x - max - log(sum); shifted by the
/// maximum so that exp() never overflows. Eight positions at a time, across
/// the inner dims (`lanes`, at most eight, is how many of the block exist).
/// A row along the last dim (inner == 1) is the same computation with its
/// eight partial results combined: softmaxRow.
[[gnu::always_inline]] inline void softmaxAcross(const float *x, float *y,
                                                 int64_t n, int64_t inner,
                                                 int64_t lanes,
                                                 bool logarithm) {
  using namespace vec;
  Floats8 peak = splat(-std::numeric_limits<float>::infinity());
  for (int64_t k = 0; k < n; ++k) {
    Floats8 v = loadPartial(x + k * inner, lanes, 0.f);
    peak = v > peak ? v : peak;
  }
  Doubles4 sumLow = {}, sumHigh = {};
  for (int64_t k = 0; k < n; ++k) {
    Floats8 e = exp(loadPartial(x + k * inner, lanes, 0.f) - peak);
    sumLow += widenLow(e);
    sumHigh += widenHigh(e);
    if (!logarithm)
      storePartial(y + k * inner, e, lanes);
  }
  Doubles4 logLow, logHigh;
  for (int i = 0; logarithm && i < 4; ++i) {
    logLow[i] = std::log(sumLow[i]);
    logHigh[i] = std::log(sumHigh[i]);
  }
  for (int64_t k = 0; k < n; ++k) {
    Floats8 v;
    if (logarithm) {
      v = loadPartial(x + k * inner, lanes, 0.f) - peak -
          narrow(logLow, logHigh);
    } else {
      Floats8 e = loadPartial(y + k * inner, lanes, 0.f);
      v = narrow(widenLow(e) / sumLow, widenHigh(e) / sumHigh);
    }
    storePartial(y + k * inner, v, lanes);
  }
}

[[gnu::always_inline]] inline void softmaxRow(const float *x, float *y,
                                              int64_t n, bool logarithm) {
  using namespace vec;
  const float kNegInf = -std::numeric_limits<float>::infinity();
  // Padded lanes are -inf: they add e^-inf = 0 to the sum.
  Floats8 peaks = splat(kNegInf);
  for (int64_t i = 0; i < n; i += kLanes) {
    Floats8 v = loadPartial(x + i, std::min(kLanes, n - i), kNegInf);
    peaks = v > peaks ? v : peaks;
  }
  const float peak = maxLanes(peaks);
  Doubles4 sums = {};
  for (int64_t i = 0; i < n; i += kLanes) {
    int64_t count = std::min(kLanes, n - i);
    Floats8 e = exp(loadPartial(x + i, count, kNegInf) - peak);
    sums += widenLow(e) + widenHigh(e);
    if (!logarithm)
      storePartial(y + i, e, count);
  }
  const double sum = sumLanes(sums);
  const float logSum = static_cast<float>(std::log(sum));
  for (int64_t i = 0; i < n; i += kLanes) {
    int64_t count = std::min(kLanes, n - i);
    Floats8 v;
    if (logarithm) {
      v = loadPartial(x + i, count, 0.f) - peak - logSum;
    } else {
      Floats8 e = loadPartial(y + i, count, 0.f);
      v = narrow(widenLow(e) / sum, widenHigh(e) / sum);
    }
    storePartial(y + i, v, count);
  }
}

/// Rows [begin, end) of the [outer, n, inner] data: softmaxRow along the
/// last dim, else softmaxAcross eight inner positions at a time.
DUET_KERNEL_CLONES
void softmaxRows(const float *in, float *out, int64_t begin, int64_t end,
                 int64_t n, int64_t inner, bool logarithm) {
  for (int64_t o = begin; o < end; ++o) {
    const float *xo = in + o * n * inner;
    float *yo = out + o * n * inner;
    if (inner == 1) {
      softmaxRow(xo, yo, n, logarithm);
      continue;
    }
    for (int64_t j = 0; j < inner; j += vec::kLanes)
      softmaxAcross(xo + j, yo + j, n, inner, std::min(vec::kLanes, inner - j),
                    logarithm);
  }
}

Status softmaxFamily(const KernelContext &ctx, bool logarithm) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  AttrReader attrs(ctx);
  int64_t dim = attrs.getInt("dim");
  // softmax's `safe`: rows of nothing but -inf give 0 (PyTorch's
  // _safe_softmax), not NaN.
  bool safe = !logarithm && attrs.getOptionalBool("safe").value_or(false);
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireFloat(x, "input"));
  DUET_RETURN_IF_ERROR(ctx.requireFloat(y, "output"));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  // PyTorch treats a 0-d tensor as having one dim of size 1.
  int64_t rank = std::max<int64_t>(x.rank(), 1);
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, rank, "dim"));
  if (ctx.checking())
    return Status::ok();

  int64_t outer = 1, n = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    (d < dim ? outer : d == dim ? n : inner) *= x.sizes[d];
  const float *in = x.as<const float>();
  float *out = y.as<float>();
  // Rows on the program's threads (Parallel.h).
  parallelFor(
      outer,
      std::max<int64_t>(1, kElementGrain / std::max<int64_t>(n * inner, 1)),
      [&](int64_t begin, int64_t end) {
        softmaxRows(in, out, begin, end, n, inner, logarithm);
      });
  for (int64_t o = 0; safe && o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const float *row = in + o * n * inner + j;
      bool masked = true;
      for (int64_t k = 0; masked && k < n; ++k)
        masked = row[k * inner] == -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; masked && k < n; ++k)
        out[o * n * inner + j + k * inner] = 0.f;
    }
  return Status::ok();
}

/// The running sum along the middle dim of [outer, n, inner] data, kept in
/// an Acc per position of the inner dims and stored as T.
template <typename T, typename Acc>
void runningSum(const T *in, T *out, int64_t outer, int64_t n, int64_t inner) {
  std::vector<Acc> sums(inner);
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(sums.begin(), sums.end(), Acc(0));
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < inner; ++j) {
        int64_t at = (o * n + k) * inner + j;
        if constexpr (std::is_floating_point_v<Acc>) {
          sums[j] += in[at];
          out[at] = static_cast<T>(sums[j]);
        } else {
          sums[j] = static_cast<int64_t>(static_cast<uint64_t>(sums[j]) +
                                         static_cast<uint64_t>(in[at]));
          out[at] = convertElement<T>(sums[j]);
        }
      }
  }
}

} // namespace

Status cumsum(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  AttrReader attrs(ctx);
  int64_t dim = attrs.getInt("dim");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireDType(
      x, "input",
      {DType::f32, DType::i64, DType::i32, DType::i16, DType::i8, DType::u8}));
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&x, &y}));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, x.rank(), "dim"));
  if (ctx.checking())
    return Status::ok();
  int64_t outer = 1, n = x.sizes[dim], inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != dim)
      (d < dim ? outer : inner) *= x.sizes[d];
  visitDType(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float>)
      runningSum<float, double>(x.as<const float>(), y.as<float>(), outer, n,
                                inner);
    else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      runningSum<T, int64_t>(x.as<const T>(), y.as<T>(), outer, n, inner);
  });
  return Status::ok();
}

Status mean(const KernelContext &ctx) { return reduce(ctx, Reduction::mean); }
Status sum(const KernelContext &ctx) { return reduce(ctx, Reduction::sum); }
Status amax(const KernelContext &ctx) { return reduce(ctx, Reduction::amax); }
Status prod(const KernelContext &ctx) { return reduce(ctx, Reduction::prod); }

Status any(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(ctx.requireDType(x, "input", {DType::boolean}));
  DUET_RETURN_IF_ERROR(ctx.requireDType(y, "output", {DType::boolean}));
  Shape toOutput;
  int64_t count;
  DUET_RETURN_IF_ERROR(reductionLayout(ctx, x, y, toOutput, count));
  if (ctx.checking())
    return Status::ok();
  const uint8_t *in = x.as<const uint8_t>();
  bool *out = y.as<bool>();
  std::fill(out, out + y.numel(), false);
  forEachRow<2>(x.sizes, {contiguousStrides(x.sizes), toOutput},
                [&](const std::array<int64_t, 2> &off, int64_t n,
                    const std::array<int64_t, 2> &inner) {
                  for (int64_t i = 0; i < n; ++i)
                    if (in[off[0] + i])
                      out[off[1] + i * inner[1]] = true;
                });
  return Status::ok();
}

Status softmax(const KernelContext &ctx) { return softmaxFamily(ctx, false); }
Status logSoftmax(const KernelContext &ctx) { return softmaxFamily(ctx, true); }

} // namespace duet::rt::portable
