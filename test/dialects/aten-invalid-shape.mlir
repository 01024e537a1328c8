// RUN: duet-opt --split-input-file --verify-diagnostics %s

// view keeps the element type; conversions go through aten.cast.
func.func @view_type(%x: tensor<2x3xf32>) -> tensor<6xi32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'i32'}}
  %0 = aten.view %x : tensor<2x3xf32> -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// view keeps the element count.
func.func @view_count(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{cannot view [2, 3] (6 elements) as [2, 4] (8 elements)}}
  %0 = aten.view %x : tensor<2x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// permute keeps the element type.
func.func @permute_type(%x: tensor<2x3xf32>) -> tensor<3x2xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.permute %x {dims = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// -----

// permute's dims name every input dim once.
func.func @permute_repeat(%x: tensor<2x3x4xf32>) -> tensor<2x2x4xf32> {
  // expected-error @+1 {{dims [0, 0, 2] is not a permutation of 0..2}}
  %0 = aten.permute %x {dims = array<i64: 0, 0, 2>} : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  return %0 : tensor<2x2x4xf32>
}

// -----

// permute's dims have one entry per input dim.
func.func @permute_length(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{dims [1, 0] is not a permutation of 0..2}}
  %0 = aten.permute %x {dims = array<i64: 1, 0>} : tensor<2x3x4xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// permute's dims are normalized: -1 is not accepted for the last dim.
func.func @permute_negative(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{dims [-1, 0] is not a permutation of 0..1}}
  %0 = aten.permute %x {dims = array<i64: -1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Result dim i of permute is input dim dims[i].
func.func @permute_result_shape(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // expected-error @+1 {{result shape [4, 3, 2] does not match the computed shape [4, 2, 3]}}
  %0 = aten.permute %x {dims = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// expand keeps the element type.
func.func @expand_type(%x: tensor<1x4xf32>) -> tensor<3x4xbf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'bf16'}}
  %0 = aten.expand %x : tensor<1x4xf32> -> tensor<3x4xbf16>
  return %0 : tensor<3x4xbf16>
}

// -----

// expand only grows size-1 dims.
func.func @expand_non_unit(%x: tensor<2x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{cannot expand [2, 4] to [6, 4]}}
  %0 = aten.expand %x : tensor<2x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// expand cannot remove dims.
func.func @expand_rank(%x: tensor<1x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot expand [1, 4] to [4]}}
  %0 = aten.expand %x : tensor<1x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// slice keeps the element type.
func.func @slice_type(%x: tensor<8xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.slice %x {dim = 0 : i64, end = 4 : i64, start = 0 : i64} : tensor<8xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// slice's dim is below the rank.
func.func @slice_dim(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{dim 2 is out of range for rank 2 (dims are normalized to [0, 2))}}
  %0 = aten.slice %x {dim = 2 : i64, end = 4 : i64, start = 0 : i64} : tensor<2x8xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// slice's step is positive.
func.func @slice_step(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{step must be positive, got 0}}
  %0 = aten.slice %x {dim = 0 : i64, end = 8 : i64, start = 0 : i64, step = 0 : i64} : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// slice's end is clamped to the size by the importer; a larger one is refused.
func.func @slice_end(%x: tensor<8xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{needs 0 <= start <= end <= 8, got start 4 and end 10}}
  %0 = aten.slice %x {dim = 0 : i64, end = 10 : i64, start = 4 : i64} : tensor<8xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// slice's start may not pass its end.
func.func @slice_reversed(%x: tensor<8xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{needs 0 <= start <= end <= 8, got start 5 and end 3}}
  %0 = aten.slice %x {dim = 0 : i64, end = 3 : i64, start = 5 : i64} : tensor<8xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// slice's start is normalized (non-negative).
func.func @slice_negative_start(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{needs 0 <= start <= end <= 8, got start -2 and end 8}}
  %0 = aten.slice %x {dim = 0 : i64, end = 8 : i64, start = -2 : i64} : tensor<8xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A stepped slice has ceil((end - start) / step) elements: ceil(7 / 2) = 4.
func.func @slice_result_shape(%x: tensor<2x8xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result shape [2, 3] does not match the computed shape [2, 4]}}
  %0 = aten.slice %x {dim = 1 : i64, end = 8 : i64, start = 1 : i64, step = 2 : i64} : tensor<2x8xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// select keeps the element type.
func.func @select_type(%x: tensor<3x4xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{operands and results must share one element type, got 'i64' and 'i32'}}
  %0 = aten.select %x {dim = 0 : i64, index = 0 : i64} : tensor<3x4xi64> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// select's dim is below the rank.
func.func @select_dim(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{dim 2 is out of range for rank 2 (dims are normalized to [0, 2))}}
  %0 = aten.select %x {dim = 2 : i64, index = 0 : i64} : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// select's index is below the dim's size.
func.func @select_index(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{index 3 is out of range for size 3}}
  %0 = aten.select %x {dim = 0 : i64, index = 3 : i64} : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select's index is normalized (non-negative).
func.func @select_negative_index(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{index -1 is out of range for size 4}}
  %0 = aten.select %x {dim = 1 : i64, index = -1 : i64} : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// select removes the selected dim rather than keeping it as size 1.
