// duet's own qint8 convolution (Qs8Convolution) against XNNPACK's
// convolution operator on the same integers, bit for bit: 1x1 windows
// (read in place) and others (through window rows): channel counts that are
// and are not multiples of 4 and 16, whole and partial tiles of 8 pixels,
// strides, dilations, padding on every side (unequal too), batches of two,
// zero points across int8, output bounds, one thread and a pool of two.

#include "runtime/backends/xnnpack/Qs8Convolution.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

using namespace duet::rt::xnnpack;

namespace {

struct Case {
  size_t batch, height, width, inputChannels, outputChannels;
  size_t kernelHeight, kernelWidth, stride, dilation;
  /// Top, right, bottom, left.
  size_t pad[4];
  float outputMin, outputMax;
  bool bias;
};

/// XNNPACK's int8 bound of a real bound (its subgraph's formula).
int8_t level(float bound, float scale, int32_t zeroPoint) {
  return static_cast<int8_t>(std::lrintf(std::fmin(
      std::fmax(bound / scale + static_cast<float>(zeroPoint), -128.0f),
      127.0f)));
}

size_t outputSize(size_t size, size_t before, size_t after, size_t kernel,
                  size_t stride, size_t dilation) {
  return (size + before + after - dilation * (kernel - 1) - 1) / stride + 1;
}

} // namespace

TEST_CASE("duet's qint8 convolution gives XNNPACK's values bit for bit",
          "[xnnpack][qs8]") {
  if (!cpuHasAvx512Vnni()) {
    WARN("this CPU has no AVX-512 VNNI: duet's convolution kernel is not "
         "used here, and not tested");
    return;
  }
  REQUIRE(xnn_initialize(nullptr) == xnn_status_success);
  std::unique_ptr<pthreadpool, void (*)(pthreadpool *)> pool(
      pthreadpool_create(2), pthreadpool_destroy);
  const float inf = std::numeric_limits<float>::infinity();
  std::mt19937 random(7);
  const Case cases[] = {
      // 1x1, stride 1, no padding: rows read in place (pixels = width).
      {1, 1, 1, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, -inf, inf, true},
      {1, 1, 7, 3, 15, 1, 1, 1, 1, {0, 0, 0, 0}, -inf, inf, true},
      {1, 1, 8, 4, 16, 1, 1, 1, 1, {0, 0, 0, 0}, 0, inf, false},
      {1, 3, 3, 5, 17, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 6, true},
      {2, 5, 5, 17, 33, 1, 1, 1, 1, {0, 0, 0, 0}, -inf, inf, true},
      {1, 4, 4, 64, 40, 1, 1, 1, 1, {0, 0, 0, 0}, -1, 1, true},
      {1, 7, 7, 160, 960, 1, 1, 1, 1, {0, 0, 0, 0}, 0, 6, true},
      {1, 1, 1, 1280, 1000, 1, 1, 1, 1, {0, 0, 0, 0}, -inf, inf, true},
      {1, 10, 20, 96, 24, 1, 1, 1, 1, {0, 0, 0, 0}, -inf, inf, true},
      // Windows: MobileNet's stem (3 channels, stride 2, padding 1), a 3x3
      // of many channels, 5x5 dilated, 1x1 of stride 2, 1x3 and 3x1 with
      // unequal padding, a window larger than the padded input's edge rows.
      {1, 16, 16, 3, 32, 3, 3, 2, 1, {1, 1, 1, 1}, 0, 6, true},
      {1, 15, 13, 3, 32, 3, 3, 2, 1, {0, 1, 1, 0}, -inf, inf, true},
      {2, 9, 9, 64, 24, 3, 3, 1, 1, {1, 1, 1, 1}, 0, inf, true},
      {1, 12, 11, 6, 19, 5, 5, 1, 2, {4, 4, 4, 4}, -inf, inf, false},
      {1, 9, 9, 8, 16, 1, 1, 2, 1, {0, 0, 0, 0}, -inf, inf, true},
      // 1x1 of stride 1 with padding after the input only: not read in
      // place (its rows are not the input's).
      {1, 4, 4, 8, 20, 1, 1, 1, 1, {0, 1, 1, 0}, -inf, inf, true},
      {1, 6, 10, 5, 7, 1, 3, 1, 1, {2, 0, 1, 3}, -1, 1, true},
      {1, 10, 6, 9, 20, 3, 1, 1, 1, {1, 2, 0, 0}, -inf, inf, true},
      {1, 3, 4, 13, 35, 3, 3, 3, 1, {2, 2, 2, 2}, -inf, inf, true},
  };
  for (const Case &c : cases) {
    for (int zeroPoints = 0; zeroPoints < 3; ++zeroPoints) {
      Qs8ConvolutionParams params;
      params.inputChannels = c.inputChannels;
      params.outputChannels = c.outputChannels;
      params.inputHeight = c.height;
      params.inputWidth = c.width;
      params.kernelHeight = c.kernelHeight;
      params.kernelWidth = c.kernelWidth;
      params.strideHeight = params.strideWidth = c.stride;
      params.dilationHeight = params.dilationWidth = c.dilation;
      params.padTop = c.pad[0];
      params.padRight = c.pad[1];
      params.padBottom = c.pad[2];
      params.padLeft = c.pad[3];
      params.outputHeight = outputSize(c.height, c.pad[0], c.pad[2],
                                       c.kernelHeight, c.stride, c.dilation);
      params.outputWidth = outputSize(c.width, c.pad[3], c.pad[1],
                                      c.kernelWidth, c.stride, c.dilation);
      params.inputZeroPoint = zeroPoints == 0 ? 0 : zeroPoints == 1 ? -128 : 37;
      params.outputZeroPoint = zeroPoints == 0   ? 0
                               : zeroPoints == 1 ? -128
                                                 : -9;
      params.inputScale = 0.02f;
      // Outputs spread over the whole int8 range, clamped at both ends.
      size_t depth = c.kernelHeight * c.kernelWidth * c.inputChannels;
      params.outputScale = 0.005f * std::sqrt(float(depth));
      params.outputMin = c.outputMin;
      params.outputMax = c.outputMax;
      size_t inputPixels = c.batch * c.height * c.width;
      size_t outputPixels = c.batch * params.outputHeight * params.outputWidth;
      std::vector<int8_t> input(inputPixels * c.inputChannels);
      std::vector<int8_t> filter(c.outputChannels * depth);
      std::vector<int32_t> bias(c.outputChannels);
      std::vector<float> filterScales(c.outputChannels);
      for (int8_t &v : input)
        v = static_cast<int8_t>(int(random() % 256) - 128);
      for (int8_t &v : filter)
        v = static_cast<int8_t>(int(random() % 255) - 127);
      for (int32_t &v : bias)
        v = c.bias ? int32_t(random() % 40001) - 20000 : 0;
      for (float &v : filterScales)
        v = 0.002f + float(random() % 1000) * 1e-5f;
      REQUIRE(Qs8Convolution::supported(params, filterScales.data()));

      int8_t lo =
          level(c.outputMin, params.outputScale, params.outputZeroPoint);
      int8_t hi =
          level(c.outputMax, params.outputScale, params.outputZeroPoint);
      xnn_operator_t op = nullptr;
      REQUIRE(xnn_create_convolution2d_nhwc_qc8(
                  c.pad[0], c.pad[1], c.pad[2], c.pad[3], c.kernelHeight,
                  c.kernelWidth, c.stride, c.stride, c.dilation, c.dilation, 1,
                  c.inputChannels, c.outputChannels, c.inputChannels,
                  c.outputChannels, static_cast<int8_t>(params.inputZeroPoint),
                  params.inputScale, filterScales.data(), filter.data(),
                  c.bias ? bias.data() : nullptr,
                  static_cast<int8_t>(params.outputZeroPoint),
                  params.outputScale, lo, hi, 0, &op) == xnn_status_success);
      std::unique_ptr<xnn_operator, xnn_status (*)(xnn_operator_t)> owner(
          op, xnn_delete_operator);
      // XNNPACK reads up to XNN_EXTRA_BYTES past its input.
      std::vector<int8_t> padded(input);
      padded.resize(input.size() + XNN_EXTRA_BYTES);
      std::vector<int8_t> expected(outputPixels * c.outputChannels);
      REQUIRE(xnn_setup_convolution2d_nhwc_qc8(op, c.batch, c.height, c.width,
                                               padded.data(), expected.data(),
                                               nullptr) == xnn_status_success);
      REQUIRE(xnn_run_operator(op, nullptr) == xnn_status_success);

      Qs8Convolution kernel(params, filter.data(), filterScales.data(),
                            c.bias ? bias.data() : nullptr);
      for (pthreadpool *threads :
           {static_cast<pthreadpool *>(nullptr), pool.get()}) {
        INFO(c.batch << "x" << c.height << "x" << c.width << "x"
                     << c.inputChannels << " to " << c.outputChannels
                     << " channels, window " << c.kernelHeight << "x"
                     << c.kernelWidth << " stride " << c.stride << " dilation "
                     << c.dilation << ", zero points " << params.inputZeroPoint
                     << " and " << params.outputZeroPoint << ", bounds "
                     << c.outputMin << " to " << c.outputMax << ", "
                     << (threads ? "2 threads" : "1 thread"));
        // Exactly the input's bytes, so that a read past it is caught by
        // the sanitizer build.
        std::vector<int8_t> output(expected.size(), 0x55);
        kernel.run(input.data(), output.data(), c.batch, threads, true);
        size_t differ = 0;
        for (size_t i = 0; i < output.size(); ++i)
          differ += output[i] != expected[i];
        CHECK(differ == 0);
      }
      // Both clamps are reached somewhere, so the bounds are tested.
      bool atMin = false, atMax = false;
      for (int8_t v : expected) {
        atMin |= v == lo;
        atMax |= v == hi;
      }
      if (expected.size() >= 64)
        CHECK((atMin && atMax));
    }
  }
}

