// RUN: duet-opt --split-input-file --verify-diagnostics %s

// A reduction dim must be below the rank.
func.func @mean_dim_range(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8xf32> {
  // expected-error @+1 {{dim 4 is out of range for rank 4 (dims are normalized to [0, 4))}}
  %0 = aten.mean %x {dim = array<i64: 4>} : tensor<1x16x8x8xf32> -> tensor<1x16x8xf32>
  return %0 : tensor<1x16x8xf32>
}

// -----

// Negative dims are normalized by the importer; the dialect refuses them.
func.func @sum_negative_dim(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{dim -1 is out of range for rank 2 (dims are normalized to [0, 2))}}
  %0 = aten.sum %x {dim = array<i64: -1>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A dim may be reduced only once.
func.func @amax_duplicate_dim(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{dim 1 appears twice}}
  %0 = aten.amax %x {dim = array<i64: 1, 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A reduction keeps the element type (no accumulation type in the result).
func.func @sum_result_type(%x: tensor<2x3xf16>) -> tensor<2xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f16' and 'f32'}}
  %0 = aten.sum %x {dim = array<i64: 1>} : tensor<2x3xf16> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Without keepdim the reduced dims are dropped.
func.func @mean_keepdim_false(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x1x1xf32> {
  // expected-error @+1 {{result shape [1, 16, 1, 1] does not match the computed shape [1, 16]}}
  %0 = aten.mean %x {dim = array<i64: 2, 3>} : tensor<1x16x8x8xf32> -> tensor<1x16x1x1xf32>
  return %0 : tensor<1x16x1x1xf32>
}

// -----

// An empty dim list reduces every dim; keepdim then leaves each as size 1.
func.func @sum_all_keepdim(%x: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{result shape [] does not match the computed shape [1, 1]}}
  %0 = aten.sum %x {keepdim = true} : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// adaptive_avg_pool2d takes [C, H, W] or [N, C, H, W].
func.func @adaptive_avg_pool2d_rank(%x: tensor<7x7xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{input must have rank 3 or 4, got 2}}
  %0 = aten.adaptive_avg_pool2d %x : tensor<7x7xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// adaptive_avg_pool2d keeps the element type.
func.func @adaptive_avg_pool2d_type(%x: tensor<1x16x7x7xf32>) -> tensor<1x16x1x1xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.adaptive_avg_pool2d %x : tensor<1x16x7x7xf32> -> tensor<1x16x1x1xf16>
  return %0 : tensor<1x16x1x1xf16>
}

// -----

// adaptive_avg_pool2d keeps N and C.
func.func @adaptive_avg_pool2d_channels(%x: tensor<1x16x7x7xf32>) -> tensor<1x8x1x1xf32> {
  // expected-error @+1 {{result [1, 8, 1, 1] must keep the leading dims of the input [1, 16, 7, 7]}}
  %0 = aten.adaptive_avg_pool2d %x : tensor<1x16x7x7xf32> -> tensor<1x8x1x1xf32>
  return %0 : tensor<1x8x1x1xf32>
}

// -----

// adaptive_avg_pool2d keeps the rank.
func.func @adaptive_avg_pool2d_result_rank(%x: tensor<1x16x7x7xf32>) -> tensor<1x16x1xf32> {
  // expected-error @+1 {{result [1, 16, 1] must keep the leading dims of the input [1, 16, 7, 7]}}
  %0 = aten.adaptive_avg_pool2d %x : tensor<1x16x7x7xf32> -> tensor<1x16x1xf32>
  return %0 : tensor<1x16x1xf32>
}

// -----

// adaptive_avg_pool2d's output size is positive.
func.func @adaptive_avg_pool2d_empty(%x: tensor<1x16x7x7xf32>) -> tensor<1x16x0x1xf32> {
  // expected-error @+1 {{output size must be positive}}
  %0 = aten.adaptive_avg_pool2d %x : tensor<1x16x7x7xf32> -> tensor<1x16x0x1xf32>
  return %0 : tensor<1x16x0x1xf32>
}

// -----

// avg_pool2d's divisor_override may not be 0.
func.func @avg_pool2d_divisor(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{divisor_override must not be 0}}
  %0 = aten.avg_pool2d %x {divisor_override = 0 : i64, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// avg_pool2d takes [C, H, W] or [N, C, H, W].
func.func @avg_pool2d_rank(%x: tensor<1x1x16x8x8xf32>) -> tensor<1x1x16x4x4xf32> {
  // expected-error @+1 {{input must have rank 3 or 4, got 5}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x1x16x8x8xf32> -> tensor<1x1x16x4x4xf32>
  return %0 : tensor<1x1x16x4x4xf32>
}

// -----

// avg_pool2d keeps the element type.
func.func @avg_pool2d_type(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xbf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'bf16'}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xbf16>
  return %0 : tensor<1x16x4x4xbf16>
}

// -----

// kernel_size has two entries (the importer expands a single int).
func.func @avg_pool2d_kernel_length(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{kernel_size needs 2 entries, got 1}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// stride has two entries (the importer fills an empty stride with kernel_size).
func.func @avg_pool2d_stride_length(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{stride needs 2 entries, got 0}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// padding has two entries.
func.func @avg_pool2d_padding_length(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{padding needs 2 entries, got 4}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// A zero kernel is rejected.
func.func @avg_pool2d_zero_kernel(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{kernel_size, stride and dilation must be positive and padding non-negative}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 0, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// Negative pooling padding is rejected.
func.func @max_pool2d_negative_padding(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x3x3xf32> {
  // expected-error @+1 {{kernel_size, stride and dilation must be positive and padding non-negative}}
  %0 = aten.max_pool2d %x {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: -1, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}

// -----

// Pooling padding is at most half the kernel, as in PyTorch: 2 > 3 / 2.
func.func @avg_pool2d_padding_half(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x5x5xf32> {
  // expected-error @+1 {{padding 2 must be at most half the kernel size 3}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x5x5xf32>
  return %0 : tensor<1x16x5x5xf32>
}

// -----

// A kernel larger than the input gives no window; a truncating division
// would have rounded (2 - 3) / 2 + 1 up to 1.
func.func @avg_pool2d_window_fit(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{window does not fit the input [1, 4, 2, 2]}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x4x2x2xf32> -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

// Without ceil_mode the partial last window is dropped: (7 - 2) / 2 + 1 = 3.
func.func @avg_pool2d_floor(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{result shape [1, 4, 4, 4] does not match the computed shape [1, 4, 3, 3]}}
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x4x7x7xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// max_pool2d's dilation has two entries.
func.func @max_pool2d_dilation_length(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{dilation needs 2 entries, got 1}}
  %0 = aten.max_pool2d %x {dilation = array<i64: 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// max_pool2d's dilation is positive.
func.func @max_pool2d_zero_dilation(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{kernel_size, stride and dilation must be positive and padding non-negative}}
  %0 = aten.max_pool2d %x {dilation = array<i64: 0, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// Dilation widens the window: 3 taps dilated by 2 span 5 > 4.
func.func @max_pool2d_dilated_fit(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{window does not fit the input [1, 4, 4, 4]}}
  %0 = aten.max_pool2d %x {dilation = array<i64: 2, 2>, kernel_size = array<i64: 3, 3>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : tensor<1x4x4x4xf32> -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

// ceil_mode drops a last window that would start in the right padding.
func.func @max_pool2d_ceil_drop(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{result shape [1, 1, 2, 2] does not match the computed shape [1, 1, 1, 1]}}
  %0 = aten.max_pool2d %x {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 1, 1>, stride = array<i64: 3, 3>} : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// max_pool2d keeps the element type.
func.func @max_pool2d_type(%x: tensor<1x16x8x8xf16>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f16' and 'f32'}}
  %0 = aten.max_pool2d %x {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : tensor<1x16x8x8xf16> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// softmax's dim is below the rank.
func.func @softmax_dim(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{dim 2 is out of range for rank 2 (dims are normalized to [0, 2))}}
  %0 = aten.softmax %x {dim = 2 : i64} : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// log_softmax's dim is normalized (non-negative).
func.func @log_softmax_dim(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{dim -1 is out of range for rank 2 (dims are normalized to [0, 2))}}
  %0 = aten.log_softmax %x {dim = -1 : i64} : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// cumsum's dim is normalized.
func.func @cumsum_dim(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %0 = aten.cumsum %x {dim = 2 : i64} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
