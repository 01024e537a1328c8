//===- XnnpackWeights.cpp - constants in the layouts XNNPACK reads --------===//

#include "partitioners/xnnpack/emit/XnnpackWeights.h"

namespace duet::xnnpack {

std::vector<float> toNhwc(llvm::ArrayRef<float> data,
                          llvm::ArrayRef<int64_t> nchw) {
  int64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  std::vector<float> nhwc(data.size());
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw)
          nhwc[((in * h + ih) * w + iw) * c + ic] =
              data[((in * c + ic) * h + ih) * w + iw];
  return nhwc;
}

std::vector<float> packDeconvolutionFilter(llvm::ArrayRef<float> data,
                                           llvm::ArrayRef<int64_t> shape,
                                           int64_t groups) {
  int64_t gic = shape[0] / groups, goc = shape[1], kh = shape[2], kw = shape[3];
  std::vector<float> packed(data.size());
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t ci = 0; ci < gic; ++ci)
      for (int64_t co = 0; co < goc; ++co)
        for (int64_t y = 0; y < kh; ++y)
          for (int64_t x = 0; x < kw; ++x)
            packed[(((g * goc + co) * kh + y) * kw + x) * gic + ci] =
                data[(((g * gic + ci) * goc + co) * kh + y) * kw + x];
  return packed;
}

std::vector<float> transpose2d(llvm::ArrayRef<float> data, int64_t rows,
                               int64_t columns) {
  std::vector<float> transposed(data.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t o = 0; o < columns; ++o)
      transposed[o * rows + i] = data[i * columns + o];
  return transposed;
}

} // namespace duet::xnnpack
