// RUN: duet-opt --split-input-file --duet-vulkan-layout %s | FileCheck %s
// RUN: duet-opt --split-input-file --duet-vulkan-layout --duet-vulkan-layout %s | FileCheck %s --check-prefix=TWICE

// Elementwise ops after a convolution take its channels-packed layout, so
// nothing is converted.
// CHECK-LABEL: func.func @follow_producer
// CHECK: aten.convolution {{.*}}duet.vk_layouts = [#duet.vk_layout<texture3d, channels_packed, [8, 8, 4]>]
// CHECK-NEXT: aten.hardswish {{.*}}duet.vk_layouts = [#duet.vk_layout<texture3d, channels_packed, [8, 8, 4]>]
// CHECK-NEXT: aten.add {{.*}}duet.vk_layouts = [#duet.vk_layout<texture3d, channels_packed, [8, 8, 4]>]
// CHECK-NOT: duet.layout_convert
// CHECK: duet.vk_arg_layouts = [#duet.vk_layout<texture3d, channels_packed, [8, 8, 1]>]
func.func @follow_producer(%x: tensor<1x3x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x16x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<16x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
    %1 = aten.hardswish %0 : tensor<1x16x8x8xf32>
    %2 = aten.add %1, %0 : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
    duet.yield %2 : tensor<1x16x8x8xf32>
  }
  return %r : tensor<1x16x8x8xf32>
}

// -----

// A view re-indexes every element, so it reads the convolution's
// channels-packed texture and writes the width-packed one linear reads.
// CHECK-LABEL: func.func @view_between
// CHECK: aten.convolution {{.*}}channels_packed
// CHECK-NEXT: aten.view {{.*}}duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [256, 1, 1]>]
// CHECK-NEXT: aten.linear {{.*}}duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [3, 1, 1]>]
// CHECK-NOT: duet.layout_convert
func.func @view_between(%x: tensor<1x3x8x8xf32>) -> tensor<1x10xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x10xf32>) {
    %w = arith.constant dense<0.5> : tensor<16x3x3x3xf32>
    %lw = arith.constant dense<0.5> : tensor<10x1024xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
    %1 = aten.view %0 : tensor<1x16x8x8xf32> -> tensor<1x1024xf32>
    %2 = aten.linear %1, %lw : (tensor<1x1024xf32>, tensor<10x1024xf32>) -> tensor<1x10xf32>
    duet.yield %2 : tensor<1x10xf32>
  }
  return %r : tensor<1x10xf32>
}

// -----

// A tensor two consumers read in different packings: the producer writes
// the one more consumers read, and one conversion serves the other.
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[C:.*]] = aten.convolution {{.*}}channels_packed
// CHECK: %[[R:.*]] = aten.relu %[[C]] {duet.vk_layouts = [#duet.vk_layout<texture3d, channels_packed, [8, 8, 4]>]}
// CHECK-NEXT: %[[W:.*]] = duet.layout_convert %[[R]] from <texture3d, channels_packed, [8, 8, 4]> to <texture3d, width_packed, [2, 8, 16]> : tensor<1x16x8x8xf32>
// CHECK: aten.convolution %[[R]]
// CHECK: aten.max_pool2d %[[R]]
// CHECK: aten.layer_norm %[[W]]
func.func @two_readers(%x: tensor<1x3x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>) {
  %r:3 = duet.delegate <vulkan> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<16x3x3x3xf32>
    %w2 = arith.constant dense<0.5> : tensor<16x16x1x1xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
    %1 = aten.relu %0 : tensor<1x16x8x8xf32>
    %2 = aten.convolution %1, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
    %3 = aten.max_pool2d %1 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
    %4 = aten.layer_norm %1 {normalized_shape = array<i64: 8>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
    duet.yield %2, %3, %4 : tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>, tensor<1x16x8x8xf32>
}

// -----

// A partition input read in two packings is uploaded in one and converted
// once, at the start of the partition, for the other. Both cost 64 texels
// here, so the tie goes to width-packed.
// CHECK-LABEL: func.func @input_two_ways
// CHECK: duet.delegate <vulkan> (%[[A:.*]] = %{{.*}} : tensor<1x4x8x8xf32>)
// CHECK-NEXT: %[[C:.*]] = duet.layout_convert %[[A]] from <texture3d, width_packed, [2, 8, 4]> to <texture3d, channels_packed, [8, 8, 1]>
// CHECK: aten.max_pool2d %[[C]]
// CHECK: aten.layer_norm %[[A]]
// CHECK: duet.vk_arg_layouts = [#duet.vk_layout<texture3d, width_packed, [2, 8, 4]>]

// A partition already planned is left alone.
// TWICE-LABEL: func.func @input_two_ways
// TWICE-COUNT-1: duet.layout_convert
// TWICE-NOT: duet.layout_convert
func.func @input_two_ways(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>) {
  %r:2 = duet.delegate <vulkan> (%a = %x : tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>) {
    %0 = aten.max_pool2d %a {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
    %1 = aten.layer_norm %a {normalized_shape = array<i64: 8>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    duet.yield %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>
  }
  return %r#0, %r#1 : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>
}
