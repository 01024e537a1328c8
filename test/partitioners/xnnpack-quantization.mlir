// RUN: duet-opt --split-input-file --duet-partition="backends=xnnpack" %s | FileCheck %s

// XNNPACK decides after placement which ops compute in qint8
// (docs/quantization.md). A conv + relu between matching dequantize and
// quantize nodes is one qint8 node absorbing them.
// CHECK-LABEL: func.func @folded
// CHECK: duet.delegate <xnnpack>
// CHECK: aten.dequantize_per_channel {{.*}}xnn.folded
// CHECK: aten.quantize_per_tensor
// CHECK-NOT: xnn.folded
// CHECK-SAME: -> tensor<1x3x8x8xi8>
// CHECK: aten.dequantize_per_tensor {{.*}}xnn.folded
// CHECK: aten.convolution {{.*}}xnn.qint8
// CHECK: aten.quantize_per_tensor {{.*}}xnn.folded
func.func @folded(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %wq = arith.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]> : tensor<4x3x3x3xi8>
  %s = arith.constant dense<[0.01, 0.02, 0.03, 0.04]> : tensor<4xf32>
  %z = arith.constant dense<0> : tensor<4xi64>
  %b = arith.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>
  %q = aten.quantize_per_tensor %x {scale = 0.05 : f64, zero_point = -3 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>
  %dq = aten.dequantize_per_tensor %q {scale = 0.05 : f64, zero_point = -3 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xi8> -> tensor<1x3x8x8xf32>
  %w = aten.dequantize_per_channel %wq, %s zero_points %z {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x3x3x3xf32>
  %c = aten.convolution %dq, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = aten.relu %c : tensor<1x4x8x8xf32>
  %q2 = aten.quantize_per_tensor %r {scale = 0.1 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xi8>
  %dq2 = aten.dequantize_per_tensor %q2 {scale = 0.1 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x4x8x8xi8> -> tensor<1x4x8x8xf32>
  return %dq2 : tensor<1x4x8x8xf32>
}

// -----

// A dequantize with other qparams than the quantize that wrote its integers
// cannot be read by XNNPACK (one quantization per qint8 value): it runs on
// the portable kernels, between two partitions, and nothing is folded.
// CHECK-LABEL: func.func @mismatched
// CHECK: duet.delegate <xnnpack>
// CHECK: aten.quantize_per_tensor
// CHECK: duet.yield
// CHECK: {{^    }}%{{.*}} = aten.dequantize_per_tensor %{{.*}} {quant_max = 127 : i64, quant_min = -128 : i64, scale = 2.000000e-02 : f64, zero_point = -3 : i64}
// CHECK-NOT: xnn.qint8
// CHECK: return
func.func @mismatched(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %wq = arith.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]> : tensor<4x3x3x3xi8>
  %s = arith.constant dense<[0.01, 0.02, 0.03, 0.04]> : tensor<4xf32>
  %z = arith.constant dense<0> : tensor<4xi64>
  %b = arith.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>
  %q = aten.quantize_per_tensor %x {scale = 0.05 : f64, zero_point = -3 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>
  %dq = aten.dequantize_per_tensor %q {scale = 0.02 : f64, zero_point = -3 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xi8> -> tensor<1x3x8x8xf32>
  %w = aten.dequantize_per_channel %wq, %s zero_points %z {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x3x3x3xf32>
  %c = aten.convolution %dq, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = aten.relu %c : tensor<1x4x8x8xf32>
  %q2 = aten.quantize_per_tensor %r {scale = 0.1 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xi8>
  %dq2 = aten.dequantize_per_tensor %q2 {scale = 0.1 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x4x8x8xi8> -> tensor<1x4x8x8xf32>
  return %dq2 : tensor<1x4x8x8xf32>
}

// -----

// An output scale whose requantization ratio this XNNPACK's qint8
// convolution cannot take: the convolution computes in fp32 between convert
// nodes, which run its quantize and dequantize.
// CHECK-LABEL: func.func @ratio
// CHECK-NOT: xnn.qint8
// CHECK-NOT: xnn.folded
// CHECK: return
func.func @ratio(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %wq = arith.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]> : tensor<4x3x3x3xi8>
  %s = arith.constant dense<[0.01, 0.02, 0.03, 0.04]> : tensor<4xf32>
  %z = arith.constant dense<0> : tensor<4xi64>
  %b = arith.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>
  %q = aten.quantize_per_tensor %x {scale = 0.05 : f64, zero_point = -3 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xi8>
  %dq = aten.dequantize_per_tensor %q {scale = 0.05 : f64, zero_point = -3 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x3x8x8xi8> -> tensor<1x3x8x8xf32>
  %w = aten.dequantize_per_channel %wq, %s zero_points %z {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi64>) -> tensor<4x3x3x3xf32>
  %c = aten.convolution %dq, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = aten.relu %c : tensor<1x4x8x8xf32>
  %q2 = aten.quantize_per_tensor %r {scale = 1.0e-07 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xi8>
  %dq2 = aten.dequantize_per_tensor %q2 {scale = 1.0e-07 : f64, zero_point = -128 : i64, quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x4x8x8xi8> -> tensor<1x4x8x8xf32>
  return %dq2 : tensor<1x4x8x8xf32>
}
