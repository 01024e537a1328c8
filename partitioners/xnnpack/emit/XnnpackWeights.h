//===- XnnpackWeights.h - constants as XNNPACK reads them -------*- C++ -*-===//
//
// Row-major float data rearranged into what XNNPACK's nodes take, so that
// loading does no repacking of its own: filters in the order of each kind of
// convolution, the [out, in] weights of fully connected, and a constant the
// layout plan holds in NHWC.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNPACKWEIGHTS_H
#define DUET_PARTITIONERS_XNNPACK_XNNPACKWEIGHTS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace duet::xnnpack {

/// A [N, C, H, W] tensor as [N, H, W, C].
std::vector<float> toNhwc(llvm::ArrayRef<float> data,
                          llvm::ArrayRef<int64_t> nchw);

/// A convolution filter [Cout, Cin/g, KH, KW] as OHWI [Cout, KH, KW, Cin/g]
/// (float, or the int8 of a quantized filter).
template <typename T>
std::vector<T> packConvolutionFilter(llvm::ArrayRef<T> data,
                                     llvm::ArrayRef<int64_t> shape) {
  int64_t outChannels = shape[0], gic = shape[1], kh = shape[2], kw = shape[3];
  std::vector<T> packed(data.size());
  for (int64_t o = 0; o < outChannels; ++o)
    for (int64_t i = 0; i < gic; ++i)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x)
          packed[((o * kh + y) * kw + x) * gic + i] =
              data[((o * gic + i) * kh + y) * kw + x];
  return packed;
}

/// A depthwise filter [Cout, 1, KH, KW] as [1, KH, KW, Cout].
template <typename T>
std::vector<T> packDepthwiseFilter(llvm::ArrayRef<T> data,
                                   llvm::ArrayRef<int64_t> shape) {
  int64_t outChannels = shape[0], kh = shape[2], kw = shape[3];
  std::vector<T> packed(data.size());
  for (int64_t c = 0; c < outChannels; ++c)
    for (int64_t y = 0; y < kh; ++y)
      for (int64_t x = 0; x < kw; ++x)
        packed[(y * kw + x) * outChannels + c] = data[(c * kh + y) * kw + x];
  return packed;
}

/// A transposed convolution's filter [Cin, Cout/g, KH, KW] as
/// [Cout, KH, KW, Cin/g], group by group.
std::vector<float> packDeconvolutionFilter(llvm::ArrayRef<float> data,
                                           llvm::ArrayRef<int64_t> shape,
                                           int64_t groups);

/// A [rows, columns] matrix as [columns, rows].
std::vector<float> transpose2d(llvm::ArrayRef<float> data, int64_t rows,
                               int64_t columns);

} // namespace duet::xnnpack

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKWEIGHTS_H
