// RUN: duet-opt %s | duet-opt | FileCheck %s

// A delegate region prints and parses back with its backend, bindings and results.
// CHECK-LABEL: func.func @delegate
// CHECK: %[[D:.*]]:2 = duet.delegate <xnnpack> (%[[A:.*]] = %{{.*}} : tensor<1x16xf32>) -> (tensor<1x16xf32>, tensor<1x16xf32>) {
// CHECK:   %[[H:.*]] = aten.hardswish %[[A]] : tensor<1x16xf32>
// CHECK:   duet.yield %[[H]], %[[A]] : tensor<1x16xf32>, tensor<1x16xf32>
// CHECK: } attributes {layout = #duet.vk_layout<texture3d, channels_packed>}
func.func @delegate(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %r:2 = duet.delegate <xnnpack> (%a = %x : tensor<1x16xf32>) -> (tensor<1x16xf32>, tensor<1x16xf32>) {
    %0 = aten.hardswish %a : tensor<1x16xf32>
    duet.yield %0, %a : tensor<1x16xf32>, tensor<1x16xf32>
  } attributes {layout = #duet.vk_layout<texture3d, channels_packed>}
  return %r#0 : tensor<1x16xf32>
}

// A delegate with no inputs, and a buffer layout.
// CHECK-LABEL: func.func @empty_inputs
// CHECK: duet.delegate <vulkan> () -> (tensor<2xf32>)
// CHECK: #duet.vk_layout<buffer, contiguous>
func.func @empty_inputs() -> tensor<2xf32> {
  %r = duet.delegate <vulkan> () -> (tensor<2xf32>) {
    %c = arith.constant {layout = #duet.vk_layout<buffer, contiguous>} dense<1.0> : tensor<2xf32>
    duet.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