TEST_CASE("duet's qint8 convolution refuses what XNNPACK refuses",
          "[xnnpack][qs8]") {
  const float inf = std::numeric_limits<float>::infinity();
  Qs8ConvolutionParams params;
  params.inputChannels = 4;
  params.outputChannels = 2;
  params.inputScale = 1;
  params.outputScale = 1;
  params.outputMin = -inf;
  params.outputMax = inf;
  std::vector<float> scales = {0.5f, 255.0f};
  CHECK(Qs8Convolution::supported(params, scales.data()));
  // Requantization scales of 256 and more, or subnormal.
  scales[1] = 256.0f;
  CHECK_FALSE(Qs8Convolution::supported(params, scales.data()));
  scales[1] = 1e-39f;
  CHECK_FALSE(Qs8Convolution::supported(params, scales.data()));
  // A subnormal input scale (the product alone would be normal).
  scales[1] = 1;
  params.inputScale = 1e-39f;
  params.outputScale = 1e-39f;
  CHECK_FALSE(Qs8Convolution::supported(params, scales.data()));
  // Bounds that are one int8 level: [0.1, 0.2] at scale 1 both round to 0.
  params.inputScale = params.outputScale = 1;
  params.outputMin = 0.1f;
  params.outputMax = 0.2f;
  CHECK_FALSE(Qs8Convolution::supported(params, scales.data()));
  params.outputMax = 0.6f;
  CHECK(Qs8Convolution::supported(params, scales.data()));
}
