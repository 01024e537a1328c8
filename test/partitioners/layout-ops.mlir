// RUN: duet-opt %s | duet-opt | FileCheck %s

// A planned Vulkan partition prints and parses back: layouts with extents on
// results and inputs, and a layout conversion.
// CHECK-LABEL: func.func @planned
// CHECK: duet.delegate <vulkan>
// CHECK: aten.relu %{{.*}} {duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [2100, 84, 1]>]}
// CHECK: duet.layout_convert %{{.*}} from <texture3d, width_packed, [2100, 84, 1]> to <buffer, contiguous> : tensor<1x84x8400xf32>
// CHECK: } attributes {duet.vk_arg_layouts = [#duet.vk_layout<texture3d, width_packed, [2100, 84, 1]>]}
func.func @planned(%x: tensor<1x84x8400xf32>) -> tensor<1x84x8400xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<1x84x8400xf32>) -> (tensor<1x84x8400xf32>) {
    %0 = aten.relu %a {duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [2100, 84, 1]>]} : tensor<1x84x8400xf32>
    %1 = duet.layout_convert %0 from <texture3d, width_packed, [2100, 84, 1]> to <buffer, contiguous> : tensor<1x84x8400xf32>
    duet.yield %1 : tensor<1x84x8400xf32>
  } attributes {duet.vk_arg_layouts = [#duet.vk_layout<texture3d, width_packed, [2100, 84, 1]>]}
  return %r : tensor<1x84x8400xf32>
}
