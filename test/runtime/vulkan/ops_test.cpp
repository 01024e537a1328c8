// Every op family the Vulkan rule table lets into a partition, run on the
// Vulkan device and compared with the same program run on the portable
// kernels (the numeric reference), under the generic texture limits and
// under limits of one texel, where every op with a buffer kernel runs on
// buffers. Each case also checks that the partitioner put every op on Vulkan,
// so a case proves the op runs there, not that it fell back.

#include "VulkanTestSupport.h"

#include "partitioners/vulkan/lowering/VulkanLowering.h"
#include "partitioners/vulkan/rules/VulkanRules.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <set>
#include <sstream>

using namespace duet;
using namespace duet::test;

namespace {

struct OpCase {
  const char *name;
  /// Whether every op has a buffer kernel, so that with one-texel limits the
  /// whole function still runs on Vulkan.
  bool buffers;
  const char *mlir;
};


const OpCase kCases[] = {
    {"convolution with bias and a fused relu", false, R"(
func.func @main(%x: tensor<1x3x9x9xf32>) -> tensor<1x8x5x5xf32> {
  %w = arith.constant @W(8x3x3x3)
  %b = arith.constant @W(8)
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x5x5xf32>
  %1 = aten.relu %0 : tensor<1x8x5x5xf32>
  return %1 : tensor<1x8x5x5xf32>
})"},
    // Few output blocks over many input channels: conv.comp splits each
    // block's sum between invocations (62 channels are 16 texels, the last
    // half empty; 10 output channels leave a texel half padding).
    {"convolutions whose input texels are split between invocations", false,
     R"(
func.func @main(%x: tensor<1x62x5x7xf32>) -> (tensor<1x10x3x4xf32>, tensor<1x12x5x7xf32>) {
  %w = arith.constant @W(10x62x3x3)
  %b = arith.constant @W(10)
  %w2 = arith.constant @W(12x62x1x1)
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x62x5x7xf32>, tensor<10x62x3x3xf32>, tensor<10xf32>) -> tensor<1x10x3x4xf32>
  %1 = aten.relu %0 : tensor<1x10x3x4xf32>
  %2 = aten.convolution %x, %w2 {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x62x5x7xf32>, tensor<12x62x1x1xf32>) -> tensor<1x12x5x7xf32>
  return %1, %2 : tensor<1x10x3x4xf32>, tensor<1x12x5x7xf32>
})"},
    // Convolutions of enough output positions for the tiled kernels
    // (conv_tiled: at least 512 tiles of 32 positions by 8 channel texels;
    // conv_tiled_big: 512 of 64 by 16): input channels off a multiple of 4
    // (the last texel's padding lanes), output channels too (partial
    // column tiles), positions off the tile's (partial row tiles), stride
    // 2 with dilation and padding, 1-D and 2-D, bias and a fused relu.
    {"tiled convolutions: 1-D and 2-D, small and big tiles, odd channels, stride, dilation", false, R"(
func.func @main(%x: tensor<1x10x70x70xf32>, %y: tensor<1x6x150x150xf32>, %z: tensor<1x10x2000xf32>, %u: tensor<1x5x100x100xf32>) -> (tensor<1x100x70x70xf32>, tensor<1x128x75x75xf32>, tensor<1x500x1000xf32>, tensor<1x254x100x100xf32>) {
  %w0 = arith.constant @W(100x10x3x3)
  %b0 = arith.constant @W(100)
  %w1 = arith.constant @W(128x6x3x3)
  %w2 = arith.constant @W(500x10x3)
  %b2 = arith.constant @W(500)
  %w3 = arith.constant @W(254x5x3x3)
  %b3 = arith.constant @W(254)
  %0 = aten.convolution %x, %w0, %b0 {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x10x70x70xf32>, tensor<100x10x3x3xf32>, tensor<100xf32>) -> tensor<1x100x70x70xf32>
  %1 = aten.relu %0 : tensor<1x100x70x70xf32>
  %2 = aten.convolution %y, %w1 {dilation = array<i64: 2, 2>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x6x150x150xf32>, tensor<128x6x3x3xf32>) -> tensor<1x128x75x75xf32>
  %3 = aten.convolution %z, %w2, %b2 {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = false} : (tensor<1x10x2000xf32>, tensor<500x10x3xf32>, tensor<500xf32>) -> tensor<1x500x1000xf32>
  %4 = aten.convolution %u, %w3, %b3 {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x5x100x100xf32>, tensor<254x5x3x3xf32>, tensor<254xf32>) -> tensor<1x254x100x100xf32>
  return %1, %2, %3, %4 : tensor<1x100x70x70xf32>, tensor<1x128x75x75xf32>, tensor<1x500x1000xf32>, tensor<1x254x100x100xf32>
})"},
    {"depthwise dilated convolution with a fused hardtanh", false, R"(
func.func @main(%x: tensor<1x6x7x7xf32>) -> tensor<1x6x5x5xf32> {
  %w = arith.constant @W(6x1x3x3)
  %0 = aten.convolution %x, %w {dilation = array<i64: 2, 2>, groups = 6 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x6x7x7xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x5x5xf32>
  %1 = aten.hardtanh %0 {max_val = 1.0 : f64, min_val = -0.5 : f64} : tensor<1x6x5x5xf32>
  return %1 : tensor<1x6x5x5xf32>
})"},
    {"pointwise convolution with a fused clamp, and uneven windows", false, R"(
func.func @main(%x: tensor<1x5x4x6xf32>, %y: tensor<1x2x7x9xf32>) -> (tensor<1x7x4x6xf32>, tensor<1x3x5x5xf32>) {
  %w = arith.constant @W(7x5x1x1)
  %w2 = arith.constant @W(3x2x2x3)
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x5x4x6xf32>, tensor<7x5x1x1xf32>) -> tensor<1x7x4x6xf32>
  %1 = aten.clamp %0 {min = 1.0e-01 : f64} : tensor<1x7x4x6xf32>
  %2 = aten.convolution %y, %w2 {dilation = array<i64: 2, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 1>, stride = array<i64: 1, 2>, transposed = false} : (tensor<1x2x7x9xf32>, tensor<3x2x2x3xf32>) -> tensor<1x3x5x5xf32>
  return %1, %2 : tensor<1x7x4x6xf32>, tensor<1x3x5x5xf32>
})"},
    {"grouped transposed and 1-D convolutions", false, R"(
func.func @main(%x: tensor<1x4x5x5xf32>, %y: tensor<1x4x20xf32>) -> (tensor<1x6x10x10xf32>, tensor<1x6x20xf32>) {
  %w = arith.constant @W(4x3x3x3)
  %b = arith.constant @W(6)
  %w1 = arith.constant @W(6x4x3)
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x10xf32>
  %1 = aten.convolution %y, %w1 {dilation = array<i64: 2>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 2>, stride = array<i64: 1>, transposed = false} : (tensor<1x4x20xf32>, tensor<6x4x3xf32>) -> tensor<1x6x20xf32>
  return %0, %1 : tensor<1x6x10x10xf32>, tensor<1x6x20xf32>
})"},
    {"texel 1-D convolutions: odd channels, stride 2, dilation, groups, depthwise", false, R"(
func.func @main(%x: tensor<1x10x23xf32>, %y: tensor<1x8x9xf32>) -> (tensor<1x7x12xf32>, tensor<1x8x5xf32>, tensor<1x10x21xf32>, tensor<1x5x23xf32>) {
  %w = arith.constant @W(7x10x3)
  %b = arith.constant @W(7)
  %w1 = arith.constant @W(8x4x3)
  %w2 = arith.constant @W(10x1x5)
  %b2 = arith.constant @W(10)
  %w3 = arith.constant @W(5x10x1)
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = false} : (tensor<1x10x23xf32>, tensor<7x10x3xf32>, tensor<7xf32>) -> tensor<1x7x12xf32>
  %1 = aten.convolution %y, %w1 {dilation = array<i64: 2>, groups = 2 : i64, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 1>, transposed = false} : (tensor<1x8x9xf32>, tensor<8x4x3xf32>) -> tensor<1x8x5xf32>
  %2 = aten.convolution %x, %w2, %b2 {dilation = array<i64: 1>, groups = 10 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 1>, transposed = false} : (tensor<1x10x23xf32>, tensor<10x1x5xf32>, tensor<10xf32>) -> tensor<1x10x21xf32>
  %3 = aten.convolution %x, %w3 {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 1>, transposed = false} : (tensor<1x10x23xf32>, tensor<5x10x1xf32>) -> tensor<1x5x23xf32>
  return %0, %1, %2, %3 : tensor<1x7x12xf32>, tensor<1x8x5xf32>, tensor<1x10x21xf32>, tensor<1x5x23xf32>
})"},
    {"texel convolutions: many channels, stride 2, aligned and unaligned groups", false, R"(
func.func @main(%x: tensor<1x12x9x7xf32>) -> (tensor<1x10x5x4xf32>, tensor<1x12x9x7xf32>, tensor<1x6x4x3xf32>) {
  %w = arith.constant @W(10x12x3x3)
  %b = arith.constant @W(10)
  %w1 = arith.constant @W(12x4x1x1)
  %w2 = arith.constant @W(6x4x2x2)
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x12x9x7xf32>, tensor<10x12x3x3xf32>, tensor<10xf32>) -> tensor<1x10x5x4xf32>
  %1 = aten.convolution %x, %w1 {dilation = array<i64: 1, 1>, groups = 3 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x12x9x7xf32>, tensor<12x4x1x1xf32>) -> tensor<1x12x9x7xf32>
  %2 = aten.convolution %x, %w2 {dilation = array<i64: 2, 2>, groups = 3 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x12x9x7xf32>, tensor<6x4x2x2xf32>) -> tensor<1x6x4x3xf32>
  return %0, %1, %2 : tensor<1x10x5x4xf32>, tensor<1x12x9x7xf32>, tensor<1x6x4x3xf32>
})"},
    {"texel depthwise convolutions: odd channels, stride 2, a 1x1 input", false, R"(
func.func @main(%x: tensor<1x10x8x9xf32>, %y: tensor<1x7x1x1xf32>) -> (tensor<1x10x4x5xf32>, tensor<1x7x1x1xf32>, tensor<1x5x1x1xf32>) {
  %w = arith.constant @W(10x1x3x3)
  %b = arith.constant @W(10)
  %w1 = arith.constant @W(7x1x3x3)
  %w2 = arith.constant @W(5x7x1x1)
  %b2 = arith.constant @W(5)
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 10 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x10x8x9xf32>, tensor<10x1x3x3xf32>, tensor<10xf32>) -> tensor<1x10x4x5xf32>
  %1 = aten.convolution %y, %w1 {dilation = array<i64: 1, 1>, groups = 7 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x7x1x1xf32>, tensor<7x1x3x3xf32>) -> tensor<1x7x1x1xf32>
  %2 = aten.convolution %y, %w2, %b2 {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x7x1x1xf32>, tensor<5x7x1x1xf32>, tensor<5xf32>) -> tensor<1x5x1x1xf32>
  return %0, %1, %2 : tensor<1x10x4x5xf32>, tensor<1x7x1x1xf32>, tensor<1x5x1x1xf32>
})"},
    // Depthwise windows wider than the kernel's four taps a step, split
    // between invocations by kernel rows; global pools of channels-packed
    // textures (reduce.comp's plane kernel), batch 2 and channels off a
    // multiple of four.
    {"7x7 depthwise windows and global pools of channels-packed textures", false, R"(
func.func @main(%x: tensor<1x6x13x11xf32>, %y: tensor<2x7x12x11xf32>) -> (tensor<1x6x13x11xf32>, tensor<1x6x5x3xf32>, tensor<1x6x1x1xf32>, tensor<1x6x1x1xf32>, tensor<2x7x1x1xf32>, tensor<2x7x1x1xf32>, tensor<2x7x1x1xf32>, tensor<1x6x1x1xf32>) {
  %w = arith.constant @W(6x1x7x7)
  %b = arith.constant @W(6)
  %w1 = arith.constant @W(6x1x5x5)
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 6 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 3, 3>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x6x13x11xf32>, tensor<6x1x7x7xf32>, tensor<6xf32>) -> tensor<1x6x13x11xf32>
  %1 = aten.convolution %x, %w1 {dilation = array<i64: 2, 2>, groups = 6 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x6x13x11xf32>, tensor<6x1x5x5xf32>) -> tensor<1x6x5x3xf32>
  %2 = aten.adaptive_avg_pool2d %0 : tensor<1x6x13x11xf32> -> tensor<1x6x1x1xf32>
  %3 = aten.amax %0 {dim = array<i64: 2, 3>, keepdim = true} : tensor<1x6x13x11xf32> -> tensor<1x6x1x1xf32>
  %4 = aten.adaptive_avg_pool2d %y : tensor<2x7x12x11xf32> -> tensor<2x7x1x1xf32>
  %5 = aten.mean %y {dim = array<i64: 2, 3>, keepdim = true} : tensor<2x7x12x11xf32> -> tensor<2x7x1x1xf32>
  %6 = aten.sum %y {dim = array<i64: 2, 3>, keepdim = true} : tensor<2x7x12x11xf32> -> tensor<2x7x1x1xf32>
  %7 = aten.adaptive_avg_pool2d %1 : tensor<1x6x5x3xf32> -> tensor<1x6x1x1xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<1x6x13x11xf32>, tensor<1x6x5x3xf32>, tensor<1x6x1x1xf32>, tensor<1x6x1x1xf32>, tensor<2x7x1x1xf32>, tensor<2x7x1x1xf32>, tensor<2x7x1x1xf32>, tensor<1x6x1x1xf32>
})"},
    {"texel convolutions sharing one packed weight, 5x5 windows", false, R"(
func.func @main(%x: tensor<1x8x6x5xf32>, %y: tensor<1x8x3x3xf32>) -> (tensor<1x9x6x5xf32>, tensor<1x9x2x2xf32>, tensor<1x8x6x5xf32>) {
  %w = arith.constant @W(9x8x5x5)
  %w1 = arith.constant @W(8x1x5x5)
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 2>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x6x5xf32>, tensor<9x8x5x5xf32>) -> tensor<1x9x6x5xf32>
  %1 = aten.convolution %y, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x8x3x3xf32>, tensor<9x8x5x5xf32>) -> tensor<1x9x2x2xf32>
  %2 = aten.convolution %x, %w1 {dilation = array<i64: 1, 1>, groups = 8 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 2, 2>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x6x5xf32>, tensor<8x1x5x5xf32>) -> tensor<1x8x6x5xf32>
  return %0, %1, %2 : tensor<1x9x6x5xf32>, tensor<1x9x2x2xf32>, tensor<1x8x6x5xf32>
})"},
    {"linear texel kernel: depth and features not multiples of 4, one row", false, R"(
func.func @main(%x: tensor<3x10xf32>, %y: tensor<1x1x9xf32>) -> (tensor<3x7xf32>, tensor<1x1x5xf32>) {
  %w = arith.constant @W(7x10)
  %b = arith.constant @W(7)
  %w1 = arith.constant @W(5x9)
  %0 = aten.linear %x, %w, %b : (tensor<3x10xf32>, tensor<7x10xf32>, tensor<7xf32>) -> tensor<3x7xf32>
  %1 = aten.linear %y, %w1 : (tensor<1x1x9xf32>, tensor<5x9xf32>) -> tensor<1x1x5xf32>
  return %0, %1 : tensor<3x7xf32>, tensor<1x1x5xf32>
})"},
    {"tiled products: partial tiles, depth not a multiple of the tile's, features not of 4", false, R"(
func.func @main(%x: tensor<2x1000x45xf32>, %a: tensor<8x250x19xf32>, %b: tensor<8x19x250xf32>) -> (tensor<2x1000x250xf32>, tensor<8x250x250xf32>) {
  %w = arith.constant @W(250x45)
  %bias = arith.constant @W(250)
  %0 = aten.linear %x, %w, %bias : (tensor<2x1000x45xf32>, tensor<250x45xf32>, tensor<250xf32>) -> tensor<2x1000x250xf32>
  %1 = aten.matmul %a, %b : (tensor<8x250x19xf32>, tensor<8x19x250xf32>) -> tensor<8x250x250xf32>
  return %0, %1 : tensor<2x1000x250xf32>, tensor<8x250x250xf32>
})"},
    // Enough big tiles (64 rows by 16 texels, 512 of them) for the big
    // tiled kernel: partial tiles both ways, depth off a multiple of the
    // slice's 16 and of 4, features off a multiple of 4.
    {"big-tiled products: partial tiles, odd depth and features", false, R"(
func.func @main(%x: tensor<32x200x37xf32>, %a: tensor<128x70x21xf32>, %b: tensor<128x21x70xf32>) -> (tensor<32x200x201xf32>, tensor<128x70x70xf32>) {
  %w = arith.constant @W(201x37)
  %bias = arith.constant @W(201)
  %0 = aten.linear %x, %w, %bias : (tensor<32x200x37xf32>, tensor<201x37xf32>, tensor<201xf32>) -> tensor<32x200x201xf32>
  %1 = aten.matmul %a, %b : (tensor<128x70x21xf32>, tensor<128x21x70xf32>) -> tensor<128x70x70xf32>
  return %0, %1 : tensor<32x200x201xf32>, tensor<128x70x70xf32>
})"},
    // Few small tiles (at least 512, under 2048) of sums at least 256 deep,
    // partial tiles, columns off 4: in fp32 the small tile (the fp16 split
    // kernel that takes them there is programs_test's).
    {"few small tiles of long sums: partial tiles, odd depth and features", false, R"(
func.func @main(%x: tensor<2040x301xf32>, %a: tensor<16x520x270xf32>, %b: tensor<16x270x62xf32>) -> (tensor<2040x250xf32>, tensor<16x520x62xf32>) {
  %w = arith.constant @W(250x301)
  %bias = arith.constant @W(250)
  %0 = aten.linear %x, %w, %bias : (tensor<2040x301xf32>, tensor<250x301xf32>, tensor<250xf32>) -> tensor<2040x250xf32>
  %1 = aten.matmul %a, %b : (tensor<16x520x270xf32>, tensor<16x270x62xf32>) -> tensor<16x520x62xf32>
  return %0, %1 : tensor<2040x250xf32>, tensor<16x520x62xf32>
})"},
    {"linear, addmm, mm, bmm and matmul", true, R"(
func.func @main(%x: tensor<2x3x16xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<2x3x5xf32>, %d: tensor<2x5x4xf32>, %e: tensor<2x1x4x6xf32>, %f: tensor<1x3x6x5xf32>, %q: tensor<2x5x7x70xf32>, %k: tensor<2x5x70x9xf32>) -> (tensor<2x3x10xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<2x3x4xf32>, tensor<2x3x4x5xf32>, tensor<2x3x7xf32>, tensor<2x5x7x9xf32>) {
  %w = arith.constant @W(10x16)
  %bias = arith.constant @W(10)
  %w2 = arith.constant @W(7x16)
  %s = arith.constant @W(5)
  %0 = aten.linear %x, %w, %bias : (tensor<2x3x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<2x3x10xf32>
  %1 = aten.addmm %s, %a, %b {alpha = 5.0e-01 : f64, beta = 2.0 : f64} : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %2 = aten.mm %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %3 = aten.bmm %c, %d : (tensor<2x3x5xf32>, tensor<2x5x4xf32>) -> tensor<2x3x4xf32>
  %4 = aten.matmul %e, %f : (tensor<2x1x4x6xf32>, tensor<1x3x6x5xf32>) -> tensor<2x3x4x5xf32>
  %5 = aten.linear %x, %w2 : (tensor<2x3x16xf32>, tensor<7x16xf32>) -> tensor<2x3x7xf32>
  %6 = aten.matmul %q, %k : (tensor<2x5x7x70xf32>, tensor<2x5x70x9xf32>) -> tensor<2x5x7x9xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3x10xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<2x3x4xf32>, tensor<2x3x4x5xf32>, tensor<2x3x7xf32>, tensor<2x5x7x9xf32>
})"},
    // Movements between width-packed textures (the linears' tensors) that
    // run texel by texel (gather.comp's FLAG1 2, plan_test's case): heads
    // split by a view and a permute (strided), a view, a slice from 4, a
    // pad of 4 on each side; and a slice from 2, element by element.
    {"texel gathers: split heads, a view, slices and a pad along the last dim", false, R"(
func.func @main(%x: tensor<2x12x32xf32>) -> (tensor<2x4x12x12xf32>, tensor<24x8xf32>, tensor<2x12x8xf32>, tensor<2x12x8xf32>, tensor<2x12x8xf32>) {
  %w = arith.constant @W(32x32)
  %w8 = arith.constant @W(8x32)
  %w16 = arith.constant @W(8x16)
  %w40 = arith.constant @W(8x40)
  %w13 = arith.constant @W(8x13)
  %k = arith.constant @W(2x4x8x12)
  %a = aten.linear %x, %w : (tensor<2x12x32xf32>, tensor<32x32xf32>) -> tensor<2x12x32xf32>
  %0 = aten.view %a : tensor<2x12x32xf32> -> tensor<2x12x4x8xf32>
  %1 = aten.permute %0 {dims = array<i64: 0, 2, 1, 3>} : tensor<2x12x4x8xf32> -> tensor<2x4x12x8xf32>
  %2 = aten.matmul %1, %k : (tensor<2x4x12x8xf32>, tensor<2x4x8x12xf32>) -> tensor<2x4x12x12xf32>
  %3 = aten.view %a : tensor<2x12x32xf32> -> tensor<24x32xf32>
  %4 = aten.linear %3, %w8 : (tensor<24x32xf32>, tensor<8x32xf32>) -> tensor<24x8xf32>
  %5 = aten.slice %a {dim = 2 : i64, end = 20 : i64, start = 4 : i64, step = 1 : i64} : tensor<2x12x32xf32> -> tensor<2x12x16xf32>
  %6 = aten.linear %5, %w16 : (tensor<2x12x16xf32>, tensor<8x16xf32>) -> tensor<2x12x8xf32>
  %7 = aten.constant_pad_nd %a {pad = array<i64: 4, 4>, value = 5.0e-01 : f64} : tensor<2x12x32xf32> -> tensor<2x12x40xf32>
  %8 = aten.linear %7, %w40 : (tensor<2x12x40xf32>, tensor<8x40xf32>) -> tensor<2x12x8xf32>
  %9 = aten.slice %a {dim = 2 : i64, end = 15 : i64, start = 2 : i64, step = 1 : i64} : tensor<2x12x32xf32> -> tensor<2x12x13xf32>
  %10 = aten.linear %9, %w13 : (tensor<2x12x13xf32>, tensor<8x13xf32>) -> tensor<2x12x8xf32>
  return %2, %4, %6, %8, %10 : tensor<2x4x12x12xf32>, tensor<24x8xf32>, tensor<2x12x8xf32>, tensor<2x12x8xf32>, tensor<2x12x8xf32>
})"},
    // Chains of movements whose tensors between have one reader each run
    // as one strided gather (the test case after the op cases checks that
    // they do): a split
    // of heads as ViT's attention makes it, through a rank-5 buffer; a
    // slice of a select of an expand of a permute; and a view merging dims
    // that a permute took apart, which no strided view expresses, so that
    // chain breaks there.
    {"chains of movements: split heads, slice of a select of an expand, a view across a permute", true, R"(
func.func @main(%x: tensor<1x7x36xf32>, %y: tensor<2x3x4xf32>) -> (tensor<1x3x7x4xf32>, tensor<1x3x7x4xf32>, tensor<1x3x7x4xf32>, tensor<5x2x1xf32>, tensor<2x12xf32>) {
  %0 = aten.view %x : tensor<1x7x36xf32> -> tensor<1x7x3x3x4xf32>
  %1 = aten.permute %0 {dims = array<i64: 2, 0, 3, 1, 4>} : tensor<1x7x3x3x4xf32> -> tensor<3x1x3x7x4xf32>
  %2:3 = aten.split_with_sizes %1 {dim = 0 : i64, split_sizes = array<i64: 1, 1, 1>} : (tensor<3x1x3x7x4xf32>) -> (tensor<1x1x3x7x4xf32>, tensor<1x1x3x7x4xf32>, tensor<1x1x3x7x4xf32>)
  %q = aten.view %2#0 : tensor<1x1x3x7x4xf32> -> tensor<1x3x7x4xf32>
  %k = aten.view %2#1 : tensor<1x1x3x7x4xf32> -> tensor<1x3x7x4xf32>
  %v = aten.view %2#2 : tensor<1x1x3x7x4xf32> -> tensor<1x3x7x4xf32>
  %3 = aten.permute %y {dims = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %4 = aten.expand %3 : tensor<4x2x3xf32> -> tensor<5x4x2x3xf32>
  %5 = aten.select %4 {dim = 1 : i64, index = 2 : i64} : tensor<5x4x2x3xf32> -> tensor<5x2x3xf32>
  %6 = aten.slice %5 {dim = 2 : i64, end = 3 : i64, start = 1 : i64, step = 2 : i64} : tensor<5x2x3xf32> -> tensor<5x2x1xf32>
  %7 = aten.permute %y {dims = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %8 = aten.view %7 : tensor<2x4x3xf32> -> tensor<2x12xf32>
  return %q, %k, %v, %6, %8 : tensor<1x3x7x4xf32>, tensor<1x3x7x4xf32>, tensor<1x3x7x4xf32>, tensor<5x2x1xf32>, tensor<2x12xf32>
})"},
    // A safe softmax (PyTorch's _safe_softmax, duet-recompose's) gives 0 on
    // a line of nothing but -inf: the mask's row 1, along the packed dim
    // and across it; a line with one -inf is an ordinary softmax.
    {"safe softmax: lines of nothing but -inf give 0", false, R"(
func.func @main(%x: tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %m = arith.constant dense<[[0.0, 0xFF800000, 0.0, 0.0, 0.0], [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<3x5xf32>
  %n = arith.constant dense<[[0xFF800000, 0.0, 0.0, 0.0, 0.0], [0xFF800000, 0.0, 0.0, 0.0, 0.0], [0xFF800000, 0.0, 0.0, 0.0, 0.0]]> : tensor<3x5xf32>
  %0 = aten.add %x, %m {alpha = 1.0 : f64} : tensor<2x3x5xf32>, tensor<3x5xf32> -> tensor<2x3x5xf32>
  %1 = aten.softmax %0 {dim = 2 : i64, safe = true} : tensor<2x3x5xf32>
  %2 = aten.add %x, %n {alpha = 1.0 : f64} : tensor<2x3x5xf32>, tensor<3x5xf32> -> tensor<2x3x5xf32>
  %3 = aten.softmax %2 {dim = 1 : i64, safe = true} : tensor<2x3x5xf32>
  return %1, %3 : tensor<2x3x5xf32>, tensor<2x3x5xf32>
})"},
    {"batch norm and layer norm", false, R"(
func.func @main(%x: tensor<1x5x3x4xf32>, %y: tensor<2x3x8xf32>) -> (tensor<1x5x3x4xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %m = arith.constant @W(5)
  %v = arith.constant @P(5)
  %g = arith.constant @W(5)
  %b = arith.constant @W(5)
  %lg = arith.constant @W(8)
  %lb = arith.constant @W(8)
  %0 = aten.batch_norm %x, %m, %v weight %g bias %b {eps = 1.0e-05 : f64} : (tensor<1x5x3x4xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<1x5x3x4xf32>
  %1 = aten.layer_norm %y weight %lg bias %lb {normalized_shape = array<i64: 8>} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %2 = aten.layer_norm %y {eps = 1.0e-03 : f64, normalized_shape = array<i64: 8>} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %0, %1, %2 : tensor<1x5x3x4xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
})"},
    {"unary activations, hardswish, hardsigmoid, silu and hardshrink native",
     true, R"(
func.func @main(%x: tensor<2x3x5x7xf32>) -> (tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>) {
  %0 = aten.relu %x : tensor<2x3x5x7xf32>
  %1 = aten.hardswish %x : tensor<2x3x5x7xf32>
  %2 = aten.hardsigmoid %x : tensor<2x3x5x7xf32>
  %3 = aten.silu %x : tensor<2x3x5x7xf32>
  %4 = aten.sigmoid %x : tensor<2x3x5x7xf32>
  %5 = aten.tanh %x : tensor<2x3x5x7xf32>
  %6 = aten.hardshrink %x {lambd = 5.0e-01 : f64} : tensor<2x3x5x7xf32>
  %7 = aten.gelu %x {approximate = #aten.approximate<none>} : tensor<2x3x5x7xf32>
  %8 = aten.gelu %x {approximate = #aten.approximate<tanh>} : tensor<2x3x5x7xf32>
  %9 = aten.leaky_relu %x {negative_slope = 2.0e-01 : f64} : tensor<2x3x5x7xf32>
  %10 = aten.elu %x {alpha = 1.5 : f64, scale = 0.5 : f64, input_scale = 2.0 : f64} : tensor<2x3x5x7xf32>
  %11 = aten.neg %x : tensor<2x3x5x7xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>
})"},
    {"math, clamps and powers", true, R"(
func.func @main(%x: tensor<3x1x6xf32>) -> (tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %a = aten.abs %x : tensor<3x1x6xf32>
  %p = aten.add %a, %one : tensor<3x1x6xf32>, tensor<f32> -> tensor<3x1x6xf32>
  %0 = aten.exp %x : tensor<3x1x6xf32>
  %1 = aten.log %p : tensor<3x1x6xf32>
  %2 = aten.sqrt %p : tensor<3x1x6xf32>
  %3 = aten.rsqrt %p : tensor<3x1x6xf32>
  %4 = aten.hardtanh %x {max_val = 1.0 : f64, min_val = -1.0 : f64} : tensor<3x1x6xf32>
  %5 = aten.clamp %x {max = 5.0e-01 : f64} : tensor<3x1x6xf32>
  %6 = aten.pow %x {exponent = 2.0 : f64} : tensor<3x1x6xf32>
  %7 = aten.pow %x {exponent = 3.0 : f64} : tensor<3x1x6xf32>
  %8 = aten.pow %p {exponent = 1.7 : f64} : tensor<3x1x6xf32>
  %9 = aten.pow %p {exponent = -0.5 : f64} : tensor<3x1x6xf32>
  %10 = aten.clone %x : tensor<3x1x6xf32>
  %11 = aten.erf %x : tensor<3x1x6xf32>
  %12 = aten.sin %x : tensor<3x1x6xf32>
  %13 = aten.cos %p : tensor<3x1x6xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>
})"},
    {"inverse trigonometry, hyperbolics, logs, rounding and erfinv", true, R"(
func.func @main(%x: tensor<3x1x6xf32>) -> (tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %near = arith.constant dense<0.99> : tensor<f32>
  %three = arith.constant dense<3.0> : tensor<f32>
  %a = aten.abs %x : tensor<3x1x6xf32>
  %p = aten.add %a, %one : tensor<3x1x6xf32>, tensor<f32> -> tensor<3x1x6xf32>
  %h = aten.tanh %x : tensor<3x1x6xf32>
  %u = aten.mul %h, %near : tensor<3x1x6xf32>, tensor<f32> -> tensor<3x1x6xf32>
  %t = aten.mul %x, %three : tensor<3x1x6xf32>, tensor<f32> -> tensor<3x1x6xf32>
  %0 = aten.acos %u : tensor<3x1x6xf32>
  %1 = aten.asin %u : tensor<3x1x6xf32>
  %2 = aten.atanh %u : tensor<3x1x6xf32>
  %3 = aten.atan %x : tensor<3x1x6xf32>
  %4 = aten.sinh %x : tensor<3x1x6xf32>
  %5 = aten.cosh %x : tensor<3x1x6xf32>
  %6 = aten.tan %u : tensor<3x1x6xf32>
  %7 = aten.asinh %x : tensor<3x1x6xf32>
  %8 = aten.acosh %p : tensor<3x1x6xf32>
  %9 = aten.log1p %a : tensor<3x1x6xf32>
  %10 = aten.expm1 %x : tensor<3x1x6xf32>
  %11 = aten.log2 %p : tensor<3x1x6xf32>
  %12 = aten.log10 %p : tensor<3x1x6xf32>
  %13 = aten.ceil %t : tensor<3x1x6xf32>
  %14 = aten.floor %t : tensor<3x1x6xf32>
  %15 = aten.round %t : tensor<3x1x6xf32>
  %16 = aten.trunc %t : tensor<3x1x6xf32>
  %17 = aten.sign %x : tensor<3x1x6xf32>
  %18 = aten.erfinv %u : tensor<3x1x6xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18 : tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>, tensor<3x1x6xf32>
})"},
    {"binary ops: equal shapes, a [1,C,1,1] scale, 0-d operands", true, R"(
func.func @main(%x: tensor<1x6x5x7xf32>, %y: tensor<1x6x5x7xf32>, %s: tensor<1x6x1x1xf32>) -> (tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32>) {
  %half = arith.constant dense<0.5> : tensor<f32>
  %0 = aten.add %x, %y {alpha = 2.0 : f64} : tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32> -> tensor<1x6x5x7xf32>
  %1 = aten.mul %x, %s : tensor<1x6x5x7xf32>, tensor<1x6x1x1xf32> -> tensor<1x6x5x7xf32>
  %2 = aten.sub %s, %y {alpha = 1.0 : f64} : tensor<1x6x1x1xf32>, tensor<1x6x5x7xf32> -> tensor<1x6x5x7xf32>
  %3 = aten.mul %x, %half : tensor<1x6x5x7xf32>, tensor<f32> -> tensor<1x6x5x7xf32>
  %4 = aten.maximum %half, %y : tensor<f32>, tensor<1x6x5x7xf32> -> tensor<1x6x5x7xf32>
  return %0, %1, %2, %3, %4 : tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32>, tensor<1x6x5x7xf32>
})"},
    {"binary ops with broadcasting", true, R"(
func.func @main(%x: tensor<2x3x4x5xf32>, %y: tensor<3x1x5xf32>, %z: tensor<5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) {
  %half = arith.constant dense<0.5> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %ya = aten.abs %y : tensor<3x1x5xf32>
  %yp = aten.add %ya, %half : tensor<3x1x5xf32>, tensor<f32> -> tensor<3x1x5xf32>
  %0 = aten.add %x, %y {alpha = 2.0 : f64} : tensor<2x3x4x5xf32>, tensor<3x1x5xf32> -> tensor<2x3x4x5xf32>
  %1 = aten.sub %x, %z {alpha = 5.0e-01 : f64} : tensor<2x3x4x5xf32>, tensor<5xf32> -> tensor<2x3x4x5xf32>
  %2 = aten.mul %x, %y : tensor<2x3x4x5xf32>, tensor<3x1x5xf32> -> tensor<2x3x4x5xf32>
  %3 = aten.div %x, %yp {rounding_mode = #aten.rounding<none>} : tensor<2x3x4x5xf32>, tensor<3x1x5xf32> -> tensor<2x3x4x5xf32>
  %4 = aten.div %x, %yp {rounding_mode = #aten.rounding<trunc>} : tensor<2x3x4x5xf32>, tensor<3x1x5xf32> -> tensor<2x3x4x5xf32>
  %5 = aten.div %x, %yp {rounding_mode = #aten.rounding<floor>} : tensor<2x3x4x5xf32>, tensor<3x1x5xf32> -> tensor<2x3x4x5xf32>
  %6 = aten.maximum %x, %z : tensor<2x3x4x5xf32>, tensor<5xf32> -> tensor<2x3x4x5xf32>
  %7 = aten.minimum %y, %x : tensor<3x1x5xf32>, tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  %8 = aten.sub %two, %x : tensor<f32>, tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  %yn = aten.neg %yp : tensor<3x1x5xf32>
  %9 = aten.remainder %x, %yp : tensor<2x3x4x5xf32>, tensor<3x1x5xf32> -> tensor<2x3x4x5xf32>
  %10 = aten.remainder %x, %yn : tensor<2x3x4x5xf32>, tensor<3x1x5xf32> -> tensor<2x3x4x5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>
})"},
    {"reductions and softmax", false, R"(
func.func @main(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1x3x1x5xf32>, tensor<2x3x4xf32>, tensor<2x1x4x1xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) {
  %0 = aten.mean %x {dim = array<i64: 2, 3>, keepdim = true} : tensor<2x3x4x5xf32> -> tensor<2x3x1x1xf32>
  %1 = aten.mean %x {dim = array<i64: 3>, keepdim = false} : tensor<2x3x4x5xf32> -> tensor<2x3x4xf32>
  %2 = aten.sum %x {dim = array<i64: 1>, keepdim = false} : tensor<2x3x4x5xf32> -> tensor<2x4x5xf32>
  %3 = aten.sum %x {dim = array<i64: 0, 2>, keepdim = true} : tensor<2x3x4x5xf32> -> tensor<1x3x1x5xf32>
  %4 = aten.amax %x {dim = array<i64: 3>, keepdim = false} : tensor<2x3x4x5xf32> -> tensor<2x3x4xf32>
  %5 = aten.amax %x {dim = array<i64: 1, 3>, keepdim = true} : tensor<2x3x4x5xf32> -> tensor<2x1x4x1xf32>
  %6 = aten.softmax %x {dim = 3 : i64} : tensor<2x3x4x5xf32>
  %7 = aten.softmax %x {dim = 1 : i64} : tensor<2x3x4x5xf32>
  %8 = aten.log_softmax %x {dim = 2 : i64} : tensor<2x3x4x5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3x1x1xf32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1x3x1x5xf32>, tensor<2x3x4xf32>, tensor<2x1x4x1xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>
})"},
    // Lines of hundreds of elements run one workgroup per line (softmax,
    // layer norm) or per output texel (long reductions, global pools), and
    // a long linear splits each output texel's row between invocations:
    // lengths and channel counts off multiples of four, lines along the
    // packed dim and across it, and layouts the planner packs either way.
    {"long lines: softmax, layer norm, reductions, global pools and a linear",
     false,
     R"(
func.func @main(%x: tensor<1x3x7x301xf32>, %y: tensor<2x300x6xf32>, %z: tensor<1x10x20x19xf32>) -> (tensor<1x3x7x301xf32>, tensor<1x3x7x301xf32>, tensor<1x3x7x301xf32>, tensor<1x3x7x301xf32>, tensor<1x3x1x1xf32>, tensor<1x3x7xf32>, tensor<1x1x7x1xf32>, tensor<2x300x6xf32>, tensor<2x6xf32>, tensor<1x10x1x1xf32>, tensor<1x10x1x1xf32>, tensor<1x3x7x9xf32>) {
  %lw = arith.constant @W(9x301)
  %lb = arith.constant @W(9)
  %g = arith.constant @W(301)
  %b = arith.constant @W(301)
  %0 = aten.softmax %x {dim = 3 : i64} : tensor<1x3x7x301xf32>
  %1 = aten.log_softmax %x {dim = 3 : i64} : tensor<1x3x7x301xf32>
  %2 = aten.softmax %x {dim = 2 : i64} : tensor<1x3x7x301xf32>
  %3 = aten.layer_norm %x weight %g bias %b {normalized_shape = array<i64: 301>} : (tensor<1x3x7x301xf32>, tensor<301xf32>, tensor<301xf32>) -> tensor<1x3x7x301xf32>
  %4 = aten.mean %x {dim = array<i64: 2, 3>, keepdim = true} : tensor<1x3x7x301xf32> -> tensor<1x3x1x1xf32>
  %5 = aten.amax %x {dim = array<i64: 3>, keepdim = false} : tensor<1x3x7x301xf32> -> tensor<1x3x7xf32>
  %6 = aten.sum %x {dim = array<i64: 1, 3>, keepdim = true} : tensor<1x3x7x301xf32> -> tensor<1x1x7x1xf32>
  %7 = aten.softmax %y {dim = 1 : i64} : tensor<2x300x6xf32>
  %8 = aten.mean %y {dim = array<i64: 1>, keepdim = false} : tensor<2x300x6xf32> -> tensor<2x6xf32>
  %9 = aten.adaptive_avg_pool2d %z : tensor<1x10x20x19xf32> -> tensor<1x10x1x1xf32>
  %10 = aten.mean %z {dim = array<i64: 2, 3>, keepdim = true} : tensor<1x10x20x19xf32> -> tensor<1x10x1x1xf32>
  %11 = aten.linear %x, %lw, %lb : (tensor<1x3x7x301xf32>, tensor<9x301xf32>, tensor<9xf32>) -> tensor<1x3x7x9xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<1x3x7x301xf32>, tensor<1x3x7x301xf32>, tensor<1x3x7x301xf32>, tensor<1x3x7x301xf32>, tensor<1x3x1x1xf32>, tensor<1x3x7xf32>, tensor<1x1x7x1xf32>, tensor<2x300x6xf32>, tensor<2x6xf32>, tensor<1x10x1x1xf32>, tensor<1x10x1x1xf32>, tensor<1x3x7x9xf32>
})"},
    // Lines of more texels than softmax.comp keeps in registers (64 x 8).
    {"softmax over lines longer than the registers hold", false, R"(
func.func @main(%x: tensor<3x2101xf32>) -> (tensor<3x2101xf32>, tensor<3x2101xf32>) {
  %0 = aten.softmax %x {dim = 1 : i64} : tensor<3x2101xf32>
  %1 = aten.log_softmax %x {dim = 1 : i64} : tensor<3x2101xf32>
  return %0, %1 : tensor<3x2101xf32>, tensor<3x2101xf32>
})"},
    {"cumsum along every dim", true, R"(
func.func @main(%x: tensor<2x3x5x7xf32>, %y: tensor<9xf32>) -> (tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<9xf32>) {
  %0 = aten.cumsum %x {dim = 0 : i64} : tensor<2x3x5x7xf32>
  %1 = aten.cumsum %x {dim = 1 : i64} : tensor<2x3x5x7xf32>
  %2 = aten.cumsum %x {dim = 2 : i64} : tensor<2x3x5x7xf32>
  %3 = aten.cumsum %x {dim = 3 : i64} : tensor<2x3x5x7xf32>
  %4 = aten.cumsum %y {dim = 0 : i64} : tensor<9xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<9xf32>
})"},
    {"pooling", false, R"(
func.func @main(%x: tensor<1x4x15x15xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x13x13xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x5x5xf32>, tensor<1x4x1x1xf32>, tensor<1x4x2x3xf32>, tensor<1x4x4x5xf32>) {
  %0 = aten.max_pool2d %x {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<1x4x15x15xf32> -> tensor<1x4x8x8xf32>
  %1 = aten.max_pool2d %x {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x4x15x15xf32> -> tensor<1x4x8x8xf32>
  %2 = aten.max_pool2d %x {ceil_mode = false, dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : tensor<1x4x15x15xf32> -> tensor<1x4x13x13xf32>
  %3 = aten.avg_pool2d %x {ceil_mode = false, count_include_pad = false, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<1x4x15x15xf32> -> tensor<1x4x8x8xf32>
  %4 = aten.avg_pool2d %x {ceil_mode = true, count_include_pad = true, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x4x15x15xf32> -> tensor<1x4x8x8xf32>
  %5 = aten.avg_pool2d %x {ceil_mode = false, count_include_pad = true, divisor_override = 4 : i64, kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0>, stride = array<i64: 3, 3>} : tensor<1x4x15x15xf32> -> tensor<1x4x5x5xf32>
  %6 = aten.adaptive_avg_pool2d %x : tensor<1x4x15x15xf32> -> tensor<1x4x1x1xf32>
  %7 = aten.adaptive_avg_pool2d %x : tensor<1x4x15x15xf32> -> tensor<1x4x2x3xf32>
  %8 = aten.adaptive_avg_pool2d %x : tensor<1x4x15x15xf32> -> tensor<1x4x4x5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x13x13xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x5x5xf32>, tensor<1x4x1x1xf32>, tensor<1x4x2x3xf32>, tensor<1x4x4x5xf32>
})"},
    {"upsampling", false, R"(
func.func @main(%x: tensor<1x3x6x6xf32>) -> (tensor<1x3x12x12xf32>, tensor<1x3x9x10xf32>, tensor<1x3x12x12xf32>, tensor<1x3x11x13xf32>, tensor<1x3x12x12xf32>, tensor<1x3x4x5xf32>) {
  %0 = aten.upsample_nearest2d %x : tensor<1x3x6x6xf32> -> tensor<1x3x12x12xf32>
  %1 = aten.upsample_nearest2d %x : tensor<1x3x6x6xf32> -> tensor<1x3x9x10xf32>
  %2 = aten.upsample_bilinear2d %x {align_corners = false} : tensor<1x3x6x6xf32> -> tensor<1x3x12x12xf32>
  %3 = aten.upsample_bilinear2d %x {align_corners = true} : tensor<1x3x6x6xf32> -> tensor<1x3x11x13xf32>
  %4 = aten.upsample_bilinear2d %x {align_corners = false, scales_h = 2.0 : f64, scales_w = 2.0 : f64} : tensor<1x3x6x6xf32> -> tensor<1x3x12x12xf32>
  %5 = aten.upsample_bilinear2d %x {align_corners = false} : tensor<1x3x6x6xf32> -> tensor<1x3x4x5xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x3x12x12xf32>, tensor<1x3x9x10xf32>, tensor<1x3x12x12xf32>, tensor<1x3x11x13xf32>, tensor<1x3x12x12xf32>, tensor<1x3x4x5xf32>
})"},
    {"views, permutes, slices, pads, concatenation and splits", true, R"(
func.func @main(%x: tensor<2x8x4x6xf32>, %m: tensor<1x4x1xf32>) -> (tensor<2x8x24xf32>, tensor<2x4x6x8xf32>, tensor<3x2x4x8xf32>, tensor<2x3x4x6xf32>, tensor<2x4x6xf32>, tensor<2x8x5x9xf32>, tensor<2x16x4x6xf32>, tensor<2x8x4x12xf32>, tensor<2x8x4x1xf32>, tensor<2x8x4x2xf32>, tensor<2x8x4x3xf32>) {
  %0 = aten.view %x : tensor<2x8x4x6xf32> -> tensor<2x8x24xf32>
  %1 = aten.permute %x {dims = array<i64: 0, 2, 3, 1>} : tensor<2x8x4x6xf32> -> tensor<2x4x6x8xf32>
  %2 = aten.expand %m : tensor<1x4x1xf32> -> tensor<3x2x4x8xf32>
  %3 = aten.slice %x {dim = 1 : i64, end = 7 : i64, start = 1 : i64, step = 2 : i64} : tensor<2x8x4x6xf32> -> tensor<2x3x4x6xf32>
  %4 = aten.select %x {dim = 1 : i64, index = 5 : i64} : tensor<2x8x4x6xf32> -> tensor<2x4x6xf32>
  %5 = aten.constant_pad_nd %x {pad = array<i64: 1, 2, 0, 1>, value = 5.0e-01 : f64} : tensor<2x8x4x6xf32> -> tensor<2x8x5x9xf32>
  %6 = aten.cat %x, %x {dim = 1 : i64} : (tensor<2x8x4x6xf32>, tensor<2x8x4x6xf32>) -> tensor<2x16x4x6xf32>
  %n = aten.neg %x : tensor<2x8x4x6xf32>
  %7 = aten.cat %x, %n {dim = 3 : i64} : (tensor<2x8x4x6xf32>, tensor<2x8x4x6xf32>) -> tensor<2x8x4x12xf32>
  %8:3 = aten.split_with_sizes %x {dim = 3 : i64, split_sizes = array<i64: 1, 2, 3>} : (tensor<2x8x4x6xf32>) -> (tensor<2x8x4x1xf32>, tensor<2x8x4x2xf32>, tensor<2x8x4x3xf32>)
  return %0, %1, %2, %3, %4, %5, %6, %7, %8#0, %8#1, %8#2 : tensor<2x8x24xf32>, tensor<2x4x6x8xf32>, tensor<3x2x4x8xf32>, tensor<2x3x4x6xf32>, tensor<2x4x6xf32>, tensor<2x8x5x9xf32>, tensor<2x16x4x6xf32>, tensor<2x8x4x12xf32>, tensor<2x8x4x1xf32>, tensor<2x8x4x2xf32>, tensor<2x8x4x3xf32>
})"},
    {"gather and index_select with constant indices", true, R"(
func.func @main(%x: tensor<2x5x7xf32>, %y: tensor<3x6xf32>) -> (tensor<2x5x3xf32>, tensor<2x3x7xf32>, tensor<2x3x5xf32>, tensor<3x6xf32>, tensor<1x6xf32>) {
  %i = arith.constant dense<[6, 0, 3]> : tensor<3xi64>
  %j = arith.constant dense<[4, 0, 4]> : tensor<3xi32>
  %k = arith.constant dense<2> : tensor<i64>
  %g = arith.constant dense<[[[1, 0, 4, 2, 2], [0, 0, 1, 3, 4], [4, 3, 2, 1, 0]], [[2, 2, 2, 2, 2], [1, 1, 0, 0, 3], [0, 4, 1, 3, 2]]]> : tensor<2x3x5xi64>
  %h = arith.constant dense<[[2, 1, 0, 0, 1, 2], [0, 0, 0, 2, 2, 2], [1, 2, 1, 2, 1, 2]]> : tensor<3x6xi64>
  %0 = aten.index_select %x, %i {dim = 2 : i64} : (tensor<2x5x7xf32>, tensor<3xi64>) -> tensor<2x5x3xf32>
  %1 = aten.index_select %x, %j {dim = 1 : i64} : (tensor<2x5x7xf32>, tensor<3xi32>) -> tensor<2x3x7xf32>
  %2 = aten.gather %x, %g {dim = 1 : i64} : (tensor<2x5x7xf32>, tensor<2x3x5xi64>) -> tensor<2x3x5xf32>
  %3 = aten.gather %y, %h {dim = 0 : i64} : (tensor<3x6xf32>, tensor<3x6xi64>) -> tensor<3x6xf32>
  %4 = aten.index_select %y, %k {dim = 0 : i64} : (tensor<3x6xf32>, tensor<i64>) -> tensor<1x6xf32>
  return %0, %1, %2, %3, %4 : tensor<2x5x3xf32>, tensor<2x3x7xf32>, tensor<2x3x5xf32>, tensor<3x6xf32>, tensor<1x6xf32>
})"},
    {"repeat, with new leading dims and odd sizes", true, R"(
func.func @main(%x: tensor<3x5xf32>, %y: tensor<2x1x3x2xf32>) -> (tensor<2x9x5xf32>, tensor<6x10xf32>, tensor<2x3x6x6xf32>) {
  %0 = aten.repeat %x {repeats = array<i64: 2, 3, 1>} : tensor<3x5xf32> -> tensor<2x9x5xf32>
  %1 = aten.repeat %x {repeats = array<i64: 2, 2>} : tensor<3x5xf32> -> tensor<6x10xf32>
  %2 = aten.repeat %y {repeats = array<i64: 1, 3, 2, 3>} : tensor<2x1x3x2xf32> -> tensor<2x3x6x6xf32>
  return %0, %1, %2 : tensor<2x9x5xf32>, tensor<6x10xf32>, tensor<2x3x6x6xf32>
})"},
    {"tensors of rank 5 to 8 in buffers", true, R"(
func.func @main(%x: tensor<2x1x3x2x2x3x1x2xf32>, %y: tensor<2x3x1x4x5xf32>, %z: tensor<3x4x1xf32>) -> (tensor<2x2x3x1x2x3x1x2xf32>, tensor<2x3x3x4x5xf32>, tensor<2x3x3x4x5xf32>, tensor<2x3x20xf32>) {
  %0 = aten.permute %x {dims = array<i64: 0, 4, 2, 1, 3, 5, 6, 7>} : tensor<2x1x3x2x2x3x1x2xf32> -> tensor<2x2x3x1x2x3x1x2xf32>
  %1 = aten.mul %y, %z : tensor<2x3x1x4x5xf32>, tensor<3x4x1xf32> -> tensor<2x3x3x4x5xf32>
  %2 = aten.silu %1 : tensor<2x3x3x4x5xf32>
  %3 = aten.view %y : tensor<2x3x1x4x5xf32> -> tensor<2x3x20xf32>
  return %0, %1, %2, %3 : tensor<2x2x3x1x2x3x1x2xf32>, tensor<2x3x3x4x5xf32>, tensor<2x3x3x4x5xf32>, tensor<2x3x20xf32>
})"},
    {"float16 tensors, computed in fp32", true, R"(
func.func @main(%x: tensor<2x3x4xf16>, %y: tensor<3x4xf16>) -> (tensor<2x3x4xf16>, tensor<2x3x4xf16>) {
  %0 = aten.mul %x, %y : tensor<2x3x4xf16>, tensor<3x4xf16> -> tensor<2x3x4xf16>
  %1 = aten.hardswish %x : tensor<2x3x4xf16>
  return %0, %1 : tensor<2x3x4xf16>, tensor<2x3x4xf16>
})"},
};

/// Runs `compiled` on Vulkan, loaded with `options`, and on the portable
/// kernels and compares every output; returns the Vulkan run's profile
/// when `options` ask for one.
std::vector<rt::ProfileEntry>
compareWithReference(const Compiled &compiled, double rtol, double atol,
                     const rt::LoadOptions &options) {
  std::unique_ptr<rt::Runtime> vulkan, reference;
  rt::Status status = load(compiled.program, options, vulkan);
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(load(compiled.program, true, reference).isOk());
  setRandomInputs(*vulkan, 7);
  setRandomInputs(*reference, 7);
  status = vulkan->run();
  INFO(status.message());
  REQUIRE(status.isOk());
  REQUIRE(reference->run().isOk());
  for (size_t i = 0; i < vulkan->outputCount(); ++i) {
    std::string why;
    bool close = closeEnough(outputFloats(*vulkan, i),
                             outputFloats(*reference, i), rtol, atol, why);
    INFO("output " << i << ": " << why);
    CHECK(close);
  }
  return vulkan->profile();
}

/// The same with default options; with `sampled`, the Vulkan delegate reads
/// image inputs as sampled images, as on a GPU (the test hook), instead of
/// lavapipe's storage images.
void compareWithReference(const Compiled &compiled, double rtol, double atol,
                          bool sampled = false) {
  rt::LoadOptions options;
  options.vulkan.testSampledInputs = sampled;
  compareWithReference(compiled, rtol, atol, options);
}

/// The op case whose name starts with `prefix`.
const OpCase &caseNamed(const std::string &prefix) {
  const OpCase *found = nullptr;
  for (const OpCase &op : kCases)
    if (std::string(op.name).rfind(prefix, 0) == 0)
      found = &op;
  REQUIRE(found);
  return *found;
}

/// The Vulkan dispatches of `profile` but the staging ones, in the order they
/// ran, as "family op -> [sizes]".
std::vector<std::string>
dispatchNames(const std::vector<rt::ProfileEntry> &profile) {
  std::vector<std::string> names;
  for (const rt::ProfileEntry &entry : profile)
    for (const rt::ProfilePart &part : entry.parts) {
      size_t at = part.name.find(": ");
      if (at != std::string::npos &&
          part.name.find("staging") == std::string::npos)
        names.push_back(part.name.substr(at + 2));
    }
  return names;
}

/// Runs `compiled` once on Vulkan on random inputs, timing each dispatch,
/// and gives dispatchNames of the run.
std::vector<std::string> profiledDispatches(const Compiled &compiled,
                                            rt::LoadOptions options = {}) {
  options.profile.enabled = true;
  std::unique_ptr<rt::Runtime> vulkan;
  rt::Status status = load(compiled.program, options, vulkan);
  INFO(status.message());
  REQUIRE(status.isOk());
  setRandomInputs(*vulkan, 3);
  REQUIRE(vulkan->run().isOk());
  return dispatchNames(vulkan->profile());
}

/// The lines of `names`, for messages.
std::string listed(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += name + "\n";
  return text;
}

/// The ops the partitioner left to the portable kernels.
std::vector<std::string> portableOps(const Compiled &compiled) {
  std::vector<std::string> ops;
  for (const OpDecision &decision : compiled.report.ops)
    if (decision.backend != "vulkan")
      ops.push_back(decision.op + (decision.rejections.empty()
                                       ? ""
                                       : ": " + decision.rejections[0].reason));
  return ops;
}

} // namespace

TEST_CASE("every Vulkan op family matches the portable kernels",
          "[vulkan][ops]") {
  for (const OpCase &op : kCases) {
    bool f16 = std::string(op.mlir).find("xf16>") != std::string::npos;
    double rtol = f16 ? 2e-3 : 1e-4, atol = f16 ? 1e-3 : 1e-5;
    SECTION(op.name) {
      std::string mlir = expandConstants(op.mlir);
      Compiled textures = compileMlir(mlir);
      INFO("textures (generic limits)");
      for (const std::string &fell : portableOps(textures))
        UNSCOPED_INFO("fell to portable: " << fell);
      CHECK(portableOps(textures).empty());
      compareWithReference(textures, rtol, atol);
      {
        INFO("image inputs sampled (texelFetch), as on a GPU");
        compareWithReference(textures, rtol, atol, true);
      }

      // One-texel limits leave no texture: ops with a buffer kernel run on
      // buffers, the others stay on the portable kernels.
      Compiled buffers = compileMlir(mlir, std::array<int64_t, 3>{1, 1, 1});
      INFO("one-texel limits");
      if (op.buffers)
        CHECK(portableOps(buffers).empty());
      compareWithReference(buffers, rtol, atol);
    }
  }
}

TEST_CASE("products of few tiles and long sums run in depth parts",
          "[vulkan][matmul]") {
  // Tiled products of fewer than 2048 tiles and sums at least 512 deep run
  // in depth parts on a GPU (the test hook here): a linear with bias in
  // small tiles (512 tiles, 600 deep: parts of 320 and 280), a matmul in
  // small tiles (544, 1000 deep: three parts, the last of 296, not a
  // multiple of the 16-deep slices), one in big tiles (512 of them, 128
  // layers: the partials have 256) and a linear with bias in big tiles (512,
  // 1018 features, two parts of 256). The bias is added by part 0 alone.
  Compiled compiled = compileMlir(expandConstants(R"(
func.func @main(%x: tensor<2040x600xf32>, %a: tensor<16x520x1000xf32>, %b: tensor<16x1000x62xf32>, %c: tensor<128x70x600xf32>, %d: tensor<128x600x70xf32>, %y: tensor<2048x512xf32>) -> (tensor<2040x250xf32>, tensor<16x520x62xf32>, tensor<128x70x70xf32>, tensor<2048x1018xf32>) {
  %w = arith.constant @W(250x600)
  %bias = arith.constant @W(250)
  %w1 = arith.constant @W(1018x512)
  %bias1 = arith.constant @W(1018)
  %0 = aten.linear %x, %w, %bias : (tensor<2040x600xf32>, tensor<250x600xf32>, tensor<250xf32>) -> tensor<2040x250xf32>
  %1 = aten.matmul %a, %b : (tensor<16x520x1000xf32>, tensor<16x1000x62xf32>) -> tensor<16x520x62xf32>
  %2 = aten.matmul %c, %d : (tensor<128x70x600xf32>, tensor<128x600x70xf32>) -> tensor<128x70x70xf32>
  %3 = aten.linear %y, %w1, %bias1 : (tensor<2048x512xf32>, tensor<1018x512xf32>, tensor<1018xf32>) -> tensor<2048x1018xf32>
  return %0, %1, %2, %3 : tensor<2040x250xf32>, tensor<16x520x62xf32>, tensor<128x70x70xf32>, tensor<2048x1018xf32>
})"));
  rt::LoadOptions options;
  options.vulkan.testDepthParts = true;
  options.profile.enabled = true;
  std::vector<std::string> kernels =
      dispatchNames(compareWithReference(compiled, 1e-4, 1e-5, options));
  {
    INFO("image inputs sampled (texelFetch), as on a GPU");
    rt::LoadOptions sampled = options;
    sampled.vulkan.testSampledInputs = true;
    compareWithReference(compiled, 1e-4, 1e-5, sampled);
  }
  INFO(listed(kernels));
  CHECK(kernels == std::vector<std::string>{
                       "matmul_linear_tiled aten.linear -> [2,2040,250]",
                       "parts aten.linear -> [2040,250]",
                       "matmul_tiled aten.matmul -> [48,520,62]",
                       "parts aten.matmul -> [16,520,62]",
                       "matmul_tiled_big aten.matmul -> [256,70,70]",
                       "parts aten.matmul -> [128,70,70]",
                       "matmul_linear_tiled_big aten.linear -> [2,2048,1018]",
                       "parts aten.linear -> [2048,1018]"});
}

/// Checks that `compiled` gives the same outputs, bit for bit, with its
/// epilogues as with every op in a dispatch of its own
/// (LoadOptions::vulkan.noEpilogues): an epilogue rounds as the stores it
/// replaces would (shaders/epilogue.glsl), in fp16 images too.
void checkEpiloguesKeepValues(const Compiled &compiled) {
  std::vector<std::vector<float>> outputs[2];
  for (int separate = 0; separate < 2; ++separate) {
    rt::LoadOptions options;
    options.vulkan.noEpilogues = separate != 0;
    std::unique_ptr<rt::Runtime> vulkan;
    rt::Status status = load(compiled.program, options, vulkan);
    INFO(status.message());
    REQUIRE(status.isOk());
    setRandomInputs(*vulkan, 7);
    REQUIRE(vulkan->run().isOk());
    for (size_t i = 0; i < vulkan->outputCount(); ++i)
      outputs[separate].push_back(outputFloats(*vulkan, i));
  }
  for (size_t i = 0; i < outputs[0].size(); ++i) {
    INFO("output " << i);
    CHECK(outputs[0][i] == outputs[1][i]);
  }
}

/// Compiles `mlir`, checks it against the portable kernels loaded with
/// `options` (image inputs sampled too) and its epilogues against separate
/// dispatches (checkEpiloguesKeepValues, fp32 and fp16 images), and gives
/// the dispatch names of the run whose family starts with one of
/// `families`.
std::vector<std::string>
epilogueDispatches(const std::string &mlir, rt::LoadOptions options,
                   const std::vector<std::string> &families) {
  Compiled compiled = compileMlir(mlir);
  options.profile.enabled = true;
  std::vector<std::string> names =
      dispatchNames(compareWithReference(compiled, 1e-4, 1e-5, options));
  {
    INFO("image inputs sampled (texelFetch), as on a GPU");
    rt::LoadOptions sampled = options;
    sampled.vulkan.testSampledInputs = true;
    compareWithReference(compiled, 1e-4, 1e-5, sampled);
  }
  {
    INFO("fp32 images");
    checkEpiloguesKeepValues(compiled);
  }
  {
    INFO("fp16 images");
    checkEpiloguesKeepValues(compileMlir(mlir, {}, true, true));
  }
  INFO(listed(names));
  std::vector<std::string> kept;
  for (const std::string &name : names)
    for (const std::string &family : families)
      if (name.rfind(family, 0) == 0) {
        kept.push_back(name);
        break;
      }
  return kept;
}

TEST_CASE("products compute the adds and activations after them as they "
          "store",
          "[vulkan][matmul]") {
  // Epilogues (DispatchPlan, shaders/epilogue.glsl): a linear with bias,
  // then + 0.5 x a residual, then gelu, is one dispatch; a matmul of 22
  // columns (two padding lanes, which the sigmoid would make 0.5) minus 2 x
  // a tensor, then sigmoid, one too; a linear read as the second operand of
  // an add (alpha 1: the same sum) one; one read as the second operand of a
  // sub, or read twice, or returned, keeps its own dispatch. The last is a
  // linear in depth parts (the test hook) with a residual and a relu: the
  // sum of its parts computes them.
  std::string mlir = expandConstants(R"(
func.func @main(%x: tensor<70x96xf32>, %r: tensor<70x40xf32>, %a: tensor<4x30x64xf32>, %b: tensor<4x64x22xf32>, %c: tensor<4x30x22xf32>, %y: tensor<2040x600xf32>, %s: tensor<2040x250xf32>) -> (tensor<70x40xf32>, tensor<4x30x22xf32>, tensor<70x40xf32>, tensor<70x40xf32>, tensor<70x40xf32>, tensor<70x40xf32>, tensor<70x40xf32>, tensor<2040x250xf32>) {
  %w = arith.constant @W(40x96)
  %bias = arith.constant @W(40)
  %w2 = arith.constant @W(40x96)
  %w3 = arith.constant @W(250x600)
  %bias3 = arith.constant @W(250)
  %w4 = arith.constant @W(40x40)
  %0 = aten.linear %x, %w, %bias : (tensor<70x96xf32>, tensor<40x96xf32>, tensor<40xf32>) -> tensor<70x40xf32>
  %1 = aten.add %0, %r {alpha = 0.5 : f64} : tensor<70x40xf32>, tensor<70x40xf32> -> tensor<70x40xf32>
  %2 = aten.gelu %1 {approximate = #aten.approximate<none>} : tensor<70x40xf32>
  %3 = aten.matmul %a, %b : (tensor<4x30x64xf32>, tensor<4x64x22xf32>) -> tensor<4x30x22xf32>
  %4 = aten.sub %3, %c {alpha = 2.0 : f64} : tensor<4x30x22xf32>, tensor<4x30x22xf32> -> tensor<4x30x22xf32>
  %5 = aten.sigmoid %4 : tensor<4x30x22xf32>
  %6 = aten.linear %x, %w2 : (tensor<70x96xf32>, tensor<40x96xf32>) -> tensor<70x40xf32>
  %7 = aten.add %r, %6 {alpha = 1.0 : f64} : tensor<70x40xf32>, tensor<70x40xf32> -> tensor<70x40xf32>
  %8 = aten.linear %x, %w2 : (tensor<70x96xf32>, tensor<40x96xf32>) -> tensor<70x40xf32>
  %9 = aten.sub %r, %8 {alpha = 1.0 : f64} : tensor<70x40xf32>, tensor<70x40xf32> -> tensor<70x40xf32>
  %10 = aten.linear %r, %w4 : (tensor<70x40xf32>, tensor<40x40xf32>) -> tensor<70x40xf32>
  %11 = aten.add %10, %10 {alpha = 1.0 : f64} : tensor<70x40xf32>, tensor<70x40xf32> -> tensor<70x40xf32>
  %12 = aten.linear %x, %w, %bias : (tensor<70x96xf32>, tensor<40x96xf32>, tensor<40xf32>) -> tensor<70x40xf32>
  %13 = aten.tanh %12 : tensor<70x40xf32>
  %14 = aten.linear %y, %w3, %bias3 : (tensor<2040x600xf32>, tensor<250x600xf32>, tensor<250xf32>) -> tensor<2040x250xf32>
  %15 = aten.add %14, %s {alpha = 1.0 : f64} : tensor<2040x250xf32>, tensor<2040x250xf32> -> tensor<2040x250xf32>
  %16 = aten.relu %15 : tensor<2040x250xf32>
  return %2, %5, %7, %9, %11, %12, %13, %16 : tensor<70x40xf32>, tensor<4x30x22xf32>, tensor<70x40xf32>, tensor<70x40xf32>, tensor<70x40xf32>, tensor<70x40xf32>, tensor<70x40xf32>, tensor<2040x250xf32>
})");
  rt::LoadOptions options;
  options.vulkan.testDepthParts = true;
  std::vector<std::string> products =
      epilogueDispatches(mlir, options, {"matmul", "parts", "binary", "unary"});
  CHECK(products ==
        std::vector<std::string>{
            "matmul_linear_texel aten.linear + aten.add + aten.gelu -> [70,40]",
            "matmul_texel aten.matmul + aten.sub + aten.sigmoid -> [4,30,22]",
            "matmul_linear_texel aten.linear + aten.add -> [70,40]",
            "matmul_linear_texel aten.linear -> [70,40]",
            "binary aten.sub -> [70,40]",
            "matmul_linear_texel aten.linear -> [70,40]",
            "binary aten.add -> [70,40]",
            "matmul_linear_texel aten.linear -> [70,40]",
            "unary aten.tanh -> [70,40]",
            "matmul_linear_tiled aten.linear + aten.add + aten.relu -> "
            "[2,2040,250]",
            "parts aten.linear + aten.add + aten.relu -> [2040,250]"});
}

TEST_CASE("convolutions compute the adds and activations after them as "
          "they store",
          "[vulkan][conv]") {
  // The convolutions' texel and tiled kernels take epilogues too: a 3x3
  // convolution with a fused relu (its clamp), then + a residual, then
  // hardswish, one dispatch (the clamp before the add, as the graph has
  // it); a depthwise one of 6 channels (two padding lanes, which sigmoid
  // would make 0.5) then sigmoid; a 1-D one in tiles (the Whisper stem's)
  // then gelu; a residual read before its convolution (the add's first
  // operand).
  std::string mlir = expandConstants(R"(
func.func @main(%x: tensor<1x8x9x9xf32>, %r: tensor<1x8x9x9xf32>, %d: tensor<1x6x7x7xf32>, %z: tensor<1x10x2000xf32>) -> (tensor<1x8x9x9xf32>, tensor<1x6x7x7xf32>, tensor<1x500x1000xf32>, tensor<1x8x9x9xf32>) {
  %w = arith.constant @W(8x8x3x3)
  %b = arith.constant @W(8)
  %wd = arith.constant @W(6x1x3x3)
  %w2 = arith.constant @W(500x10x3)
  %b2 = arith.constant @W(500)
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x9x9xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x9x9xf32>
  %1 = aten.relu %0 : tensor<1x8x9x9xf32>
  %2 = aten.add %1, %r {alpha = 1.0 : f64} : tensor<1x8x9x9xf32>, tensor<1x8x9x9xf32> -> tensor<1x8x9x9xf32>
  %3 = aten.hardswish %2 : tensor<1x8x9x9xf32>
  %4 = aten.convolution %d, %wd {dilation = array<i64: 1, 1>, groups = 6 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x6x7x7xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x7x7xf32>
  %5 = aten.sigmoid %4 : tensor<1x6x7x7xf32>
  %6 = aten.convolution %z, %w2, %b2 {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 2>, transposed = false} : (tensor<1x10x2000xf32>, tensor<500x10x3xf32>, tensor<500xf32>) -> tensor<1x500x1000xf32>
  %7 = aten.gelu %6 {approximate = #aten.approximate<tanh>} : tensor<1x500x1000xf32>
  %8 = aten.convolution %r, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x9x9xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x9x9xf32>
  %9 = aten.add %x, %8 {alpha = 1.0 : f64} : tensor<1x8x9x9xf32>, tensor<1x8x9x9xf32> -> tensor<1x8x9x9xf32>
  return %3, %5, %7, %9 : tensor<1x8x9x9xf32>, tensor<1x6x7x7xf32>, tensor<1x500x1000xf32>, tensor<1x8x9x9xf32>
})");
  std::vector<std::string> convolutions =
      epilogueDispatches(mlir, {}, {"conv", "binary", "unary"});
  CHECK(convolutions ==
        std::vector<std::string>{
            "conv_texel (kernel 1) aten.convolution + aten.add + "
            "aten.hardswish -> [1,8,9,9]",
            "conv_texel (kernel 2) aten.convolution + aten.sigmoid -> "
            "[1,6,7,7]",
            "conv_tiled aten.convolution + aten.gelu -> [1,500,1000]",
            "conv_texel (kernel 1) aten.convolution + aten.add -> "
            "[1,8,9,9]"});
}

/// Checks that `compiled` gives the same outputs, bit for bit, with its
/// products reading views in place as with a gather dispatch for every
/// view (LoadOptions::vulkan.noOperandViews): the products read the same
/// values in the same order either way.
void checkOperandViewsKeepValues(const Compiled &compiled) {
  std::vector<std::vector<float>> outputs[2];
  for (int separate = 0; separate < 2; ++separate) {
    rt::LoadOptions options;
    options.vulkan.noOperandViews = separate != 0;
    std::unique_ptr<rt::Runtime> vulkan;
    rt::Status status = load(compiled.program, options, vulkan);
    INFO(status.message());
    REQUIRE(status.isOk());
    setRandomInputs(*vulkan, 11);
    REQUIRE(vulkan->run().isOk());
    for (size_t i = 0; i < vulkan->outputCount(); ++i)
      outputs[separate].push_back(outputFloats(*vulkan, i));
  }
  for (size_t i = 0; i < outputs[0].size(); ++i) {
    INFO("output " << i);
    CHECK(outputs[0][i] == outputs[1][i]);
  }
}

TEST_CASE("products read the views of their operands in place",
          "[vulkan][matmul]") {
  // Operand views (DispatchPlan's operandView, matmul.comp's mappedTexel):
  // two attentions whose q, k and v are head splits of linears (a view and
  // a permute each, one strided gather) read them from the linears'
  // outputs: q (two views of one linear) and the keys by the scores' big
  // tiles (the keys by column, not transposed first), v by the values'
  // four-row kernel. The second one's keys and values are slices of one
  // linear (the keys from texel 24). The first one's v is returned too, so
  // it keeps its gather; its heads, merged (a permute and a view across it,
  // two gathers), are read by the output projection from the values'
  // product. A permute of an input (an affine gather, not a chain) is read
  // by column from the input's own 6 layers by small tiles; one of a small
  // matmul is not, since its four-row kernel reads by rows: its gather runs
  // after all. The inputs of the first projections are scaled down, so that
  // the softmaxes are not one-hot.
  std::string mlir = expandConstants(R"(
func.func @main(%x: tensor<1x600x96xf32>, %a: tensor<6x600x16xf32>, %b: tensor<6x400x16xf32>, %c: tensor<2x8x16xf32>, %d: tensor<2x12x16xf32>) -> (tensor<1x600x96xf32>, tensor<6x600x400xf32>, tensor<1x6x600x16xf32>, tensor<1x6x600x16xf32>, tensor<2x8x12xf32>) {
  %wq = arith.constant @W(96x96)
  %bq = arith.constant @W(96)
  %wk = arith.constant @W(96x96)
  %wv = arith.constant @W(96x96)
  %bv = arith.constant @W(96)
  %wo = arith.constant @W(96x96)
  %wkv = arith.constant @W(192x96)
  %s = arith.constant dense<0.05> : tensor<f32>
  %xs = aten.mul %x, %s : tensor<1x600x96xf32>, tensor<f32> -> tensor<1x600x96xf32>
  %q = aten.linear %xs, %wq, %bq : (tensor<1x600x96xf32>, tensor<96x96xf32>, tensor<96xf32>) -> tensor<1x600x96xf32>
  %qh = aten.view %q : tensor<1x600x96xf32> -> tensor<1x600x6x16xf32>
  %qp = aten.permute %qh {dims = array<i64: 0, 2, 1, 3>} : tensor<1x600x6x16xf32> -> tensor<1x6x600x16xf32>
  %k = aten.linear %xs, %wk : (tensor<1x600x96xf32>, tensor<96x96xf32>) -> tensor<1x600x96xf32>
  %kh = aten.view %k : tensor<1x600x96xf32> -> tensor<1x600x6x16xf32>
  %kp = aten.permute %kh {dims = array<i64: 0, 2, 1, 3>} : tensor<1x600x6x16xf32> -> tensor<1x6x600x16xf32>
  %v = aten.linear %x, %wv, %bv : (tensor<1x600x96xf32>, tensor<96x96xf32>, tensor<96xf32>) -> tensor<1x600x96xf32>
  %vh = aten.view %v : tensor<1x600x96xf32> -> tensor<1x600x6x16xf32>
  %vp = aten.permute %vh {dims = array<i64: 0, 2, 1, 3>} : tensor<1x600x6x16xf32> -> tensor<1x6x600x16xf32>
  %o = aten.scaled_dot_product_attention %qp, %kp, %vp {scale = 1.0 : f64} : (tensor<1x6x600x16xf32>, tensor<1x6x600x16xf32>, tensor<1x6x600x16xf32>) -> tensor<1x6x600x16xf32>
  %op = aten.permute %o {dims = array<i64: 0, 2, 1, 3>} : tensor<1x6x600x16xf32> -> tensor<1x600x6x16xf32>
  %ov = aten.view %op : tensor<1x600x6x16xf32> -> tensor<1x600x96xf32>
  %y = aten.linear %ov, %wo : (tensor<1x600x96xf32>, tensor<96x96xf32>) -> tensor<1x600x96xf32>
  %bt = aten.permute %b {dims = array<i64: 0, 2, 1>} : tensor<6x400x16xf32> -> tensor<6x16x400xf32>
  %ab = aten.matmul %a, %bt : (tensor<6x600x16xf32>, tensor<6x16x400xf32>) -> tensor<6x600x400xf32>
  %q2h = aten.view %q : tensor<1x600x96xf32> -> tensor<1x600x6x16xf32>
  %q2p = aten.permute %q2h {dims = array<i64: 0, 2, 1, 3>} : tensor<1x600x6x16xf32> -> tensor<1x6x600x16xf32>
  %kv = aten.linear %xs, %wkv : (tensor<1x600x96xf32>, tensor<192x96xf32>) -> tensor<1x600x192xf32>
  %k2 = aten.slice %kv {dim = 2 : i64, end = 192 : i64, start = 96 : i64, step = 1 : i64} : tensor<1x600x192xf32> -> tensor<1x600x96xf32>
  %k2h = aten.view %k2 : tensor<1x600x96xf32> -> tensor<1x600x6x16xf32>
  %k2p = aten.permute %k2h {dims = array<i64: 0, 2, 1, 3>} : tensor<1x600x6x16xf32> -> tensor<1x6x600x16xf32>
  %v2 = aten.slice %kv {dim = 2 : i64, end = 96 : i64, start = 0 : i64, step = 1 : i64} : tensor<1x600x192xf32> -> tensor<1x600x96xf32>
  %v2h = aten.view %v2 : tensor<1x600x96xf32> -> tensor<1x600x6x16xf32>
  %v2p = aten.permute %v2h {dims = array<i64: 0, 2, 1, 3>} : tensor<1x600x6x16xf32> -> tensor<1x6x600x16xf32>
  %o2 = aten.scaled_dot_product_attention %q2p, %k2p, %v2p {scale = 1.0 : f64} : (tensor<1x6x600x16xf32>, tensor<1x6x600x16xf32>, tensor<1x6x600x16xf32>) -> tensor<1x6x600x16xf32>
  %dt = aten.permute %d {dims = array<i64: 0, 2, 1>} : tensor<2x12x16xf32> -> tensor<2x16x12xf32>
  %cd = aten.matmul %c, %dt : (tensor<2x8x16xf32>, tensor<2x16x12xf32>) -> tensor<2x8x12xf32>
  return %y, %ab, %o2, %vp, %cd : tensor<1x600x96xf32>, tensor<6x600x400xf32>, tensor<1x6x600x16xf32>, tensor<1x6x600x16xf32>, tensor<2x8x12xf32>
})");
  Compiled compiled = compileMlir(mlir);
  rt::LoadOptions options;
  options.profile.enabled = true;
  std::vector<std::string> names =
      dispatchNames(compareWithReference(compiled, 1e-4, 1e-5, options));
  {
    INFO("image inputs sampled (texelFetch), as on a GPU");
    rt::LoadOptions sampled = options;
    sampled.vulkan.testSampledInputs = true;
    compareWithReference(compiled, 1e-4, 1e-5, sampled);
  }
  {
    INFO("fp32 images");
    checkOperandViewsKeepValues(compiled);
  }
  {
    INFO("fp16 images");
    checkOperandViewsKeepValues(compileMlir(mlir, {}, true, true));
  }
  INFO(listed(names));
  std::vector<std::string> kept;
  for (const std::string &name : names)
    if (name.rfind("matmul", 0) == 0 || name.rfind("gather", 0) == 0 ||
        name.rfind("softmax", 0) == 0)
      kept.push_back(name);
  CHECK(kept ==
        std::vector<std::string>{
            "matmul_linear_texel aten.linear -> [1,600,96]",
            "matmul_linear_texel aten.linear -> [1,600,96]",
            "matmul_linear_texel aten.linear -> [1,600,96]",
            "gather (texels) aten.permute -> [1,6,600,16]",
            "matmul_tiled_big aten.matmul (lhs read through aten.permute) "
            "(rhs read through aten.permute) -> [1,6,600,600]",
            "softmax (statistics) aten.softmax -> [1,6,600,2]",
            "matmul_texel aten.matmul (lhs read through aten.softmax) -> "
            "[1,6,600,16]",
            "matmul_linear_texel aten.linear (lhs read through aten.permute "
            "and aten.view) -> [1,600,96]",
            "matmul_linear_texel aten.linear -> [1,600,192]",
            "matmul_tiled_big aten.matmul (lhs read through aten.permute) "
            "(rhs read through aten.permute) -> [1,6,600,600]",
            "softmax (statistics) aten.softmax -> [1,6,600,2]",
            "matmul_texel aten.matmul (lhs read through aten.softmax) (rhs "
            "read through aten.permute) -> [1,6,600,16]",
            "matmul_tiled aten.matmul (rhs read through aten.permute) -> "
            "[6,600,400]",
            "gather aten.permute -> [2,16,12]",
            "matmul_texel aten.matmul -> [2,8,12]"});
  // With the diagnostic switch every view is a gather again.
  options.vulkan.noOperandViews = true;
  int gathers = 0;
  for (const std::string &name :
       dispatchNames(compareWithReference(compiled, 1e-4, 1e-5, options)))
    gathers += name.rfind("gather", 0) == 0;
  CHECK(gathers == 10);
}

TEST_CASE("a matmul reads the softmax before it from its input and "
          "statistics",
          "[vulkan][matmul]") {
  // DispatchPlan's softmaxReadInPlace: the softmax computes each line's
  // maximum and sum of exponentials only, and the matmul reading it as its
  // lhs computes it from its input as it loads it (matmul.comp's
  // lhsTexel): 16 softmaxes of 520 x 520 before small tiles in depth parts
  // (the test hook), and a safe softmax whose line 1 is nothing but -inf
  // (its products 0) before the four-row kernel. Read twice, or by the
  // rhs, a softmax is stored as ever.
  std::string mlir = expandConstants(R"(
func.func @main(%g: tensor<16x520x520xf32>, %h: tensor<16x520x64xf32>, %u: tensor<2x3x5xf32>, %k: tensor<2x5x3xf32>, %q: tensor<2x3x3xf32>) -> (tensor<16x520x64xf32>, tensor<2x3x8xf32>, tensor<2x5x3xf32>, tensor<2x3x3xf32>, tensor<2x3x5xf32>) {
  %m = arith.constant dense<[[0.0, 0xFF800000, 0.0, 0.0, 0.0], [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<3x5xf32>
  %w = arith.constant @W(2x5x8)
  %0 = aten.softmax %g {dim = 2 : i64} : tensor<16x520x520xf32>
  %1 = aten.matmul %0, %h : (tensor<16x520x520xf32>, tensor<16x520x64xf32>) -> tensor<16x520x64xf32>
  %2 = aten.add %u, %m {alpha = 1.0 : f64} : tensor<2x3x5xf32>, tensor<3x5xf32> -> tensor<2x3x5xf32>
  %3 = aten.softmax %2 {dim = 2 : i64, safe = true} : tensor<2x3x5xf32>
  %4 = aten.matmul %3, %w : (tensor<2x3x5xf32>, tensor<2x5x8xf32>) -> tensor<2x3x8xf32>
  %5 = aten.softmax %q {dim = 2 : i64} : tensor<2x3x3xf32>
  %6 = aten.matmul %k, %5 : (tensor<2x5x3xf32>, tensor<2x3x3xf32>) -> tensor<2x5x3xf32>
  %7 = aten.softmax %u {dim = 2 : i64} : tensor<2x3x5xf32>
  %8 = aten.matmul %7, %k : (tensor<2x3x5xf32>, tensor<2x5x3xf32>) -> tensor<2x3x3xf32>
  return %1, %4, %6, %8, %7 : tensor<16x520x64xf32>, tensor<2x3x8xf32>, tensor<2x5x3xf32>, tensor<2x3x3xf32>, tensor<2x3x5xf32>
})");
  Compiled compiled = compileMlir(mlir);
  rt::LoadOptions options;
  options.profile.enabled = true;
  options.vulkan.testDepthParts = true;
  std::vector<std::string> names =
      dispatchNames(compareWithReference(compiled, 1e-4, 1e-5, options));
  {
    INFO("image inputs sampled (texelFetch), as on a GPU");
    rt::LoadOptions sampled = options;
    sampled.vulkan.testSampledInputs = true;
    compareWithReference(compiled, 1e-4, 1e-5, sampled);
  }
  {
    INFO("fp32 images, bit for bit");
    checkOperandViewsKeepValues(compiled);
  }
  {
    INFO("fp16 images: the softmax is stored");
    Compiled half = compileMlir(mlir, {}, true, true);
    checkOperandViewsKeepValues(half);
    int statistics = 0;
    for (const std::string &name : profiledDispatches(half))
      statistics += name.find("statistics") != std::string::npos;
    CHECK(statistics == 0);
  }
  INFO(listed(names));
  std::vector<std::string> kept;
  for (const std::string &name : names)
    if (name.rfind("softmax", 0) == 0 || name.rfind("parts", 0) == 0 ||
        name.find("softmax") != std::string::npos)
      kept.push_back(name);
  CHECK(kept ==
        std::vector<std::string>{
            "softmax (statistics) aten.softmax -> [16,520,2]",
            "matmul_tiled aten.matmul (lhs read through aten.softmax) -> "
            "[32,520,64]",
            "parts aten.matmul (lhs read through aten.softmax) -> "
            "[16,520,64]",
            "softmax (statistics) aten.softmax -> [2,3,2]",
            "matmul_texel aten.matmul (lhs read through aten.softmax) -> "
            "[2,3,8]",
            "softmax aten.softmax -> [2,3,3]",
            "softmax aten.softmax -> [2,3,5]"});
}

TEST_CASE("movements between width-packed textures run texel by texel",
          "[vulkan][gather]") {
  // The "texel gathers" case: between the linears' width-packed textures
  // the heads split by a view and a permute (a strided gather), the view
  // (a reshape), the slice from 4 and the pad of 4 (affine) read one input
  // texel per output texel (the profile's "gather (texels)"); the slice
  // from 2 does not line up lanes with texels and keeps the element kernel.
  // With operand views (the default) the linear after the slice from 4
  // reads it in place instead; the test runs without them too.
  Compiled compiled =
      compileMlir(expandConstants(caseNamed("texel gathers").mlir));
  for (bool views : {true, false}) {
    rt::LoadOptions options;
    options.vulkan.noOperandViews = !views;
    std::vector<std::string> names = profiledDispatches(compiled, options);
    INFO(listed(names));
    std::vector<std::string> moves;
    for (const std::string &name : names)
      if (name.rfind("gather", 0) == 0 ||
          name.find("read through") != std::string::npos)
        moves.push_back(name);
    std::vector<std::string> expected{
        "gather (texels) aten.permute -> [2,4,12,8]",
        "gather (texels) aten.view -> [24,32]",
        "gather (texels) aten.slice -> [2,12,16]",
        "gather (texels) aten.constant_pad_nd -> [2,12,40]",
        "gather aten.slice -> [2,12,13]"};
    if (views)
      expected[2] =
          "matmul_linear_texel aten.linear (lhs read through aten.slice) -> "
          "[2,12,8]";
    CHECK(moves == expected);
  }
}

TEST_CASE("a chain of movements runs as one strided gather",
          "[vulkan][gather]") {
  // The op case's q, k and v, five movements each from one tensor, are a
  // gather each; the slice of a select of an expand of a permute one; the
  // view across a permute, which no strided view expresses, and that
  // permute two.
  std::vector<std::string> names = profiledDispatches(
      compileMlir(expandConstants(caseNamed("chains of movements").mlir)));
  INFO(listed(names));
  int heads = 0, slices = 0, moves = 0;
  for (const std::string &name : names) {
    moves += name.rfind("gather ", 0) == 0;
    heads += name == "gather aten.view -> [1,3,7,4]";
    slices += name == "gather aten.slice -> [5,2,1]";
  }
  CHECK(heads == 3);
  CHECK(slices == 1);
  CHECK(moves == 6);
}

TEST_CASE("layout conversions between every storage and packing",
          "[vulkan][layouts]") {
  // Planned by hand: width -> height -> channels -> buffer -> width, with
  // sizes that leave padding in every packing.
  std::string mlir = R"(
func.func @main(%x: tensor<2x5x6x7xf32>) -> (tensor<2x5x6x7xf32>, tensor<2x5x6x7xf32>) {
  %r:2 = duet.delegate <vulkan> (%a = %x : tensor<2x5x6x7xf32>) -> (tensor<2x5x6x7xf32>, tensor<2x5x6x7xf32>) {
    %0 = duet.layout_convert %a from <texture3d, width_packed> to <texture3d, height_packed> : tensor<2x5x6x7xf32>
    %1 = duet.layout_convert %0 from <texture3d, height_packed> to <texture3d, channels_packed> : tensor<2x5x6x7xf32>
    %2 = duet.layout_convert %1 from <texture3d, channels_packed> to <buffer, contiguous> : tensor<2x5x6x7xf32>
    %3 = duet.layout_convert %2 from <buffer, contiguous> to <texture3d, width_packed> : tensor<2x5x6x7xf32>
    %4 = aten.neg %3 {duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed>]} : tensor<2x5x6x7xf32>
    %5 = aten.relu %1 {duet.vk_layouts = [#duet.vk_layout<texture3d, channels_packed>]} : tensor<2x5x6x7xf32>
    duet.yield %4, %5 : tensor<2x5x6x7xf32>, tensor<2x5x6x7xf32>
  } attributes {duet.vk_arg_layouts = [#duet.vk_layout<texture3d, width_packed>]}
  return %r#0, %r#1 : tensor<2x5x6x7xf32>, tensor<2x5x6x7xf32>
})";
  Compiled compiled = compileMlir(mlir, {}, /*partition=*/false);
  compareWithReference(compiled, 0, 0);
}

TEST_CASE("the op cases exercise every storage and packing", "[vulkan][ops]") {
  std::set<std::string> layouts;
  for (const OpCase &op : kCases) {
    std::string mlir = expandConstants(op.mlir);
    for (const Compiled &compiled :
         {compileMlir(mlir),
          compileMlir(mlir, std::array<int64_t, 3>{1, 1, 1})})
      for (const partition::TensorPlacement &tensor :
           partition::vulkanTensors(compiled.report))
        layouts.insert(tensor.storage + " " + tensor.packing);
  }
  CHECK(layouts == std::set<std::string>{
                       "texture3d width_packed", "texture3d height_packed",
                       "texture3d channels_packed", "buffer contiguous"});
}

TEST_CASE("every op the Vulkan rule table runs natively has a case here",
          "[vulkan][ops]") {
  std::string all;
  for (const OpCase &op : kCases)
    all += op.mlir;
  for (const partition::VulkanRule &rule : partition::VulkanRules::table()) {
    if (rule.lowering != partition::Lowering::Native)
      continue;
    INFO(rule.op.str());
    CHECK(all.find(rule.op.str() + " ") != std::string::npos);
  }
}
