// RUN: duet-opt --split-input-file --duet-fold-batchnorm %s | FileCheck %s
// RUN: duet-opt --split-input-file --duet-fold-batchnorm=explain=true --verify-diagnostics %s -o /dev/null

// A conv + BN folds; s = γ/√(σ²+ε) = [2/2, 8/4] = [1, 2] scales each output
// channel's weights, and b' = (b − μ)·s + β = [(0.5−1)·1+0.25, (−1−2)·2+1].
// CHECK-LABEL: func.func @conv_bn
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}3.000000e+00]]], {{\[\[\[}}4.000000e+00]], {{\[\[}}-2.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[-2.500000e-01, -5.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = aten.convolution %{{.*}}, %[[W]], %[[B]] {{.*}}groups = 1 : i64{{.*}}transposed = false
// CHECK-NOT: aten.batch_norm
// CHECK: return %[[Y]]
func.func @conv_bn(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<[[[[1.0]], [[3.0]]], [[[2.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
  %b = arith.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %gamma = arith.constant dense<[2.0, 8.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %y = aten.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %z = aten.batch_norm %y, %mean, %var weight %gamma bias %beta {eps = 1.0 : f64}
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}

// -----

// A dense_resource weight is read like a dense one; with no conv bias, no γ and
// no β, s = 1/√(σ²+ε) = [0.5, 0.25] and b' = −μ·s = [−0.5, −0.5].
// CHECK-LABEL: func.func @resource_weight_no_affine
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}1.500000e+00]]], {{\[\[\[}}5.000000e-01]], {{\[\[}}-2.500000e-01]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<-5.000000e-01> : tensor<2xf32>
// CHECK: aten.convolution %{{.*}}, %[[W]], %[[B]]
// CHECK-NOT: aten.batch_norm
func.func @resource_weight_no_affine(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense_resource<conv_w> : tensor<2x2x1x1xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %y = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %z = aten.batch_norm %y, %mean, %var {eps = 1.0 : f64}
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      conv_w: "0x040000000000803F0000404000000040000080BF"
    }
  }
#-}

// -----

// A grouped transposed conv folds per group: the weight is [Cin=2, Cout/g=2, 1, 1]
// with 2 groups, so element (i, j) feeds channel i·2 + j and is scaled by
// s = γ = [1, 2, 3, 4] in that order (not by row, not by column alone).
// CHECK-LABEL: func.func @grouped_transposed_conv_bn
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[-1.000000e+00, -2.000000e+00, -3.000000e+00, -4.000000e+00]> : tensor<4xf32>
// CHECK: aten.convolution %{{.*}}, %[[W]], %[[B]] {{.*}}groups = 2 : i64{{.*}}transposed = true
// CHECK-NOT: aten.batch_norm
func.func @grouped_transposed_conv_bn(%x: tensor<1x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2x1x1xf32>
  %mean = arith.constant dense<1.0> : tensor<4xf32>
  %var = arith.constant dense<1.0> : tensor<4xf32>
  %gamma = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 2 : i64, transposed = true}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x4x3x3xf32>
  %z = aten.batch_norm %y, %mean, %var weight %gamma {eps = 0.0 : f64}
      : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  return %z : tensor<1x4x3x3xf32>
}

// -----

// A linear with a 2-D output folds: s = [1/1, 1/2] scales the weight's rows.
// CHECK-LABEL: func.func @linear_2d_bn
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [1.500000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[0.000000e+00, -5.000000e-01]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = aten.linear %{{.*}}, %[[W]], %[[B]] : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK-NOT: aten.batch_norm
// CHECK: return %[[Y]]
func.func @linear_2d_bn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %mean = arith.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %var = arith.constant dense<[0.0, 3.0]> : tensor<2xf32>
  %y = aten.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %z = aten.batch_norm %y, %mean, %var {eps = 1.0 : f64}
      : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}

// -----

// BatchNorm1d after a linear with a 3-D output [4, 10, 16] normalizes axis 1
// (10), not the out-features axis (16): it is not folded.
// CHECK-LABEL: func.func @linear_3d_bn_not_folded
// CHECK: %[[Y:.*]] = aten.linear
// CHECK: %[[Z:.*]] = aten.batch_norm %[[Y]]
// CHECK: return %[[Z]]
func.func @linear_3d_bn_not_folded(%x: tensor<4x10x8xf32>) -> tensor<4x10x16xf32> {
  %cw = arith.constant dense<1.0> : tensor<16x8xf32>
  %mean = arith.constant dense<0.0> : tensor<10xf32>
  %var = arith.constant dense<1.0> : tensor<10xf32>
  %y = aten.linear %x, %cw : (tensor<4x10x8xf32>, tensor<16x8xf32>) -> tensor<4x10x16xf32>
  // expected-remark @+1 {{batch norm not folded: the linear output is not 2-D, so axis 1 is not its out-features axis}}
  %z = aten.batch_norm %y, %mean, %var
      : (tensor<4x10x16xf32>, tensor<10xf32>, tensor<10xf32>) -> tensor<4x10x16xf32>
  return %z : tensor<4x10x16xf32>
}

// -----

// A linear whose output also feeds an add is not folded: the add needs the
// unnormalized value.
// CHECK-LABEL: func.func @linear_other_user_not_folded
// CHECK-DAG: %[[W:.*]] = arith.constant dense<1.000000e+00> : tensor<2x2xf32>
// CHECK: %[[Y:.*]] = aten.linear %{{.*}}, %[[W]]
// CHECK: %[[Z:.*]] = aten.batch_norm %[[Y]]
// CHECK: aten.add %[[Y]], %[[Z]]
func.func @linear_other_user_not_folded(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  %mean = arith.constant dense<0.0> : tensor<2xf32>
  %var = arith.constant dense<1.0> : tensor<2xf32>
  %y = aten.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{batch norm not folded: the convolution or linear result has other users}}
  %z = aten.batch_norm %y, %mean, %var
      : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %s = aten.add %y, %z : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}

// -----

// Statistics that are not constants (here a function argument) cannot be folded.
// CHECK-LABEL: func.func @runtime_stats_not_folded
// CHECK: %[[Y:.*]] = aten.convolution
// CHECK: aten.batch_norm %[[Y]]
func.func @runtime_stats_not_folded(%x: tensor<1x2x4x4xf32>, %mean: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2x1x1xf32>
  %var = arith.constant dense<1.0> : tensor<2xf32>
  %y = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  // expected-remark @+1 {{batch norm not folded: a weight, bias or statistic is not a constant}}
  %z = aten.batch_norm %y, %mean, %var
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}

// -----

// A weight computed at run time (a function argument) cannot be folded either.
// CHECK-LABEL: func.func @runtime_weight_not_folded
// CHECK: aten.batch_norm
func.func @runtime_weight_not_folded(%x: tensor<3x2xf32>, %w: tensor<2x2xf32>) -> tensor<3x2xf32> {
  %mean = arith.constant dense<0.0> : tensor<2xf32>
  %var = arith.constant dense<1.0> : tensor<2xf32>
  %y = aten.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{batch norm not folded: a weight, bias or statistic is not a constant}}
  %z = aten.batch_norm %y, %mean, %var
      : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}

// -----

// A batch norm whose input is not a conv or linear stays.
// CHECK-LABEL: func.func @no_producer
// CHECK: aten.batch_norm %arg0
func.func @no_producer(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %mean = arith.constant dense<0.0> : tensor<2xf32>
  %var = arith.constant dense<1.0> : tensor<2xf32>
  // expected-remark @+1 {{batch norm not folded: its input is not the result of aten.convolution or aten.linear}}
  %z = aten.batch_norm %x, %mean, %var
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}

// -----

// σ² + ε = 0 would put inf into the weights: the batch norm stays.
// CHECK-LABEL: func.func @zero_variance_not_folded
// CHECK: aten.batch_norm
func.func @zero_variance_not_folded(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  %mean = arith.constant dense<0.0> : tensor<2xf32>
  %var = arith.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %y = aten.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{batch norm not folded: running_var + eps is not positive in some channel}}
  %z = aten.batch_norm %y, %mean, %var {eps = 0.0 : f64}
      : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}

// -----

// An f16 weight stays f16: the folded weight and bias are rounded to f16 once.
// s = [1/√4, 1/√16] = [0.5, 0.25].
// CHECK-LABEL: func.func @f16_conv_bn
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.500000e+00]]], {{\[\[\[}}5.000000e-01]]]]> : tensor<2x1x1x1xf16>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.500000e-01]> : tensor<2xf16>
// CHECK: aten.convolution %{{.*}}, %[[W]], %[[B]] {{.*}} -> tensor<1x2x4x4xf16>
func.func @f16_conv_bn(%x: tensor<1x1x4x4xf16>) -> tensor<1x2x4x4xf16> {
  %w = arith.constant dense<[[[[3.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf16>
  %b = arith.constant dense<[2.0, 1.0]> : tensor<2xf16>
  %mean = arith.constant dense<0.0> : tensor<2xf16>
  %var = arith.constant dense<[4.0, 16.0]> : tensor<2xf16>
  %y = aten.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false}
      : (tensor<1x1x4x4xf16>, tensor<2x1x1x1xf16>, tensor<2xf16>) -> tensor<1x2x4x4xf16>
  %z = aten.batch_norm %y, %mean, %var {eps = 0.0 : f64}
      : (tensor<1x2x4x4xf16>, tensor<2xf16>, tensor<2xf16>) -> tensor<1x2x4x4xf16>
  return %z : tensor<1x2x4x4xf16>
}
