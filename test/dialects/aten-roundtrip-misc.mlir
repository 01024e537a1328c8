// RUN: duet-opt %s | duet-opt | FileCheck %s

// Resampling, embedding, gather, index_select and attention print and parse
// back with their optional
// operands and attributes, and weights held as dense_resource constants survive
// with their blobs.

// upsample_nearest2d without scales.
// CHECK-LABEL: func.func @upsample_nearest2d
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x4x8x8xf32>)
// CHECK: %[[Y:.*]] = aten.upsample_nearest2d %[[X]] : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
// CHECK: return %[[Y]]
func.func @upsample_nearest2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x16x16xf32> {
  %0 = aten.upsample_nearest2d %x : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  return %0 : tensor<1x4x16x16xf32>
}

// upsample_nearest2d with scale factors that differ per axis, and a downscale.
// CHECK-LABEL: func.func @upsample_nearest2d_scales
// CHECK: aten.upsample_nearest2d %{{.*}} {scales_h = 2.500000e+00 : f64, scales_w = 5.000000e-01 : f64} : tensor<1x4x2x8xf16> -> tensor<1x4x5x4xf16>
func.func @upsample_nearest2d_scales(%x: tensor<1x4x2x8xf16>) -> tensor<1x4x5x4xf16> {
  %0 = aten.upsample_nearest2d %x {scales_h = 2.5 : f64, scales_w = 0.5 : f64} : tensor<1x4x2x8xf16> -> tensor<1x4x5x4xf16>
  return %0 : tensor<1x4x5x4xf16>
}

