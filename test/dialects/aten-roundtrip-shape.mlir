// RUN: duet-opt %s | duet-opt | FileCheck %s

// Shape and data-movement ops print and parse back with their attributes,
// result types and, for split_with_sizes, their variadic results.

// view flattens trailing dims; the result type is the new shape.
// CHECK-LABEL: func.func @view_flatten
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x1x1xf32>)
// CHECK: %[[Y:.*]] = aten.view %[[X]] : tensor<1x16x1x1xf32> -> tensor<1x16xf32>
// CHECK: return %[[Y]]
func.func @view_flatten(%x: tensor<1x16x1x1xf32>) -> tensor<1x16xf32> {
  %0 = aten.view %x : tensor<1x16x1x1xf32> -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// view to and from 0-d (squeeze of a single element, unsqueeze back), in i64.
// CHECK-LABEL: func.func @view_scalar
// CHECK: %[[S:.*]] = aten.view %{{.*}} : tensor<1x1xi64> -> tensor<i64>
// CHECK: aten.view %[[S]] : tensor<i64> -> tensor<1xi64>
func.func @view_scalar(%x: tensor<1x1xi64>) -> tensor<1xi64> {
  %0 = aten.view %x : tensor<1x1xi64> -> tensor<i64>
  %1 = aten.view %0 : tensor<i64> -> tensor<1xi64>
  return %1 : tensor<1xi64>
}

// permute moves input dim dims[i] to result dim i.
// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4xf32>)
// CHECK: aten.permute %[[X]] {dims = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
func.func @permute(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = aten.permute %x {dims = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// expand broadcasts size-1 dims and adds a leading dim.
// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x4x1xf16>)
// CHECK: aten.expand %[[X]] : tensor<1x4x1xf16> -> tensor<3x2x4x8xf16>
func.func @expand(%x: tensor<1x4x1xf16>) -> tensor<3x2x4x8xf16> {
  %0 = aten.expand %x : tensor<1x4x1xf16> -> tensor<3x2x4x8xf16>
  return %0 : tensor<3x2x4x8xf16>
}

// slice with step 1 elides it.
// CHECK-LABEL: func.func @slice_unit_step
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x16xf32>)
// CHECK: aten.slice %[[X]] {dim = 1 : i64, end = 12 : i64, start = 4 : i64} : tensor<2x16xf32> -> tensor<2x8xf32>
func.func @slice_unit_step(%x: tensor<2x16xf32>) -> tensor<2x8xf32> {
  %0 = aten.slice %x {dim = 1 : i64, end = 12 : i64, start = 4 : i64, step = 1 : i64} : tensor<2x16xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// slice with a step that does not divide the span rounds up: ceil((7 - 0) / 3) = 3.
// CHECK-LABEL: func.func @slice_step
// CHECK: aten.slice %{{.*}} {dim = 0 : i64, end = 7 : i64, start = 0 : i64, step = 3 : i64} : tensor<7x2xf32> -> tensor<3x2xf32>
func.func @slice_step(%x: tensor<7x2xf32>) -> tensor<3x2xf32> {
  %0 = aten.slice %x {dim = 0 : i64, end = 7 : i64, start = 0 : i64, step = 3 : i64} : tensor<7x2xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// An empty slice (start = end) is allowed and has size 0.
// CHECK-LABEL: func.func @slice_empty
// CHECK: aten.slice %{{.*}} {dim = 0 : i64, end = 2 : i64, start = 2 : i64} : tensor<4xf32> -> tensor<0xf32>
func.func @slice_empty(%x: tensor<4xf32>) -> tensor<0xf32> {
  %0 = aten.slice %x {dim = 0 : i64, end = 2 : i64, start = 2 : i64} : tensor<4xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// select removes the selected dim.
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[X:[^:]*]]: tensor<3x4xf32>)
// CHECK: aten.select %[[X]] {dim = 0 : i64, index = 2 : i64} : tensor<3x4xf32> -> tensor<4xf32>
func.func @select(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = aten.select %x {dim = 0 : i64, index = 2 : i64} : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// constant_pad_nd pads the last dim by (1, 1) and the one before by (2, 0); value 0 is elided.
// CHECK-LABEL: func.func @constant_pad_nd
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x3x4x4xf32>)
// CHECK: aten.constant_pad_nd %[[X]] {pad = array<i64: 1, 1, 2, 0>} : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
func.func @constant_pad_nd(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32> {
  %0 = aten.constant_pad_nd %x {pad = array<i64: 1, 1, 2, 0>, value = 0.0 : f64} : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
  return %0 : tensor<1x3x6x6xf32>
}

// constant_pad_nd with a fill value, and negative padding that crops.
// CHECK-LABEL: func.func @constant_pad_nd_crop
// CHECK: aten.constant_pad_nd %{{.*}} {pad = array<i64: -1, 2>, value = -1.000000e+00 : f64} : tensor<2x5xf32> -> tensor<2x6xf32>
func.func @constant_pad_nd_crop(%x: tensor<2x5xf32>) -> tensor<2x6xf32> {
  %0 = aten.constant_pad_nd %x {pad = array<i64: -1, 2>, value = -1.0 : f64} : tensor<2x5xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// clone keeps the type, integers included.
// CHECK-LABEL: func.func @clone
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xi32>)
// CHECK: aten.clone %[[X]] : tensor<2x3xi32>
func.func @clone(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = aten.clone %x : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// cast changes the element type and keeps the shape: f32 to bf16 to i8 to i1.
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK: %[[A:.*]] = aten.cast %[[X]] : tensor<2x3xf32> -> tensor<2x3xbf16>
// CHECK: %[[B:.*]] = aten.cast %[[A]] : tensor<2x3xbf16> -> tensor<2x3xi8>
// CHECK: aten.cast %[[B]] : tensor<2x3xi8> -> tensor<2x3xi1>
func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %0 = aten.cast %x : tensor<2x3xf32> -> tensor<2x3xbf16>
  %1 = aten.cast %0 : tensor<2x3xbf16> -> tensor<2x3xi8>
  %2 = aten.cast %1 : tensor<2x3xi8> -> tensor<2x3xi1>
  return %2 : tensor<2x3xi1>
}

// cat of three tensors along dim 1.
// CHECK-LABEL: func.func @cat
// CHECK-SAME: (%[[A:[^:]*]]: tensor<1x2x4xf32>, %[[B:[^:]*]]: tensor<1x3x4xf32>, %[[C:[^:]*]]: tensor<1x1x4xf32>)
// CHECK: aten.cat %[[A]], %[[B]], %[[C]] {dim = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>) -> tensor<1x6x4xf32>
func.func @cat(%a: tensor<1x2x4xf32>, %b: tensor<1x3x4xf32>, %c: tensor<1x1x4xf32>) -> tensor<1x6x4xf32> {
  %0 = aten.cat %a, %b, %c {dim = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4xf32>) -> tensor<1x6x4xf32>
  return %0 : tensor<1x6x4xf32>
}

// cat of a single tensor is an identity.
// CHECK-LABEL: func.func @cat_single
// CHECK: aten.cat %{{.*}} {dim = 0 : i64} : (tensor<3xi64>) -> tensor<3xi64>
func.func @cat_single(%a: tensor<3xi64>) -> tensor<3xi64> {
  %0 = aten.cat %a {dim = 0 : i64} : (tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// split_with_sizes has one result per size.
// CHECK-LABEL: func.func @split_with_sizes
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x5x4xf32>)
// CHECK: %[[R:.*]]:2 = aten.split_with_sizes %[[X]] {dim = 1 : i64, split_sizes = array<i64: 2, 3>} : (tensor<1x5x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x3x4xf32>)
// CHECK: return %[[R]]#1, %[[R]]#0
func.func @split_with_sizes(%x: tensor<1x5x4xf32>) -> (tensor<1x3x4xf32>, tensor<1x2x4xf32>) {
  %a, %b = aten.split_with_sizes %x {dim = 1 : i64, split_sizes = array<i64: 2, 3>} : (tensor<1x5x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x3x4xf32>)
  return %b, %a : tensor<1x3x4xf32>, tensor<1x2x4xf32>
}

// split_with_sizes into three pieces, one of them empty, in f16.
// CHECK-LABEL: func.func @split_with_sizes_three
// CHECK: %{{.*}}:3 = aten.split_with_sizes %{{.*}} {dim = 0 : i64, split_sizes = array<i64: 4, 0, 2>} : (tensor<6xf16>) -> (tensor<4xf16>, tensor<0xf16>, tensor<2xf16>)
func.func @split_with_sizes_three(%x: tensor<6xf16>) -> tensor<2xf16> {
  %r:3 = aten.split_with_sizes %x {dim = 0 : i64, split_sizes = array<i64: 4, 0, 2>} : (tensor<6xf16>) -> (tensor<4xf16>, tensor<0xf16>, tensor<2xf16>)
  return %r#2 : tensor<2xf16>
}

// split_with_sizes with a single piece has a single result.
// CHECK-LABEL: func.func @split_with_sizes_one
// CHECK: %[[R:.*]] = aten.split_with_sizes %{{.*}} {dim = 0 : i64, split_sizes = array<i64: 3>} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK: return %[[R]]
func.func @split_with_sizes_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = aten.split_with_sizes %x {dim = 0 : i64, split_sizes = array<i64: 3>} : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// repeat with a new leading dim.
// CHECK-LABEL: func.func @repeat
// CHECK: aten.repeat %{{.*}} {repeats = array<i64: 2, 1, 3>} : tensor<4x5xf32> -> tensor<2x4x15xf32>
func.func @repeat(%x: tensor<4x5xf32>) -> tensor<2x4x15xf32> {
  %0 = aten.repeat %x {repeats = array<i64: 2, 1, 3>} : tensor<4x5xf32> -> tensor<2x4x15xf32>
  return %0 : tensor<2x4x15xf32>
}
