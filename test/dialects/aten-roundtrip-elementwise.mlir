// RUN: duet-opt %s | duet-opt | FileCheck %s

// Elementwise ops print and parse back: unary ops with one type, parameterized
// ops with their attributes (elided at their defaults), enum attributes, and
// binary ops with a broadcast operand or a 0-d scalar constant.

// relu prints with its one type.
// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = aten.relu %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// hardswish prints with its one type.
// CHECK-LABEL: func.func @hardswish
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = aten.hardswish %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @hardswish(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.hardswish %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// hardsigmoid prints with its one type, here f16.
// CHECK-LABEL: func.func @hardsigmoid
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf16>)
// CHECK: %[[Y:.*]] = aten.hardsigmoid %[[X]] : tensor<2x3xf16>
// CHECK: return %[[Y]]
func.func @hardsigmoid(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %0 = aten.hardsigmoid %x : tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// silu prints with its one type.
// CHECK-LABEL: func.func @silu
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = aten.silu %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @silu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.silu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// sigmoid prints with its one type, here bf16.
// CHECK-LABEL: func.func @sigmoid
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xbf16>)
// CHECK: %[[Y:.*]] = aten.sigmoid %[[X]] : tensor<2x3xbf16>
// CHECK: return %[[Y]]
func.func @sigmoid(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = aten.sigmoid %x : tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}

