// The XNNPACK rule table and the XNNPACK delegate agree: for every op the
// table accepts there are sample functions that the real pipeline pieces
// (partitioner, legalization, program emitter with the XnnpackEmitter) turn
// into a program whose XNNPACK partition defines and creates its runtime, and
// whose outputs match the portable kernels (`duet run --reference`). A rule
// added to the table without a sample here fails the coverage check.

#include "compiler/emit/ProgramEmitter.h"
#include "dialects/aten/AtenDialect.h"
#include "dialects/duet/DuetDialect.h"
#include "partitioners/Partitioner.h"
#include "partitioners/xnnpack/rules/XnnpackRules.h"
#include "runtime/core/Runtime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <regex>
#include <set>
#include <sstream>

using namespace mlir;
using namespace duet;

namespace {

/// A function for one rule: `@forward`, whose `@const : tensor<...>` and
/// `@positive : tensor<...>` placeholders become seeded random constants
/// (in [-1, 1], or [0.5, 1.5] for statistics that must be positive).
struct Sample {
  const char *op;
  const char *name;
  const char *body;
  bool enableBf16 = false;
  /// For a quantized output: its step (scale), the tolerance of a qint8
  /// node against the portable kernels' fp32 arithmetic (XNNPACK
  /// requantizes in its own rounding).
  double step = 0;
  /// How many of its quantize/dequantize nodes and weights the report must
  /// show folded into qint8 nodes, of how many (-1: not checked).
  int folded = -1, quantizationNodes = -1;
};

// clang-format off
const Sample kSamples[] = {
  {"aten.convolution", "3x3 stride 2 with bias",
   "func.func @forward(%x: tensor<1x3x9x9xf32>) -> tensor<1x8x5x5xf32> {\n"
   "  %w = @const : tensor<8x3x3x3xf32>\n  %b = @const : tensor<8xf32>\n"
   "  %y = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x5x5xf32>\n"
   "  return %y : tensor<1x8x5x5xf32>\n}"},
  {"aten.convolution", "grouped, dilated, no bias, 2x3 kernel",
   "func.func @forward(%x: tensor<1x4x10x10xf32>) -> tensor<1x6x10x8xf32> {\n"
   "  %w = @const : tensor<6x2x2x3xf32>\n"
   "  %y = aten.convolution %x, %w {dilation = array<i64: 2, 2>, groups = 2 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x10x10xf32>, tensor<6x2x2x3xf32>) -> tensor<1x6x10x6xf32>\n"
   "  %p = aten.constant_pad_nd %y {pad = array<i64: 1, 1>, value = 0.0 : f64} : tensor<1x6x10x6xf32> -> tensor<1x6x10x8xf32>\n"
   "  return %p : tensor<1x6x10x8xf32>\n}"},
  {"aten.convolution", "depthwise with multiplier 2, then relu6 (fused)",
   "func.func @forward(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {\n"
   "  %w = @const : tensor<8x1x3x3xf32>\n  %b = @const : tensor<8xf32>\n"
   "  %y = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 4 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>\n"
   "  %r = aten.hardtanh %y {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x8x8x8xf32>\n"
   "  return %r : tensor<1x8x8x8xf32>\n}"},
  {"aten.convolution", "1x1 on batch 2, weights used as they are",
   "func.func @forward(%x: tensor<2x5x4x4xf32>) -> tensor<2x7x4x4xf32> {\n"
   "  %w = @const : tensor<7x5x1x1xf32>\n  %b = @const : tensor<7xf32>\n"
   "  %y = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<2x5x4x4xf32>, tensor<7x5x1x1xf32>, tensor<7xf32>) -> tensor<2x7x4x4xf32>\n"
   "  return %y : tensor<2x7x4x4xf32>\n}"},
  {"aten.convolution", "transposed, grouped, stride 2, output_padding 1",
   "func.func @forward(%x: tensor<1x4x5x5xf32>) -> tensor<1x6x10x10xf32> {\n"
   "  %w = @const : tensor<4x3x3x3xf32>\n  %b = @const : tensor<6xf32>\n"
   "  %y = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x10xf32>\n"
   "  return %y : tensor<1x6x10x10xf32>\n}"},
  {"aten.linear", "3-D input with bias",
   "func.func @forward(%x: tensor<2x3x16xf32>) -> tensor<2x3x8xf32> {\n"
   "  %w = @const : tensor<8x16xf32>\n  %b = @const : tensor<8xf32>\n"
   "  %y = aten.linear %x, %w, %b : (tensor<2x3x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>\n"
   "  return %y : tensor<2x3x8xf32>\n}"},
  {"aten.linear", "4-D input without bias (reads the last dim in NCHW)",
   "func.func @forward(%x: tensor<1x2x3x16xf32>) -> tensor<1x2x3x8xf32> {\n"
   "  %w = @const : tensor<8x16xf32>\n"
   "  %y = aten.linear %x, %w : (tensor<1x2x3x16xf32>, tensor<8x16xf32>) -> tensor<1x2x3x8xf32>\n"
   "  return %y : tensor<1x2x3x8xf32>\n}"},
  {"aten.linear", "bf16 under enable-bf16",
   "func.func @forward(%x: tensor<4x16xbf16>) -> tensor<4x8xbf16> {\n"
   "  %w = @const : tensor<8x16xbf16>\n  %b = @const : tensor<8xbf16>\n"
   "  %y = aten.linear %x, %w, %b : (tensor<4x16xbf16>, tensor<8x16xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>\n"
   "  return %y : tensor<4x8xbf16>\n}", true},
  {"aten.addmm", "bias [1,8]",
   "func.func @forward(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {\n"
   "  %w = @const : tensor<16x8xf32>\n  %b = @const : tensor<1x8xf32>\n"
   "  %y = aten.addmm %b, %x, %w : (tensor<1x8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>\n"
   "  return %y : tensor<4x8xf32>\n}"},
  {"aten.mm", "constant right operand",
   "func.func @forward(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {\n"
   "  %w = @const : tensor<16x8xf32>\n"
   "  %y = aten.mm %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>\n"
   "  return %y : tensor<4x8xf32>\n}"},
  {"aten.matmul", "3-D by a constant matrix",
   "func.func @forward(%x: tensor<2x4x16xf32>) -> tensor<2x4x8xf32> {\n"
   "  %w = @const : tensor<16x8xf32>\n"
   "  %y = aten.matmul %x, %w : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>\n"
   "  return %y : tensor<2x4x8xf32>\n}"},
  {"aten.add", "broadcast of a lower-rank input",
   "func.func @forward(%x: tensor<2x3x4x5xf32>, %y: tensor<3x1x5xf32>) -> tensor<2x3x4x5xf32> {\n"
   "  %z = aten.add %x, %y : tensor<2x3x4x5xf32>, tensor<3x1x5xf32> -> tensor<2x3x4x5xf32>\n"
   "  return %z : tensor<2x3x4x5xf32>\n}"},
  {"aten.add", "NHWC after a convolution: per-channel constant, scalar, residual, relu (fused)",
   "func.func @forward(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {\n"
   "  %w = @const : tensor<4x4x3x3xf32>\n  %c = @const : tensor<4x1x1xf32>\n  %s = @const : tensor<f32>\n"
   "  %y = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>\n"
   "  %a = aten.add %y, %c : tensor<1x4x6x6xf32>, tensor<4x1x1xf32> -> tensor<1x4x6x6xf32>\n"
   "  %b = aten.add %a, %s : tensor<1x4x6x6xf32>, tensor<f32> -> tensor<1x4x6x6xf32>\n"
   "  %r = aten.add %b, %x : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>\n"
   "  %o = aten.relu %r : tensor<1x4x6x6xf32>\n"
   "  return %o : tensor<1x4x6x6xf32>\n}"},
  {"aten.add", "rank 6 with broadcasting",
   "func.func @forward(%x: tensor<2x1x3x1x2x4xf32>, %y: tensor<2x3x1x2x1xf32>) -> tensor<2x2x3x1x2x4xf32> {\n"
   "  %z = aten.add %x, %y : tensor<2x1x3x1x2x4xf32>, tensor<2x3x1x2x1xf32> -> tensor<2x2x3x1x2x4xf32>\n"
   "  return %z : tensor<2x2x3x1x2x4xf32>\n}"},
  {"aten.add", "bf16 4-D under enable-bf16, with a pad and a flatten",
   "func.func @forward(%x: tensor<1x3x4x4xbf16>, %y: tensor<1x3x4x4xbf16>) -> (tensor<1x3x4x4xbf16>, tensor<2x30xbf16>) {\n"
   "  %z = aten.add %x, %y : tensor<1x3x4x4xbf16>, tensor<1x3x4x4xbf16> -> tensor<1x3x4x4xbf16>\n"
   "  %r = aten.relu %z : tensor<1x3x4x4xbf16>\n"
   "  %p = aten.constant_pad_nd %r {pad = array<i64: 1, 0>, value = 0.0 : f64} : tensor<1x3x4x4xbf16> -> tensor<1x3x4x5xbf16>\n"
   "  %v = aten.view %p : tensor<1x3x4x5xbf16> -> tensor<2x30xbf16>\n"
   "  return %r, %v : tensor<1x3x4x4xbf16>, tensor<2x30xbf16>\n}", true},
  {"aten.sub", "an NHWC value and a lower-rank input, which needs NCHW",
   "func.func @forward(%x: tensor<1x4x6x6xf32>, %v: tensor<6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {\n"
   "  %w = @const : tensor<4x4x1x1xf32>\n"
   "  %y = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>\n"
   "  %d = aten.sub %y, %v : tensor<1x4x6x6xf32>, tensor<6xf32> -> tensor<1x4x6x6xf32>\n"
   "  %e = aten.hardswish %d : tensor<1x4x6x6xf32>\n"
   "  %f = aten.convolution %e, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>\n"
   "  return %f, %y : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>\n}"},
  {"aten.mul", "per-channel runtime scale of shape [N,C,1,1]",
   "func.func @forward(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {\n"
   "  %w = @const : tensor<4x4x1x1xf32>\n"
   "  %y = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>\n"
   "  %m = aten.mean %y {dim = array<i64: 2, 3>, keepdim = true} : tensor<1x4x6x6xf32> -> tensor<1x4x1x1xf32>\n"
   "  %s = aten.sigmoid %m : tensor<1x4x1x1xf32>\n"
   "  %z = aten.mul %y, %s : tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32> -> tensor<1x4x6x6xf32>\n"
   "  return %z : tensor<1x4x6x6xf32>\n}"},
  {"aten.div", "by a broadcast input",
   "func.func @forward(%x: tensor<2x3x5xf32>, %y: tensor<3x1xf32>) -> tensor<2x3x5xf32> {\n"
   "  %a = aten.abs %y : tensor<3x1xf32>\n  %s = @positive : tensor<f32>\n"
   "  %b = aten.add %a, %s : tensor<3x1xf32>, tensor<f32> -> tensor<3x1xf32>\n"
   "  %z = aten.div %x, %b : tensor<2x3x5xf32>, tensor<3x1xf32> -> tensor<2x3x5xf32>\n"
   "  return %z : tensor<2x3x5xf32>\n}"},
  {"aten.maximum", "two inputs",
   "func.func @forward(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {\n"
   "  %z = aten.maximum %x, %y : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>\n"
   "  return %z : tensor<2x8xf32>\n}"},
  {"aten.minimum", "input and constant",
   "func.func @forward(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {\n"
   "  %c = @const : tensor<8xf32>\n"
   "  %z = aten.minimum %x, %c : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>\n"
   "  return %z : tensor<2x8xf32>\n}"},
  {"aten.relu", "on an input",
   "func.func @forward(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {\n"
   "  %y = aten.relu %x : tensor<3x7xf32>\n  return %y : tensor<3x7xf32>\n}"},
  {"aten.hardtanh", "on an input",
   "func.func @forward(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {\n"
   "  %y = aten.hardtanh %x {min_val = -0.5 : f64, max_val = 0.25 : f64} : tensor<3x7xf32>\n  return %y : tensor<3x7xf32>\n}"},
  {"aten.clamp", "min only, then max only, then both after a linear",
   "func.func @forward(%x: tensor<3x16xf32>) -> tensor<3x8xf32> {\n"
   "  %a = aten.clamp %x {min = -0.5 : f64} : tensor<3x16xf32>\n"
   "  %b = aten.clamp %a {max = 0.75 : f64} : tensor<3x16xf32>\n"
   "  %w = @const : tensor<8x16xf32>\n"
   "  %y = aten.linear %b, %w : (tensor<3x16xf32>, tensor<8x16xf32>) -> tensor<3x8xf32>\n"
   "  %c = aten.clamp %y {min = -0.1 : f64, max = 0.2 : f64} : tensor<3x8xf32>\n"
   "  return %c : tensor<3x8xf32>\n}"},
  {"aten.hardtanh", "min just below max, fused into a mean",
   "func.func @forward(%x: tensor<1x4x3x3xf32>) -> tensor<1x4x1x1xf32> {\n"
   "  %m = aten.mean %x {dim = array<i64: 2, 3>, keepdim = true} : tensor<1x4x3x3xf32> -> tensor<1x4x1x1xf32>\n"
   "  %y = aten.hardtanh %m {min_val = -0.01 : f64, max_val = 0.01 : f64} : tensor<1x4x1x1xf32>\n"
   "  return %y : tensor<1x4x1x1xf32>\n}"},
  {"aten.hardswish", "on an input",
   "func.func @forward(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {\n"
   "  %y = aten.hardswish %x : tensor<2x3x4x4xf32>\n  return %y : tensor<2x3x4x4xf32>\n}"},
  {"aten.sigmoid", "on an input",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %y = aten.sigmoid %x : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.leaky_relu", "slope 0.2",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %y = aten.leaky_relu %x {negative_slope = 0.2 : f64} : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.elu", "alpha 1.5",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %y = aten.elu %x {alpha = 1.5 : f64} : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.abs", "on an input",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %y = aten.abs %x : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.neg", "on an input",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %y = aten.neg %x : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.sqrt", "of an absolute value",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %a = aten.abs %x : tensor<5x9xf32>\n"
   "  %y = aten.sqrt %a : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.ceil", "after a convolution (NHWC), then a convolution",
   "func.func @forward(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {\n"
   "  %w = @const : tensor<4x4x3x3xf32>\n"
   "  %y = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>\n"
   "  %c = aten.ceil %y : tensor<1x4x6x6xf32>\n"
   "  %z = aten.convolution %c, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>\n"
   "  return %z : tensor<1x4x6x6xf32>\n}"},
  {"aten.floor", "of a scaled input",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %c = @const : tensor<9xf32>\n"
   "  %m = aten.mul %x, %c : tensor<5x9xf32>, tensor<9xf32> -> tensor<5x9xf32>\n"
   "  %y = aten.floor %m : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.round", "of a scaled input",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %c = @const : tensor<9xf32>\n"
   "  %m = aten.mul %x, %c : tensor<5x9xf32>, tensor<9xf32> -> tensor<5x9xf32>\n"
   "  %y = aten.round %m : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.pow", "exponents 2 and 0.5",
   "func.func @forward(%x: tensor<5x9xf32>) -> tensor<5x9xf32> {\n"
   "  %a = aten.pow %x {exponent = 2.0 : f64} : tensor<5x9xf32>\n"
   "  %y = aten.pow %a {exponent = 0.5 : f64} : tensor<5x9xf32>\n  return %y : tensor<5x9xf32>\n}"},
  {"aten.softmax", "last dim of a 4-D tensor (NCHW)",
   "func.func @forward(%x: tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32> {\n"
   "  %y = aten.softmax %x {dim = 3 : i64} : tensor<1x2x3x8xf32>\n  return %y : tensor<1x2x3x8xf32>\n}"},
  {"aten.mean", "over H and W with keepdim",
   "func.func @forward(%x: tensor<2x8x5x5xf32>) -> tensor<2x8x1x1xf32> {\n"
   "  %y = aten.mean %x {dim = array<i64: 2, 3>, keepdim = true} : tensor<2x8x5x5xf32> -> tensor<2x8x1x1xf32>\n"
   "  return %y : tensor<2x8x1x1xf32>\n}"},
  {"aten.adaptive_avg_pool2d", "to 1x1, then flattened (same order in both layouts)",
   "func.func @forward(%x: tensor<1x8x5x5xf32>) -> tensor<1x8xf32> {\n"
   "  %y = aten.adaptive_avg_pool2d %x : tensor<1x8x5x5xf32> -> tensor<1x8x1x1xf32>\n"
   "  %z = aten.view %y : tensor<1x8x1x1xf32> -> tensor<1x8xf32>\n"
   "  return %z : tensor<1x8xf32>\n}"},
  {"aten.avg_pool2d", "3x3 stride 2 padding 1 without counting padding",
   "func.func @forward(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32> {\n"
   "  %y = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false} : tensor<1x4x9x9xf32> -> tensor<1x4x5x5xf32>\n"
   "  return %y : tensor<1x4x5x5xf32>\n}"},
  {"aten.avg_pool2d", "2x2 stride 2, ceil_mode that changes nothing",
   "func.func @forward(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {\n"
   "  %y = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = true} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>\n"
   "  return %y : tensor<1x4x4x4xf32>\n}"},
  {"aten.max_pool2d", "3x3 stride 2 padding 1",
   "func.func @forward(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32> {\n"
   "  %y = aten.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : tensor<1x4x9x9xf32> -> tensor<1x4x5x5xf32>\n"
   "  return %y : tensor<1x4x5x5xf32>\n}"},
  {"aten.max_pool2d", "2x2 dilation 2",
   "func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x6x6xf32> {\n"
   "  %y = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x6x6xf32>\n"
   "  return %y : tensor<1x3x6x6xf32>\n}"},
  {"aten.max_pool2d", "3x3 stride 2 ceil_mode adding a window on both axes",
   "func.func @forward(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {\n"
   "  %y = aten.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>\n"
   "  return %y : tensor<1x4x4x4xf32>\n}"},
  {"aten.constant_pad_nd", "of an NHWC value",
   "func.func @forward(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x7x8xf32> {\n"
   "  %w = @const : tensor<3x1x3x3xf32>\n"
   "  %y = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 3 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x5x5xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32>\n"
   "  %p = aten.constant_pad_nd %y {pad = array<i64: 1, 2, 0, 2>, value = 0.5 : f64} : tensor<1x3x5x5xf32> -> tensor<1x3x7x8xf32>\n"
   "  return %p : tensor<1x3x7x8xf32>\n}"},
  {"aten.constant_pad_nd", "of a 3-D input",
   "func.func @forward(%x: tensor<2x3x4xf32>) -> tensor<2x4x7xf32> {\n"
   "  %p = aten.constant_pad_nd %x {pad = array<i64: 2, 1, 1, 0>, value = -1.0 : f64} : tensor<2x3x4xf32> -> tensor<2x4x7xf32>\n"
   "  return %p : tensor<2x4x7xf32>\n}"},
  {"aten.view", "flattening an NHWC value (a host transpose first)",
   "func.func @forward(%x: tensor<1x3x4x4xf32>) -> tensor<1x10xf32> {\n"
   "  %w = @const : tensor<8x3x1x1xf32>\n  %f = @const : tensor<10x128xf32>\n"
   "  %y = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x4x4xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x4x4xf32>\n"
   "  %v = aten.view %y : tensor<1x8x4x4xf32> -> tensor<1x128xf32>\n"
   "  %z = aten.linear %v, %f : (tensor<1x128xf32>, tensor<10x128xf32>) -> tensor<1x10xf32>\n"
   "  return %z : tensor<1x10xf32>\n}"},
  {"aten.view", "a 4-D result read by a convolution",
   "func.func @forward(%x: tensor<2x48xf32>) -> tensor<2x4x3x4xf32> {\n"
   "  %v = aten.view %x : tensor<2x48xf32> -> tensor<2x4x3x4xf32>\n"
   "  %w = @const : tensor<4x4x1x1xf32>\n"
   "  %y = aten.convolution %v, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<2x4x3x4xf32>, tensor<4x4x1x1xf32>) -> tensor<2x4x3x4xf32>\n"
   "  return %y : tensor<2x4x3x4xf32>\n}"},
  {"aten.clone", "of an input",
   "func.func @forward(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {\n"
   "  %s = aten.sigmoid %x : tensor<2x3x4x5xf32>\n"
   "  %y = aten.clone %s : tensor<2x3x4x5xf32>\n  return %y : tensor<2x3x4x5xf32>\n}"},
  {"aten.upsample_bilinear2d", "half-pixel centers",
   "func.func @forward(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32> {\n"
   "  %y = aten.upsample_bilinear2d %x {align_corners = false} : tensor<1x3x4x5xf32> -> tensor<1x3x8x10xf32>\n"
   "  return %y : tensor<1x3x8x10xf32>\n}"},
  {"aten.upsample_bilinear2d", "align_corners, uneven sizes",
   "func.func @forward(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x7x9xf32> {\n"
   "  %y = aten.upsample_bilinear2d %x {align_corners = true} : tensor<1x3x4x5xf32> -> tensor<1x3x7x9xf32>\n"
   "  return %y : tensor<1x3x7x9xf32>\n}"},
  {"aten.upsample_bilinear2d", "downsampling",
   "func.func @forward(%x: tensor<1x3x8x10xf32>) -> tensor<1x3x5x4xf32> {\n"
   "  %y = aten.upsample_bilinear2d %x {align_corners = false} : tensor<1x3x8x10xf32> -> tensor<1x3x5x4xf32>\n"
   "  return %y : tensor<1x3x5x4xf32>\n}"},
  {"aten.cast", "to float16 and back",
   "func.func @forward(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf16>) {\n"
   "  %h = aten.cast %x : tensor<3x5xf32> -> tensor<3x5xf16>\n"
   "  %y = aten.cast %h : tensor<3x5xf16> -> tensor<3x5xf32>\n"
   "  return %y, %h : tensor<3x5xf32>, tensor<3x5xf16>\n}"},
  {"aten.quantize_per_tensor", "qint8 convolution + relu: per-channel weights, q/dq folded",
   "func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {\n"
   "  %wq = @const : tensor<8x3x3x3xi8>\n  %ws = arith.constant dense<[0.011, 0.012, 0.009, 0.01, 0.013, 0.008, 0.01, 0.0105]> : tensor<8xf32>\n"
   "  %wz = arith.constant dense<0> : tensor<8xi64>\n  %b = @const : tensor<8xf32>\n"
   "  %q0 = aten.quantize_per_tensor %x {scale = 0.0157 : f64, zero_point = -1 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>\n"
   "  %a = aten.dequantize_per_tensor %q0 {scale = 0.0157 : f64, zero_point = -1 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xi8> -> tensor<1x3x8x8xf32>\n"
   "  %w = aten.dequantize_per_channel %wq, %ws zero_points %wz {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64} : (tensor<8x3x3x3xi8>, tensor<8xf32>, tensor<8xi64>) -> tensor<8x3x3x3xf32>\n"
   "  %c = aten.convolution %a, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>\n"
   "  %r = aten.relu %c : tensor<1x8x8x8xf32>\n"
   "  %q1 = aten.quantize_per_tensor %r {scale = 0.0235 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x8x8xf32> -> tensor<1x8x8x8xi8>\n"
   "  %y = aten.dequantize_per_tensor %q1 {scale = 0.0235 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x8x8xi8> -> tensor<1x8x8x8xf32>\n"
   "  return %y : tensor<1x8x8x8xf32>\n}", false, 0.0235, 3, 5},
  {"aten.quantize_per_tensor", "qint8 MobileNet pattern: depthwise + relu6, residual add, max pool, mean, flatten, linear",
   "func.func @forward(%x: tensor<1x8x6x6xf32>) -> tensor<1x5xf32> {\n"
   "  %dq = @const : tensor<8x1x3x3xi8>\n  %ds = arith.constant dense<0.012> : tensor<8xf32>\n  %db = @const : tensor<8xf32>\n"
   "  %lq = @const : tensor<5x8xi8>\n  %ls = arith.constant dense<[0.01, 0.02, 0.015, 0.012, 0.011]> : tensor<5xf32>\n  %lb = @const : tensor<5xf32>\n"
   "  %q0 = aten.quantize_per_tensor %x {scale = 0.0157 : f64, zero_point = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xi8>\n"
   "  %a = aten.dequantize_per_tensor %q0 {scale = 0.0157 : f64, zero_point = 0 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x6x6xi8> -> tensor<1x8x6x6xf32>\n"
   "  %dw = aten.dequantize_per_channel %dq, %ds {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64} : (tensor<8x1x3x3xi8>, tensor<8xf32>) -> tensor<8x1x3x3xf32>\n"
   "  %c = aten.convolution %a, %dw, %db {dilation = array<i64: 1, 1>, groups = 8 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>\n"
   "  %r = aten.hardtanh %c {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x8x6x6xf32>\n"
   "  %q1 = aten.quantize_per_tensor %r {scale = 0.0118 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xi8>\n"
   "  %b = aten.dequantize_per_tensor %q1 {scale = 0.0118 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x6x6xi8> -> tensor<1x8x6x6xf32>\n"
   "  %s = aten.add %b, %a : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>\n"
   "  %q2 = aten.quantize_per_tensor %s {scale = 0.02 : f64, zero_point = -20 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xi8>\n"
   "  %e = aten.dequantize_per_tensor %q2 {scale = 0.02 : f64, zero_point = -20 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x6x6xi8> -> tensor<1x8x6x6xf32>\n"
   "  %p = aten.max_pool2d %e {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x6x6xf32> -> tensor<1x8x3x3xf32>\n"
   "  %q3 = aten.quantize_per_tensor %p {scale = 0.02 : f64, zero_point = -20 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x3x3xf32> -> tensor<1x8x3x3xi8>\n"
   "  %f = aten.dequantize_per_tensor %q3 {scale = 0.02 : f64, zero_point = -20 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x3x3xi8> -> tensor<1x8x3x3xf32>\n"
   "  %m = aten.mean %f {dim = array<i64: 2, 3>, keepdim = true} : tensor<1x8x3x3xf32> -> tensor<1x8x1x1xf32>\n"
   "  %q4 = aten.quantize_per_tensor %m {scale = 0.01 : f64, zero_point = -60 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x1x1xf32> -> tensor<1x8x1x1xi8>\n"
   "  %g = aten.dequantize_per_tensor %q4 {scale = 0.01 : f64, zero_point = -60 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x1x1xi8> -> tensor<1x8x1x1xf32>\n"
   "  %v = aten.view %g : tensor<1x8x1x1xf32> -> tensor<1x8xf32>\n"
   "  %q5 = aten.quantize_per_tensor %v {scale = 0.01 : f64, zero_point = -60 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8xf32> -> tensor<1x8xi8>\n"
   "  %h = aten.dequantize_per_tensor %q5 {scale = 0.01 : f64, zero_point = -60 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8xi8> -> tensor<1x8xf32>\n"
   "  %lw = aten.dequantize_per_channel %lq, %ls {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64} : (tensor<5x8xi8>, tensor<5xf32>) -> tensor<5x8xf32>\n"
   "  %l = aten.linear %h, %lw, %lb : (tensor<1x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<1x5xf32>\n"
   "  %q6 = aten.quantize_per_tensor %l {scale = 0.008 : f64, zero_point = 3 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x5xf32> -> tensor<1x5xi8>\n"
   "  %y = aten.dequantize_per_tensor %q6 {scale = 0.008 : f64, zero_point = 3 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x5xi8> -> tensor<1x5xf32>\n"
   "  return %y : tensor<1x5xf32>\n}", false, 0.008, 14, 16},
  {"aten.dequantize_per_tensor", "convert nodes only: an input quantized and dequantized",
   "func.func @forward(%x: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {\n"
   "  %q0 = aten.quantize_per_tensor %x {scale = 0.0157 : f64, zero_point = 5 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<2x3x5xf32> -> tensor<2x3x5xi8>\n"
   "  %y = aten.dequantize_per_tensor %q0 {scale = 0.0157 : f64, zero_point = 5 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<2x3x5xi8> -> tensor<2x3x5xf32>\n"
   "  return %y : tensor<2x3x5xf32>\n}", false, 0.0157, 0, 2},
  {"aten.dequantize_per_tensor", "a float-output convolution: converts, and the weight dequantized at compile time",
   "func.func @forward(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {\n"
   "  %wq = @const : tensor<4x3x3x3xi8>\n  %ws = arith.constant dense<0.01> : tensor<4xf32>\n  %b = @const : tensor<4xf32>\n"
   "  %q0 = aten.quantize_per_tensor %x {scale = 0.0157 : f64, zero_point = -1 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>\n"
   "  %a = aten.dequantize_per_tensor %q0 {scale = 0.0157 : f64, zero_point = -1 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xi8> -> tensor<1x3x8x8xf32>\n"
   "  %w = aten.dequantize_per_channel %wq, %ws {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>) -> tensor<4x3x3x3xf32>\n"
   "  %y = aten.convolution %a, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>\n"
   "  return %y : tensor<1x4x8x8xf32>\n}", false, 0.0157, 0, 3},
  {"aten.silu", "on an input",
   "func.func @forward(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {\n"
   "  %y = aten.silu %x : tensor<2x3x4x4xf32>\n  return %y : tensor<2x3x4x4xf32>\n}"},
  {"aten.hardsigmoid", "on an input",
   "func.func @forward(%x: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {\n"
   "  %y = aten.hardsigmoid %x : tensor<2x3x4x4xf32>\n  return %y : tensor<2x3x4x4xf32>\n}"},
  {"aten.batch_norm", "on an input (nothing to fold into)",
   "func.func @forward(%x: tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32> {\n"
   "  %m = @const : tensor<4xf32>\n  %v = @positive : tensor<4xf32>\n  %g = @const : tensor<4xf32>\n  %b = @const : tensor<4xf32>\n"
   "  %y = aten.batch_norm %x, %m, %v weight %g bias %b {eps = 1.0e-05 : f64} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>\n"
   "  return %y : tensor<2x4x3x3xf32>\n}"},
};
// clang-format on

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    auto *c = new MLIRContext();
    c->loadDialect<aten::AtenDialect, DuetDialect, arith::ArithDialect,
                   func::FuncDialect>();
    return c;
  }();
  return *ctx;
}

