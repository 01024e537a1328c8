// RUN: duet-opt --split-input-file --duet-decompose %s | FileCheck %s
// RUN: duet-opt --split-input-file --duet-decompose="native=aten.hardswish,aten.silu" %s | FileCheck %s --check-prefix=NATIVE
// RUN: duet-opt --split-input-file --duet-decompose="native=aten.hardsigmoid,aten.mean" %s | FileCheck %s --check-prefix=TRANS
// RUN: duet-opt --split-input-file --duet-decompose="native=aten.relu,aten.mul,aten.add" %s | FileCheck %s --check-prefix=BASIC

// With nothing native, hardswish becomes x · (min(max(x + 3, 0), 6) / 6): its
// hardsigmoid and that hardsigmoid's clamp are decomposed in turn. With
// hardswish native it stays whole; with only hardsigmoid native, hardswish
// becomes x · hardsigmoid(x) and the hardsigmoid stays.
// CHECK-LABEL: func.func @hardswish
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[C3:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK-DAG: %[[C6:.*]] = arith.constant dense<6.000000e+00> : tensor<f32>
// CHECK: %[[A:.*]] = aten.add %[[X]], %[[C3]]
// CHECK: %[[LO:.*]] = aten.maximum %[[A]], %[[C0]]
// CHECK: %[[HI:.*]] = aten.minimum %[[LO]], %[[C6]]
// CHECK: %[[H:.*]] = aten.div %[[HI]], %[[C6]]
// CHECK: %[[Y:.*]] = aten.mul %[[X]], %[[H]]
// CHECK: return %[[Y]]
// NATIVE-LABEL: func.func @hardswish
// NATIVE-NEXT: %[[Y:.*]] = aten.hardswish
// NATIVE-NEXT: return %[[Y]]
// TRANS-LABEL: func.func @hardswish
// TRANS-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// TRANS-NEXT: %[[H:.*]] = aten.hardsigmoid %[[X]]
// TRANS-NEXT: %[[Y:.*]] = aten.mul %[[X]], %[[H]]
// TRANS-NEXT: return %[[Y]]
// BASIC-LABEL: func.func @hardswish
// BASIC-NOT: aten.hardswish
// BASIC-NOT: aten.hardsigmoid
// BASIC-NOT: aten.clamp
// BASIC: return
func.func @hardswish(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %y = aten.hardswish %x : tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// silu is x · sigmoid(x) unless it is native.
// CHECK-LABEL: func.func @silu
// CHECK-SAME: (%[[X:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[S:.*]] = aten.sigmoid %[[X]]
// CHECK-NEXT: %[[Y:.*]] = aten.mul %[[X]], %[[S]]
// CHECK-NEXT: return %[[Y]]
// NATIVE-LABEL: func.func @silu
// NATIVE-NEXT: %[[Y:.*]] = aten.silu
// NATIVE-NEXT: return %[[Y]]
func.func @silu(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %y = aten.silu %x : tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// hardsigmoid is clamp(x + 3, 0, 6) / 6, the clamp as maximum then minimum.
// CHECK-LABEL: func.func @hardsigmoid
// CHECK: aten.add
// CHECK: aten.maximum
// CHECK: aten.minimum
// CHECK: aten.div
// CHECK-NOT: aten.hardsigmoid
// TRANS-LABEL: func.func @hardsigmoid
// TRANS-NEXT: aten.hardsigmoid
func.func @hardsigmoid(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %y = aten.hardsigmoid %x : tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// The tanh gelu is 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[K:.*]] = arith.constant dense<4.471500e-02> : tensor<f32>
// CHECK-DAG: %[[R:.*]] = arith.constant dense<0.797884583> : tensor<f32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[SQ:.*]] = aten.mul %[[X]], %[[X]]
// CHECK: %[[CUBE:.*]] = aten.mul %[[SQ]], %[[X]]
// CHECK: %[[KC:.*]] = aten.mul %[[CUBE]], %[[K]]
// CHECK: %[[IN:.*]] = aten.add %[[X]], %[[KC]]
// CHECK: %[[S:.*]] = aten.mul %[[IN]], %[[R]]
// CHECK: %[[T:.*]] = aten.tanh %[[S]]
// CHECK: %[[HX:.*]] = aten.mul %[[X]], %[[HALF]]
// CHECK: %[[T1:.*]] = aten.add %[[T]], %[[ONE]]
// CHECK: %[[Y:.*]] = aten.mul %[[HX]], %[[T1]]
// CHECK: return %[[Y]]
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = aten.gelu %x {approximate = #aten.approximate<tanh>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Exact gelu needs erf, which the dialect lacks: it stays.
// CHECK-LABEL: func.func @gelu_exact
// CHECK: aten.gelu
func.func @gelu_exact(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = aten.gelu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// hardshrink is where(|x| <= lambd, 0, x): NaN fails the test and passes through.
// CHECK-LABEL: func.func @hardshrink
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[L:.*]] = arith.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[A:.*]] = aten.abs %[[X]]
// CHECK: %[[IN:.*]] = aten.le %[[A]], %[[L]] : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
// CHECK: %[[Y:.*]] = aten.where %[[IN]], %[[ZERO]], %[[X]] : tensor<4xi1>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>
// CHECK: return %[[Y]]
func.func @hardshrink(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = aten.hardshrink %x {lambd = 0.25 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A batch norm with constant statistics is x·scale + shift, the constants
// shaped [C, 1, 1]: scale = γ/√(σ²+ε) = [1, 2], shift = β − μ·scale = [−0.75, −3].
// CHECK-LABEL: func.func @batch_norm_4d
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<{{\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<{{\[\[\[}}-7.500000e-01]], {{\[\[}}-3.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[M:.*]] = aten.mul %[[X]], %[[S]] : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
// CHECK: %[[Y:.*]] = aten.add %[[M]], %[[B]] : tensor<1x2x4x4xf32>, tensor<2x1x1xf32> -> tensor<1x2x4x4xf32>
// CHECK: return %[[Y]]
func.func @batch_norm_4d(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %gamma = arith.constant dense<[2.0, 8.0]> : tensor<2xf32>
  %beta = arith.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %y = aten.batch_norm %x, %mean, %var weight %gamma bias %beta {eps = 1.0 : f64}
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// On [N, C] the constants are [C].
// CHECK-LABEL: func.func @batch_norm_2d
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<[0.000000e+00, -5.000000e-01]> : tensor<2xf32>
// CHECK: %[[M:.*]] = aten.mul %{{.*}}, %[[S]] : tensor<3x2xf32>, tensor<2xf32> -> tensor<3x2xf32>
// CHECK: aten.add %[[M]], %[[B]]
func.func @batch_norm_2d(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %mean = arith.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %var = arith.constant dense<[0.0, 3.0]> : tensor<2xf32>
  %y = aten.batch_norm %x, %mean, %var {eps = 1.0 : f64}
      : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A batch norm with statistics known only at run time stays.
// CHECK-LABEL: func.func @batch_norm_runtime_stats
// CHECK: aten.batch_norm
func.func @batch_norm_runtime_stats(%x: tensor<3x2xf32>, %mean: tensor<2xf32>, %var: tensor<2xf32>) -> tensor<3x2xf32> {
  %y = aten.batch_norm %x, %mean, %var : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// layer_norm over the last dim: the mean (itself sum / n unless native),
// centring, biased variance, rsqrt(var + eps), then weight and bias.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[N:.*]] = arith.constant dense<4.000000e+00> : tensor<f32>
// CHECK-DAG: %[[EPS:.*]] = arith.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[SUM:.*]] = aten.sum %[[X]] {dim = array<i64: 1>, keepdim = true} : tensor<2x4xf32> -> tensor<2x1xf32>
// CHECK: %[[MEAN:.*]] = aten.div %[[SUM]], %[[N]]
// CHECK: %[[D:.*]] = aten.sub %[[X]], %[[MEAN]] : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
// CHECK: %[[SQ:.*]] = aten.mul %[[D]], %[[D]]
// CHECK: %[[VSUM:.*]] = aten.sum %[[SQ]] {dim = array<i64: 1>, keepdim = true}
// CHECK: %[[VAR:.*]] = aten.div %[[VSUM]], %[[N]]
// CHECK: %[[VE:.*]] = aten.add %[[VAR]], %[[EPS]]
// CHECK: %[[R:.*]] = aten.rsqrt %[[VE]]
// CHECK: %[[NORM:.*]] = aten.mul %[[D]], %[[R]]
// CHECK: %[[SCALED:.*]] = aten.mul %[[NORM]], %[[W]]
// CHECK: %[[Y:.*]] = aten.add %[[SCALED]], %[[B]]
// CHECK: return %[[Y]]
// TRANS-LABEL: func.func @layer_norm
// TRANS: aten.mean
// TRANS-NOT: aten.sum
// TRANS: aten.mean
// TRANS-NOT: aten.layer_norm
func.func @layer_norm(%x: tensor<2x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %y = aten.layer_norm %x weight %w bias %b {normalized_shape = array<i64: 4>, eps = 1.0e-05 : f64}
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// linear(x, W, b) is matmul(x, permute(W)) + b, also for an N-D input.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK-NEXT: %[[WT:.*]] = aten.permute %[[W]] {dims = array<i64: 1, 0>} : tensor<5x4xf32> -> tensor<4x5xf32>
// CHECK-NEXT: %[[P:.*]] = aten.matmul %[[X]], %[[WT]] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %[[Y:.*]] = aten.add %[[P]], %[[B]] : tensor<2x3x5xf32>, tensor<5xf32> -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %y = aten.linear %x, %w, %b : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// addmm is beta·self + alpha·(mat1 @ mat2).
// CHECK-LABEL: func.func @addmm
// CHECK-SAME: (%[[S:.*]]: tensor<3xf32>, %[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>)
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[BETA:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[P:.*]] = aten.matmul %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[PA:.*]] = aten.mul %[[P]], %[[ALPHA]]
// CHECK: %[[SB:.*]] = aten.mul %[[S]], %[[BETA]]
// CHECK: %[[Y:.*]] = aten.add %[[SB]], %[[PA]] : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK: return %[[Y]]
func.func @addmm(%s: tensor<3xf32>, %a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %y = aten.addmm %s, %a, %b {beta = 0.5 : f64, alpha = 2.0 : f64} : (tensor<3xf32>, tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Causal attention: scores = q·kᵀ·(1/√4), plus a constant mask of −inf above
// the diagonal, softmax over the last dim, times v.
// CHECK-LABEL: func.func @sdpa_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4xf32>, %[[K:.*]]: tensor<1x2x4xf32>, %[[V:.*]]: tensor<1x2x4xf32>)
// CHECK-DAG: %[[SCALE:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[MASK:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[KT:.*]] = aten.permute %[[K]] {dims = array<i64: 0, 2, 1>} : tensor<1x2x4xf32> -> tensor<1x4x2xf32>
// CHECK: %[[QK:.*]] = aten.matmul %[[Q]], %[[KT]] : (tensor<1x2x4xf32>, tensor<1x4x2xf32>) -> tensor<1x2x2xf32>
// CHECK: %[[S:.*]] = aten.mul %[[QK]], %[[SCALE]]
// CHECK: %[[SM:.*]] = aten.add %[[S]], %[[MASK]] : tensor<1x2x2xf32>, tensor<2x2xf32> -> tensor<1x2x2xf32>
// CHECK: %[[P:.*]] = aten.softmax %[[SM]] {dim = 2 : i64}
// CHECK: %[[Y:.*]] = aten.matmul %[[P]], %[[V]] : (tensor<1x2x2xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
// CHECK: return %[[Y]]
func.func @sdpa_causal(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %y = aten.scaled_dot_product_attention %q, %k, %v {is_causal = true}
      : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

// A head dim (4) no longer than the keys (6): the scale multiplies q, not the
// [L, S] scores.
// CHECK-LABEL: func.func @sdpa_scaled_query
// CHECK-SAME: (%[[Q:.*]]: tensor<2x3x4xf32>, %[[K:.*]]: tensor<2x6x4xf32>, %[[V:.*]]: tensor<2x6x5xf32>)
// CHECK-DAG: %[[SCALE:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[KT:.*]] = aten.permute %[[K]]
// CHECK-DAG: %[[QS:.*]] = aten.mul %[[Q]], %[[SCALE]] : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
// CHECK: %[[S:.*]] = aten.matmul %[[QS]], %[[KT]] : (tensor<2x3x4xf32>, tensor<2x4x6xf32>) -> tensor<2x3x6xf32>
// CHECK-NOT: aten.mul
// CHECK: %[[P:.*]] = aten.softmax %[[S]] {dim = 2 : i64}
// CHECK: aten.matmul %[[P]], %[[V]]
func.func @sdpa_scaled_query(%q: tensor<2x3x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x3x5xf32> {
  %y = aten.scaled_dot_product_attention %q, %k, %v
      : (tensor<2x3x4xf32>, tensor<2x6x4xf32>, tensor<2x6x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// A scale of 1 (duet-fold-scale moved it into the query's projection)
// multiplies nothing.
// CHECK-LABEL: func.func @sdpa_unit_scale
// CHECK-NOT: aten.mul
// CHECK: aten.softmax
func.func @sdpa_unit_scale(%q: tensor<2x3x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x3x5xf32> {
  %y = aten.scaled_dot_product_attention %q, %k, %v {scale = 1.0 : f64}
      : (tensor<2x3x4xf32>, tensor<2x6x4xf32>, tensor<2x6x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// A float mask is added as it is; an explicit scale replaces 1/√E.
// CHECK-LABEL: func.func @sdpa_float_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4xf32>, %[[K:.*]]: tensor<3x4xf32>, %[[V:.*]]: tensor<3x5xf32>, %[[M:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[SCALE:.*]] = arith.constant dense<1.250000e-01> : tensor<f32>
// CHECK: %[[S:.*]] = aten.mul %{{.*}}, %[[SCALE]]
// CHECK: %[[SM:.*]] = aten.add %[[S]], %[[M]]
// CHECK: aten.softmax %[[SM]] {dim = 1 : i64}
func.func @sdpa_float_mask(%q: tensor<2x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x5xf32>, %m: tensor<2x3xf32>) -> tensor<2x5xf32> {
  %y = aten.scaled_dot_product_attention %q, %k, %v mask %m {scale = 0.125 : f64}
      : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x5xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// A constant boolean mask becomes an additive one: 0 where true, −inf where false.
// CHECK-LABEL: func.func @sdpa_bool_mask
// CHECK-DAG: %[[MASK:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 0xFF800000, 0.000000e+00]]> : tensor<1x3xf32>
// CHECK: aten.add %{{.*}}, %[[MASK]]
// CHECK-NOT: aten.scaled_dot_product_attention
func.func @sdpa_bool_mask(%q: tensor<2x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %m = arith.constant dense<[[true, false, true]]> : tensor<1x3xi1>
  %y = aten.scaled_dot_product_attention %q, %k, %v mask %m
      : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x5xf32>, tensor<1x3xi1>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// A boolean mask known only at run time becomes where(mask, 0, −inf).
// CHECK-LABEL: func.func @sdpa_runtime_bool_mask
// CHECK-SAME: %[[M:[^:]*]]: tensor<2x3xi1>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[S:.*]] = aten.mul
// CHECK: %[[ADD:.*]] = aten.where %[[M]], %[[ZERO]], %[[NINF]] : tensor<2x3xi1>, tensor<f32>, tensor<f32> -> tensor<2x3xf32>
// CHECK: aten.add %[[S]], %[[ADD]]
// CHECK-NOT: aten.scaled_dot_product_attention
func.func @sdpa_runtime_bool_mask(%q: tensor<2x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x5xf32>, %m: tensor<2x3xi1>) -> tensor<2x5xf32> {
  %y = aten.scaled_dot_product_attention %q, %k, %v mask %m
      : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x5xf32>, tensor<2x3xi1>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// mean over dims 2 and 3 of [1, 2, 3, 4] is their sum divided by 12.
// CHECK-LABEL: func.func @mean
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x4xf32>)
// CHECK-DAG: %[[N:.*]] = arith.constant dense<1.200000e+01> : tensor<f32>
// CHECK: %[[S:.*]] = aten.sum %[[X]] {dim = array<i64: 2, 3>} : tensor<1x2x3x4xf32> -> tensor<1x2xf32>
// CHECK: %[[Y:.*]] = aten.div %[[S]], %[[N]]
// CHECK: return %[[Y]]
func.func @mean(%x: tensor<1x2x3x4xf32>) -> tensor<1x2xf32> {
  %y = aten.mean %x {dim = array<i64: 2, 3>} : tensor<1x2x3x4xf32> -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// log_softmax is s − log(sum(exp(s))) with s = x − amax(x), the stable form.
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[M:.*]] = aten.amax %[[X]] {dim = array<i64: 1>, keepdim = true} : tensor<2x5xf32> -> tensor<2x1xf32>
// CHECK: %[[S:.*]] = aten.sub %[[X]], %[[M]]
// CHECK: %[[E:.*]] = aten.exp %[[S]]
// CHECK: %[[SUM:.*]] = aten.sum %[[E]] {dim = array<i64: 1>, keepdim = true}
// CHECK: %[[L:.*]] = aten.log %[[SUM]]
// CHECK: %[[Y:.*]] = aten.sub %[[S]], %[[L]] : tensor<2x5xf32>, tensor<2x1xf32> -> tensor<2x5xf32>
// CHECK: return %[[Y]]
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = aten.log_softmax %x {dim = 1 : i64} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// elu is scale·max(x, 0) + scale·alpha·(exp(input_scale·min(x, 0)) − 1).
// CHECK-LABEL: func.func @elu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[IS:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SA:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[SC:.*]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[NEG:.*]] = aten.minimum %[[X]], %[[ZERO]]
// CHECK: %[[NS:.*]] = aten.mul %[[NEG]], %[[IS]]
// CHECK: %[[E:.*]] = aten.exp %[[NS]]
// CHECK: %[[EM1:.*]] = aten.sub %[[E]], %[[ONE]]
// CHECK: %[[TAIL:.*]] = aten.mul %[[EM1]], %[[SA]]
// CHECK: %[[POS:.*]] = aten.maximum %[[X]], %[[ZERO]]
// CHECK: %[[PS:.*]] = aten.mul %[[POS]], %[[SC]]
// CHECK: %[[Y:.*]] = aten.add %[[PS]], %[[TAIL]]
// CHECK: return %[[Y]]
func.func @elu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = aten.elu %x {alpha = 0.25 : f64, scale = 2.0 : f64, input_scale = 3.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// leaky_relu is max(x, 0) + slope·min(x, 0).
// CHECK-LABEL: func.func @leaky_relu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SLOPE:.*]] = arith.constant dense<2.000000e-01> : tensor<f32>
// CHECK: %[[POS:.*]] = aten.maximum %[[X]], %[[ZERO]]
// CHECK: %[[NEG:.*]] = aten.minimum %[[X]], %[[ZERO]]
// CHECK: %[[NS:.*]] = aten.mul %[[NEG]], %[[SLOPE]]
// CHECK: %[[Y:.*]] = aten.add %[[POS]], %[[NS]]
// CHECK: return %[[Y]]
func.func @leaky_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = aten.leaky_relu %x {negative_slope = 0.2 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// relu6 (hardtanh on [0, 6]) is minimum(maximum(x, 0), 6).
// CHECK-LABEL: func.func @relu6
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SIX:.*]] = arith.constant dense<6.000000e+00> : tensor<f32>
// CHECK: %[[LO:.*]] = aten.maximum %[[X]], %[[ZERO]]
// CHECK: %[[Y:.*]] = aten.minimum %[[LO]], %[[SIX]]
// CHECK: return %[[Y]]
func.func @relu6(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = aten.hardtanh %x {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

