// RUN: duet-opt --duet-partition="report=%t.json" %s | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

// A YOLOv8 detection head after its convolutions: three [1,84,N] maps are
// concatenated to [1,84,8400], split into boxes and classes, the classes go
// through a sigmoid, and the two are concatenated again. No texture holds
// [1,84,8400] under the generic 2048 limit, but concatenation, split and
// sigmoid have buffer kernels, so the whole head stays in one Vulkan
// partition on buffers; the conversion from the texture the convolution
// writes happens once per branch.

// CHECK-LABEL: func.func @head
// CHECK: duet.delegate <vulkan>
// CHECK: %[[V:.*]] = aten.view %{{.*}} {duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [100, 84, 1]>]}
// CHECK-NEXT: %[[B:.*]] = duet.layout_convert %[[V]] from <texture3d, width_packed, [100, 84, 1]> to <buffer, contiguous>
// CHECK: aten.cat %{{.*}}, %{{.*}}, %[[B]] {dim = 2 : i64, duet.vk_layouts = [#duet.vk_layout<buffer, contiguous>]}
// CHECK: aten.split_with_sizes {{.*}}duet.vk_layouts = [#duet.vk_layout<buffer, contiguous>, #duet.vk_layout<buffer, contiguous>]
// CHECK: aten.sigmoid {{.*}}buffer, contiguous
// CHECK: aten.cat {{.*}}buffer, contiguous
// CHECK: duet.yield
// CHECK-NOT: duet.delegate

// REPORT: "summary": {
// REPORT-NEXT: "ops": 6,
// REPORT-NEXT: "vulkan": 6,
// REPORT-NEXT: "xnnpack": 0,
// REPORT-NEXT: "portable": 0,
// REPORT-NEXT: "partitions": 1
// REPORT: "layout_conversions": 1
// REPORT: "tensor": "flat_p5"
// REPORT-NEXT: "producer": "aten.view"
// REPORT: "storage": "texture3d"
// REPORT: "tensor": "flat_p5"
// REPORT-NEXT: "producer": "duet.layout_convert"
// REPORT: "storage": "buffer"
// REPORT: "tensor": "split#1"
// REPORT-NEXT: "producer": "aten.split_with_sizes"
// REPORT-NEXT: "shape": [
// REPORT-NEXT: 1,
// REPORT-NEXT: 80,
// REPORT-NEXT: 8400
// REPORT-NEXT: ],
// REPORT-NEXT: "dtype": "f32",
// REPORT-NEXT: "storage": "buffer",
// REPORT-NEXT: "packing": "contiguous",
// REPORT-NEXT: "bytes": 2688000
func.func @head(%p3: tensor<1x84x6400xf32>, %p4: tensor<1x84x1600xf32>, %p5: tensor<1x84x20x20xf32>) -> tensor<1x84x8400xf32> {
  %w = arith.constant dense<0.5> : tensor<84x84x1x1xf32>
  %c = aten.convolution %p5, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x84x20x20xf32>, tensor<84x84x1x1xf32>) -> tensor<1x84x20x20xf32> loc("conv_p5")
  %v = aten.view %c : tensor<1x84x20x20xf32> -> tensor<1x84x400xf32> loc("flat_p5")
  %0 = aten.cat %p3, %p4, %v {dim = 2 : i64} : (tensor<1x84x6400xf32>, tensor<1x84x1600xf32>, tensor<1x84x400xf32>) -> tensor<1x84x8400xf32> loc("concat")
  %1:2 = aten.split_with_sizes %0 {dim = 1 : i64, split_sizes = array<i64: 4, 80>} : (tensor<1x84x8400xf32>) -> (tensor<1x4x8400xf32>, tensor<1x80x8400xf32>) loc("split")
  %2 = aten.sigmoid %1#1 : tensor<1x80x8400xf32> loc("classes")
  %3 = aten.cat %1#0, %2 {dim = 1 : i64} : (tensor<1x4x8400xf32>, tensor<1x80x8400xf32>) -> tensor<1x84x8400xf32> loc("detections")
  return %3 : tensor<1x84x8400xf32>
}