/// `text` with its constant placeholders filled in as hex dense literals.
std::string fillConstants(const std::string &text, uint32_t seed) {
  std::mt19937 random(seed);
  std::regex placeholder(
      R"(@(const|positive) : tensor<([0-9x]*)(f32|bf16|i8)>)");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), placeholder);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch &m = *it;
    out += text.substr(last, m.position() - last);
    last = m.position() + m.length();
    int64_t count = 1;
    std::stringstream dims(m[2].str());
    for (std::string dim; std::getline(dims, dim, 'x');)
      if (!dim.empty())
        count *= std::stoll(dim);
    bool positive = m[1] == "positive";
    std::uniform_real_distribution<float> dist(positive ? 0.5f : -1.0f,
                                               positive ? 1.5f : 1.0f);
    bool bf16 = m[3] == "bf16";
    std::string hex = "0x";
    char digits[9];
    if (m[3] == "i8") {
      // The integers of a quantized weight, symmetric as qcint8 wants.
      std::uniform_int_distribution<int> ints(-127, 127);
      for (int64_t i = 0; i < count; ++i) {
        std::snprintf(digits, sizeof digits, "%02X",
                      static_cast<unsigned>(ints(random)) & 0xFF);
        hex += digits;
      }
      out += "arith.constant dense<\"" + hex + "\"> : tensor<" + m[2].str() +
             "i8>";
      continue;
    }
    for (int64_t i = 0; i < count; ++i) {
      float v = dist(random);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      if (bf16) {
        uint16_t half = rt::floatToBf16(v);
        std::snprintf(digits, sizeof digits, "%02X%02X", half & 0xFF,
                      half >> 8);
      } else {
        std::snprintf(digits, sizeof digits, "%02X%02X%02X%02X", bits & 0xFF,
                      (bits >> 8) & 0xFF, (bits >> 16) & 0xFF, bits >> 24);
      }
      hex += digits;
    }
    std::string type = "tensor<" + m[2].str() + m[3].str() + ">";
    out += "arith.constant dense<\"" + hex + "\"> : " + type;
  }
  out += text.substr(last);
  return out;
}

