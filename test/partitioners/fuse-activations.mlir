// RUN: duet-opt --split-input-file --duet-vulkan-layout --duet-xnnpack-layout --duet-fuse-activations %s | FileCheck %s
// RUN: duet-opt --split-input-file --duet-vulkan-layout --duet-xnnpack-layout --duet-fuse-activations --duet-fuse-activations %s | FileCheck %s
// RUN: duet-opt --split-input-file --duet-vulkan-layout --duet-xnnpack-layout --duet-fuse-activations="backends=vulkan" %s | FileCheck %s --check-prefix=VKONLY

// On Vulkan a relu, a hardtanh and a clamp after a convolution that nothing else reads fold into the convolution's bounds.
// CHECK-LABEL: func.func @vulkan_conv
// CHECK: %[[C0:.*]] = aten.convolution {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>
// CHECK-NEXT: aten.relu %[[C0]] {{{.*}}fusion.folded}
// CHECK-NEXT: %[[C1:.*]] = aten.convolution {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 6.000000e+00>
// CHECK-NEXT: aten.hardtanh %[[C1]] {{{.*}}fusion.folded,
// CHECK-NEXT: %[[C2:.*]] = aten.convolution {{.*}}fusion.output_bounds = array<f32: -1.000000e+00, 0x7F800000>
// CHECK-NEXT: aten.clamp %[[C2]] {{{.*}}fusion.folded,
func.func @vulkan_conv(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %r:3 = duet.delegate <vulkan> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %1 = aten.relu %0 : tensor<1x4x8x8xf32>
    %2 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %3 = aten.hardtanh %2 {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x4x8x8xf32>
    %4 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %5 = aten.clamp %4 {min = -1.0 : f64} : tensor<1x4x8x8xf32>
    duet.yield %1, %3, %5 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// On Vulkan nothing folds where the backend cannot take it: into a linear (only the convolution shader clamps), a second activation after a folded one, or a convolution that another op reads.
// CHECK-LABEL: func.func @vulkan_not_fused
// CHECK: %[[L:.*]] = aten.linear
// CHECK-NOT: fusion.output_bounds
// CHECK-NEXT: aten.relu %[[L]]
// CHECK-NOT: fusion.folded
// CHECK: %[[C0:.*]] = aten.convolution {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>
// CHECK-NEXT: %[[R0:.*]] = aten.relu %[[C0]] {{{.*}}fusion.folded}
// CHECK-NEXT: aten.hardtanh %[[R0]]
// CHECK-NOT: fusion.folded
// CHECK: %[[C1:.*]] = aten.convolution
// CHECK-NOT: fusion.output_bounds
// CHECK-NEXT: aten.relu %[[C1]]
// CHECK-NOT: fusion.folded
// CHECK: aten.add
func.func @vulkan_not_fused(%x: tensor<1x3x8x8xf32>, %v: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %r:3 = duet.delegate <vulkan> (%a = %x : tensor<1x3x8x8xf32>, %b = %v : tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
    %lw = arith.constant dense<0.5> : tensor<8x16xf32>
    %0 = aten.linear %b, %lw : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    %1 = aten.relu %0 : tensor<4x8xf32>
    %2 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %3 = aten.relu %2 : tensor<1x4x8x8xf32>
    %4 = aten.hardtanh %3 {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x4x8x8xf32>
    %5 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %6 = aten.relu %5 : tensor<1x4x8x8xf32>
    %7 = aten.add %6, %5 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
    duet.yield %1, %4, %7 : tensor<4x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// On Vulkan a convolution that writes another layout than its activation reads cannot write the activation's tensor, so nothing folds.
// CHECK-LABEL: func.func @vulkan_layouts_differ
// CHECK: aten.convolution
// CHECK-NOT: fusion.output_bounds
// CHECK-NEXT: aten.relu
// CHECK-NOT: fusion.folded
// CHECK: duet.yield
func.func @vulkan_layouts_differ(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false, duet.vk_layouts = [#duet.vk_layout<texture3d, channels_packed, [8, 8, 1]>]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %1 = aten.relu %0 {duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [2, 8, 4]>]} : tensor<1x4x8x8xf32>
    duet.yield %1 : tensor<1x4x8x8xf32>
  } attributes {duet.vk_arg_layouts = [#duet.vk_layout<texture3d, channels_packed, [8, 8, 1]>]}
  return %r : tensor<1x4x8x8xf32>
}

// -----

// An activation outside the partition (the partition yields the convolution) stays apart, on either backend.
// CHECK-LABEL: func.func @outside_partition
// CHECK: aten.convolution
// CHECK-NOT: fusion.output_bounds
// CHECK: aten.convolution
// CHECK-NOT: fusion.output_bounds
// CHECK: aten.relu
// CHECK-NOT: fusion.folded
// CHECK: aten.relu
// CHECK-NOT: fusion.folded
// CHECK: return
func.func @outside_partition(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %v = duet.delegate <vulkan> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    duet.yield %0 : tensor<1x4x8x8xf32>
  }
  %n = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    duet.yield %0 : tensor<1x4x8x8xf32>
  }
  %1 = aten.relu %v : tensor<1x4x8x8xf32>
  %2 = aten.relu %n : tensor<1x4x8x8xf32>
  return %1, %2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// On XNNPACK a relu then a hardtanh after a convolution both fold, their bounds intersected into one pair; the pools take bounds too.
// CHECK-LABEL: func.func @xnnpack_conv_pools
// CHECK: %[[C:.*]] = aten.convolution {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 6.000000e+00>
// CHECK-NEXT: %[[R:.*]] = aten.relu %[[C]] {fusion.folded,
// CHECK-NEXT: %[[H:.*]] = aten.hardtanh %[[R]] {fusion.folded,
// CHECK-NEXT: %[[MP:.*]] = aten.max_pool2d %[[H]] {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>
// CHECK-NEXT: %[[R1:.*]] = aten.relu %[[MP]] {fusion.folded,
// CHECK-NEXT: %[[AP:.*]] = aten.avg_pool2d %[[R1]] {{.*}}fusion.output_bounds = array<f32: -1.000000e+00, 1.000000e+00>
// CHECK-NEXT: %[[H1:.*]] = aten.hardtanh %[[AP]] {fusion.folded,
// CHECK-NEXT: %[[GP:.*]] = aten.adaptive_avg_pool2d %[[H1]] {fusion.output_bounds = array<f32: 0xFF800000, 5.000000e-01>
// CHECK-NEXT: aten.clamp %[[GP]] {fusion.folded,
func.func @xnnpack_conv_pools(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x1x1xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x4x1x1xf32>) {
    %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %1 = aten.relu %0 : tensor<1x4x8x8xf32>
    %2 = aten.hardtanh %1 {min_val = -1.0 : f64, max_val = 6.0 : f64} : tensor<1x4x8x8xf32>
    %3 = aten.max_pool2d %2 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
    %4 = aten.relu %3 : tensor<1x4x4x4xf32>
    %5 = aten.avg_pool2d %4 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : tensor<1x4x4x4xf32> -> tensor<1x4x2x2xf32>
    %6 = aten.hardtanh %5 {min_val = -1.0 : f64, max_val = 1.0 : f64} : tensor<1x4x2x2xf32>
    %7 = aten.adaptive_avg_pool2d %6 {output_size = array<i64: 1, 1>} : tensor<1x4x2x2xf32> -> tensor<1x4x1x1xf32>
    %8 = aten.clamp %7 {max = 0.5 : f64} : tensor<1x4x1x1xf32>
    duet.yield %8 : tensor<1x4x1x1xf32>
  }
  return %r : tensor<1x4x1x1xf32>
}

// -----

// On XNNPACK fully connected, add, sub, mul and div take bounds, and so does the clamp node of an activation that had nothing to fold into.
// CHECK-LABEL: func.func @xnnpack_bounds_nodes
// CHECK: %[[L:.*]] = aten.linear {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>
// CHECK-NEXT: %[[R:.*]] = aten.relu %[[L]] {fusion.folded,
// CHECK-NEXT: %[[A:.*]] = aten.add %[[R]], {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 6.000000e+00>
// CHECK-NEXT: %[[H:.*]] = aten.hardtanh %[[A]] {fusion.folded,
// CHECK-NEXT: %[[S:.*]] = aten.sub %[[H]], {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>
// CHECK-NEXT: %[[R1:.*]] = aten.relu %[[S]] {fusion.folded,
// CHECK-NEXT: %[[M:.*]] = aten.mul %[[R1]], {{.*}}fusion.output_bounds = array<f32: -2.000000e+00, 2.000000e+00>
// CHECK-NEXT: %[[CL:.*]] = aten.clamp %[[M]] {fusion.folded,
// CHECK-NEXT: %[[D:.*]] = aten.div %[[CL]], {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>
// CHECK-NEXT: aten.relu %[[D]] {fusion.folded,
// CHECK: %[[N:.*]] = aten.clamp %{{.*}} {fusion.output_bounds = array<f32: 0.000000e+00, 3.000000e+00>, max = 3.000000e+00 : f64, min = -3.000000e+00 : f64
// CHECK-NEXT: aten.relu %[[N]] {fusion.folded,
func.func @xnnpack_bounds_nodes(%x: tensor<4x16xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = duet.delegate <xnnpack> (%a = %x : tensor<4x16xf32>, %b = %y : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %lw = arith.constant dense<0.5> : tensor<8x16xf32>
    %k = arith.constant dense<2.0> : tensor<f32>
    %0 = aten.linear %a, %lw : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    %1 = aten.relu %0 : tensor<4x8xf32>
    %2 = aten.add %1, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %3 = aten.hardtanh %2 {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<4x8xf32>
    %4 = aten.sub %3, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %5 = aten.relu %4 : tensor<4x8xf32>
    %6 = aten.mul %5, %k : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    %7 = aten.clamp %6 {min = -2.0 : f64, max = 2.0 : f64} : tensor<4x8xf32>
    %8 = aten.div %7, %k : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    %9 = aten.relu %8 : tensor<4x8xf32>
    %10 = aten.clamp %b {min = -3.0 : f64, max = 3.0 : f64} : tensor<4x8xf32>
    %11 = aten.relu %10 : tensor<4x8xf32>
    duet.yield %9, %11 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// VKONLY-LABEL: func.func @xnnpack_bounds_nodes
// VKONLY-NOT: fusion.
// VKONLY: return

// -----

// On XNNPACK nothing folds into a node without bounds (hardswish, maximum), into a producer another op reads, or where the intersected bounds would leave min >= max (XNNPACK needs min < max): that hardtanh stays a clamp node.
// CHECK-LABEL: func.func @xnnpack_not_fused
// CHECK: %[[HS:.*]] = aten.hardswish
// CHECK-NEXT: aten.relu %[[HS]] {xnn.layout
// CHECK-NEXT: %[[MX:.*]] = aten.maximum
// CHECK-NEXT: aten.relu %[[MX]] {xnn.layout
// CHECK-NEXT: %[[L:.*]] = aten.linear %{{.*}}, %{{.*}} {xnn.layout
// CHECK-NEXT: aten.relu %[[L]] {xnn.layout
// CHECK-NEXT: aten.add
// CHECK-NEXT: %[[L2:.*]] = aten.linear {{.*}}fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>
// CHECK-NEXT: %[[R:.*]] = aten.relu %[[L2]] {fusion.folded,
// CHECK-NEXT: aten.hardtanh %[[R]] {max_val = -1.000000e+00 : f64, min_val = -2.000000e+00 : f64, xnn.layout
func.func @xnnpack_not_fused(%x: tensor<4x16xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:4 = duet.delegate <xnnpack> (%a = %x : tensor<4x16xf32>, %b = %y : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
    %lw = arith.constant dense<0.5> : tensor<8x16xf32>
    %0 = aten.hardswish %b : tensor<4x8xf32>
    %1 = aten.relu %0 : tensor<4x8xf32>
    %2 = aten.maximum %1, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %3 = aten.relu %2 : tensor<4x8xf32>
    %4 = aten.linear %a, %lw : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    %5 = aten.relu %4 : tensor<4x8xf32>
    %6 = aten.add %5, %4 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %7 = aten.linear %a, %lw : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    %8 = aten.relu %7 : tensor<4x8xf32>
    %9 = aten.hardtanh %8 {min_val = -2.0 : f64, max_val = -1.0 : f64} : tensor<4x8xf32>
    duet.yield %3, %6, %9, %1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
