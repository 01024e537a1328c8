// RUN: duet-opt --split-input-file --duet-normalize %s | FileCheck %s

// addmm(b, x, permute(W, [1, 0])) is linear(x, W, b); the permute of the
// constant weight is not folded first, so the original blob is kept.
// CHECK-LABEL: func.func @addmm_to_linear
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<fc_w> : tensor<2x3xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK: %[[Y:.*]] = aten.linear %[[X]], %[[W]], %[[B]] : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NOT: aten.permute
// CHECK: return %[[Y]]
func.func @addmm_to_linear(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = arith.constant dense_resource<fc_w> : tensor<2x3xf32>
  %b = arith.constant dense<0.5> : tensor<2xf32>
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %y = aten.addmm %b, %x, %wt : (tensor<2xf32>, tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      fc_w: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

// mm(x, permute(W, [1, 0])) is linear(x, W) without bias.
// CHECK-LABEL: func.func @mm_to_linear
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.linear %[[X]], %[[W]] : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @mm_to_linear(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
  %y = aten.mm %x, %wt : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// view [2,3,4] → [6,4], addmm, view [6,5] → [2,3,5] is one N-D linear on x.
// CHECK-LABEL: func.func @flattened_linear
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.linear %[[X]], %[[W]], %[[B]] : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @flattened_linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %flat = aten.view %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<5x4xf32> -> tensor<4x5xf32>
  %y = aten.addmm %b, %flat, %wt : (tensor<5xf32>, tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %z = aten.view %y : tensor<6x5xf32> -> tensor<2x3x5xf32>
  return %z : tensor<2x3x5xf32>
}

// -----

// The same without bias (view + mm + view) is one N-D linear without bias.
// CHECK-LABEL: func.func @flattened_linear_no_bias
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.linear %[[X]], %[[W]] : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @flattened_linear_no_bias(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %flat = aten.view %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<5x4xf32> -> tensor<4x5xf32>
  %y = aten.mm %flat, %wt : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %z = aten.view %y : tensor<6x5xf32> -> tensor<2x3x5xf32>
  return %z : tensor<2x3x5xf32>
}

// -----

// Views that do not restore the leading dims ([6,5] → [3,2,5]) keep the 2-D linear.
// CHECK-LABEL: func.func @flattened_linear_other_shape
// CHECK: aten.view %{{.*}} : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: aten.linear %{{.*}} -> tensor<6x5xf32>
// CHECK: aten.view %{{.*}} : tensor<6x5xf32> -> tensor<3x2x5xf32>
func.func @flattened_linear_other_shape(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> tensor<3x2x5xf32> {
  %flat = aten.view %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<5x4xf32> -> tensor<4x5xf32>
  %y = aten.mm %flat, %wt : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  %z = aten.view %y : tensor<6x5xf32> -> tensor<3x2x5xf32>
  return %z : tensor<3x2x5xf32>
}

// -----

// A constant mat2 (the transpose already folded) that nothing else reads is
// turned back into an [out, in] weight: [[1, 2, 3], [4, 5, 6]]ᵀ.
// CHECK-LABEL: func.func @constant_mat2_to_linear
// CHECK-SAME: (%[[X:.*]]: tensor<4x2xf32>)
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK: aten.linear %[[X]], %[[W]] : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
func.func @constant_mat2_to_linear(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %wt = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = aten.mm %x, %wt : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// matmul of an N-D input with a transposed 2-D weight is linear.
// CHECK-LABEL: func.func @matmul_to_linear
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.linear %[[X]], %[[W]] : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @matmul_to_linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<5x4xf32> -> tensor<4x5xf32>
  %y = aten.matmul %x, %wt : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// addmm with beta = 2 is not a linear; nor is mm with a non-transposed operand.
// CHECK-LABEL: func.func @not_linear
// CHECK-NOT: aten.linear
// CHECK: aten.addmm
// CHECK: aten.mm
func.func @not_linear(%b: tensor<8xf32>, %x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %m: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
  %y = aten.addmm %b, %x, %wt {beta = 2.0 : f64} : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %z = aten.mm %x, %m : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %y, %z : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Identities vanish: clone, cast to the same type, cat of one tensor, view to
// the same shape, permute by the identity, expand to the same shape.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @identities(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.clone %x : tensor<2x3xf32>
  %1 = aten.cast %0 : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = aten.cat %1 {dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = aten.view %2 : tensor<2x3xf32> -> tensor<2x3xf32>
  %4 = aten.permute %3 {dims = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %5 = aten.expand %4 : tensor<2x3xf32> -> tensor<2x3xf32>
  return %5 : tensor<2x3xf32>
}

// -----

// Ops that do change something stay: a real cast, permute, expand and cat.
// CHECK-LABEL: func.func @not_identities
// CHECK: aten.cast
// CHECK: aten.permute
// CHECK: aten.expand
// CHECK: aten.cat
func.func @not_identities(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>) -> (tensor<2x3xf16>, tensor<3x2xf32>, tensor<4x3xf32>, tensor<3x3xf32>) {
  %0 = aten.cast %x : tensor<2x3xf32> -> tensor<2x3xf16>
  %1 = aten.permute %x {dims = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = aten.expand %y : tensor<1x3xf32> -> tensor<4x3xf32>
  %3 = aten.cat %x, %y {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf16>, tensor<3x2xf32>, tensor<4x3xf32>, tensor<3x3xf32>
}

// -----

// A view of a view is one view.
// CHECK-LABEL: func.func @view_of_view
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.view %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[Y]]
func.func @view_of_view(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = aten.view %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = aten.view %0 : tensor<6x4xf32> -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// A permute and a view of constants are evaluated.
// CHECK-LABEL: func.func @fold_permute_view
// CHECK-DAG: %[[P:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG: %[[V:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf32>
// CHECK-NOT: aten.
// CHECK: return %[[P]], %[[V]]
func.func @fold_permute_view() -> (tensor<3x2xf32>, tensor<6xf32>) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %p = aten.permute %c {dims = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %v = aten.view %c : tensor<2x3xf32> -> tensor<6xf32>
  return %p, %v : tensor<3x2xf32>, tensor<6xf32>
}

// -----

// A mean and a sum of constants are evaluated, over some dims and over all
// (the statistics of a standardized weight fold at compile time).
// CHECK-LABEL: func.func @fold_reductions
// CHECK-DAG: %[[M:.*]] = arith.constant dense<{{\[\[}}2.000000e+00], [5.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<2.100000e+01> : tensor<f32>
// CHECK-NOT: aten.
// CHECK: return %[[M]], %[[S]]
func.func @fold_reductions() -> (tensor<2x1xf32>, tensor<f32>) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %m = aten.mean %c {dim = array<i64: 1>, keepdim = true} : tensor<2x3xf32> -> tensor<2x1xf32>
  %s = aten.sum %c : tensor<2x3xf32> -> tensor<f32>
  return %m, %s : tensor<2x1xf32>, tensor<f32>
}

// -----

// A slice of an integer constant is evaluated, with a step, and of a splat.
// CHECK-LABEL: func.func @fold_slice
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[}}1, 3], [5, 7]]> : tensor<2x2xi64>
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0> : tensor<1x2xi64>
// CHECK-NOT: aten.
// CHECK: return %[[S]], %[[Z]]
func.func @fold_slice() -> (tensor<2x2xi64>, tensor<1x2xi64>) {
  %c = arith.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>
  %s = aten.slice %c {dim = 1 : i64, start = 1 : i64, end = 4 : i64, step = 2 : i64} : tensor<2x4xi64> -> tensor<2x2xi64>
  %z = arith.constant dense<0> : tensor<1x12xi64>
  %t = aten.slice %z {dim = 1 : i64, start = 0 : i64, end = 2 : i64} : tensor<1x12xi64> -> tensor<1x2xi64>
  return %s, %t : tensor<2x2xi64>, tensor<1x2xi64>
}

// -----

// A cat of constants is evaluated along its dim, a splat part expanded
// (BEiT's qkv bias: q bias, zeros, v bias), so that the linear reading it
// has a constant bias; a cat with a computed part stays.
// CHECK-LABEL: func.func @fold_cat
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<6xf32>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<{{\[\[}}1, 2, 9], [3, 4, 9]]> : tensor<2x3xi64>
// CHECK: %[[KEPT:.*]] = aten.cat %arg0, %{{.*}} {dim = 0 : i64}
// CHECK: return %[[B]], %[[M]], %[[KEPT]]
func.func @fold_cat(%x: tensor<2xf32>) -> (tensor<6xf32>, tensor<2x3xi64>, tensor<4xf32>) {
  %q = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %k = arith.constant dense<0.0> : tensor<2xf32>
  %v = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %b = aten.cat %q, %k, %v {dim = 0 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<6xf32>
  %l = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %r = arith.constant dense<9> : tensor<2x1xi64>
  %m = aten.cat %l, %r {dim = 1 : i64} : (tensor<2x2xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
  %kept = aten.cat %x, %q {dim = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %b, %m, %kept : tensor<6xf32>, tensor<2x3xi64>, tensor<4xf32>
}

// -----

// A constant scale of a linear's output features folds into its weight rows
// and bias (a layer scale), also through the permute back to channels-first
// of timm's ConvNeXt; a scale along another dim stays a mul.
// CHECK-LABEL: func.func @scale_linear
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[}}2.000000e+00, 4.000000e+00], [-3.000000e+00, -3.000000e+00], [5.000000e-01, 0.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[2.000000e+00, -3.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK: %[[Y:.*]] = aten.linear %arg0, %[[W]], %[[B]] : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: %[[L:.*]] = aten.linear %arg1, %[[W]] : (tensor<1x2x2x2xf32>, tensor<3x2xf32>) -> tensor<1x2x2x3xf32>
// CHECK: %[[P:.*]] = aten.permute %[[L]] {dims = array<i64: 0, 3, 1, 2>}
// CHECK: %[[K:.*]] = aten.linear %arg0
// CHECK: %[[M:.*]] = aten.mul %[[K]]
// CHECK: return %[[Y]], %[[P]], %[[M]]
func.func @scale_linear(%x: tensor<4x2xf32>, %h: tensor<1x2x2x2xf32>) -> (tensor<4x3xf32>, tensor<1x3x2x2xf32>, tensor<4x3xf32>) {
  %w = arith.constant dense<[[1.0, 2.0], [1.0, 1.0], [1.0, 0.0]]> : tensor<3x2xf32>
  %b = arith.constant dense<[1.0, 1.0, 2.0]> : tensor<3xf32>
  %g = arith.constant dense<[2.0, -3.0, 0.5]> : tensor<3xf32>
  %0 = aten.linear %x, %w, %b : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = aten.mul %0, %g : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %g4 = arith.constant dense<[[[[2.0]], [[-3.0]], [[0.5]]]]> : tensor<1x3x1x1xf32>
  %2 = aten.linear %h, %w : (tensor<1x2x2x2xf32>, tensor<3x2xf32>) -> tensor<1x2x2x3xf32>
  %3 = aten.permute %2 {dims = array<i64: 0, 3, 1, 2>} : tensor<1x2x2x3xf32> -> tensor<1x3x2x2xf32>
  %4 = aten.mul %g4, %3 : tensor<1x3x1x1xf32>, tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32>
  %rows = arith.constant dense<[[1.0], [2.0], [3.0], [4.0]]> : tensor<4x1xf32>
  %5 = aten.linear %x, %w, %b : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %6 = aten.mul %5, %rows : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
  return %1, %4, %6 : tensor<4x3xf32>, tensor<1x3x2x2xf32>, tensor<4x3xf32>
}

// -----

// A non-finite factor stays a mul: folded, inf times a zero weight is NaN;
// so does an f16 linear, whose scaled weights could leave f16's range.
// CHECK-LABEL: func.func @scale_linear_infinite
// CHECK: %[[L:.*]] = aten.linear %arg0
// CHECK: aten.mul %[[L]]
// CHECK: %[[H:.*]] = aten.linear %arg1
// CHECK: aten.mul %[[H]]
func.func @scale_linear_infinite(%x: tensor<4x2xf32>, %y: tensor<4x2xf16>) -> (tensor<4x2xf32>, tensor<4x2xf16>) {
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %g = arith.constant dense<[0x7F800000, 2.0]> : tensor<2xf32>
  %0 = aten.linear %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %1 = aten.mul %0, %g : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
  %wh = arith.constant dense<[[300.0, 1.0], [1.0, 1.0]]> : tensor<2x2xf16>
  %gh = arith.constant dense<[300.0, 1.0]> : tensor<2xf16>
  %2 = aten.linear %y, %wh : (tensor<4x2xf16>, tensor<2x2xf16>) -> tensor<4x2xf16>
  %3 = aten.mul %2, %gh : tensor<4x2xf16>, tensor<2xf16> -> tensor<4x2xf16>
  return %1, %3 : tensor<4x2xf32>, tensor<4x2xf16>
}

// -----

// The same for a convolution's output channels ([1, C, 1, 1], dim 1); a
// transposed convolution's weight is [Cin, Cout] and stays.
// CHECK-LABEL: func.func @scale_convolution
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}-3.000000e+00]], {{\[\[}}-3.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[2.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = aten.convolution %arg0, %[[W]], %[[B]]
// CHECK: %[[T:.*]] = aten.convolution %arg0
// CHECK-SAME: transposed = true
// CHECK: %[[M:.*]] = aten.mul %[[T]]
// CHECK: return %[[C]], %[[M]]
func.func @scale_convolution(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = arith.constant dense<[[[[1.0]], [[2.0]]], [[[1.0]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %b = arith.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %g = arith.constant dense<[[[[2.0]], [[-3.0]]]]> : tensor<1x2x1x1xf32>
  %0 = aten.convolution %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %1 = aten.mul %0, %g : tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %2 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = true} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %3 = aten.mul %2, %g : tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32> -> tensor<1x2x3x3xf32>
  return %1, %3 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// An embedding of constant rows by constant indices (position embeddings
// looked up by a constant arange: the Whisper encoder's) is evaluated, i32
// indices and a splat table too; an index outside the table, and computed
// indices, stay for the kernel.
// CHECK-LABEL: func.func @fold_embedding
// CHECK-DAG: %[[E:.*]] = arith.constant dense<{{\[\[\[}}5.000000e+00, 6.000000e+00], [1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00]]]> : tensor<1x3x2xf32>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<7.000000e+00> : tensor<2x2xf32>
// CHECK-DAG: %[[OUT:.*]] = aten.embedding %{{.*}}, %{{.*}} : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
// CHECK-DAG: %[[DYN:.*]] = aten.embedding %{{.*}}, %arg0 : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
// CHECK: return %[[E]], %[[S]], %[[OUT]], %[[DYN]]
func.func @fold_embedding(%ids: tensor<4xi64>) -> (tensor<1x3x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>, tensor<4x2xf32>) {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %i = arith.constant dense<[[2, 0, 2]]> : tensor<1x3xi64>
  %e = aten.embedding %w, %i : (tensor<3x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
  %splat = arith.constant dense<7.0> : tensor<5x2xf32>
  %j = arith.constant dense<[4, 1]> : tensor<2xi32>
  %s = aten.embedding %splat, %j : (tensor<5x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  %bad = arith.constant dense<[3]> : tensor<1xi64>
  %out = aten.embedding %w, %bad : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
  %run = aten.embedding %w, %ids : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  return %e, %s, %out, %run : tensor<1x3x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>, tensor<4x2xf32>
}

// -----

// A 3-D permute of a dense_resource constant reads the blob: [2,2,1] by [2,0,1].
// CHECK-LABEL: func.func @fold_permute_resource
// CHECK: %[[P:.*]] = arith.constant dense<{{\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]]> : tensor<1x2x2xf32>
// CHECK-NEXT: return %[[P]]
func.func @fold_permute_resource() -> tensor<1x2x2xf32> {
  %c = arith.constant dense_resource<blob> : tensor<2x2x1xf32>
  %p = aten.permute %c {dims = array<i64: 2, 0, 1>} : tensor<2x2x1xf32> -> tensor<1x2x2xf32>
  return %p : tensor<1x2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Elementwise ops on constants are evaluated with broadcasting:
// ([1, 4] · 2 + [[1], [2]]·alpha 0.5) then neg, sqrt, rsqrt and a cast to f16.
// CHECK-LABEL: func.func @fold_arithmetic
// CHECK-DAG: %[[A:.*]] = arith.constant dense<{{\[\[}}2.500000e+00, 8.500000e+00], [3.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[N:.*]] = arith.constant dense<[-1.000000e+00, -4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[R:.*]] = arith.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[H:.*]] = arith.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf16>
// CHECK-NOT: aten.
// CHECK: return %[[A]], %[[N]], %[[S]], %[[R]], %[[H]]
func.func @fold_arithmetic() -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf16>) {
  %c = arith.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %col = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %m = aten.mul %c, %two : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  %a = aten.add %m, %col {alpha = 0.5 : f64} : tensor<2xf32>, tensor<2x1xf32> -> tensor<2x2xf32>
  %n = aten.neg %c : tensor<2xf32>
  %s = aten.sqrt %c : tensor<2xf32>
  %r = aten.rsqrt %c : tensor<2xf32>
  %h = aten.cast %c : tensor<2xf32> -> tensor<2xf16>
  return %a, %n, %s, %r, %h : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf16>
}

// -----

// sub, div, maximum and minimum on constants are evaluated too.
// CHECK-LABEL: func.func @fold_more_binary
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[D:.*]] = arith.constant dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[MX:.*]] = arith.constant dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[MN:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NOT: aten.
// CHECK: return %[[S]], %[[D]], %[[MX]], %[[MN]]
func.func @fold_more_binary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = arith.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %s = aten.sub %c, %two : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  %d = aten.div %c, %two : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  %mx = aten.maximum %c, %two : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  %mn = aten.minimum %c, %two : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  return %s, %d, %mx, %mn : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// An all-constant op without an evaluator (softmax) stays as it is.
// CHECK-LABEL: func.func @no_evaluator
// CHECK: %[[C:.*]] = arith.constant
// CHECK: %[[Y:.*]] = aten.softmax %[[C]]
// CHECK: return %[[Y]]
func.func @no_evaluator() -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %y = aten.softmax %c {dim = 0 : i64} : tensor<2xf32>
  return %y : tensor<2xf32>
}
