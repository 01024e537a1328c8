// RUN: duet-opt --split-input-file --verify-diagnostics %s

// Convolution rejects an input that is neither 1-D, 2-D nor 3-D spatial.
func.func @conv_input_rank(%x: tensor<1x3x4x4x8x8xf32>, %w: tensor<4x3x3x3x3x3xf32>) -> tensor<1x4x2x2x6x6xf32> {
  // expected-error @+1 {{input must have rank 3 or 4 or 5, got 6}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1, 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0, 0, 0>, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1, 1, 1>, transposed = false} : (tensor<1x3x4x4x8x8xf32>, tensor<4x3x3x3x3x3xf32>) -> tensor<1x4x2x2x6x6xf32>
  return %0 : tensor<1x4x2x2x6x6xf32>
}

// -----

// A 3-D transposed convolution is refused (the portable kernel has none).
func.func @conv3d_transposed(%x: tensor<1x3x4x8x8xf32>, %w: tensor<3x4x3x3x3xf32>) -> tensor<1x4x6x10x10xf32> {
  // expected-error @+1 {{a 3-D transposed convolution is not supported}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0, 0>, padding = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 1>, transposed = true} : (tensor<1x3x4x8x8xf32>, tensor<3x4x3x3x3xf32>) -> tensor<1x4x6x10x10xf32>
  return %0 : tensor<1x4x6x10x10xf32>
}

// -----

// Convolution operands must share one element type.
func.func @conv_mixed_types(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// The convolution result has the operands' element type too.
func.func @conv_result_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xbf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'bf16'}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xbf16>
  return %0 : tensor<1x4x6x6xbf16>
}

// -----

