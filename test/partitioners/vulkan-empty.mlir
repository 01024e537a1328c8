// RUN: duet-opt --duet-partition="backends=vulkan report=-" %s -o /dev/null | FileCheck %s
// RUN: duet-opt --duet-partition="backends=vulkan" %s | FileCheck %s --check-prefix=IR

// A Vulkan image or buffer cannot be empty, so an op with an empty operand or
// result stays off the Vulkan delegate, with the reason, instead of failing
// the emitter ("texture extent 0"); the rest of the graph is claimed as
// before. The empty cache of a decoder's first step:
// cat([zeros(1,2,0,4), x], dim=2).

// CHECK: "node": "cat"
// CHECK: "reason": "vulkan: empty tensor [1,2,0,4] (input 0): Vulkan images and buffers cannot be empty (an extent or size of 0)"
// CHECK: "node": "empty_relu"
// CHECK: "reason": "vulkan: empty tensor [1,2,0,4] (input 0): Vulkan images and buffers cannot be empty (an extent or size of 0)"

// IR-LABEL: func.func @empty_cache
// IR:       %[[CAT:.*]] = aten.cat
// IR-NEXT:  duet.delegate <vulkan> (%{{.*}} = %[[CAT]] : tensor<1x2x3x4xf32>)
// IR-NEXT:    aten.relu
// IR:       } attributes
// IR-NEXT:  aten.relu %{{.*}} : tensor<1x2x0x4xf32>
func.func @empty_cache(%x: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x0x4xf32>) {
  %cache = arith.constant dense<> : tensor<1x2x0x4xf32>
  %k = aten.cat %cache, %x {dim = 2 : i64} : (tensor<1x2x0x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> loc("cat")
  %r = aten.relu %k : tensor<1x2x3x4xf32> loc("relu")
  %e = aten.relu %cache : tensor<1x2x0x4xf32> loc("empty_relu")
  return %r, %e : tensor<1x2x3x4xf32>, tensor<1x2x0x4xf32>
}
