// RUN: duet-opt --split-input-file --verify-diagnostics %s

// topk's k is at most the size of its dim.
func.func @topk_k_too_large(%x: tensor<5x6xf32>) -> (tensor<5x7xf32>, tensor<5x7xi64>) {
  // expected-error @+1 {{k 7 is outside [0, 6], the size of dim 1}}
  %v, %i = aten.topk %x {k = 7 : i64, dim = 1 : i64, largest = true} : tensor<5x6xf32> -> tensor<5x7xf32>, tensor<5x7xi64>
  return %v, %i : tensor<5x7xf32>, tensor<5x7xi64>
}

// -----

// topk's dim is normalized to the input's rank.
func.func @topk_dim(%x: tensor<5x6xf32>) -> (tensor<5x2xf32>, tensor<5x2xi64>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %v, %i = aten.topk %x {k = 2 : i64, dim = 2 : i64, largest = true} : tensor<5x6xf32> -> tensor<5x2xf32>, tensor<5x2xi64>
  return %v, %i : tensor<5x2xf32>, tensor<5x2xi64>
}

// -----

// Both results of topk have the input's shape with k along dim.
func.func @topk_result(%x: tensor<5x6xf32>) -> (tensor<5x2xf32>, tensor<2x6xi64>) {
  // expected-error @+1 {{result shape [2, 6] does not match the computed shape [5, 2]}}
  %v, %i = aten.topk %x {k = 2 : i64, dim = 1 : i64, largest = false} : tensor<5x6xf32> -> tensor<5x2xf32>, tensor<2x6xi64>
  return %v, %i : tensor<5x2xf32>, tensor<2x6xi64>
}

// -----

// A grid holds (x, y) pairs for each output point of each sample.
func.func @grid_pairs(%x: tensor<1x3x6x7xf32>, %g: tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32> {
  // expected-error @+1 {{grid [1, 4, 5, 3] must be [N, Ho, Wo, 2] for the input [1, 3, 6, 7]}}
  %y = aten.grid_sampler_2d %x, %g {interpolation_mode = 0 : i64, padding_mode = 0 : i64, align_corners = false} : (tensor<1x3x6x7xf32>, tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32>
  return %y : tensor<1x3x4x5xf32>
}

// -----

// Bicubic grid sampling (mode 2) has no kernel.
func.func @grid_mode(%x: tensor<1x3x6x7xf32>, %g: tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32> {
  // expected-error @+1 {{interpolation_mode 2 is not 0 (bilinear) or 1 (nearest)}}
  %y = aten.grid_sampler_2d %x, %g {interpolation_mode = 2 : i64, padding_mode = 0 : i64, align_corners = false} : (tensor<1x3x6x7xf32>, tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32>
  return %y : tensor<1x3x4x5xf32>
}

// -----

// The padding modes are zeros, border and reflection.
func.func @grid_padding(%x: tensor<1x3x6x7xf32>, %g: tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32> {
  // expected-error @+1 {{padding_mode 3 is not 0 (zeros), 1 (border) or 2 (reflection)}}
  %y = aten.grid_sampler_2d %x, %g {interpolation_mode = 0 : i64, padding_mode = 3 : i64, align_corners = true} : (tensor<1x3x6x7xf32>, tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32>
  return %y : tensor<1x3x4x5xf32>
}

// -----

// pow_tensor broadcasts as every binary op does.
func.func @pow_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand shapes [2, 3] and [2] do not broadcast}}
  %0 = aten.pow_tensor %a, %b : tensor<2x3xf32>, tensor<2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// scatter's index and src have self's rank.
func.func @scatter_rank(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %s: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{index [2] and src [2, 3] must have the rank of self [5, 3]}}
  %y = aten.scatter %x, %i, %s {dim = 0 : i64, reduce = #aten.scatter_reduce<none>, include_self = true} : (tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}

// -----

// Leaving self out only means something when values are combined.
func.func @scatter_include_self(%x: tensor<5x3xf32>, %i: tensor<2x3xi64>, %s: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{include_self = false needs a reduction}}
  %y = aten.scatter %x, %i, %s {dim = 0 : i64, reduce = #aten.scatter_reduce<none>, include_self = false} : (tensor<5x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}

// -----

// Outside dim, the index fits self.
func.func @scatter_index_wide(%x: tensor<5x3xf32>, %i: tensor<2x4xi64>, %s: tensor<2x4xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{index [2, 4] is larger than src [2, 4] or, outside dim 0, than self [5, 3]}}
  %y = aten.scatter %x, %i, %s {dim = 0 : i64, reduce = #aten.scatter_reduce<sum>, include_self = true} : (tensor<5x3xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<5x3xf32>
  return %y : tensor<5x3xf32>
}
