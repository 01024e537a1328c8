// RUN: duet-opt --split-input-file --verify-diagnostics %s

// batch_norm needs a channel dim.
func.func @batch_norm_rank(%x: tensor<16xf32>, %m: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{input must have rank 2 or more (N, C, ...), got 1}}
  %0 = aten.batch_norm %x, %m, %m : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// batch_norm's statistics share the input's element type.
func.func @batch_norm_mixed_types(%x: tensor<1x16x4x4xf16>, %m: tensor<16xf32>) -> tensor<1x16x4x4xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f16' and 'f32'}}
  %0 = aten.batch_norm %x, %m, %m : (tensor<1x16x4x4xf16>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf16>
  return %0 : tensor<1x16x4x4xf16>
}

// -----

// running_mean has one entry per channel.
func.func @batch_norm_mean_shape(%x: tensor<1x16x4x4xf32>, %m: tensor<8xf32>, %v: tensor<16xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{running_mean must have shape [16], got [8]}}
  %0 = aten.batch_norm %x, %m, %v : (tensor<1x16x4x4xf32>, tensor<8xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// running_var is rank 1, not a broadcastable [1, C, 1, 1].
func.func @batch_norm_var_shape(%x: tensor<1x16x4x4xf32>, %m: tensor<16xf32>, %v: tensor<1x16x1x1xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{running_var must have shape [16], got [1, 16, 1, 1]}}
  %0 = aten.batch_norm %x, %m, %v : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// batch_norm's weight has one entry per channel.
func.func @batch_norm_weight_shape(%x: tensor<1x16x4x4xf32>, %m: tensor<16xf32>, %g: tensor<4xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{weight must have shape [16], got [4]}}
  %0 = aten.batch_norm %x, %m, %m weight %g : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// batch_norm's bias has one entry per channel.
func.func @batch_norm_bias_shape(%x: tensor<1x16x4x4xf32>, %m: tensor<16xf32>, %b: tensor<4xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{bias must have shape [16], got [4]}}
  %0 = aten.batch_norm %x, %m, %m bias %b : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// batch_norm's eps is non-negative.
func.func @batch_norm_eps(%x: tensor<1x16x4x4xf32>, %m: tensor<16xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{eps must be non-negative}}
  %0 = aten.batch_norm %x, %m, %m {eps = -1.0e-05 : f64} : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// batch_norm keeps the input shape.
func.func @batch_norm_result_shape(%x: tensor<1x16x4x4xf32>, %m: tensor<16xf32>) -> tensor<1x16x16xf32> {
  // expected-error @+1 {{result shape [1, 16, 16] does not match the computed shape [1, 16, 4, 4]}}
  %0 = aten.batch_norm %x, %m, %m : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x16xf32>
  return %0 : tensor<1x16x16xf32>
}

// -----

// batch_norm's result has the input's element type.
func.func @batch_norm_result_type(%x: tensor<1x16xf32>, %m: tensor<16xf32>) -> tensor<1x16xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.batch_norm %x, %m, %m : (tensor<1x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16xf16>
  return %0 : tensor<1x16xf16>
}

// -----

// layer_norm's parameters share the input's element type.
func.func @layer_norm_mixed_types(%x: tensor<4x16xf32>, %g: tensor<16xbf16>) -> tensor<4x16xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'bf16'}}
  %0 = aten.layer_norm %x weight %g {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>, tensor<16xbf16>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// normalized_shape must be the input's trailing dims.
func.func @layer_norm_not_trailing(%x: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{normalized_shape [4] must be the trailing dims of the input [2, 4, 16]}}
  %0 = aten.layer_norm %x {normalized_shape = array<i64: 4>} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// normalized_shape may not be empty.
func.func @layer_norm_empty(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{normalized_shape [] must be the trailing dims of the input [4, 16]}}
  %0 = aten.layer_norm %x {normalized_shape = array<i64>} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// normalized_shape may not be longer than the input's rank.
func.func @layer_norm_too_long(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{normalized_shape [1, 16] must be the trailing dims of the input [16]}}
  %0 = aten.layer_norm %x {normalized_shape = array<i64: 1, 16>} : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// layer_norm's weight has the normalized shape.
func.func @layer_norm_weight_shape(%x: tensor<2x4x16xf32>, %g: tensor<16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{weight and bias must have shape [4, 16]}}
  %0 = aten.layer_norm %x weight %g {normalized_shape = array<i64: 4, 16>} : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// layer_norm's bias has the normalized shape.
func.func @layer_norm_bias_shape(%x: tensor<4x16xf32>, %b: tensor<4xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{weight and bias must have shape [16]}}
  %0 = aten.layer_norm %x bias %b {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>, tensor<4xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// layer_norm's eps is non-negative.
func.func @layer_norm_eps(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{eps must be non-negative}}
  %0 = aten.layer_norm %x {eps = -1.0 : f64, normalized_shape = array<i64: 16>} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// layer_norm keeps the input shape.
func.func @layer_norm_result_shape(%x: tensor<4x16xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{result shape [64] does not match the computed shape [4, 16]}}
  %0 = aten.layer_norm %x {normalized_shape = array<i64: 16>} : (tensor<4x16xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// hardtanh's lower bound may not exceed its upper bound.
func.func @hardtanh_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{min_val 6.000000e+00 is greater than max_val 0.000000e+00}}
  %0 = aten.hardtanh %x {max_val = 0.0 : f64, min_val = 6.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A default bound counts: min_val 2 against the default max_val 1.
func.func @hardtanh_default_max(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{min_val 2.000000e+00 is greater than max_val 1.000000e+00}}
  %0 = aten.hardtanh %x {min_val = 2.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// clamp without either bound is meaningless (PyTorch refuses it too).
func.func @clamp_no_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs at least one of min and max}}
  %0 = aten.clamp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Binary operands must broadcast: 3 against 4 in the last dim.
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operand shapes [2, 3] and [4] do not broadcast}}
  %0 = aten.add %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Binary operands share one element type: the importer casts where PyTorch promotes.
func.func @mul_mixed_types(%a: tensor<2x3xf32>, %b: tensor<f16>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.mul %a, %b : tensor<2x3xf32>, tensor<f16> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A 0-d scalar constant of another element type is refused as well.
func.func @sub_scalar_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = arith.constant dense<1> : tensor<i64>
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'i64'}}
  %0 = aten.sub %x, %c : tensor<2x3xf32>, tensor<i64> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The binary result shares the operands' element type (no implicit bool result).
func.func @maximum_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'i1'}}
  %0 = aten.maximum %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// The binary result is the broadcast shape, not one operand's shape.
func.func @div_result_shape(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{result shape [2, 1] does not match the computed shape [2, 3]}}
  %0 = aten.div %a, %b {rounding_mode = #aten.rounding<trunc>} : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// A binary op cannot drop a size-1 dim of the broadcast shape.
func.func @minimum_result_rank(%a: tensor<1x4xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{result shape [4] does not match the computed shape [1, 4]}}
  %0 = aten.minimum %a, %b : tensor<1x4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