/// The program compiled from `sample` with the XNNPACK backend; fails the
/// test (with the reasons) when some op stays out of XNNPACK.
std::vector<uint8_t> compileSample(const Sample &sample, uint32_t seed) {
  std::string text = fillConstants(sample.body, seed);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context(), [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context()));
  INFO(diagnostics);
  REQUIRE(module);
  PartitionOptions options;
  options.backends = {"xnnpack"};
  options.backendOptions.setFlag("enable-bf16", sample.enableBf16);
  auto report = partitionModule(*module, options);
  INFO(diagnostics);
  REQUIRE(succeeded(report));
  for (const auto &op : report->ops) {
    INFO(
        op.node << " (" << op.op << "): "
                << (op.rejections.empty() ? "" : op.rejections.front().reason));
    CHECK(op.backend == "xnnpack");
  }
  if (sample.quantizationNodes >= 0) {
    int folded = 0;
    for (const QuantizationNode &node : report->quantization) {
      INFO(node.node << " (" << node.op << "): "
                     << (node.folded ? "folded into " + node.into : node.why));
      folded += node.folded;
    }
    CHECK(int(report->quantization.size()) == sample.quantizationNodes);
    CHECK(folded == sample.folded);
  }
  // As the pipeline does after partitioning: the layout plan and the
  // fusions the emitter writes.
  bool lowered = succeeded(lowerDelegates(*module));
  INFO(diagnostics);
  REQUIRE(lowered);
  auto func = *module->getOps<func::FuncOp>().begin();
  std::vector<uint8_t> bytes;
  EmitStats stats;
  bool emitted = succeeded(emitProgram(func, bytes, stats));
  INFO(diagnostics);
  REQUIRE(emitted);
  CHECK(stats.delegateCalls >= 1);
  return bytes;
}

