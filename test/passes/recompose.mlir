// RUN: duet-opt --split-input-file --duet-recompose %s | FileCheck %s

// x · sigmoid(x) is silu.
// CHECK-LABEL: func.func @silu
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.silu %[[X]] : tensor<1x16xf32>
// CHECK-NEXT: return %[[Y]]
func.func @silu(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %s = aten.sigmoid %x : tensor<1x16xf32>
  %y = aten.mul %x, %s : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// sigmoid(x) · x, the other operand order, is silu too.
// CHECK-LABEL: func.func @silu_swapped
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.silu %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @silu_swapped(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %s = aten.sigmoid %x : tensor<1x16xf32>
  %y = aten.mul %s, %x : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// x · sigmoid(2x) is not silu: the sigmoid reads another value.
// CHECK-LABEL: func.func @not_silu_scaled_input
// CHECK-NOT: aten.silu
// CHECK: %[[S:.*]] = aten.sigmoid
// CHECK: aten.mul %{{.*}}, %[[S]]
func.func @not_silu_scaled_input(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  %x2 = aten.mul %x, %two : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %s = aten.sigmoid %x2 : tensor<1x16xf32>
  %y = aten.mul %x, %s : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// A sigmoid that is also returned stays: recomposing would compute it twice.
// CHECK-LABEL: func.func @not_silu_shared_sigmoid
// CHECK-NOT: aten.silu
// CHECK: %[[S:.*]] = aten.sigmoid
// CHECK: %[[Y:.*]] = aten.mul %{{.*}}, %[[S]]
// CHECK: return %[[Y]], %[[S]]
func.func @not_silu_shared_sigmoid(%x: tensor<1x16xf32>) -> (tensor<1x16xf32>, tensor<1x16xf32>) {
  %s = aten.sigmoid %x : tensor<1x16xf32>
  %y = aten.mul %x, %s : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  return %y, %s : tensor<1x16xf32>, tensor<1x16xf32>
}

// -----

// clamp{min=0, max=6}(x + 3) / 6 is hardsigmoid.
// CHECK-LABEL: func.func @hardsigmoid_clamp_div
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardsigmoid %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardsigmoid_clamp_div(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
  %y = aten.div %c, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// PyTorch's own spelling, clamp{min=0} then clamp{max=6}, with · (1/6) and
// 3 + x in the other order, is hardsigmoid.
// CHECK-LABEL: func.func @hardsigmoid_min_then_max_mul
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardsigmoid %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardsigmoid_min_then_max_mul(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %sixth = arith.constant dense<0.166666672> : tensor<f32>
  %a = aten.add %c3, %x : tensor<f32>, tensor<1x16xf32> -> tensor<1x16xf32>
  %lo = aten.clamp %a {min = 0.0 : f64} : tensor<1x16xf32>
  %hi = aten.clamp %lo {max = 6.0 : f64} : tensor<1x16xf32>
  %y = aten.mul %hi, %sixth : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// clamp{max=6} then clamp{min=0} (the other order), divided by 6, is hardsigmoid.
// CHECK-LABEL: func.func @hardsigmoid_max_then_min_div
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardsigmoid %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardsigmoid_max_then_min_div(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %hi = aten.clamp %a {max = 6.0 : f64} : tensor<1x16xf32>
  %lo = aten.clamp %hi {min = 0.0 : f64} : tensor<1x16xf32>
  %y = aten.div %lo, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// hardtanh{0, 6} (relu6) with (1/6) as a broadcast 1-element first operand is hardsigmoid.
// CHECK-LABEL: func.func @hardsigmoid_hardtanh_mul
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardsigmoid %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardsigmoid_hardtanh_mul(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %sixth = arith.constant dense<0.166666672> : tensor<1xf32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.hardtanh %a {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x16xf32>
  %y = aten.mul %sixth, %c : tensor<1xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// maximum(·, 0) then minimum(·, 6) with scalar constants is the clamp too.
// CHECK-LABEL: func.func @hardsigmoid_maximum_minimum
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardsigmoid %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardsigmoid_maximum_minimum(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c0 = arith.constant dense<0.0> : tensor<f32>
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %lo = aten.maximum %a, %c0 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %hi = aten.minimum %c6, %lo : tensor<f32>, tensor<1x16xf32> -> tensor<1x16xf32>
  %y = aten.div %hi, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// PyTorch's hardswish decomposition, x · clamp{max=6}(clamp{min=0}(x + 3)) / 6,
// where the division comes after the multiply, is hardswish.
// CHECK-LABEL: func.func @hardswish_pytorch_decomposition
// CHECK-SAME: (%[[X:.*]]: tensor<1x16x4x4xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardswish %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardswish_pytorch_decomposition(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16x4x4xf32>, tensor<f32> -> tensor<1x16x4x4xf32>
  %lo = aten.clamp %a {min = 0.0 : f64} : tensor<1x16x4x4xf32>
  %hi = aten.clamp %lo {max = 6.0 : f64} : tensor<1x16x4x4xf32>
  %m = aten.mul %x, %hi : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32> -> tensor<1x16x4x4xf32>
  %y = aten.div %m, %c6 : tensor<1x16x4x4xf32>, tensor<f32> -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}

// -----

// (clamp(x + 3, 0, 6) · x) · (1/6), the multiply form with swapped operands, is hardswish.
// CHECK-LABEL: func.func @hardswish_mul_sixth
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardswish %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardswish_mul_sixth(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %sixth = arith.constant dense<0.166666672> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.hardtanh %a {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x16xf32>
  %m = aten.mul %c, %x : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  %y = aten.mul %m, %sixth : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// x · (clamp(x + 3, 0, 6) / 6), the hardsigmoid form inside, is hardswish.
// CHECK-LABEL: func.func @hardswish_x_times_hardsigmoid_arith
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardswish %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardswish_x_times_hardsigmoid_arith(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
  %h = aten.div %c, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %y = aten.mul %x, %h : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// hardsigmoid(x) · x, with the hardsigmoid op, is hardswish.
// CHECK-LABEL: func.func @hardswish_hardsigmoid_op
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardswish %[[X]]
// CHECK-NEXT: return %[[Y]]
func.func @hardswish_hardsigmoid_op(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %h = aten.hardsigmoid %x : tensor<1x16xf32>
  %y = aten.mul %h, %x : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// In bf16, 1/6 is stored as 0.1669921875 (its nearest bf16): it still matches.
// CHECK-LABEL: func.func @hardswish_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<8xbf16>)
// CHECK-NEXT: %[[Y:.*]] = aten.hardswish %[[X]] : tensor<8xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @hardswish_bf16(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %c3 = arith.constant dense<3.0> : tensor<bf16>
  %sixth = arith.constant dense<0.1669921875> : tensor<bf16>
  %a = aten.add %x, %c3 : tensor<8xbf16>, tensor<bf16> -> tensor<8xbf16>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<8xbf16>
  %m = aten.mul %x, %c : tensor<8xbf16>, tensor<8xbf16> -> tensor<8xbf16>
  %y = aten.mul %m, %sixth : tensor<8xbf16>, tensor<bf16> -> tensor<8xbf16>
  return %y : tensor<8xbf16>
}

// -----

// x + 2 instead of x + 3 is not hardsigmoid.
// CHECK-LABEL: func.func @near_miss_plus_two
// CHECK-NOT: aten.hardsigmoid
// CHECK: aten.clamp
// CHECK: aten.div
func.func @near_miss_plus_two(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c2 = arith.constant dense<2.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c2 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
  %y = aten.div %c, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// Dividing by 5 is not hardswish.
// CHECK-LABEL: func.func @near_miss_div_five
// CHECK-NOT: aten.hardswish
// CHECK: aten.div
func.func @near_miss_div_five(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c5 = arith.constant dense<5.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
  %m = aten.mul %x, %c : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  %y = aten.div %m, %c5 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// A clamp to [0, 5] is not the hardswish clamp.
// CHECK-LABEL: func.func @near_miss_clamp_five
// CHECK-NOT: aten.hardswish
// CHECK: aten.clamp
func.func @near_miss_clamp_five(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 5.0 : f64} : tensor<1x16xf32>
  %m = aten.mul %x, %c : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  %y = aten.div %m, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// 0.1667 is more than one f32 ulp away from 1/6: not hardsigmoid.
// CHECK-LABEL: func.func @near_miss_sixth
// CHECK-NOT: aten.hardsigmoid
// CHECK: aten.mul
func.func @near_miss_sixth(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %sixth = arith.constant dense<0.1667> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
  %y = aten.mul %c, %sixth : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// The clamp of another value than the multiplied x is not hardswish; the
// hardsigmoid inside it still is.
// CHECK-LABEL: func.func @near_miss_other_x
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>, %[[Z:.*]]: tensor<1x16xf32>)
// CHECK-NOT: aten.hardswish
// CHECK: %[[H:.*]] = aten.hardsigmoid %[[Z]]
// CHECK: aten.mul %[[X]], %[[H]]
func.func @near_miss_other_x(%x: tensor<1x16xf32>, %z: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %z, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
  %h = aten.div %c, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %y = aten.mul %x, %h : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// A clamp that is also returned stays, and so does everything that reads it:
// recomposing would compute the clamp twice.
// CHECK-LABEL: func.func @shared_clamp_not_recomposed
// CHECK-NOT: aten.hardswish
// CHECK: %[[C:.*]] = aten.clamp
// CHECK: %[[M:.*]] = aten.mul %{{.*}}, %[[C]]
// CHECK: %[[Y:.*]] = aten.div %[[M]]
// CHECK: return %[[Y]], %[[C]]
func.func @shared_clamp_not_recomposed(%x: tensor<1x16xf32>) -> (tensor<1x16xf32>, tensor<1x16xf32>) {
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
  %m = aten.mul %x, %c : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
  %y = aten.div %m, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y, %c : tensor<1x16xf32>, tensor<1x16xf32>
}

// -----

// A 1-element constant of higher rank broadcasts x to [1, 16]; hardsigmoid(x)
// would be [16], so it is left alone.
// CHECK-LABEL: func.func @rank_raising_constant_not_recomposed
// CHECK-NOT: aten.hardsigmoid
// CHECK: aten.div
func.func @rank_raising_constant_not_recomposed(%x: tensor<16xf32>) -> tensor<1x16xf32> {
  %c3 = arith.constant dense<3.0> : tensor<1x1xf32>
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %a = aten.add %x, %c3 : tensor<16xf32>, tensor<1x1xf32> -> tensor<1x16xf32>
  %c = aten.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
  %y = aten.div %c, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// PyTorch's _safe_softmax as run_decompositions() writes it (decomposed
// attention leaves it over every score matrix) is one safe softmax.
// CHECK-LABEL: func.func @safe_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x5x5xf32>)
// CHECK-NEXT: %[[Y:.*]] = aten.softmax %[[X]] {dim = 3 : i64, safe = true} : tensor<1x2x5x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @safe_softmax(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %s = aten.softmax %x {dim = 3 : i64} : tensor<1x2x5x5xf32>
  %inf = arith.constant dense<0xFF800000> : tensor<f32>
  %e = aten.eq %x, %inf : tensor<1x2x5x5xf32>, tensor<f32> -> tensor<1x2x5x5xi1>
  %n = aten.logical_not %e : tensor<1x2x5x5xi1> -> tensor<1x2x5x5xi1>
  %a = aten.any %n {dim = array<i64: 3>, keepdim = true} : tensor<1x2x5x5xi1> -> tensor<1x2x5x1xi1>
  %m = aten.logical_not %a : tensor<1x2x5x1xi1> -> tensor<1x2x5x1xi1>
  %zero = arith.constant dense<0.000000e+00> : tensor<1x2x5x5xf32>
  %y = aten.where %m, %zero, %s : tensor<1x2x5x1xi1>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32> -> tensor<1x2x5x5xf32>
  return %y : tensor<1x2x5x5xf32>
}

// -----

// Over another dim than the softmax's, or with the plain softmax read
// elsewhere too, it is left as it is.
// CHECK-LABEL: func.func @not_safe_softmax
// CHECK: aten.eq
// CHECK: aten.where
// CHECK: aten.eq
// CHECK: aten.where
func.func @not_safe_softmax(%x: tensor<1x2x5x5xf32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) {
  %s = aten.softmax %x {dim = 3 : i64} : tensor<1x2x5x5xf32>
  %inf = arith.constant dense<0xFF800000> : tensor<f32>
  %e = aten.eq %x, %inf : tensor<1x2x5x5xf32>, tensor<f32> -> tensor<1x2x5x5xi1>
  %n = aten.logical_not %e : tensor<1x2x5x5xi1> -> tensor<1x2x5x5xi1>
  %a = aten.any %n {dim = array<i64: 2>, keepdim = true} : tensor<1x2x5x5xi1> -> tensor<1x2x1x5xi1>
  %m = aten.logical_not %a : tensor<1x2x1x5xi1> -> tensor<1x2x1x5xi1>
  %zero = arith.constant dense<0.000000e+00> : tensor<1x2x5x5xf32>
  %y = aten.where %m, %zero, %s : tensor<1x2x1x5xi1>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32> -> tensor<1x2x5x5xf32>
  %s2 = aten.softmax %x {dim = 3 : i64} : tensor<1x2x5x5xf32>
  %e2 = aten.eq %x, %inf : tensor<1x2x5x5xf32>, tensor<f32> -> tensor<1x2x5x5xi1>
  %n2 = aten.logical_not %e2 : tensor<1x2x5x5xi1> -> tensor<1x2x5x5xi1>
  %a2 = aten.any %n2 {dim = array<i64: 3>, keepdim = true} : tensor<1x2x5x5xi1> -> tensor<1x2x5x1xi1>
  %m2 = aten.logical_not %a2 : tensor<1x2x5x1xi1> -> tensor<1x2x5x1xi1>
  %y2 = aten.where %m2, %zero, %s2 : tensor<1x2x5x1xi1>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32> -> tensor<1x2x5x5xf32>
  return %y, %y2, %s2 : tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>
}
