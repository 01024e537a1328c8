// RUN: duet-opt %s | duet-opt | FileCheck %s

// Convolutions and matrix products print and parse back with their operands,
// attributes and types; optional biases may be present or absent.

// A strided, padded 2-D convolution with a bias.
// CHECK-LABEL: func.func @conv2d_bias
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x3x8x8xf32>, %[[W:[^:]*]]: tensor<16x3x3x3xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = aten.convolution %[[X]], %[[W]], %[[B]] {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
// CHECK: return %[[Y]]
func.func @conv2d_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x4x4xf32> {
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// A 2-D convolution without a bias keeps two operands.
// CHECK-LABEL: func.func @conv2d_no_bias
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x3x8x8xf32>, %[[W:[^:]*]]: tensor<16x3x3x3xf32>)
// CHECK: aten.convolution %[[X]], %[[W]] {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
func.func @conv2d_no_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32> {
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// A stride that does not divide the span rounds the output size down: (7 - 3) / 2 + 1 = 3.
// CHECK-LABEL: func.func @conv2d_stride_floor
// CHECK: aten.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x3x7x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
func.func @conv2d_stride_floor(%x: tensor<1x3x7x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>, transposed = false} : (tensor<1x3x7x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// A depthwise convolution: groups equal to the channels, weight [C, 1, kh, kw].
// CHECK-LABEL: func.func @conv2d_depthwise
// CHECK: aten.convolution %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 16 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
func.func @conv2d_depthwise(%x: tensor<1x16x8x8xf32>, %w: tensor<16x1x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 16 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}

// A dilated 1-D convolution in f16: 10 + 2*2 - 2*(3-1) - 1 + 1 = 10.
// CHECK-LABEL: func.func @conv1d_dilated_f16
// CHECK: aten.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 2>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 2>, stride = array<i64: 1>, transposed = false} : (tensor<1x4x10xf16>, tensor<8x4x3xf16>) -> tensor<1x8x10xf16>
func.func @conv1d_dilated_f16(%x: tensor<1x4x10xf16>, %w: tensor<8x4x3xf16>) -> tensor<1x8x10xf16> {
  %0 = aten.convolution %x, %w {dilation = array<i64: 2>, groups = 1 : i64, output_padding = array<i64: 0>, padding = array<i64: 2>, stride = array<i64: 1>, transposed = false} : (tensor<1x4x10xf16>, tensor<8x4x3xf16>) -> tensor<1x8x10xf16>
  return %0 : tensor<1x8x10xf16>
}

// A transposed 2-D convolution, weight [Cin, Cout, kh, kw]: (4-1)*2 - 2*1 + (3-1) + 1 + 1 = 8.
// CHECK-LABEL: func.func @conv_transpose2d
// CHECK: aten.convolution %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true} : (tensor<1x16x4x4xf32>, tensor<16x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
func.func @conv_transpose2d(%x: tensor<1x16x4x4xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true} : (tensor<1x16x4x4xf32>, tensor<16x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// A grouped transposed 1-D convolution: Cout = 2 * groups = 4, (5-1)*2 + (4-1) + 1 = 12.
// CHECK-LABEL: func.func @conv_transpose1d_grouped
// CHECK: aten.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 1>, groups = 2 : i64, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 2>, transposed = true} : (tensor<1x8x5xf32>, tensor<8x2x4xf32>) -> tensor<1x4x12xf32>
func.func @conv_transpose1d_grouped(%x: tensor<1x8x5xf32>, %w: tensor<8x2x4xf32>) -> tensor<1x4x12xf32> {
  %0 = aten.convolution %x, %w {dilation = array<i64: 1>, groups = 2 : i64, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 2>, transposed = true} : (tensor<1x8x5xf32>, tensor<8x2x4xf32>) -> tensor<1x4x12xf32>
  return %0 : tensor<1x4x12xf32>
}

// A linear layer with a bias.
// CHECK-LABEL: func.func @linear_bias
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x16xf32>, %[[W:[^:]*]]: tensor<8x16xf32>, %[[B:[^:]*]]: tensor<8xf32>)
// CHECK: %[[Y:.*]] = aten.linear %[[X]], %[[W]], %[[B]] : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: return %[[Y]]
func.func @linear_bias(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A linear layer without a bias on a 3-D bf16 input keeps the leading dims.
// CHECK-LABEL: func.func @linear_no_bias_bf16
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4x16xbf16>, %[[W:[^:]*]]: tensor<8x16xbf16>)
// CHECK: aten.linear %[[X]], %[[W]] : (tensor<2x4x16xbf16>, tensor<8x16xbf16>) -> tensor<2x4x8xbf16>
func.func @linear_no_bias_bf16(%x: tensor<2x4x16xbf16>, %w: tensor<8x16xbf16>) -> tensor<2x4x8xbf16> {
  %0 = aten.linear %x, %w : (tensor<2x4x16xbf16>, tensor<8x16xbf16>) -> tensor<2x4x8xbf16>
  return %0 : tensor<2x4x8xbf16>
}

// addmm with beta = alpha = 1 elides both.
// CHECK-LABEL: func.func @addmm_default
// CHECK-SAME: (%[[B:[^:]*]]: tensor<8xf32>, %[[X:[^:]*]]: tensor<4x16xf32>, %[[W:[^:]*]]: tensor<16x8xf32>)
// CHECK: aten.addmm %[[B]], %[[X]], %[[W]] : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
func.func @addmm_default(%b: tensor<8xf32>, %x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = aten.addmm %b, %x, %w {alpha = 1.0 : f64, beta = 1.0 : f64} : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// addmm keeps beta and alpha other than 1, and a full [n, m] self.
// CHECK-LABEL: func.func @addmm_scaled
// CHECK: aten.addmm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64} : (tensor<4x8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
func.func @addmm_scaled(%b: tensor<4x8xf32>, %x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = aten.addmm %b, %x, %w {alpha = 2.0 : f64, beta = 0.5 : f64} : (tensor<4x8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// mm of [n, k] and [k, m].
// CHECK-LABEL: func.func @mm
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4x16xf32>, %[[B:[^:]*]]: tensor<16x8xf32>)
// CHECK: aten.mm %[[A]], %[[B]] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
func.func @mm(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = aten.mm %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// bmm of [b, n, k] and [b, k, m], in f16.
// CHECK-LABEL: func.func @bmm_f16
// CHECK-SAME: (%[[A:[^:]*]]: tensor<2x4x16xf16>, %[[B:[^:]*]]: tensor<2x16x8xf16>)
// CHECK: aten.bmm %[[A]], %[[B]] : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
func.func @bmm_f16(%a: tensor<2x4x16xf16>, %b: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> {
  %0 = aten.bmm %a, %b : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
  return %0 : tensor<2x4x8xf16>
}

// matmul of a batched matrix and a matrix broadcasts the batch dims.
// CHECK-LABEL: func.func @matmul_batched
// CHECK: aten.matmul %{{.*}}, %{{.*}} : (tensor<2x3x4x16xf32>, tensor<16x8xf32>) -> tensor<2x3x4x8xf32>
func.func @matmul_batched(%a: tensor<2x3x4x16xf32>, %b: tensor<16x8xf32>) -> tensor<2x3x4x8xf32> {
  %0 = aten.matmul %a, %b : (tensor<2x3x4x16xf32>, tensor<16x8xf32>) -> tensor<2x3x4x8xf32>
  return %0 : tensor<2x3x4x8xf32>
}

// matmul broadcasts size-1 batch dims on both sides: [2,1] with [3] gives [2,3].
// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK: aten.matmul %{{.*}}, %{{.*}} : (tensor<2x1x4x5xf32>, tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32>
func.func @matmul_broadcast_batch(%a: tensor<2x1x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = aten.matmul %a, %b : (tensor<2x1x4x5xf32>, tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// matmul of two vectors is a 0-d dot product.
// CHECK-LABEL: func.func @matmul_dot
// CHECK: aten.matmul %{{.*}}, %{{.*}} : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
func.func @matmul_dot(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %0 = aten.matmul %a, %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// matmul of a vector and a batched matrix drops the vector's added dim.
// CHECK-LABEL: func.func @matmul_vector_lhs
// CHECK: aten.matmul %{{.*}}, %{{.*}} : (tensor<16xf32>, tensor<2x16x8xf32>) -> tensor<2x8xf32>
func.func @matmul_vector_lhs(%a: tensor<16xf32>, %b: tensor<2x16x8xf32>) -> tensor<2x8xf32> {
  %0 = aten.matmul %a, %b : (tensor<16xf32>, tensor<2x16x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// matmul of a batched matrix and a vector is a batched matrix-vector product.
// CHECK-LABEL: func.func @matmul_vector_rhs
// CHECK: aten.matmul %{{.*}}, %{{.*}} : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4xf32>
func.func @matmul_vector_rhs(%a: tensor<2x4x16xf32>, %b: tensor<16xf32>) -> tensor<2x4xf32> {
  %0 = aten.matmul %a, %b : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