// upsample_bilinear2d elides align_corners = false.
// CHECK-LABEL: func.func @upsample_bilinear2d
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x4x8x8xf32>)
// CHECK: aten.upsample_bilinear2d %[[X]] : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
func.func @upsample_bilinear2d(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x16x16xf32> {
  %0 = aten.upsample_bilinear2d %x {align_corners = false} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  return %0 : tensor<1x4x16x16xf32>
}

// upsample_bilinear2d keeps align_corners = true and one scale.
// CHECK-LABEL: func.func @upsample_bilinear2d_align
// CHECK: aten.upsample_bilinear2d %{{.*}} {align_corners = true, scales_h = 2.000000e+00 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x16x12xf32>
func.func @upsample_bilinear2d_align(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x16x12xf32> {
  %0 = aten.upsample_bilinear2d %x {align_corners = true, scales_h = 2.0 : f64} : tensor<1x4x8x8xf32> -> tensor<1x4x16x12xf32>
  return %0 : tensor<1x4x16x12xf32>
}

// embedding with i64 indices of rank 2.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[W:[^:]*]]: tensor<100x16xf32>, %[[I:[^:]*]]: tensor<2x5xi64>)
// CHECK: aten.embedding %[[W]], %[[I]] : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
func.func @embedding(%w: tensor<100x16xf32>, %ids: tensor<2x5xi64>) -> tensor<2x5x16xf32> {
  %0 = aten.embedding %w, %ids : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
  return %0 : tensor<2x5x16xf32>
}

// gather along dim 1 with an index smaller than self in dim 2.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x5x6xf32>, %[[I:[^:]*]]: tensor<2x4x3xi64>)
// CHECK: aten.gather %[[X]], %[[I]] {dim = 1 : i64} : (tensor<2x5x6xf32>, tensor<2x4x3xi64>) -> tensor<2x4x3xf32>
func.func @gather(%x: tensor<2x5x6xf32>, %i: tensor<2x4x3xi64>) -> tensor<2x4x3xf32> {
  %0 = aten.gather %x, %i {dim = 1 : i64} : (tensor<2x5x6xf32>, tensor<2x4x3xi64>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// index_select of int64 elements with an i32 index, and with a 0-d index.
// CHECK-LABEL: func.func @index_select
// CHECK: aten.index_select %{{.*}}, %{{.*}} {dim = 0 : i64} : (tensor<3x4xi64>, tensor<5xi32>) -> tensor<5x4xi64>
// CHECK: aten.index_select %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<3x4xi64>, tensor<i64>) -> tensor<3x1xi64>
func.func @index_select(%x: tensor<3x4xi64>, %i: tensor<5xi32>, %j: tensor<i64>) -> (tensor<5x4xi64>, tensor<3x1xi64>) {
  %0 = aten.index_select %x, %i {dim = 0 : i64} : (tensor<3x4xi64>, tensor<5xi32>) -> tensor<5x4xi64>
  %1 = aten.index_select %x, %j {dim = 1 : i64} : (tensor<3x4xi64>, tensor<i64>) -> tensor<3x1xi64>
  return %0, %1 : tensor<5x4xi64>, tensor<3x1xi64>
}

// embedding with a 0-d i32 index picks one row, in bf16.
// CHECK-LABEL: func.func @embedding_scalar_index
// CHECK: aten.embedding %{{.*}}, %{{.*}} : (tensor<10x8xbf16>, tensor<i32>) -> tensor<8xbf16>
func.func @embedding_scalar_index(%w: tensor<10x8xbf16>, %ids: tensor<i32>) -> tensor<8xbf16> {
  %0 = aten.embedding %w, %ids : (tensor<10x8xbf16>, tensor<i32>) -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// Attention without a mask: is_causal = false is elided; value has its own width.
// CHECK-LABEL: func.func @sdpa
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x8x16xf32>, %[[K:[^:]*]]: tensor<1x2x6x16xf32>, %[[V:[^:]*]]: tensor<1x2x6x4xf32>)
// CHECK: %[[Y:.*]] = aten.scaled_dot_product_attention %[[Q]], %[[K]], %[[V]] : (tensor<1x2x8x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK: return %[[Y]]
func.func @sdpa(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x4xf32>) -> tensor<1x2x8x4xf32> {
  %0 = aten.scaled_dot_product_attention %q, %k, %v {is_causal = false} : (tensor<1x2x8x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x4xf32>) -> tensor<1x2x8x4xf32>
  return %0 : tensor<1x2x8x4xf32>
}

// Causal attention with an explicit scale, on rank-3 operands.
// CHECK-LABEL: func.func @sdpa_causal
// CHECK: aten.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} {is_causal = true, scale = 1.250000e-01 : f64} : (tensor<2x8x16xf16>, tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
func.func @sdpa_causal(%q: tensor<2x8x16xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x8x16xf16>) -> tensor<2x8x16xf16> {
  %0 = aten.scaled_dot_product_attention %q, %k, %v {is_causal = true, scale = 0.125 : f64} : (tensor<2x8x16xf16>, tensor<2x8x16xf16>, tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  return %0 : tensor<2x8x16xf16>
}

// A boolean mask that broadcasts to the [1, 2, 8, 6] scores.
// CHECK-LABEL: func.func @sdpa_bool_mask
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x2x8x16xf32>, %[[K:[^:]*]]: tensor<1x2x6x16xf32>, %[[V:[^:]*]]: tensor<1x2x6x16xf32>, %[[M:[^:]*]]: tensor<8x6xi1>)
// CHECK: aten.scaled_dot_product_attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : (tensor<1x2x8x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>, tensor<8x6xi1>) -> tensor<1x2x8x16xf32>
func.func @sdpa_bool_mask(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>, %m: tensor<8x6xi1>) -> tensor<1x2x8x16xf32> {
  %0 = aten.scaled_dot_product_attention %q, %k, %v mask %m : (tensor<1x2x8x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>, tensor<8x6xi1>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// An additive float mask of the full scores shape.
// CHECK-LABEL: func.func @sdpa_float_mask
// CHECK: aten.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : (tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x4xf32>) -> tensor<1x4x16xf32>
func.func @sdpa_float_mask(%q: tensor<1x4x16xf32>, %k: tensor<1x4x16xf32>, %v: tensor<1x4x16xf32>, %m: tensor<1x4x4xf32>) -> tensor<1x4x16xf32> {
  %0 = aten.scaled_dot_product_attention %q, %k, %v mask %m : (tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x4xf32>) -> tensor<1x4x16xf32>
  return %0 : tensor<1x4x16xf32>
}

// Weights held as dense_resource constants feed an op and keep their blobs.
// CHECK-LABEL: func.func @resource_weights
// CHECK-SAME: (%[[X:[^:]*]]: tensor<3x4xf32>)
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<w0> : tensor<2x4xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense_resource<b0> : tensor<2xf32>
// CHECK: aten.linear %[[X]], %[[W]], %[[B]] : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
func.func @resource_weights(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense_resource<w0> : tensor<2x4xf32>
  %b = arith.constant dense_resource<b0> : tensor<2xf32>
  %0 = aten.linear %x, %w, %b : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// An f16 resource (alignment 2) as the broadcast operand of a binary op.
// CHECK-LABEL: func.func @resource_f16
// CHECK: %[[C:.*]] = arith.constant dense_resource<h0> : tensor<2xf16>
// CHECK: aten.mul %{{.*}}, %[[C]] : tensor<3x2xf16>, tensor<2xf16> -> tensor<3x2xf16>
func.func @resource_f16(%x: tensor<3x2xf16>) -> tensor<3x2xf16> {
  %c = arith.constant dense_resource<h0> : tensor<2xf16>
  %0 = aten.mul %x, %c : tensor<3x2xf16>, tensor<2xf16> -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// CHECK: {-#
// CHECK-NEXT: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-DAG: w0: "0x040000000000803F000000400000003F000080BF000000000000803F000000400000003F"
// CHECK-DAG: b0: "0x040000000000803F000080BF"
// CHECK-DAG: h0: "0x02000000003C0040"
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F000000400000003F000080BF000000000000803F000000400000003F",
      b0: "0x040000000000803F000080BF",
      h0: "0x02000000003C0040"
    }
  }
#-}