func.func @select_result_shape(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{result shape [1, 4] does not match the computed shape [4]}}
  %0 = aten.select %x {dim = 0 : i64, index = 1 : i64} : tensor<3x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// constant_pad_nd keeps the element type.
func.func @constant_pad_nd_type(%x: tensor<4xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: 1, 1>} : tensor<4xf32> -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

// constant_pad_nd's pad holds (before, after) pairs.
func.func @constant_pad_nd_odd(%x: tensor<2x4xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{pad needs an even number of entries, at most 4, got 3}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: 1, 0, 0>} : tensor<2x4xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// constant_pad_nd pads at most every dim.
func.func @constant_pad_nd_too_many(%x: tensor<4xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{pad needs an even number of entries, at most 2, got 4}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: 1, 1, 1, 1>} : tensor<4xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Negative padding may crop a dim but not below 0.
func.func @constant_pad_nd_negative(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{padding makes dim 1 negative}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: -3, -2>} : tensor<2x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// pad starts from the last dim: (1, 0) pads dim 1 and (2, 2) dim 0, not the reverse.
func.func @constant_pad_nd_result_shape(%x: tensor<2x4xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{result shape [3, 8] does not match the computed shape [6, 5]}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: 1, 0, 2, 2>} : tensor<2x4xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// cat needs at least one tensor.
func.func @cat_empty() -> tensor<0xf32> {
  // expected-error @+1 {{needs at least one tensor}}
  %0 = aten.cat {dim = 0 : i64} : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// cat's tensors share one element type.
func.func @cat_type(%a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.cat %a, %b {dim = 0 : i64} : (tensor<2xf32>, tensor<2xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// cat's dim is below the rank.
func.func @cat_dim(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{dim 2 is out of range for rank 2 (dims are normalized to [0, 2))}}
  %0 = aten.cat %a, %b {dim = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// cat's tensors share every dim but the concatenated one.
func.func @cat_other_dim(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{cannot concatenate [2, 3] and [4, 3] along dim 1}}
  %0 = aten.cat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// cat's tensors share one rank.
func.func @cat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{cannot concatenate [2, 3] and [3] along dim 1}}
  %0 = aten.cat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// cat's result adds the sizes along dim.
func.func @cat_result_shape(%a: tensor<1x2x4xf32>, %b: tensor<1x3x4xf32>) -> tensor<1x6x4xf32> {
  // expected-error @+1 {{result shape [1, 6, 4] does not match the computed shape [1, 5, 4]}}
  %0 = aten.cat %a, %b {dim = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x6x4xf32>
  return %0 : tensor<1x6x4xf32>
}

// -----

// split_with_sizes's dim is below the rank.
func.func @split_dim(%x: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{dim 1 is out of range for rank 1 (dims are normalized to [0, 1))}}
  %0 = aten.split_with_sizes %x {dim = 1 : i64, split_sizes = array<i64: 5>} : (tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// split_with_sizes has one result per size.
func.func @split_count(%x: tensor<5xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{has 2 results for 3 split sizes}}
  %r:2 = aten.split_with_sizes %x {dim = 0 : i64, split_sizes = array<i64: 2, 2, 1>} : (tensor<5xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %r#0 : tensor<2xf32>
}

// -----

// split sizes are non-negative.
func.func @split_negative(%x: tensor<5xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{split sizes must be non-negative}}
  %r:2 = aten.split_with_sizes %x {dim = 0 : i64, split_sizes = array<i64: -1, 6>} : (tensor<5xf32>) -> (tensor<0xf32>, tensor<6xf32>)
  return %r#1 : tensor<6xf32>
}

// -----

// Each piece has its split size along dim and the input's other dims.
func.func @split_piece_shape(%x: tensor<2x5xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result shape [2, 2] does not match the computed shape [2, 3]}}
  %r:2 = aten.split_with_sizes %x {dim = 1 : i64, split_sizes = array<i64: 2, 3>} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return %r#0 : tensor<2x2xf32>
}

// -----

// Each piece keeps the input's element type.
func.func @split_type(%x: tensor<5xf32>) -> tensor<3xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %r:2 = aten.split_with_sizes %x {dim = 0 : i64, split_sizes = array<i64: 2, 3>} : (tensor<5xf32>) -> (tensor<2xf32>, tensor<3xf16>)
  return %r#1 : tensor<3xf16>
}

// -----

// The split sizes add up to the dim's size.
func.func @split_sum(%x: tensor<6xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{split sizes add up to 5 but dim 0 has size 6}}
  %r:2 = aten.split_with_sizes %x {dim = 0 : i64, split_sizes = array<i64: 2, 3>} : (tensor<6xf32>) -> (tensor<2xf32>, tensor<3xf32>)
  return %r#1 : tensor<3xf32>
}

// -----

// repeat has an entry for every dim of self.
func.func @repeat_short(%x: tensor<4x5xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{repeats [2] has fewer entries than self [4, 5] has dims}}
  %0 = aten.repeat %x {repeats = array<i64: 2>} : tensor<4x5xf32> -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// repeat multiplies each dim by its entry.
func.func @repeat_shape(%x: tensor<4x5xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{result shape [4, 10] does not match the computed shape [8, 5]}}
  %0 = aten.repeat %x {repeats = array<i64: 2, 1>} : tensor<4x5xf32> -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}