/// Runs the program on the given inputs; XNNPACK, or the portable kernels
/// with `reference`.
std::vector<std::vector<float>>
runProgram(const std::vector<uint8_t> &bytes, bool reference,
           const std::vector<std::vector<float>> &inputs,
           unsigned threads = 1) {
  rt::LoadOptions options;
  options.reference = reference;
  options.threads = threads;
  std::unique_ptr<rt::Runtime> runtime;
  rt::Status status = rt::Runtime::loadFromBytes(
      bytes.data(), bytes.size(), "sample.duet", options, runtime);
  INFO(status.message());
  REQUIRE(status.isOk());
  for (size_t i = 0; i < runtime->inputCount(); ++i) {
    const rt::TensorInfo &info = runtime->inputInfo(i);
    std::vector<uint16_t> narrow;
    rt::TensorView view{rt::DType::f32, info.sizes,
                        const_cast<float *>(inputs[i].data())};
    if (info.dtype == rt::DType::bf16) {
      for (float v : inputs[i])
        narrow.push_back(rt::floatToBf16(v));
      view = {rt::DType::bf16, info.sizes, narrow.data()};
    }
    status = runtime->setInput(i, view);
    INFO(status.message());
    REQUIRE(status.isOk());
  }
  status = runtime->run();
  INFO(status.message());
  REQUIRE(status.isOk());
  std::vector<std::vector<float>> outputs;
  for (size_t i = 0; i < runtime->outputCount(); ++i) {
    rt::TensorView out = runtime->output(i);
    std::vector<float> values(out.numel());
    for (int64_t k = 0; k < out.numel(); ++k)
      values[k] = out.dtype == rt::DType::f32 ? out.as<float>()[k]
                  : out.dtype == rt::DType::bf16
                      ? rt::bf16ToFloat(out.as<uint16_t>()[k])
                      : rt::halfToFloat(out.as<uint16_t>()[k]);
    outputs.push_back(std::move(values));
  }
  return outputs;
}

