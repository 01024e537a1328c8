// RUN: duet-opt --split-input-file --duet-partition %s | FileCheck %s --check-prefix=VK
// RUN: duet-opt --split-input-file --duet-partition="backends=xnnpack" %s | FileCheck %s --check-prefix=XNN
// RUN: duet-opt --duet-partition="backends=xnnpack report=-" %s -o /dev/null | FileCheck %s --check-prefix=XNN-REPORT

// Decomposition happens after placement, for the backend that runs the op:
// Vulkan has shaders for hardswish, hardsigmoid, silu and hardshrink, so all
// four stay whole there (a decomposed hardswish is what gave Inf/NaN on
// PowerVR). XNNPACK has hardswish but not silu or hardsigmoid, which become
// x * sigmoid(x) and clamp(x + 3, 0, 6) / 6 inside its partition; it has no
// hardshrink at all, which the decomposition library cannot rewrite exactly,
// so that op stays portable.

// VK-LABEL: func.func @activations
// VK: duet.delegate <vulkan>
// VK-NEXT: %[[HS:.*]] = aten.hardswish
// VK-NEXT: %[[HG:.*]] = aten.hardsigmoid %[[HS]]
// VK-NEXT: %[[SI:.*]] = aten.silu %[[HG]]
// VK-NEXT: %[[SH:.*]] = aten.hardshrink %[[SI]]
// VK-NEXT: duet.yield %[[SH]]

// XNN-LABEL: func.func @activations
// XNN: duet.delegate <xnnpack> (%[[X:.*]] = %{{.*}} : tensor<1x16x8x8xf32>)
// XNN: %[[HS:.*]] = aten.hardswish %[[X]]
// XNN: %[[ADD:.*]] = aten.add %[[HS]], %{{.*}}
// XNN: %[[CL:.*]] = aten.clamp %[[ADD]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// XNN: %[[HG:.*]] = aten.div %[[CL]], %{{.*}}
// XNN: %[[SG:.*]] = aten.sigmoid %[[HG]]
// XNN: %[[SI:.*]] = aten.mul %[[HG]], %[[SG]]
// XNN: duet.yield %[[SI]]
// XNN: aten.hardshrink
func.func @activations(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %0 = aten.hardswish %x : tensor<1x16x8x8xf32> loc("hswish")
  %1 = aten.hardsigmoid %0 : tensor<1x16x8x8xf32> loc("hsig")
  %2 = aten.silu %1 : tensor<1x16x8x8xf32> loc("silu")
  %3 = aten.hardshrink %2 : tensor<1x16x8x8xf32> loc("hshrink")
  return %3 : tensor<1x16x8x8xf32>
}

// XNN-REPORT: "node": "hswish"
// XNN-REPORT-NEXT: "index": 0
// XNN-REPORT-NEXT: "op": "aten.hardswish"
// XNN-REPORT-NEXT: "backend": "xnnpack"
// XNN-REPORT-NEXT: "partition": 0
// XNN-REPORT-NEXT: "rejections": []
// XNN-REPORT-NEXT: },
// XNN-REPORT: "node": "hsig"
// XNN-REPORT: "decomposed_into": [
// XNN-REPORT-NEXT: "aten.add",
// XNN-REPORT-NEXT: "aten.clamp",
// XNN-REPORT-NEXT: "aten.div"
// XNN-REPORT: "node": "silu"
// XNN-REPORT: "backend": "xnnpack"
// XNN-REPORT: "decomposed_into": [
// XNN-REPORT-NEXT: "aten.sigmoid",
// XNN-REPORT-NEXT: "aten.mul"
// XNN-REPORT: "node": "hshrink"
// XNN-REPORT: "backend": "portable"
// XNN-REPORT: "reason": "xnnpack: no XNNPACK subgraph node for aten.hardshrink"

// -----

// Attention has no Vulkan kernel of its own; its decomposition lands on
// ops Vulkan runs (matmul, permute, mul, softmax), so Vulkan claims it and
// the partition holds the pieces.
// VK-LABEL: func.func @attention
// VK: duet.delegate <vulkan>
// VK-NOT: aten.scaled_dot_product_attention
// VK: aten.permute
// VK: aten.matmul
// VK: aten.softmax
// VK: aten.matmul
// VK: duet.yield

// XNNPACK has no batch matmul, so attention stays portable there.
// XNN-LABEL: func.func @attention
// XNN-NOT: duet.delegate
// XNN: aten.scaled_dot_product_attention
func.func @attention(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = aten.scaled_dot_product_attention %q, %k, %v : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> loc("sdpa")
  return %0 : tensor<1x2x8x16xf32>
}
