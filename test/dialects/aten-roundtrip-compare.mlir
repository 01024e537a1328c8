// RUN: duet-opt %s | duet-opt | FileCheck %s

// Comparisons, logical ops, where and any print and parse back; their results
// are boolean (i1) tensors of the broadcast shape.

// eq of two tensors broadcasting one of them.
// CHECK-LABEL: func.func @eq
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4x4xf32>, %[[B:[^:]*]]: tensor<1x4xf32>)
// CHECK: %[[Y:.*]] = aten.eq %[[A]], %[[B]] : tensor<4x4xf32>, tensor<1x4xf32> -> tensor<4x4xi1>
// CHECK: return %[[Y]]
func.func @eq(%a: tensor<4x4xf32>, %b: tensor<1x4xf32>) -> tensor<4x4xi1> {
  %0 = aten.eq %a, %b : tensor<4x4xf32>, tensor<1x4xf32> -> tensor<4x4xi1>
  return %0 : tensor<4x4xi1>
}

// ne of integer tensors.
// CHECK-LABEL: func.func @ne
// CHECK: aten.ne %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64> -> tensor<4xi1>
func.func @ne(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi1> {
  %0 = aten.ne %a, %b : tensor<4xi64>, tensor<4xi64> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// lt.Scalar: a 0-d constant operand.
// CHECK-LABEL: func.func @lt_scalar
// CHECK: %[[C:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: aten.lt %{{.*}}, %[[C]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi1>
func.func @lt_scalar(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %0 = aten.lt %x, %zero : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// le in f16.
// CHECK-LABEL: func.func @le
// CHECK: aten.le %{{.*}}, %{{.*}} : tensor<4xf16>, tensor<4xf16> -> tensor<4xi1>
func.func @le(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xi1> {
  %0 = aten.le %a, %b : tensor<4xf16>, tensor<4xf16> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// gt broadcasting both operands.
// CHECK-LABEL: func.func @gt
// CHECK: aten.gt %{{.*}}, %{{.*}} : tensor<2x1xf32>, tensor<1x3xf32> -> tensor<2x3xi1>
func.func @gt(%a: tensor<2x1xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xi1> {
  %0 = aten.gt %a, %b : tensor<2x1xf32>, tensor<1x3xf32> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// ge in bf16.
// CHECK-LABEL: func.func @ge
// CHECK: aten.ge %{{.*}}, %{{.*}} : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xi1>
func.func @ge(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xi1> {
  %0 = aten.ge %a, %b : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// logical_and of booleans.
// CHECK-LABEL: func.func @logical_and
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4x4xi1>, %[[B:[^:]*]]: tensor<4x4xi1>)
// CHECK: aten.logical_and %[[A]], %[[B]] : tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>
func.func @logical_and(%a: tensor<4x4xi1>, %b: tensor<4x4xi1>) -> tensor<4x4xi1> {
  %0 = aten.logical_and %a, %b : tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>
  return %0 : tensor<4x4xi1>
}

// logical_or reads non-boolean operands of different types as "non-zero is true".
// CHECK-LABEL: func.func @logical_or_mixed
// CHECK: aten.logical_or %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<1xi64> -> tensor<4xi1>
func.func @logical_or_mixed(%a: tensor<4xf32>, %b: tensor<1xi64>) -> tensor<4xi1> {
  %0 = aten.logical_or %a, %b : tensor<4xf32>, tensor<1xi64> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// logical_not of a float tensor gives booleans of the same shape.
// CHECK-LABEL: func.func @logical_not
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: aten.logical_not %[[X]] : tensor<2x3xf32> -> tensor<2x3xi1>
func.func @logical_not(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %0 = aten.logical_not %x : tensor<2x3xf32> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// where broadcasts the condition and a 0-d constant to the result shape.
// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[M:[^:]*]]: tensor<4x1xi1>, %[[X:[^:]*]]: tensor<4x4xf32>)
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[Y:.*]] = aten.where %[[M]], %[[X]], %[[Z]] : tensor<4x1xi1>, tensor<4x4xf32>, tensor<f32> -> tensor<4x4xf32>
// CHECK: return %[[Y]]
func.func @where(%m: tensor<4x1xi1>, %x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %0 = aten.where %m, %x, %zero : tensor<4x1xi1>, tensor<4x4xf32>, tensor<f32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// where's result may be larger than each operand alone.
// CHECK-LABEL: func.func @where_broadcast_all
// CHECK: aten.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x1x1xi1>, tensor<3x1xf16>, tensor<4xf16> -> tensor<2x3x4xf16>
func.func @where_broadcast_all(%m: tensor<2x1x1xi1>, %a: tensor<3x1xf16>, %b: tensor<4xf16>) -> tensor<2x3x4xf16> {
  %0 = aten.where %m, %a, %b : tensor<2x1x1xi1>, tensor<3x1xf16>, tensor<4xf16> -> tensor<2x3x4xf16>
  return %0 : tensor<2x3x4xf16>
}

// any over one dim with keepdim.
// CHECK-LABEL: func.func @any_keepdim
// CHECK-SAME: (%[[M:[^:]*]]: tensor<4x4xi1>)
// CHECK: aten.any %[[M]] {dim = array<i64: 1>, keepdim = true} : tensor<4x4xi1> -> tensor<4x1xi1>
func.func @any_keepdim(%m: tensor<4x4xi1>) -> tensor<4x1xi1> {
  %0 = aten.any %m {dim = array<i64: 1>, keepdim = true} : tensor<4x4xi1> -> tensor<4x1xi1>
  return %0 : tensor<4x1xi1>
}

// any over every dim elides the defaults and gives a 0-d boolean.
// CHECK-LABEL: func.func @any_all
// CHECK: aten.any %{{.*}} : tensor<4x4xi1> -> tensor<i1>
func.func @any_all(%m: tensor<4x4xi1>) -> tensor<i1> {
  %0 = aten.any %m {dim = array<i64>, keepdim = false} : tensor<4x4xi1> -> tensor<i1>
  return %0 : tensor<i1>
}
