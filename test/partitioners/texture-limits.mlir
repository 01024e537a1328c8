// RUN: duet-opt --duet-partition="backends=vulkan texture-limits=2048,2048,2048 report=%t.2048.json" %s | FileCheck %s --check-prefix=IR2048
// RUN: FileCheck %s --check-prefix=REPORT2048 < %t.2048.json
// RUN: duet-opt --duet-partition="backends=vulkan texture-limits=16384,16384,16384 report=%t.16384.json" %s | FileCheck %s --check-prefix=IR16384
// RUN: FileCheck %s --check-prefix=REPORT16384 < %t.16384.json

// YOLOv8's [1,84,8400] head output: width-packed it is (2100,84,1), over a
// 2048 limit, and the other packings are (8400,21,1) and (8400,84,1), so
// under 2048 no texture holds it. sigmoid has a buffer kernel and runs on a
// buffer; softmax has none and is rejected with the extents in the reason.
// Under 16384 every packing fits and the cheapest, width-packed, is chosen.

// IR2048-LABEL: func.func @yolo_head
// IR2048: duet.delegate <vulkan>
// IR2048-NOT: width_packed
// IR2048: aten.sigmoid %{{.*}} {duet.vk_layouts = [#duet.vk_layout<buffer, contiguous>]}
// IR2048: } attributes {duet.vk_arg_layouts = [#duet.vk_layout<buffer, contiguous>]}
// IR2048: aten.softmax
// IR2048-NOT: width_packed

// IR16384-LABEL: func.func @yolo_head
// IR16384: aten.sigmoid %{{.*}} {duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [2100, 84, 1]>]}
// IR16384: aten.softmax %{{.*}} {dim = 1 : i64, duet.vk_layouts = [#duet.vk_layout<texture3d, width_packed, [2100, 84, 1]>]}

// REPORT2048: "max_image_extent": [
// REPORT2048-NEXT: 2048,
// REPORT2048: "node": "scores"
// REPORT2048-NEXT: "index": 0
// REPORT2048-NEXT: "op": "aten.sigmoid"
// REPORT2048-NEXT: "backend": "vulkan"
// REPORT2048: "node": "probs"
// REPORT2048: "backend": "portable"
// REPORT2048: "reason": "vulkan: input 0 [1,84,8400] fits no texture layout under limits (2048,2048,2048): width_packed (2100,84,1) x>2048; height_packed (8400,21,1) x>2048; channels_packed (8400,84,1) x>2048; and aten.softmax has no buffer kernel"
// REPORT2048: "vulkan_tensors": [
// REPORT2048: "tensor": "scores"
// REPORT2048-NEXT: "producer": "aten.sigmoid"
// REPORT2048: "storage": "buffer"
// REPORT2048-NEXT: "packing": "contiguous"
// REPORT2048-NEXT: "bytes": 2822400

// REPORT16384: "node": "probs"
// REPORT16384-NEXT: "index": 1
// REPORT16384-NEXT: "op": "aten.softmax"
// REPORT16384-NEXT: "backend": "vulkan"
// REPORT16384: "tensor": "scores"
// REPORT16384-NEXT: "producer": "aten.sigmoid"
// REPORT16384: "storage": "texture3d"
// REPORT16384-NEXT: "packing": "width_packed"
// REPORT16384-NEXT: "extents": [
// REPORT16384-NEXT: 2100,
// REPORT16384-NEXT: 84,
// REPORT16384-NEXT: 1
// REPORT16384-NEXT: ]
func.func @yolo_head(%x: tensor<1x84x8400xf32>) -> tensor<1x84x8400xf32> {
  %0 = aten.sigmoid %x : tensor<1x84x8400xf32> loc("scores")
  %1 = aten.softmax %0 {dim = 1 : i64} : tensor<1x84x8400xf32> loc("probs")
  return %1 : tensor<1x84x8400xf32>
}