// The weight of a 2-D convolution is 4-D.
func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{weight rank 3 must equal input rank 4}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// stride has one entry per spatial dim.
func.func @conv_stride_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{stride needs 2 entries, got 1}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// output_padding has one entry per spatial dim, even when not transposed.
func.func @conv_output_padding_length(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6xf32> {
  // expected-error @+1 {{output_padding needs 1 entries, got 2}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0>, stride = array<i64: 1>, transposed = false} : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

// groups must be positive.
func.func @conv_zero_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{groups must be positive, got 0}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 0 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A zero stride is rejected.
func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{stride and dilation must be positive, padding and output_padding non-negative}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 0>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Negative padding is rejected.
func.func @conv_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{stride and dilation must be positive, padding and output_padding non-negative}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: -1, -1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// The input channels must be the weight's in-channels times groups.
func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{input has 3 channels but weight expects 4 x 1 groups}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A grouped convolution's weight holds in-channels per group.
func.func @conv_grouped_channels(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{input has 8 channels but weight expects 8 x 2 groups}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// The output channels must divide by groups.
func.func @conv_out_channels_groups(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{output channels 6 are not divisible by groups 4}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 4 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// A kernel larger than the padded input leaves no output (PyTorch refuses it),
// even where a truncating division would round the size up to 0 or 1.
func.func @conv_kernel_too_large(%x: tensor<1x4x2xf32>, %w: tensor<4x4x4xf32>) -> tensor<1x4x0xf32> {
  // expected-error @+1 {{output size [1, 4, 0] is empty: the dilated kernel [4, 4, 4] does not fit the padded input [1, 4, 2]}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 2>, transposed = false} : (tensor<1x4x2xf32>, tensor<4x4x4xf32>) -> tensor<1x4x0xf32>
  return %0 : tensor<1x4x0xf32>
}

// -----

// Dilation counts in the kernel extent: 3 taps dilated by 4 span 9 > 8.
func.func @conv_dilated_too_large(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{output size [1, 4, 0, 0] is empty}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 4, 4>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

// The bias has one entry per output channel.
func.func @conv_bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{bias must have shape [4], got [3]}}
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// The result shape is (in + 2p - d(k-1) - 1) / s + 1: (8 + 2 - 2 - 1) / 2 + 1 = 4, not 5.
func.func @conv_result_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+1 {{result shape [1, 4, 5, 5] does not match the computed shape [1, 4, 4, 4]}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// A transposed convolution's weight is [Cin, Cout/groups, k...]: dim 0 must be the input channels.
func.func @conv_transposed_channels(%x: tensor<1x16x4x4xf32>, %w: tensor<8x16x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+1 {{transposed convolution: input has 16 channels but weight has 8 (must match and divide by groups 1)}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = true} : (tensor<1x16x4x4xf32>, tensor<8x16x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

// A transposed convolution's input channels must divide by groups.
func.func @conv_transposed_groups(%x: tensor<1x6x4x4xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{transposed convolution: input has 6 channels but weight has 6 (must match and divide by groups 4)}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 4 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = true} : (tensor<1x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// output_padding must be below max(stride, dilation): 2 with stride 2 is too much.
func.func @conv_transposed_output_padding(%x: tensor<1x16x4x4xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x8x10x10xf32> {
  // expected-error @+1 {{output_padding must be smaller than stride or dilation}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, transposed = true} : (tensor<1x16x4x4xf32>, tensor<16x8x3x3xf32>) -> tensor<1x8x10x10xf32>
  return %0 : tensor<1x8x10x10xf32>
}

// -----

// A transposed convolution whose padding eats the whole output is refused.
func.func @conv_transposed_empty(%x: tensor<1x4x1xf32>, %w: tensor<4x4x1xf32>) -> tensor<1x4x1xf32> {
  // expected-error @+1 {{output size [1, 4, -1] is empty}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 1>, stride = array<i64: 1>, transposed = true} : (tensor<1x4x1xf32>, tensor<4x4x1xf32>) -> tensor<1x4x1xf32>
  return %0 : tensor<1x4x1xf32>
}

// -----

// A transposed convolution's output channels are weight dim 1 times groups: 2 x 2 = 4, not 2.
func.func @conv_transposed_result_channels(%x: tensor<1x8x5xf32>, %w: tensor<8x2x4xf32>) -> tensor<1x2x12xf32> {
  // expected-error @+1 {{result shape [1, 2, 12] does not match the computed shape [1, 4, 12]}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1>, groups = 2 : i64, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 2>, transposed = true} : (tensor<1x8x5xf32>, tensor<8x2x4xf32>) -> tensor<1x2x12xf32>
  return %0 : tensor<1x2x12xf32>
}

// -----

// The transposed result length is (in-1)s - 2p + d(k-1) + output_padding + 1 = 8, not 7.
func.func @conv_transposed_result_shape(%x: tensor<1x16x4x4xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x8x7x7xf32> {
  // expected-error @+1 {{result shape [1, 8, 7, 7] does not match the computed shape [1, 8, 8, 8]}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true} : (tensor<1x16x4x4xf32>, tensor<16x8x3x3xf32>) -> tensor<1x8x7x7xf32>
  return %0 : tensor<1x8x7x7xf32>
}

// -----

// The linear weight is [out, in].
func.func @linear_weight_rank(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{weight must have rank 2, got 1}}
  %0 = aten.linear %x, %w : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Linear operands share one element type.
func.func @linear_mixed_types(%x: tensor<4x16xf16>, %w: tensor<8x16xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f16' and 'f32'}}
  %0 = aten.linear %x, %w : (tensor<4x16xf16>, tensor<8x16xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// The linear result has the operands' element type too.
func.func @linear_result_type(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.linear %x, %w : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// The input's last dim must be the weight's in_features.
func.func @linear_in_features(%x: tensor<4x12xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{input [4, 12] does not end in the weight's in_features 16}}
  %0 = aten.linear %x, %w : (tensor<4x12xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A 0-d input has no feature dim.
func.func @linear_scalar_input(%x: tensor<f32>, %w: tensor<8x16xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{input [] does not end in the weight's in_features 16}}
  %0 = aten.linear %x, %w : (tensor<f32>, tensor<8x16xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The linear bias has out_features entries.
func.func @linear_bias_shape(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{bias must have shape [8], got [16]}}
  %0 = aten.linear %x, %w, %b : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The linear result is [..., out_features].
func.func @linear_result_shape(%x: tensor<2x4x16xf32>, %w: tensor<8x16xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{result shape [8, 8] does not match the computed shape [2, 4, 8]}}
  %0 = aten.linear %x, %w : (tensor<2x4x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// addmm's mat1 is a matrix.
func.func @addmm_mat1_rank(%b: tensor<8xf32>, %x: tensor<2x4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{mat1 must have rank 2, got 3}}
  %0 = aten.addmm %b, %x, %w : (tensor<8xf32>, tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// addmm's mat2 is a matrix.
func.func @addmm_mat2_rank(%b: tensor<8xf32>, %x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{mat2 must have rank 2, got 1}}
  %0 = aten.addmm %b, %x, %w : (tensor<8xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// addmm's self shares the matrices' element type.
func.func @addmm_mixed_types(%b: tensor<8xf16>, %x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f16' and 'f32'}}
  %0 = aten.addmm %b, %x, %w : (tensor<8xf16>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// addmm's inner dims must agree.
func.func @addmm_inner(%b: tensor<8xf32>, %x: tensor<4x16xf32>, %w: tensor<12x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{mat1 [4, 16] and mat2 [12, 8] do not multiply}}
  %0 = aten.addmm %b, %x, %w : (tensor<8xf32>, tensor<4x16xf32>, tensor<12x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// addmm's self must broadcast with the product at all.
func.func @addmm_self_broadcast(%b: tensor<3xf32>, %x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operand shapes [3] and [4, 8] do not broadcast}}
  %0 = aten.addmm %b, %x, %w : (tensor<3xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// addmm's self broadcasts to [n, m] and cannot grow it.
func.func @addmm_self_larger(%b: tensor<2x4x8xf32>, %x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{self must broadcast to [4, 8]}}
  %0 = aten.addmm %b, %x, %w : (tensor<2x4x8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// addmm's result is [n, m].
func.func @addmm_result_shape(%b: tensor<8xf32>, %x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{result shape [8, 4] does not match the computed shape [4, 8]}}
  %0 = aten.addmm %b, %x, %w : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// mm takes matrices only; batched operands go to bmm or matmul.
func.func @mm_rank(%a: tensor<2x4x16xf32>, %b: tensor<16x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{self must have rank 2, got 3}}
  %0 = aten.mm %a, %b : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// mm's other is a matrix.
func.func @mm_other_rank(%a: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{other must have rank 2, got 1}}
  %0 = aten.mm %a, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// mm's operands share one element type.
func.func @mm_mixed_types(%a: tensor<4x16xf32>, %b: tensor<16x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'bf16'}}
  %0 = aten.mm %a, %b : (tensor<4x16xf32>, tensor<16x8xbf16>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// mm's inner dims must agree.
func.func @mm_inner(%a: tensor<4x16xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{operands [4, 16] and [8, 16] do not multiply}}
  %0 = aten.mm %a, %b : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// mm's result is [n, m].
func.func @mm_result_shape(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{result shape [4, 16] does not match the computed shape [4, 8]}}
  %0 = aten.mm %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// bmm takes rank-3 operands.
func.func @bmm_rank(%a: tensor<2x4x16xf32>, %b: tensor<16x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{other must have rank 3, got 2}}
  %0 = aten.bmm %a, %b : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// bmm does not broadcast the batch dim.
func.func @bmm_batch(%a: tensor<2x4x16xf32>, %b: tensor<1x16x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{operands [2, 4, 16] and [1, 16, 8] do not multiply}}
  %0 = aten.bmm %a, %b : (tensor<2x4x16xf32>, tensor<1x16x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// bmm's inner dims must agree.
func.func @bmm_inner(%a: tensor<2x4x16xf32>, %b: tensor<2x8x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{operands [2, 4, 16] and [2, 8, 8] do not multiply}}
  %0 = aten.bmm %a, %b : (tensor<2x4x16xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// bmm's result is [b, n, m].
func.func @bmm_result_shape(%a: tensor<2x4x16xf32>, %b: tensor<2x16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{result shape [4, 8] does not match the computed shape [2, 4, 8]}}
  %0 = aten.bmm %a, %b : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// bmm's result has the operands' element type.
func.func @bmm_result_type(%a: tensor<2x4x16xf16>, %b: tensor<2x16x8xf16>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f16' and 'f32'}}
  %0 = aten.bmm %a, %b : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// matmul's operands share one element type.
func.func @matmul_mixed_types(%a: tensor<4x16xf32>, %b: tensor<16x8xf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.matmul %a, %b : (tensor<4x16xf32>, tensor<16x8xf16>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// matmul refuses 0-d operands.
func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{operands must have rank 1 or more}}
  %0 = aten.matmul %a, %b : (tensor<f32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// matmul's contracted dims must agree, also for a vector operand.
func.func @matmul_inner(%a: tensor<2x4x16xf32>, %b: tensor<8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operands [2, 4, 16] and [8] do not multiply}}
  %0 = aten.matmul %a, %b : (tensor<2x4x16xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// matmul's batch dims must broadcast.
func.func @matmul_batch(%a: tensor<2x4x16xf32>, %b: tensor<3x16x8xf32>) -> tensor<3x4x8xf32> {
  // expected-error @+1 {{operand shapes [2] and [3] do not broadcast}}
  %0 = aten.matmul %a, %b : (tensor<2x4x16xf32>, tensor<3x16x8xf32>) -> tensor<3x4x8xf32>
  return %0 : tensor<3x4x8xf32>
}

// -----

// matmul of two vectors is 0-d, not [1].
func.func @matmul_dot_result(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{result shape [1] does not match the computed shape []}}
  %0 = aten.matmul %a, %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// matmul's result carries the broadcast batch dims.
func.func @matmul_result_shape(%a: tensor<2x1x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<2x4x6xf32> {
  // expected-error @+1 {{result shape [2, 4, 6] does not match the computed shape [2, 3, 4, 6]}}
  %0 = aten.matmul %a, %b : (tensor<2x1x4x5xf32>, tensor<3x5x6xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}
