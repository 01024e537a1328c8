// RUN: duet-opt --split-input-file --duet-fold-scale %s | FileCheck %s

// The query scaling of an attention layer: a linear, the head split (view
// and permute), then times 0.5. The weight and bias are scaled, the
// multiply is gone, and the head split reads the scaled linear.
// CHECK-LABEL: func.func @query_scale
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[}}5.000000e-01, 1.000000e+00], [1.500000e+00, -2.000000e+00], [0.000000e+00, 2.500000e-01], [3.000000e+00, 5.000000e-01]]> : tensor<4x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[5.000000e-01, 0.000000e+00, -1.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK: %[[Y:.*]] = aten.linear %{{.*}}, %[[W]], %[[B]]
// CHECK: %[[V:.*]] = aten.view %[[Y]]
// CHECK: %[[P:.*]] = aten.permute %[[V]]
// CHECK-NOT: aten.mul
// CHECK: return %[[P]]
func.func @query_scale(%x: tensor<3x2xf32>) -> tensor<2x3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, -4.0], [0.0, 0.5], [6.0, 1.0]]> : tensor<4x2xf32>
  %b = arith.constant dense<[1.0, 0.0, -2.0, 4.0]> : tensor<4xf32>
  %c = arith.constant dense<0.5> : tensor<f32>
  %y = aten.linear %x, %w, %b : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %v = aten.view %y : tensor<3x4xf32> -> tensor<3x2x2xf32>
  %p = aten.permute %v {dims = array<i64: 1, 0, 2>} : tensor<3x2x2xf32> -> tensor<2x3x2xf32>
  %z = aten.mul %p, %c : tensor<2x3x2xf32>, tensor<f32> -> tensor<2x3x2xf32>
  return %z : tensor<2x3x2xf32>
}

// -----

// The scalar first, of one element but not 0-d, and a convolution without
// bias: 2 x 0.1 (in f32).
// CHECK-LABEL: func.func @scalar_first_conv
// CHECK: %[[W:.*]] = arith.constant dense<2.000000e-01> : tensor<2x1x1x1xf32>
// CHECK: %[[Y:.*]] = aten.convolution %{{.*}}, %[[W]] {
// CHECK-NOT: aten.mul
// CHECK: return %[[Y]]
func.func @scalar_first_conv(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = arith.constant dense<2.0> : tensor<2x1x1x1xf32>
  %c = arith.constant dense<0.1> : tensor<1xf32>
  %y = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false}
      : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %z = aten.mul %c, %y : tensor<1xf32>, tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

// -----

// A bias another layer reads too stays for it; the scaled one is new.
// CHECK-LABEL: func.func @shared_bias
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[B2:.*]] = arith.constant dense<[3.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[W2:.*]] = arith.constant dense<3.000000e+00> : tensor<2x2xf32>
// CHECK-DAG: aten.linear %{{.*}}, %[[W2]], %[[B2]]
// CHECK-DAG: aten.linear %{{.*}}, %{{.*}}, %[[B]]
// CHECK-NOT: aten.mul
func.func @shared_bias(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  %b = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = arith.constant dense<3.0> : tensor<f32>
  %y = aten.linear %x, %w, %b : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %z = aten.mul %y, %c : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xf32>
  %u = aten.linear %x, %w, %b : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %z, %u : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Left alone: the layer's result is read by another op too; the weight is
// not a constant; the scalar is not a constant; the multiply broadcasts
// the layer's result; the other operand is not a layer's (a clone between
// computes nothing but is not a view or permute).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-5: aten.mul
func.func @left_alone(%x: tensor<3x2xf32>, %w: tensor<2x2xf32>, %s: tensor<f32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3x2xf32>, tensor<3x2xf32>) {
  %k = arith.constant dense<1.0> : tensor<2x2xf32>
  %c = arith.constant dense<3.0> : tensor<f32>
  %y = aten.linear %x, %k : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %z = aten.mul %y, %c : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xf32>
  %y2 = aten.linear %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %z2 = aten.mul %y2, %c : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xf32>
  %y3 = aten.linear %x, %k : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %z3 = aten.mul %y3, %s : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xf32>
  %c4 = arith.constant dense<3.0> : tensor<2x1x1xf32>
  %y4 = aten.linear %x, %k : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %z4 = aten.mul %y4, %c4 : tensor<3x2xf32>, tensor<2x1x1xf32> -> tensor<2x3x2xf32>
  %y5 = aten.linear %x, %k : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %l5 = aten.clone %y5 : tensor<3x2xf32>
  %z5 = aten.mul %l5, %c : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xf32>
  return %z, %y, %z2, %z3, %z4, %z5 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3x2xf32>, tensor<3x2xf32>
}

// -----

// An attention's own scale (1/sqrt(4) = 0.5 by default) moves into its
// query's projection through the head split, and the attention's becomes
// 1; the key's projection is not scaled.
// CHECK-LABEL: func.func @attention_scale
// CHECK-DAG: %[[WQ:.*]] = arith.constant dense<{{\[\[}}5.000000e-01, 1.000000e+00], [1.500000e+00, -2.000000e+00], [0.000000e+00, 2.500000e-01], [3.000000e+00, 5.000000e-01]]> : tensor<4x2xf32>
// CHECK-DAG: %[[BQ:.*]] = arith.constant dense<[5.000000e-01, 0.000000e+00, -1.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, -4.000000e+00], [0.000000e+00, 5.000000e-01], [6.000000e+00, 1.000000e+00]]> : tensor<4x2xf32>
// CHECK: %[[Q:.*]] = aten.linear %{{.*}}, %[[WQ]], %[[BQ]]
// CHECK: %[[K:.*]] = aten.linear %{{.*}}, %[[W]]
// CHECK: aten.scaled_dot_product_attention {{.*}} {scale = 1.000000e+00 : f64}
func.func @attention_scale(%x: tensor<3x2xf32>) -> tensor<1x3x4xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, -4.0], [0.0, 0.5], [6.0, 1.0]]> : tensor<4x2xf32>
  %b = arith.constant dense<[1.0, 0.0, -2.0, 4.0]> : tensor<4xf32>
  %q = aten.linear %x, %w, %b : (tensor<3x2xf32>, tensor<4x2xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %qv = aten.view %q : tensor<3x4xf32> -> tensor<1x3x4xf32>
  %k = aten.linear %x, %w : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
  %kv = aten.view %k : tensor<3x4xf32> -> tensor<1x3x4xf32>
  %y = aten.scaled_dot_product_attention %qv, %kv, %kv
      : (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

// -----

// Left alone: an attention whose query is an argument, and one whose query's
// projection is read by another op too; their scales stay.
// CHECK-LABEL: func.func @attention_left_alone
// CHECK-NOT: scale = 1.0
// CHECK: aten.scaled_dot_product_attention {{.*}}: (
// CHECK: aten.scaled_dot_product_attention {{.*}} {scale = 2.500000e-01 : f64}
func.func @attention_left_alone(%x: tensor<3x2xf32>, %a: tensor<1x3x4xf32>) -> (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<3x4xf32>) {
  %w = arith.constant dense<1.0> : tensor<4x2xf32>
  %y = aten.scaled_dot_product_attention %a, %a, %a
      : (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  %q = aten.linear %x, %w : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
  %qv = aten.view %q : tensor<3x4xf32> -> tensor<1x3x4xf32>
  %z = aten.scaled_dot_product_attention %qv, %a, %a {scale = 0.25 : f64}
      : (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  return %y, %z, %q : tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<3x4xf32>
}
