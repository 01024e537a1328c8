// RUN: duet-opt %s | duet-opt | FileCheck %s

// Normalizations, reductions, pooling and softmax print and parse back; default
// attributes are elided and optional parameters may be present or absent.

// batch_norm with weight and bias, and eps at its default (elided).
// CHECK-LABEL: func.func @batch_norm_affine
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x8x8xf32>, %[[M:[^:]*]]: tensor<16xf32>, %[[V:[^:]*]]: tensor<16xf32>, %[[G:[^:]*]]: tensor<16xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = aten.batch_norm %[[X]], %[[M]], %[[V]] weight %[[G]] bias %[[B]] : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
// CHECK: return %[[Y]]
func.func @batch_norm_affine(%x: tensor<1x16x8x8xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %0 = aten.batch_norm %x, %m, %v weight %g bias %b {eps = 1.0e-05 : f64} : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}

// batch_norm without weight and bias keeps a non-default eps.
// CHECK-LABEL: func.func @batch_norm_plain
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4xf32>, %[[M:[^:]*]]: tensor<4xf32>, %[[V:[^:]*]]: tensor<4xf32>)
// CHECK: aten.batch_norm %[[X]], %[[M]], %[[V]] {eps = 1.000000e-03 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
func.func @batch_norm_plain(%x: tensor<2x4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = aten.batch_norm %x, %m, %v {eps = 1.0e-03 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// batch_norm with a weight and no bias.
// CHECK-LABEL: func.func @batch_norm_weight_only
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x4x3xf16>, %[[M:[^:]*]]: tensor<4xf16>, %[[V:[^:]*]]: tensor<4xf16>, %[[G:[^:]*]]: tensor<4xf16>)
// CHECK: aten.batch_norm %[[X]], %[[M]], %[[V]] weight %[[G]] : (tensor<1x4x3xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<1x4x3xf16>
func.func @batch_norm_weight_only(%x: tensor<1x4x3xf16>, %m: tensor<4xf16>, %v: tensor<4xf16>, %g: tensor<4xf16>) -> tensor<1x4x3xf16> {
  %0 = aten.batch_norm %x, %m, %v weight %g : (tensor<1x4x3xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<1x4x3xf16>
  return %0 : tensor<1x4x3xf16>
}

// batch_norm with a bias and no weight: the keyword says which one is present.
// CHECK-LABEL: func.func @batch_norm_bias_only
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x4x3xf32>, %[[M:[^:]*]]: tensor<4xf32>, %[[V:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>)
// CHECK: aten.batch_norm %[[X]], %[[M]], %[[V]] bias %[[B]] : (tensor<1x4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3xf32>
func.func @batch_norm_bias_only(%x: tensor<1x4x3xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x3xf32> {
  %0 = aten.batch_norm %x, %m, %v bias %b : (tensor<1x4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3xf32>
  return %0 : tensor<1x4x3xf32>
}

// layer_norm with weight and bias over the last dim; the default eps is elided.
// CHECK-LABEL: func.func @layer_norm_affine
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4x16xf32>, %[[G:[^:]*]]: tensor<16xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = aten.layer_norm %[[X]] weight %[[G]] bias %[[B]] {normalized_shape = array<i64: 16>} : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
// CHECK: return %[[Y]]
func.func @layer_norm_affine(%x: tensor<2x4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %0 = aten.layer_norm %x weight %g bias %b {eps = 1.0e-05 : f64, normalized_shape = array<i64: 16>} : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// layer_norm over the last two dims, without parameters, in bf16 and a non-default eps.
// CHECK-LABEL: func.func @layer_norm_plain_bf16
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4x16xbf16>)
// CHECK: aten.layer_norm %[[X]] {eps = 1.000000e-03 : f64, normalized_shape = array<i64: 4, 16>} : (tensor<2x4x16xbf16>) -> tensor<2x4x16xbf16>
func.func @layer_norm_plain_bf16(%x: tensor<2x4x16xbf16>) -> tensor<2x4x16xbf16> {
  %0 = aten.layer_norm %x {eps = 1.0e-03 : f64, normalized_shape = array<i64: 4, 16>} : (tensor<2x4x16xbf16>) -> tensor<2x4x16xbf16>
  return %0 : tensor<2x4x16xbf16>
}

// layer_norm with a weight only.
// CHECK-LABEL: func.func @layer_norm_weight_only
// CHECK: aten.layer_norm %{{.*}} weight %{{.*}} {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
func.func @layer_norm_weight_only(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = aten.layer_norm %x weight %g {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// layer_norm with a bias only.
// CHECK-LABEL: func.func @layer_norm_bias_only
// CHECK: aten.layer_norm %{{.*}} bias %{{.*}} {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
func.func @layer_norm_bias_only(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = aten.layer_norm %x bias %b {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// mean over the spatial dims, keeping them as size 1.
// CHECK-LABEL: func.func @mean_keepdim
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x8x8xf32>)
// CHECK: %[[Y:.*]] = aten.mean %[[X]] {dim = array<i64: 2, 3>, keepdim = true} : tensor<1x16x8x8xf32> -> tensor<1x16x1x1xf32>
// CHECK: return %[[Y]]
func.func @mean_keepdim(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x1x1xf32> {
  %0 = aten.mean %x {dim = array<i64: 2, 3>, keepdim = true} : tensor<1x16x8x8xf32> -> tensor<1x16x1x1xf32>
  return %0 : tensor<1x16x1x1xf32>
}

// sum with the default (empty) dim and keepdim = false elides both and reduces to 0-d.
// CHECK-LABEL: func.func @sum_all
// CHECK: aten.sum %{{.*}} : tensor<2x3xf32> -> tensor<f32>
func.func @sum_all(%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = aten.sum %x {dim = array<i64>, keepdim = false} : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// sum over every dim with keepdim leaves every dim as size 1.
// CHECK-LABEL: func.func @sum_all_keepdim
// CHECK: aten.sum %{{.*}} {keepdim = true} : tensor<2x3xf32> -> tensor<1x1xf32>
func.func @sum_all_keepdim(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  %0 = aten.sum %x {keepdim = true} : tensor<2x3xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// amax over one middle dim drops it, in f16; the dims need not be sorted.
// CHECK-LABEL: func.func @amax_dims
// CHECK: aten.amax %{{.*}} {dim = array<i64: 2, 0>} : tensor<2x3x4xf16> -> tensor<3xf16>
func.func @amax_dims(%x: tensor<2x3x4xf16>) -> tensor<3xf16> {
  %0 = aten.amax %x {dim = array<i64: 2, 0>} : tensor<2x3x4xf16> -> tensor<3xf16>
  return %0 : tensor<3xf16>
}

// adaptive_avg_pool2d to a 1x1 output (global pooling).
// CHECK-LABEL: func.func @adaptive_avg_pool2d_global
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x7x7xf32>)
// CHECK: aten.adaptive_avg_pool2d %[[X]] : tensor<1x16x7x7xf32> -> tensor<1x16x1x1xf32>
func.func @adaptive_avg_pool2d_global(%x: tensor<1x16x7x7xf32>) -> tensor<1x16x1x1xf32> {
  %0 = aten.adaptive_avg_pool2d %x : tensor<1x16x7x7xf32> -> tensor<1x16x1x1xf32>
  return %0 : tensor<1x16x1x1xf32>
}

// adaptive_avg_pool2d of an unbatched [C, H, W] input to a non-divisor size.
// CHECK-LABEL: func.func @adaptive_avg_pool2d_unbatched
// CHECK: aten.adaptive_avg_pool2d %{{.*}} : tensor<16x7x5xf32> -> tensor<16x3x2xf32>
func.func @adaptive_avg_pool2d_unbatched(%x: tensor<16x7x5xf32>) -> tensor<16x3x2xf32> {
  %0 = aten.adaptive_avg_pool2d %x : tensor<16x7x5xf32> -> tensor<16x3x2xf32>
  return %0 : tensor<16x3x2xf32>
}

// avg_pool2d with ceil_mode = false and count_include_pad = true elides both.
// CHECK-LABEL: func.func @avg_pool2d_default
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x8x8xf32>)
// CHECK: aten.avg_pool2d %[[X]] {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
func.func @avg_pool2d_default(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %0 = aten.avg_pool2d %x {ceil_mode = false, count_include_pad = true, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// avg_pool2d with ceil_mode keeps a partial last window: ceil((7 - 2) / 2) + 1 = 4.
// CHECK-LABEL: func.func @avg_pool2d_ceil
// CHECK: aten.avg_pool2d %{{.*}} {ceil_mode = true, count_include_pad = false, divisor_override = 3 : i64, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x4x7x7xf32> -> tensor<1x4x4x4xf32>
func.func @avg_pool2d_ceil(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32> {
  %0 = aten.avg_pool2d %x {ceil_mode = true, count_include_pad = false, divisor_override = 3 : i64, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x4x7x7xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// Without ceil_mode the same pooling drops the partial window: (7 - 2) / 2 + 1 = 3.
// CHECK-LABEL: func.func @avg_pool2d_floor
// CHECK: aten.avg_pool2d %{{.*}} {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x4x7x7xf32> -> tensor<1x4x3x3xf32>
func.func @avg_pool2d_floor(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32> {
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x4x7x7xf32> -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// ceil_mode drops a last window that would start in the right padding:
// ceil((2 + 2 - 1 - 1) / 3) + 1 = 2, but window 1 starts at 3 >= 2 + 1, so 1.
// CHECK-LABEL: func.func @max_pool2d_ceil_drop
// CHECK: aten.max_pool2d %{{.*}} {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>, stride = array<i64: 3, 3>} : tensor<1x1x2x2xf32> -> tensor<1x1x1x1xf32>
func.func @max_pool2d_ceil_drop(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32> {
  %0 = aten.max_pool2d %x {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>, stride = array<i64: 3, 3>} : tensor<1x1x2x2xf32> -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// max_pool2d 3x3 stride 2 pad 1, ceil_mode = false elided.
// CHECK-LABEL: func.func @max_pool2d_default
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x8x8xf32>)
// CHECK: aten.max_pool2d %[[X]] {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
func.func @max_pool2d_default(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %0 = aten.max_pool2d %x {ceil_mode = false, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// max_pool2d with ceil_mode: ceil((8 - 3) / 2) + 1 = 4 where floor gives 3.
// CHECK-LABEL: func.func @max_pool2d_ceil
// CHECK: aten.max_pool2d %{{.*}} {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
func.func @max_pool2d_ceil(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %0 = aten.max_pool2d %x {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// max_pool2d with dilation on an unbatched [C, H, W] input: 8 - 2*(3-1) - 1 + 1 = 4.
// CHECK-LABEL: func.func @max_pool2d_dilated_unbatched
// CHECK: aten.max_pool2d %{{.*}} {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : tensor<16x8x8xf16> -> tensor<16x4x4xf16>
func.func @max_pool2d_dilated_unbatched(%x: tensor<16x8x8xf16>) -> tensor<16x4x4xf16> {
  %0 = aten.max_pool2d %x {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : tensor<16x8x8xf16> -> tensor<16x4x4xf16>
  return %0 : tensor<16x4x4xf16>
}

// softmax along a dim.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x10xf32>)
// CHECK: %[[Y:.*]] = aten.softmax %[[X]] {dim = 1 : i64} : tensor<4x10xf32>
// CHECK: return %[[Y]]
func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = aten.softmax %x {dim = 1 : i64} : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// log_softmax along dim 0, in bf16.
// CHECK-LABEL: func.func @log_softmax_bf16
// CHECK: aten.log_softmax %{{.*}} {dim = 0 : i64} : tensor<4x10xbf16>
func.func @log_softmax_bf16(%x: tensor<4x10xbf16>) -> tensor<4x10xbf16> {
  %0 = aten.log_softmax %x {dim = 0 : i64} : tensor<4x10xbf16>
  return %0 : tensor<4x10xbf16>
}

// cumsum of int64 along dim 1.
// CHECK-LABEL: func.func @cumsum
// CHECK: aten.cumsum %{{.*}} {dim = 1 : i64} : tensor<2x5xi64>
func.func @cumsum(%x: tensor<2x5xi64>) -> tensor<2x5xi64> {
  %0 = aten.cumsum %x {dim = 1 : i64} : tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}
