//===- TensorDifference.cpp - how far apart two tensors are ---------------===//

#include "runtime/cli/TensorDifference.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace duet::cli {
namespace {

/// Element `i` of `t` as a double.
double elementAt(const rt::TensorView &t, int64_t i) {
  switch (t.dtype) {
  case rt::DType::f32:
    return t.as<float>()[i];
  case rt::DType::f16:
    return rt::halfToFloat(t.as<uint16_t>()[i]);
  case rt::DType::bf16:
    return rt::bf16ToFloat(t.as<uint16_t>()[i]);
  case rt::DType::f64:
    return t.as<double>()[i];
  case rt::DType::i64:
    return static_cast<double>(t.as<int64_t>()[i]);
  case rt::DType::i32:
    return t.as<int32_t>()[i];
  case rt::DType::i16:
    return t.as<int16_t>()[i];
  case rt::DType::i8:
    return t.as<int8_t>()[i];
  case rt::DType::u8:
  case rt::DType::boolean:
    return t.as<uint8_t>()[i];
  }
  return NAN;
}

} // namespace

double Difference::worst() const {
  return nan ? std::numeric_limits<double>::infinity() : maxAbs;
}

Difference difference(const rt::TensorView &a, const rt::TensorView &b) {
  return closeness(a, b, 0, 0).difference;
}

Closeness closeness(const rt::TensorView &a, const rt::TensorView &b,
                    double rtol, double atol) {
  Closeness out;
  out.rtol = rtol;
  out.atol = atol;
  out.elements = a.numel();
  Difference &diff = out.difference;
  double worstExcess = -1;
  for (int64_t i = 0; i < out.elements; ++i) {
    double x = elementAt(a, i), y = elementAt(b, i);
    diff.maxOfSecond = std::max(diff.maxOfSecond, std::fabs(y));
    if (x == y || (std::isnan(x) && std::isnan(y)))
      continue;
    double d = std::fabs(x - y);
    if (std::isnan(d))
      diff.nan = true;
    else
      diff.maxAbs = std::max(diff.maxAbs, d);
    double bound = atol + rtol * std::fabs(y);
    double excess = d - bound;
    // A NaN or infinite difference (NaN against a number, a finite value
    // against an infinity) is outside whatever the bound.
    if (std::isnan(excess))
      excess = std::numeric_limits<double>::infinity();
    if (!(excess > 0))
      continue;
    ++out.outside;
    if (excess > worstExcess) {
      worstExcess = excess;
      out.worst = i;
      out.worstGot = x;
      out.worstRef = y;
      out.worstBound = bound;
    }
  }
  return out;
}

std::string describeCloseness(const Closeness &c,
                              const std::vector<int64_t> &sizes) {
  if (c.ok())
    return fmt::format("all {} within", c.elements);
  // The flat index as one index per dimension, the last fastest.
  std::vector<int64_t> index(sizes.size());
  int64_t rest = c.worst;
  for (size_t d = sizes.size(); d-- > 0;) {
    int64_t extent = std::max<int64_t>(sizes[d], 1);
    index[d] = rest % extent;
    rest /= extent;
  }
  std::string where;
  for (size_t d = 0; d < index.size(); ++d)
    where += (d ? ", " : "") + std::to_string(index[d]);
  return fmt::format("{} of {} outside, the worst at [{}]: {:.6g} for {:.6g} "
                     "(bound {:.3g})",
                     c.outside, c.elements, where, c.worstGot, c.worstRef,
                     c.worstBound);
}

void defaultTolerance(rt::DType dtype, double &rtol, double &atol) {
  switch (dtype) {
  case rt::DType::f16:
    rtol = 2e-3, atol = 1e-3;
    return;
  case rt::DType::bf16:
    rtol = 2e-2, atol = 1e-2;
    return;
  default:
    rtol = 1e-4, atol = 1e-5;
  }
}

ValueRange valueRange(const rt::TensorView &t) {
  ValueRange range;
  range.min = std::numeric_limits<double>::infinity();
  range.max = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    double x = elementAt(t, i);
    if (!std::isfinite(x)) {
      ++range.nonfinite;
      continue;
    }
    range.min = std::min(range.min, x);
    range.max = std::max(range.max, x);
  }
  return range;
}

} // namespace duet::cli
