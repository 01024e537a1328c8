//===- Qs8Convolution.h - duet's own qint8 convolution ----------*- C++ -*-===//
//
// A qint8 convolution of one group (any window, stride, dilation and
// padding; a 1x1 one of stride 1 and no padding is a product of the pixels
// [P, C] and the filter [N, C]) computed with AVX-512 VNNI's 8-bit dot
// products, which this XNNPACK (2022-02) does not use: its qs8 kernels widen
// each operand to 16 bits first. It gives XNNPACK's node bit for bit: the
// same int32 sums (exact), the same fp32 requantization (the sum as a float
// times input_scale * filter_scale[n] / output_scale, clamped, rounded to
// nearest even, plus the output zero point) and the same output bounds. The
// XNNPACK delegate runs a node with it when the CPU has AVX-512 VNNI
// (docs/xnnpack.md, "duet's own kernels").
//
// The sums run over K = kernel height x kernel width x input channels, in
// the order of XNNPACK's filter [N, kh, kw, C]. A window other than 1x1
// reads its rows through a small buffer per task: the window's input bytes
// of 8 output pixels, laid out in that order (im2col), the input zero point
// where the window reaches into the padding.
//
// VNNI multiplies unsigned by signed bytes, so the kernel reads each input
// byte a as a + 128 (its top bit flipped) and takes (128 + input_zero_point)
// times the filter row's sum out of the bias once, when the filter is packed;
// the padding's zero point then adds nothing, as in PyTorch.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_XNNPACK_QS8CONVOLUTION_H
#define DUET_RUNTIME_BACKENDS_XNNPACK_QS8CONVOLUTION_H

#include <cstddef>
#include <cstdint>
#include <vector>

struct pthreadpool;

namespace duet::rt::xnnpack {

/// Whether this CPU (and its operating system) runs AVX-512 VNNI code.
bool cpuHasAvx512Vnni();

/// One qint8 convolution of one group: its sizes, window and quantization.
struct Qs8ConvolutionParams {
  size_t inputChannels = 0;
  size_t outputChannels = 0;
  /// Input and output height and width (NHWC, any batch).
  size_t inputHeight = 1, inputWidth = 1;
  size_t outputHeight = 1, outputWidth = 1;
  /// The window: kernel, stride, dilation (height, width), and the padding
  /// on each side (the output sizes above follow from it).
  size_t kernelHeight = 1, kernelWidth = 1;
  size_t strideHeight = 1, strideWidth = 1;
  size_t dilationHeight = 1, dilationWidth = 1;
  size_t padTop = 0, padRight = 0, padBottom = 0, padLeft = 0;
  int32_t inputZeroPoint = 0;
  float inputScale = 1;
  int32_t outputZeroPoint = 0;
  float outputScale = 1;
  /// The node's output bounds in real units (-inf and inf: none).
  float outputMin = 0;
  float outputMax = 0;
};

class Qs8Convolution {
public:
  /// Whether XNNPACK would take a convolution of these scales and bounds
  /// (xnn_create_convolution2d_nhwc_qc8's checks): input, output and
  /// filter scales normal floats, each input x filter / output scale a
  /// normal float below 256, and bounds of two different int8 levels.
  static bool supported(const Qs8ConvolutionParams &params,
                        const float *filterScales);

  /// Packs `filter` ([outputChannels, kernelHeight, kernelWidth,
  /// inputChannels] int8, symmetric, one scale per output channel) and
  /// `bias` ([outputChannels] int32 in units of input x filter scale, or
  /// null).
  Qs8Convolution(const Qs8ConvolutionParams &params, const int8_t *filter,
                 const float *filterScales, const int32_t *bias);

  /// Computes `batch` images of `input` ([batch, inputHeight, inputWidth,
  /// inputChannels]) into `output` ([batch, outputHeight, outputWidth,
  /// outputChannels]) on `pool` (null: this thread), whose workers then
  /// sleep when `yield` (else they spin for the next job). Needs
  /// cpuHasAvx512Vnni().
  void run(const int8_t *input, int8_t *output, size_t batch, pthreadpool *pool,
           bool yield) const;

  const Qs8ConvolutionParams &params() const { return params_; }

  /// Output pixels and 16-channel blocks of one task of run().
  static constexpr size_t kRows = 8;
  static constexpr size_t kBlocksPerTask = 2;

private:
  Qs8ConvolutionParams params_;
  bool pointwise_ = true;
  /// The sum's length (kh x kw x input channels), its 4-byte groups, and
  /// the 16-channel blocks of the output.
  size_t depth_ = 0;
  size_t quads_ = 0;
  size_t blocks_ = 0;
  /// [blocks][quads][16 channels][4 bytes], zero past the filter, at
  /// `filter_` in `filterStorage_`, 64-byte aligned: a 64-byte load across
  /// two cache lines costs about twice one within a line.
  std::vector<int8_t> filterStorage_;
  const int8_t *filter_ = nullptr;
  /// Per output channel (padded to whole blocks): the bias less
  /// (128 + input zero point) x the filter row's sum, and the scale.
  std::vector<int32_t> bias_;
  std::vector<float> scale_;
  /// The bounds less the zero point, as XNNPACK clamps before rounding.
  float low_ = 0;
  float high_ = 0;

  friend struct Qs8ConvolutionTask;
};

} // namespace duet::rt::xnnpack

#endif // DUET_RUNTIME_BACKENDS_XNNPACK_QS8CONVOLUTION_H