// tanh prints with its one type.
// CHECK-LABEL: func.func @tanh
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = aten.tanh %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.tanh %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// abs prints with its one type.
// CHECK-LABEL: func.func @abs
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = aten.abs %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @abs(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.abs %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// neg prints with its one type, here f64.
// CHECK-LABEL: func.func @neg
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf64>)
// CHECK: %[[Y:.*]] = aten.neg %[[X]] : tensor<2x3xf64>
// CHECK: return %[[Y]]
func.func @neg(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = aten.neg %x : tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// exp prints with its one type.
// CHECK-LABEL: func.func @exp
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = aten.exp %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.exp %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// log prints with its one type.
// CHECK-LABEL: func.func @log
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = aten.log %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @log(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.log %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// sqrt prints with its one type, here f16.
// CHECK-LABEL: func.func @sqrt
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf16>)
// CHECK: %[[Y:.*]] = aten.sqrt %[[X]] : tensor<2x3xf16>
// CHECK: return %[[Y]]
func.func @sqrt(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %0 = aten.sqrt %x : tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// rsqrt prints with its one type.
// CHECK-LABEL: func.func @rsqrt
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[Y:.*]] = aten.rsqrt %[[X]] : tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @rsqrt(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.rsqrt %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// hardtanh at its defaults [-1, 1] elides both bounds.
// CHECK-LABEL: func.func @hardtanh_default
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4xf32>)
// CHECK: aten.hardtanh %[[X]] : tensor<4xf32>
func.func @hardtanh_default(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.hardtanh %x {max_val = 1.0 : f64, min_val = -1.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// hardtanh as relu6 keeps both bounds; equal bounds are allowed.
// CHECK-LABEL: func.func @hardtanh_relu6
// CHECK: aten.hardtanh %{{.*}} {max_val = 6.000000e+00 : f64, min_val = 0.000000e+00 : f64} : tensor<4xf32>
// CHECK: aten.hardtanh %{{.*}} {max_val = 2.000000e+00 : f64, min_val = 2.000000e+00 : f64} : tensor<4xf32>
func.func @hardtanh_relu6(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.hardtanh %x {max_val = 6.0 : f64, min_val = 0.0 : f64} : tensor<4xf32>
  %1 = aten.hardtanh %0 {max_val = 2.0 : f64, min_val = 2.0 : f64} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// clamp with both bounds.
// CHECK-LABEL: func.func @clamp_both
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4xf32>)
// CHECK: aten.clamp %[[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<4xf32>
func.func @clamp_both(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.clamp %x {max = 6.0 : f64, min = 0.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// clamp with only a lower bound (clamp_min).
// CHECK-LABEL: func.func @clamp_min
// CHECK: aten.clamp %{{.*}} {min = -5.000000e-01 : f64} : tensor<4xf32>
func.func @clamp_min(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.clamp %x {min = -0.5 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// clamp with only an upper bound (clamp_max).
// CHECK-LABEL: func.func @clamp_max
// CHECK: aten.clamp %{{.*}} {max = 1.500000e+00 : f64} : tensor<4xbf16>
func.func @clamp_max(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = aten.clamp %x {max = 1.5 : f64} : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// hardshrink elides lambd at 0.5 and keeps other values.
// CHECK-LABEL: func.func @hardshrink
// CHECK: %[[A:.*]] = aten.hardshrink %{{.*}} : tensor<4xf32>
// CHECK: aten.hardshrink %[[A]] {lambd = 2.500000e-01 : f64} : tensor<4xf32>
func.func @hardshrink(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.hardshrink %x {lambd = 0.5 : f64} : tensor<4xf32>
  %1 = aten.hardshrink %0 {lambd = 0.25 : f64} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// gelu elides approximate = none and prints the tanh enum.
// CHECK-LABEL: func.func @gelu
// CHECK: %[[A:.*]] = aten.gelu %{{.*}} : tensor<2x8xf32>
// CHECK: aten.gelu %[[A]] {approximate = #aten.approximate<tanh>} : tensor<2x8xf32>
func.func @gelu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = aten.gelu %x {approximate = #aten.approximate<none>} : tensor<2x8xf32>
  %1 = aten.gelu %0 {approximate = #aten.approximate<tanh>} : tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// leaky_relu elides the default slope 0.01 and keeps another.
// CHECK-LABEL: func.func @leaky_relu
// CHECK: %[[A:.*]] = aten.leaky_relu %{{.*}} : tensor<4xf32>
// CHECK: aten.leaky_relu %[[A]] {negative_slope = 2.000000e-01 : f64} : tensor<4xf32>
func.func @leaky_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.leaky_relu %x {negative_slope = 0.01 : f64} : tensor<4xf32>
  %1 = aten.leaky_relu %0 {negative_slope = 0.2 : f64} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// elu elides its three parameters at 1 and keeps others (selu's constants here).
// CHECK-LABEL: func.func @elu
// CHECK: %[[A:.*]] = aten.elu %{{.*}} : tensor<4xf32>
// CHECK: aten.elu %[[A]] {alpha = 1.500000e+00 : f64, input_scale = 2.000000e+00 : f64, scale = 1.250000e+00 : f64} : tensor<4xf32>
func.func @elu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.elu %x {alpha = 1.0 : f64, input_scale = 1.0 : f64, scale = 1.0 : f64} : tensor<4xf32>
  %1 = aten.elu %0 {alpha = 1.5 : f64, input_scale = 2.0 : f64, scale = 1.25 : f64} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// pow with a scalar exponent, which has no default.
// CHECK-LABEL: func.func @pow
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4xf16>)
// CHECK: aten.pow %[[X]] {exponent = 2.000000e+00 : f64} : tensor<4xf16>
func.func @pow(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = aten.pow %x {exponent = 2.0 : f64} : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// add of two tensors broadcasting the second; alpha = 1 is elided.
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:[^:]*]]: tensor<2x1x8xf32>, %[[B:[^:]*]]: tensor<3x1xf32>)
// CHECK: %[[Y:.*]] = aten.add %[[A]], %[[B]] : tensor<2x1x8xf32>, tensor<3x1xf32> -> tensor<2x3x8xf32>
// CHECK: return %[[Y]]
func.func @add_broadcast(%a: tensor<2x1x8xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x8xf32> {
  %0 = aten.add %a, %b {alpha = 1.0 : f64} : tensor<2x1x8xf32>, tensor<3x1xf32> -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// add.Scalar: a 0-d constant operand and a non-default alpha.
// CHECK-LABEL: func.func @add_scalar
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16xf32>)
// CHECK: %[[C:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK: aten.add %[[X]], %[[C]] {alpha = 2.000000e+00 : f64} : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
func.func @add_scalar(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %three = arith.constant dense<3.0> : tensor<f32>
  %0 = aten.add %x, %three {alpha = 2.0 : f64} : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// sub with a 0-d constant on the left (rsub) and alpha.
// CHECK-LABEL: func.func @sub_scalar_lhs
// CHECK: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<f16>
// CHECK: aten.sub %[[C]], %{{.*}} {alpha = 5.000000e-01 : f64} : tensor<f16>, tensor<4x4xf16> -> tensor<4x4xf16>
func.func @sub_scalar_lhs(%x: tensor<4x4xf16>) -> tensor<4x4xf16> {
  %one = arith.constant dense<1.0> : tensor<f16>
  %0 = aten.sub %one, %x {alpha = 0.5 : f64} : tensor<f16>, tensor<4x4xf16> -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// mul by a 0-d scalar constant in bf16.
// CHECK-LABEL: func.func @mul_scalar_bf16
// CHECK: %[[C:.*]] = arith.constant dense<1.250000e-01> : tensor<bf16>
// CHECK: aten.mul %{{.*}}, %[[C]] : tensor<2x8xbf16>, tensor<bf16> -> tensor<2x8xbf16>
func.func @mul_scalar_bf16(%x: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %c = arith.constant dense<0.125> : tensor<bf16>
  %0 = aten.mul %x, %c : tensor<2x8xbf16>, tensor<bf16> -> tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}

// mul of integer tensors: binary ops are not float-only.
// CHECK-LABEL: func.func @mul_int
// CHECK: aten.mul %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
func.func @mul_int(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = aten.mul %a, %b : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// div elides rounding_mode = none.
// CHECK-LABEL: func.func @div_true
// CHECK: aten.div %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
func.func @div_true(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.div %a, %b {rounding_mode = #aten.rounding<none>} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// div.Scalar_mode with floor rounding by a 0-d constant.
// CHECK-LABEL: func.func @div_floor_scalar
// CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: aten.div %{{.*}}, %[[C]] {rounding_mode = #aten.rounding<floor>} : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
func.func @div_floor_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  %0 = aten.div %x, %two {rounding_mode = #aten.rounding<floor>} : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// div with trunc rounding.
// CHECK-LABEL: func.func @div_trunc
// CHECK: aten.div %{{.*}}, %{{.*}} {rounding_mode = #aten.rounding<trunc>} : tensor<4xf32>, tensor<1xf32> -> tensor<4xf32>
func.func @div_trunc(%a: tensor<4xf32>, %b: tensor<1xf32>) -> tensor<4xf32> {
  %0 = aten.div %a, %b {rounding_mode = #aten.rounding<trunc>} : tensor<4xf32>, tensor<1xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// maximum with a 0-d scalar constant.
// CHECK-LABEL: func.func @maximum_scalar
// CHECK: %[[C:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: aten.maximum %{{.*}}, %[[C]] : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
func.func @maximum_scalar(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %0 = aten.maximum %x, %zero : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// minimum broadcasting both operands.
// CHECK-LABEL: func.func @minimum_broadcast
// CHECK: aten.minimum %{{.*}}, %{{.*}} : tensor<2x1xf32>, tensor<1x3xf32> -> tensor<2x3xf32>
func.func @minimum_broadcast(%a: tensor<2x1xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.minimum %a, %b : tensor<2x1xf32>, tensor<1x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// remainder of int64 by a 0-d scalar constant (`% 6`).
// CHECK-LABEL: func.func @remainder_scalar
// CHECK: %[[C:.*]] = arith.constant dense<6> : tensor<i64>
// CHECK: aten.remainder %{{.*}}, %[[C]] : tensor<2x4x3xi64>, tensor<i64> -> tensor<2x4x3xi64>
func.func @remainder_scalar(%x: tensor<2x4x3xi64>) -> tensor<2x4x3xi64> {
  %six = arith.constant dense<6> : tensor<i64>
  %0 = aten.remainder %x, %six : tensor<2x4x3xi64>, tensor<i64> -> tensor<2x4x3xi64>
  return %0 : tensor<2x4x3xi64>
}
