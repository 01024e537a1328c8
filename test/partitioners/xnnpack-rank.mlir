// RUN: duet-opt --duet-partition="backends=xnnpack report=%t.x.json" %s | FileCheck %s --check-prefix=XNN
// RUN: FileCheck %s --check-prefix=XNN-REPORT < %t.x.json
// RUN: duet-opt --duet-partition="backends=xnnpack,vulkan report=%t.xv.json" %s | FileCheck %s --check-prefix=XV
// RUN: FileCheck %s --check-prefix=XV-REPORT < %t.xv.json

// x.reshape(2,6,8,2,16,8,2,16).permute(0,2,5,3,6,1,4,7).reshape(2,256,1536)
// followed by a linear: XNNPACK holds at most 6 dims and has no transpose,
// so the 8-D view and permute never enter an XNNPACK partition, while the
// linear on the 3-D result does.

// XNN-LABEL: func.func @patchify
// XNN: %[[V8:.*]] = aten.view %{{.*}} : tensor<2x96x4096xf32> -> tensor<2x6x8x2x16x8x2x16xf32>
// XNN: %[[P:.*]] = aten.permute %[[V8]]
// XNN: %[[V3:.*]] = aten.view %[[P]]
// XNN: duet.delegate <xnnpack> (%[[A:.*]] = %[[V3]] : tensor<2x256x1536xf32>)
// XNN-NEXT: arith.constant
// XNN-NEXT: aten.linear %[[A]]
// XNN-NOT: aten.permute
// XNN: return

// XNN-REPORT: "node": "to_8d"
// XNN-REPORT: "backend": "portable"
// XNN-REPORT: "reason": "xnnpack: rank 8 > 6 (output 0)"
// XNN-REPORT: "node": "shuffle"
// XNN-REPORT: "backend": "portable"
// XNN-REPORT: "reason": "xnnpack: aten.permute: this XNNPACK's subgraph API has no transpose"
// XNN-REPORT: "node": "to_3d"
// XNN-REPORT: "backend": "portable"
// XNN-REPORT: "reason": "xnnpack: rank 8 > 6 (input 0)"
// XNN-REPORT: "node": "proj"
// XNN-REPORT-NEXT: "index": 3
// XNN-REPORT-NEXT: "op": "aten.linear"
// XNN-REPORT-NEXT: "backend": "xnnpack"

// With XNNPACK first and Vulkan second, Vulkan takes the 8-D ops (as
// buffers: textures hold at most 4 dims) and XNNPACK keeps the linear.
// XV-LABEL: func.func @patchify
// XV: duet.delegate <vulkan>
// XV: aten.view {{.*}}buffer, contiguous
// XV: aten.permute {{.*}}buffer, contiguous
// XV: aten.view {{.*}}buffer, contiguous
// XV: duet.delegate <xnnpack>
// XV-NOT: aten.permute
// XV: aten.linear

// XV-REPORT: "node": "shuffle"
// XV-REPORT-NEXT: "index": 1
// XV-REPORT-NEXT: "op": "aten.permute"
// XV-REPORT-NEXT: "backend": "vulkan"
// XV-REPORT-NEXT: "partition": 0
// XV-REPORT-NEXT: "rejections": [
// XV-REPORT-NEXT: {
// XV-REPORT-NEXT: "backend": "xnnpack",
// XV-REPORT-NEXT: "reason": "xnnpack: aten.permute: this XNNPACK's subgraph API has no transpose"
// XV-REPORT: "node": "proj"
// XV-REPORT: "backend": "xnnpack"
// XV-REPORT-NEXT: "partition": 1
// XV-REPORT-NEXT: "rejections": []
func.func @patchify(%x: tensor<2x96x4096xf32>) -> tensor<2x256x64xf32> {
  %w = arith.constant dense<0.01> : tensor<64x1536xf32>
  %0 = aten.view %x : tensor<2x96x4096xf32> -> tensor<2x6x8x2x16x8x2x16xf32> loc("to_8d")
  %1 = aten.permute %0 {dims = array<i64: 0, 2, 5, 3, 6, 1, 4, 7>} : tensor<2x6x8x2x16x8x2x16xf32> -> tensor<2x8x8x2x2x6x16x16xf32> loc("shuffle")
  %2 = aten.view %1 : tensor<2x8x8x2x2x6x16x16xf32> -> tensor<2x256x1536xf32> loc("to_3d")
  %3 = aten.linear %2, %w : (tensor<2x256x1536xf32>, tensor<64x1536xf32>) -> tensor<2x256x64xf32> loc("proj")
  return %3 : tensor<2x256x64xf32>
}