std::vector<std::vector<float>> randomInputs(const std::vector<uint8_t> &bytes,
                                             uint32_t seed) {
  rt::LoadOptions options;
  options.inspectOnly = true;
  std::unique_ptr<rt::Program> program;
  REQUIRE(rt::Program::loadFromBytes(bytes.data(), bytes.size(), "sample.duet",
                                     options, program)
              .isOk());
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<std::vector<float>> inputs;
  for (int32_t id : program->inputs()) {
    const rt::TensorInfo &info = program->tensors()[id];
    std::vector<float> values(info.nbytes / rt::dtypeSize(info.dtype));
    for (float &v : values)
      v = info.dtype == rt::DType::bf16
              ? rt::bf16ToFloat(rt::floatToBf16(dist(random)))
              : dist(random);
    inputs.push_back(std::move(values));
  }
  return inputs;
}

/// max |a - b| <= rtol * max |b| + atol, NaN only where both are NaN.
void requireClose(const std::vector<float> &got, const std::vector<float> &want,
                  double rtol, double atol) {
  REQUIRE(got.size() == want.size());
  double maxRef = 0, maxDiff = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) || std::isnan(want[i])) {
      CHECK(std::isnan(got[i]) == std::isnan(want[i]));
      continue;
    }
    maxRef = std::max(maxRef, double(std::fabs(want[i])));
    maxDiff = std::max(maxDiff, double(std::fabs(got[i] - want[i])));
  }
  INFO("max abs diff " << maxDiff << ", max |ref| " << maxRef);
  CHECK(maxDiff <= rtol * maxRef + atol);
}

} // namespace

