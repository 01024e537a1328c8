// RUN: duet-opt --split-input-file --verify-diagnostics %s

// Compared operands share one element type: the importer casts where PyTorch promotes.
func.func @eq_mixed_types(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'i64'}}
  %0 = aten.eq %a, %b : tensor<4xf32>, tensor<4xi64> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Compared operands must broadcast.
func.func @lt_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xi1> {
  // expected-error @+1 {{operand shapes [2, 3] and [2] do not broadcast}}
  %0 = aten.lt %a, %b : tensor<2x3xf32>, tensor<2xf32> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

// A comparison's result is the broadcast shape.
func.func @ge_result_shape(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x1xi1> {
  // expected-error @+1 {{result shape [2, 1] does not match the computed shape [2, 3]}}
  %0 = aten.ge %a, %b : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x1xi1>
  return %0 : tensor<2x1xi1>
}

// -----

// A comparison's result is boolean (ODS type constraint).
func.func @gt_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = aten.gt %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Logical operands must broadcast, though their types may differ.
func.func @logical_or_broadcast(%a: tensor<3xi1>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{operand shapes [3] and [4] do not broadcast}}
  %0 = aten.logical_or %a, %b : tensor<3xi1>, tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// A logical op's result is the broadcast shape.
func.func @logical_and_result_shape(%a: tensor<4x1xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{result shape [4] does not match the computed shape [4, 4]}}
  %0 = aten.logical_and %a, %b : tensor<4x1xi1>, tensor<4xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// logical_not keeps the shape.
func.func @logical_not_shape(%x: tensor<2x3xi1>) -> tensor<6xi1> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = aten.logical_not %x : tensor<2x3xi1> -> tensor<6xi1>
  return %0 : tensor<6xi1>
}

// -----

// where's branches and result share one element type.
func.func @where_mixed_types(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.where %m, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// where's condition must broadcast with self.
func.func @where_condition_broadcast(%m: tensor<3xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand shapes [3] and [4] do not broadcast}}
  %0 = aten.where %m, %a, %b : tensor<3xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// where's other must broadcast with the condition and self together.
func.func @where_other_broadcast(%m: tensor<2x1xi1>, %a: tensor<4xf32>, %b: tensor<3x1xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operand shapes [2, 4] and [3, 1] do not broadcast}}
  %0 = aten.where %m, %a, %b : tensor<2x1xi1>, tensor<4xf32>, tensor<3x1xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// where's result is the broadcast of all three operands.
func.func @where_result_shape(%m: tensor<2x1xi1>, %a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{result shape [4] does not match the computed shape [2, 4]}}
  %0 = aten.where %m, %a, %b : tensor<2x1xi1>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// where's condition is boolean (ODS type constraint).
func.func @where_condition_type(%m: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = aten.where %m, %a, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// any's dim is below the rank.
func.func @any_dim(%m: tensor<4x4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{dim 2 is out of range for rank 2 (dims are normalized to [0, 2))}}
  %0 = aten.any %m {dim = array<i64: 2>} : tensor<4x4xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// any without keepdim drops the reduced dims.
func.func @any_result_shape(%m: tensor<4x4xi1>) -> tensor<4x1xi1> {
  // expected-error @+1 {{result shape [4, 1] does not match the computed shape [4]}}
  %0 = aten.any %m {dim = array<i64: 1>} : tensor<4x4xi1> -> tensor<4x1xi1>
  return %0 : tensor<4x1xi1>
}

// -----

// any reads booleans only (ODS type constraint); the importer compares to zero first.
func.func @any_float(%x: tensor<4xf32>) -> tensor<i1> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = aten.any %x : tensor<4xf32> -> tensor<i1>
  return %0 : tensor<i1>
}
