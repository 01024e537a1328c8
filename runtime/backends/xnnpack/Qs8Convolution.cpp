//===- Qs8Convolution.cpp - duet's own qint8 convolution ------------------===//

#include "runtime/backends/xnnpack/Qs8Convolution.h"

#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define DUET_QS8_VNNI 1
#else
#define DUET_QS8_VNNI 0
#endif

namespace duet::rt::xnnpack {

bool cpuHasAvx512Vnni() {
#if DUET_QS8_VNNI
  // GCC's and Clang's checks include the operating system's saving of the
  // AVX-512 registers (XCR0), not only the CPUID bits.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

namespace {

/// What XNNPACK makes of a node's bound in real units: the int8 level,
/// rounded to nearest and clamped to int8 (its subgraph's formula).
int32_t boundLevel(float bound, float scale, int32_t zeroPoint) {
  return static_cast<int32_t>(std::lrintf(std::fmin(
      std::fmax(bound / scale + static_cast<float>(zeroPoint), -128.0f),
      127.0f)));
}

} // namespace

bool Qs8Convolution::supported(const Qs8ConvolutionParams &params,
                               const float *filterScales) {
  if (!std::isnormal(params.inputScale) || !(params.inputScale > 0) ||
      !std::isnormal(params.outputScale) || !(params.outputScale > 0))
    return false;
  for (size_t n = 0; n < params.outputChannels; ++n) {
    if (!std::isnormal(filterScales[n]) || !(filterScales[n] > 0))
      return false;
    float scale = params.inputScale * filterScales[n] / params.outputScale;
    if (!std::isnormal(scale) || !(scale < 256.0f))
      return false;
  }
  return boundLevel(params.outputMin, params.outputScale,
                    params.outputZeroPoint) <
         boundLevel(params.outputMax, params.outputScale,
                    params.outputZeroPoint);
}

Qs8Convolution::Qs8Convolution(const Qs8ConvolutionParams &params,
                               const int8_t *filter, const float *filterScales,
                               const int32_t *bias)
    : params_(params),
      pointwise_(params.kernelHeight == 1 && params.kernelWidth == 1 &&
                 params.strideHeight == 1 && params.strideWidth == 1 &&
                 params.padTop == 0 && params.padRight == 0 &&
                 params.padBottom == 0 && params.padLeft == 0 &&
                 params.outputHeight == params.inputHeight &&
                 params.outputWidth == params.inputWidth),
      depth_(params.kernelHeight * params.kernelWidth * params.inputChannels),
      quads_((depth_ + 3) / 4), blocks_((params.outputChannels + 15) / 16) {
  filterStorage_.assign(blocks_ * quads_ * 64 + 63, 0);
  int8_t *filter64 = filterStorage_.data();
  filter64 += (64 - reinterpret_cast<uintptr_t>(filter64) % 64) % 64;
  filter_ = filter64;
  bias_.assign(blocks_ * 16, 0);
  scale_.assign(blocks_ * 16, 0.0f);
  const int64_t inputOffset = 128 + int64_t{params.inputZeroPoint};
  for (size_t n = 0; n < params.outputChannels; ++n) {
    int64_t rowSum = 0;
    for (size_t k = 0; k < depth_; ++k) {
      int8_t w = filter[n * depth_ + k];
      rowSum += w;
      filter64[((n / 16) * quads_ + k / 4) * 64 + (n % 16) * 4 + k % 4] = w;
    }
    // Computed modulo 2^32 like the sums: the kernel's int32 additions wrap
    // where XNNPACK's do, so even a sum past int32 gives XNNPACK's value.
    bias_[n] =
        static_cast<int32_t>((bias ? bias[n] : 0) - inputOffset * rowSum);
    // XNNPACK's per-channel requantization scale, computed as it does.
    scale_[n] = params.inputScale * filterScales[n] / params.outputScale;
  }
  int32_t low =
      boundLevel(params.outputMin, params.outputScale, params.outputZeroPoint);
  int32_t high =
      boundLevel(params.outputMax, params.outputScale, params.outputZeroPoint);
  low_ = static_cast<float>(low - params.outputZeroPoint);
  high_ = static_cast<float>(high - params.outputZeroPoint);
}

#if DUET_QS8_VNNI

#define DUET_VNNI_TARGET                                                       \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

/// Copies `count` bytes in 8-byte words (the last one overlapping the one
/// before), which the compiler keeps inline: a window row is a few short
/// copies per output pixel, too many for calls to memcpy.
inline void copyBytes(int8_t *to, const int8_t *from, size_t count) {
  if (count < 8) {
    for (size_t i = 0; i < count; ++i)
      to[i] = from[i];
    return;
  }
  size_t i = 0;
  for (; i + 8 <= count; i += 8)
    std::memcpy(to + i, from + i, 8);
  if (i < count)
    std::memcpy(to + count - 8, from + count - 8, 8);
}

/// One task of Qs8Convolution::run: kRows output pixels by
/// kBlocksPerTask 16-channel blocks.
struct Qs8ConvolutionTask {
  const Qs8Convolution *kernel;
  const int8_t *input;
  int8_t *output;
  size_t pixels;
  size_t blockGroups;

  /// The windows of output pixels `pixel`.. (`count` of them), one row of
  /// `quads_` x 4 bytes each from `rows` (zeros past the depth), in the order
  /// of the filter's K (kernel row, kernel column, input channel), the input
  /// zero point in the padding. The pixels' coordinates step along the row
  /// instead of being divided out for each: four divisions cost more than the
  /// copies.
  void windowRows(size_t pixel, size_t count, int8_t *rows) const {
    const Qs8ConvolutionParams &p = kernel->params_;
    const size_t channels = p.inputChannels;
    const size_t image = p.outputHeight * p.outputWidth;
    size_t n = pixel / image, oy = pixel % image / p.outputWidth,
           ox = pixel % p.outputWidth;
    const int8_t pad = static_cast<int8_t>(p.inputZeroPoint);
    const size_t span = p.kernelWidth * channels;
    const size_t stride = kernel->quads_ * 4;
    for (size_t r = 0; r < count; ++r) {
      int8_t *row = rows + r * stride;
      // (A loop: memset is a call, and it runs for every row.)
      for (size_t i = kernel->depth_; i < stride; ++i)
        row[i] = 0;
      // Input column of the window's first tap, before the padding is
      // taken off (so it never goes below 0).
      const size_t x0 = ox * p.strideWidth;
      const bool whole = p.dilationWidth == 1 && x0 >= p.padLeft &&
                         x0 - p.padLeft + p.kernelWidth <= p.inputWidth;
      for (size_t ky = 0; ky < p.kernelHeight; ++ky, row += span) {
        size_t at = oy * p.strideHeight + ky * p.dilationHeight;
        if (at < p.padTop || at - p.padTop >= p.inputHeight) {
          std::memset(row, pad, span);
          continue;
        }
        const int8_t *line = input + (n * p.inputHeight + at - p.padTop) *
                                         p.inputWidth * channels;
        if (whole) {
          copyBytes(row, line + (x0 - p.padLeft) * channels, span);
          continue;
        }
        for (size_t kx = 0; kx < p.kernelWidth; ++kx) {
          size_t column = x0 + kx * p.dilationWidth;
          if (column < p.padLeft || column - p.padLeft >= p.inputWidth)
            std::memset(row + kx * channels, pad, channels);
          else
            copyBytes(row + kx * channels,
                      line + (column - p.padLeft) * channels, channels);
        }
      }
      if (++ox == p.outputWidth) {
        ox = 0;
        if (++oy == p.outputHeight) {
          oy = 0;
          ++n;
        }
      }
    }
  }

  /// Adds group `q` of K (its first `bytes` of 4, the rest read as 0) of
  /// each row times the filter's blocks to `acc`. Inlined into the loop,
  /// where `bytes` is 4 and the read one load.
  template <int Rows, int Blocks>
  DUET_VNNI_TARGET __attribute__((always_inline)) static inline void
  sumGroup(__m512i (&acc)[Rows][Blocks], const int8_t *const *rows,
           const int8_t *filter, size_t blockStride, size_t q, size_t bytes) {
    __m512i w[Blocks];
#pragma GCC unroll 4
    for (int b = 0; b < Blocks; ++b)
      w[b] = _mm512_load_si512(filter + b * blockStride + q * 64);
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r) {
      int32_t word = 0;
      std::memcpy(&word, rows[r] + q * 4, bytes);
      __m512i a =
          _mm512_xor_si512(_mm512_set1_epi32(word),
                           _mm512_set1_epi32(static_cast<int>(0x80808080u)));
#pragma GCC unroll 4
      for (int b = 0; b < Blocks; ++b)
        acc[r][b] = _mm512_dpbusd_epi32(acc[r][b], a, w[b]);
    }
  }

  /// `padded`: each row has quads_ x 4 bytes (window rows); else depth_
  /// (the input's own rows), and the last group of fewer than 4 bytes reads
  /// only those.
  template <int Rows, int Blocks>
  DUET_VNNI_TARGET void tile(const int8_t *const *rows, bool padded,
                             size_t pixel, size_t block) const {
    const Qs8Convolution &k = *kernel;
    const size_t fullQuads = padded ? k.quads_ : k.depth_ / 4;
    __m512i acc[Rows][Blocks];
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
      for (int b = 0; b < Blocks; ++b)
        acc[r][b] = _mm512_loadu_si512(&k.bias_[(block + b) * 16]);
    const int8_t *filter = k.filter_ + block * k.quads_ * 64;
    const size_t blockStride = k.quads_ * 64;
    for (size_t q = 0; q < fullQuads; ++q)
      sumGroup<Rows, Blocks>(acc, rows, filter, blockStride, q, 4);
    // The filter is zero past the depth.
    if (size_t rest = padded ? 0 : k.depth_ % 4)
      sumGroup<Rows, Blocks>(acc, rows, filter, blockStride, fullQuads, rest);
    const __m512 low = _mm512_set1_ps(k.low_);
    const __m512 high = _mm512_set1_ps(k.high_);
    const __m512i zeroPoint = _mm512_set1_epi32(k.params_.outputZeroPoint);
    const size_t outChannels = k.params_.outputChannels;
#pragma GCC unroll 4
    for (int b = 0; b < Blocks; ++b) {
      size_t first = (block + b) * 16;
      size_t count = std::min<size_t>(16, outChannels - first);
      __mmask16 mask = static_cast<__mmask16>((1u << count) - 1);
      __m512 scale = _mm512_loadu_ps(&k.scale_[first]);
#pragma GCC unroll 8
      for (int r = 0; r < Rows; ++r) {
        __m512 value = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[r][b]), scale);
        value = _mm512_min_ps(_mm512_max_ps(value, low), high);
        // Round to nearest even (the default rounding mode), as XNNPACK.
        __m512i level = _mm512_add_epi32(_mm512_cvtps_epi32(value), zeroPoint);
        _mm_mask_storeu_epi8(output + (pixel + r) * outChannels + first, mask,
                             _mm512_cvtsepi32_epi8(level));
      }
    }
  }

  template <int Blocks>
  DUET_VNNI_TARGET void rows(const int8_t *const *rows, bool padded,
                             size_t pixel, size_t count, size_t block) const {
    switch (count) {
    case 8:
      return tile<8, Blocks>(rows, padded, pixel, block);
    case 7:
      return tile<7, Blocks>(rows, padded, pixel, block);
    case 6:
      return tile<6, Blocks>(rows, padded, pixel, block);
    case 5:
      return tile<5, Blocks>(rows, padded, pixel, block);
    case 4:
      return tile<4, Blocks>(rows, padded, pixel, block);
    case 3:
      return tile<3, Blocks>(rows, padded, pixel, block);
    case 2:
      return tile<2, Blocks>(rows, padded, pixel, block);
    default:
      return tile<1, Blocks>(rows, padded, pixel, block);
    }
  }

  /// Task `t`: pixel tile t / blockGroups, block group t % blockGroups.
  DUET_VNNI_TARGET void operator()(size_t t) const {
    const Qs8Convolution &k = *kernel;
    size_t pixel = (t / blockGroups) * Qs8Convolution::kRows;
    size_t block = (t % blockGroups) * Qs8Convolution::kBlocksPerTask;
    size_t count = std::min(Qs8Convolution::kRows, pixels - pixel);
    const int8_t *rowsOf[Qs8Convolution::kRows];
    if (k.pointwise_) {
      for (size_t r = 0; r < count; ++r)
        rowsOf[r] = input + (pixel + r) * k.depth_;
    } else {
      // Each thread's own window rows, made again by each block group of
      // the same pixels (a copy of K bytes a row against K x 32
      // multiply-adds).
      thread_local std::vector<int8_t> window;
      size_t stride = k.quads_ * 4;
      if (window.size() < Qs8Convolution::kRows * stride)
        window.resize(Qs8Convolution::kRows * stride);
      windowRows(pixel, count, window.data());
      for (size_t r = 0; r < count; ++r)
        rowsOf[r] = window.data() + r * stride;
    }
    if (k.blocks_ - block >= 2)
      rows<2>(rowsOf, !k.pointwise_, pixel, count, block);
    else
      rows<1>(rowsOf, !k.pointwise_, pixel, count, block);
  }

  static void run(void *context, size_t t) {
    (*static_cast<const Qs8ConvolutionTask *>(context))(t);
  }
};

void Qs8Convolution::run(const int8_t *input, int8_t *output, size_t batch,
                         pthreadpool *pool, bool yield) const {
  size_t pixels = batch * params_.outputHeight * params_.outputWidth;
  if (pixels == 0)
    return;
  Qs8ConvolutionTask task{this, input, output, pixels,
                          (blocks_ + kBlocksPerTask - 1) / kBlocksPerTask};
  size_t tasks = ((pixels + kRows - 1) / kRows) * task.blockGroups;
  if (!pool) {
    for (size_t t = 0; t < tasks; ++t)
      task(t);
    return;
  }
  pthreadpool_parallelize_1d(pool, &Qs8ConvolutionTask::run, &task, tasks,
                             yield ? PTHREADPOOL_FLAG_YIELD_WORKERS : 0);
}

#else

struct Qs8ConvolutionTask {};

void Qs8Convolution::run(const int8_t *, int8_t *, size_t, pthreadpool *,
                         bool) const {
  // Only called where cpuHasAvx512Vnni(), which is false here.
  std::abort();
}

#endif

} // namespace duet::rt::xnnpack