TEST_CASE("every op the XNNPACK rule table accepts has a sample here",
          "[xnnpack]") {
  std::set<std::string> covered;
  for (const Sample &sample : kSamples)
    covered.insert(sample.op);
  for (const auto &rule : partition::XnnpackRules::table()) {
    INFO("add a sample for " << rule.op.str() << " to xnnpack_rules_test.cpp");
    CHECK(covered.count(rule.op.str()) == 1);
  }
}

TEST_CASE("every op the XNNPACK rule table accepts builds and matches the "
          "portable kernels",
          "[xnnpack]") {
  uint32_t seed = 1;
  for (const Sample &sample : kSamples) {
    DYNAMIC_SECTION(sample.op << ": " << sample.name) {
      std::vector<uint8_t> bytes = compileSample(sample, seed);
      auto inputs = randomInputs(bytes, seed + 1000);
      auto reference = runProgram(bytes, /*reference=*/true, inputs);
      auto xnnpack = runProgram(bytes, /*reference=*/false, inputs);
      auto threaded = runProgram(bytes, /*reference=*/false, inputs, 2);
      REQUIRE(xnnpack.size() == reference.size());
      for (size_t i = 0; i < reference.size(); ++i) {
        INFO("output " << i);
        // bf16 partitions round once at the end where the portable kernels
        // round after every op: the bf16 tolerance of `duet run`.
        double rtol = sample.enableBf16 ? 2e-2 : 1e-4;
        double atol = sample.enableBf16 ? 1e-2 : 1e-5;
        if (sample.step > 0) {
          rtol = 0;
          atol = sample.step * 1.001;
        }
        requireClose(xnnpack[i], reference[i], rtol, atol);
        requireClose(threaded[i], xnnpack[i], 1e-6, 1e-7);
      }
    }
    ++seed;
  }
}
