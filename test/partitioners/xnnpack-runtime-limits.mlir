// RUN: duet-opt --duet-partition="backends=xnnpack report=-" %s -o /dev/null | FileCheck %s

// What the XNNPACK this project links cannot define or run, found by the
// delegate's rule-agreement test (test/runtime/xnnpack), stays out of XNNPACK
// partitions with the reason; the report is checked in op order.

// fp16 nodes other than convert fail to define: only the casts are taken.
// CHECK: "node": "to_half"
// CHECK-NEXT: "index"
// CHECK-NEXT: "op": "aten.cast"
// CHECK-NEXT: "backend": "xnnpack"
// CHECK: "node": "half_mul"
// CHECK: "reason": "xnnpack: f16 aten.mul: this XNNPACK computes fp32 only, fp16 only in convert (aten.cast)"
// CHECK: "node": "to_single"
// CHECK-NEXT: "index"
// CHECK-NEXT: "op": "aten.cast"
// CHECK-NEXT: "backend": "xnnpack"

// A clamp with min >= max fails when the runtime is created.
// CHECK: "node": "flat_hardtanh"
// CHECK: "reason": "xnnpack: aten.hardtanh min 2 >= max 2: this XNNPACK's clamp needs min < max"
// CHECK: "node": "crossed_clamp"
// CHECK: "reason": "xnnpack: aten.clamp min 1 >= max 0.5: this XNNPACK's clamp needs min < max"

// output_padding >= stride (allowed by PyTorch below the dilation) fails at
// setup.
// CHECK: "node": "deconv_outpad"
// CHECK: "reason": "xnnpack: transposed convolution output_padding 1 >= stride 1 (axis 0): XNNPACK's deconvolution_2d adds fewer rows than the stride"

// XNNPACK values have no zero dims.
// CHECK: "node": "empty_relu"
// CHECK: "reason": "xnnpack: empty tensor [0,4] (input 0): XNNPACK values have no zero dims"
func.func @limits(%x: tensor<4x8xf32>, %img: tensor<1x2x4x4xf32>, %e: tensor<0x4xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x3x9x9xf32>, tensor<0x4xf32>) {
  %h = aten.cast %x : tensor<4x8xf32> -> tensor<4x8xf16> loc("to_half")
  %m = aten.mul %h, %h : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16> loc("half_mul")
  %s = aten.cast %m : tensor<4x8xf16> -> tensor<4x8xf32> loc("to_single")
  %t = aten.hardtanh %x {min_val = 2.0 : f64, max_val = 2.0 : f64} : tensor<4x8xf32> loc("flat_hardtanh")
  %c = aten.clamp %x {min = 1.0 : f64, max = 0.5 : f64} : tensor<4x8xf32> loc("crossed_clamp")
  %w = arith.constant dense<1.0> : tensor<2x3x3x3xf32>
  %d = aten.convolution %img, %w {dilation = array<i64: 2, 2>, groups = 1 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = true} : (tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x9x9xf32> loc("deconv_outpad")
  %r = aten.relu %e : tensor<0x4xf32> loc("empty_relu")
  return %s, %t, %c, %d, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x3x9x9xf32>, tensor<0x4xf32>
}
