// RUN: duet-opt --split-input-file --verify-diagnostics %s

// Shape arithmetic in the verifiers is checked for overflow: sizes and
// attributes come from the imported file. Without the checks, each of these
// wraps around in int64 (undefined behaviour) and is accepted or reported
// with a wrong reason.

// 4 x 2^62 groups wraps to 0 and matched the input's 0 channels.
func.func @conv_groups(%x: tensor<1x0x8x8xf32>, %w: tensor<0x4x3x3xf32>) -> tensor<1x0x6x6xf32> {
  // expected-error @+1 {{input has 0 channels but weight expects 4 x 4611686018427387904 groups}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 4611686018427387904 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x0x8x8xf32>, tensor<0x4x3x3xf32>) -> tensor<1x0x6x6xf32>
  return %0 : tensor<1x0x6x6xf32>
}

// -----

// Twice a padding of 2^62 does not fit in int64.
func.func @conv_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{the size of output dim 2 overflows int64}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 4611686018427387904, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A transposed convolution's (in - 1) * stride overflows.
func.func @conv_transposed_stride(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  // expected-error @+1 {{the size of output dim 3 overflows int64}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 4611686018427387904>, transposed = true} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// 2^32 x 2^32 elements wrap to 0, which matched the empty result.
func.func @view_count(%x: tensor<4294967296x4294967296xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{the size of the element count overflows int64}}
  %0 = aten.view %x : tensor<4294967296x4294967296xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// A huge step takes one element: ceil(5 / step), not (5 + step - 1) / step.
func.func @slice_step(%x: tensor<5xf32>) -> tensor<1xf32> {
  %0 = aten.slice %x {dim = 0 : i64, end = 5 : i64, start = 0 : i64, step = 9223372036854775807 : i64} : tensor<5xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @pad_sum(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the size of the padded dim 0 overflows int64}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: 9223372036854775807, 1>} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cat_sum(%a: tensor<0x9223372036854775807xf32>, %b: tensor<0x2xf32>) -> tensor<0x1xf32> {
  // expected-error @+1 {{the size of the concatenated dim 1 overflows int64}}
  %0 = aten.cat %a, %b {dim = 1 : i64} : (tensor<0x9223372036854775807xf32>, tensor<0x2xf32>) -> tensor<0x1xf32>
  return %0 : tensor<0x1xf32>
}

// -----

// A 2^62 kernel dilated twice reaches past int64.
func.func @pool_window(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x1x1xf32> {
  // expected-error @+1 {{the size of the pooled dim 2 overflows int64}}
  %0 = aten.max_pool2d %x {ceil_mode = false, dilation = array<i64: 4, 1>, kernel_size = array<i64: 4611686018427387904, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

// Queries and keys of 2^31 positions with E = 0 hold no bytes, but their
// scores (and a causal mask, which the decomposition builds as a constant)
// are 2^31 x 2^31: refused before any pass allocates them.
func.func @attention_scores(%q: tensor<1x2147483648x0xf32>, %v: tensor<1x2147483648x4xf32>) -> tensor<1x2147483648x4xf32> {
  // expected-error @+1 {{its [2147483648, 2147483648] scores would take over 4294967296 bytes, the most one tensor may hold (kMaxTensorBytes, 4 GiB); export the model with shorter sequences}}
  %0 = aten.scaled_dot_product_attention %q, %q, %v {is_causal = true} : (tensor<1x2147483648x0xf32>, tensor<1x2147483648x0xf32>, tensor<1x2147483648x4xf32>) -> tensor<1x2147483648x4xf32>
  return %0 : tensor<1x2147483648x4xf32>
}
