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

/// A convolution filter [Cout, Cin/g, KH, KW] as OHWI [Cout, KH, KW, Cin/g].
std::vector<float> packConvolutionFilter(llvm::ArrayRef<float> data,
                                         llvm::ArrayRef<int64_t> shape);

/// A depthwise filter [Cout, 1, KH, KW] as [1, KH, KW, Cout].
std::vector<float> packDepthwiseFilter(llvm::ArrayRef<float> data,
                                       llvm::ArrayRef<int64_t> shape);

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
