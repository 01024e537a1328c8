// RUN: duet-opt --duet-partition="backends=xnnpack report=-" %s -o /dev/null | FileCheck %s --check-prefix=XNN
// RUN: duet-opt --duet-partition="backends=vulkan report=-" %s -o /dev/null | FileCheck %s --check-prefix=VK

// Every rejection names the rule it broke and the numbers that broke it.
// Each op below breaks one rule of one backend; the report is checked in op
// order.

// XNN: "node": "scaled_add"
// XNN: "reason": "xnnpack: aten.add alpha 2 != 1: this XNNPACK's add2/subtract have no scale"
// XNN: "node": "int_add"
// XNN: "reason": "xnnpack: dtype i64 (input 0) not accepted by aten.add (accepts f32)"
// XNN: "node": "softmax_mid"
// XNN: "reason": "xnnpack: softmax over dim 1 of a rank-3 tensor: this XNNPACK's softmax runs over the last dim (2) only"
// XNN: "node": "pool_gap"
// XNN: "reason": "xnnpack: max_pool2d stride 3 > kernel 2 (axis 0): XNNPACK's max_pooling_2d needs stride <= kernel"
// XNN: "node": "avg_padded"
// XNN: "reason": "xnnpack: avg_pool2d with padding [1,1] and count_include_pad: XNNPACK leaves padding out of the average"
// XNN: "node": "mean_channels"
// XNN: "reason": "xnnpack: mean over dims [1] of a rank-3 tensor without keepdim: this XNNPACK's only mean is global_average_pooling_2d, over dims [2,3] of [N,C,H,W] with keepdim"
// XNN: "node": "batched_matmul"
// XNN: "reason": "xnnpack: matmul right operand (input 1) [2,16,8] has batch dims: batch matmul is not in this XNNPACK's subgraph API, and fully_connected takes a 2-D weight"
// XNN: "node": "dynamic_linear"
// XNN: "reason": "xnnpack: weight (input 1) is not a constant; weights are packed at load"
// XNN: "node": "conv1d"
// XNN: "reason": "xnnpack: 1-D convolution (input 0 of rank 3): this XNNPACK has 2-D convolution nodes only"
// XNN: "node": "depthwise_7x7"
// XNN: "reason": "xnnpack: depthwise convolution of a 7x7 window (49 taps > 25): this XNNPACK's depthwise kernels take up to 25 taps and run larger windows as a grouped GEMM, slower than the portable kernel"
// XNN: "node": "depthwise_5x5"
// XNN-NEXT: "index": {{[0-9]+}},
// XNN-NEXT: "op": "aten.convolution",
// XNN-NEXT: "backend": "xnnpack",
// XNN: "node": "depthwise_7x7_stride2"
// XNN-NEXT: "index": {{[0-9]+}},
// XNN-NEXT: "op": "aten.convolution",
// XNN-NEXT: "backend": "xnnpack",
// XNN: "node": "scaled_elu"
// XNN: "reason": "xnnpack: elu scale 2, input_scale 1: this XNNPACK's elu takes alpha only"
// XNN: "node": "rank7"
// XNN: "reason": "xnnpack: rank 7 > 6 (input 0)"
// XNN: "node": "computed_index"
// XNN: "reason": "xnnpack: aten.index_select: this XNNPACK's subgraph API has no gather"

// VK: "node": "int_add"
// VK: "reason": "vulkan: dtype i64 (input 0) not accepted by aten.add (accepts f32, f16)"
// VK: "node": "batched_conv"
// VK: "reason": "vulkan: convolution batch 2 > 1 (input 0 [2,3,8,8]): the Vulkan convolution runs batch 1"
// VK: "node": "huge_conv"
// VK: "reason": "vulkan: input 0 [1,3,4096,4096] fits no texture layout under limits (2048,2048,2048): channels_packed (4096,4096,1) x>2048, y>2048 (aten.convolution reads channels_packed textures only); and aten.convolution has no buffer kernel"
// VK: "node": "sum_all"
// VK: "reason": "vulkan: aten.sum over every dim: the Vulkan reduction kernels reduce one or two given dims"
// VK: "node": "lookup"
// VK: "reason": "vulkan: aten.embedding: the Vulkan delegate stores float tensors only, and embedding reads integer indices"
// VK: "node": "rank9"
// VK: "reason": "vulkan: rank 9 > 8 (input 0)"
// VK: "node": "too_big"
// VK: "reason": "vulkan: input 0 [1,1,9000,4000] fits no texture layout under limits (2048,2048,2048): width_packed (1000,9000,1) y>2048; height_packed (4000,2250,1) x>2048, y>2048; channels_packed (4000,9000,1) x>2048, y>2048; and as a buffer input 0 needs 144000000 bytes > maxStorageBufferRange 134217728"
// VK: "node": "computed_index"
// VK: "reason": "vulkan: index (input 1) is computed at run time; the backend takes an integer index only as a constant, packed at load"
// VK: "node": "index_past_end"
// VK: "reason": "vulkan: aten.index_select index 10 at position 1 is outside [0, 10) of dim 0: the portable kernel reports it when the op runs"
func.func @rules(%x: tensor<1x16x8x8xf32>, %i: tensor<4x8xi64>, %s: tensor<2x3x4xf32>,
                 %m: tensor<2x8x16xf32>, %n: tensor<2x16x8xf32>, %w: tensor<8x16xf32>,
                 %seq: tensor<1x3x16xf32>, %img2: tensor<2x3x8x8xf32>, %big: tensor<1x3x4096x4096xf32>,
                 %r7: tensor<1x2x1x2x1x2x2xf32>, %r9: tensor<1x2x1x2x1x2x1x2x2xf32>,
                 %huge: tensor<1x1x9000x4000xf32>, %rows: tensor<3xi64>) {
  %scaled = aten.add %x, %x {alpha = 2.0 : f64} : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32> loc("scaled_add")
  %ints = aten.add %i, %i : tensor<4x8xi64>, tensor<4x8xi64> -> tensor<4x8xi64> loc("int_add")
  %sm = aten.softmax %s {dim = 1 : i64} : tensor<2x3x4xf32> loc("softmax_mid")
  %mp = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 3, 3>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : tensor<1x16x8x8xf32> -> tensor<1x16x3x3xf32> loc("pool_gap")
  %ap = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32> loc("avg_padded")
  %mean = aten.mean %s {dim = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32> loc("mean_channels")
  %mm = aten.matmul %m, %n : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32> loc("batched_matmul")
  %lin = aten.linear %m, %w : (tensor<2x8x16xf32>, tensor<8x16xf32>) -> tensor<2x8x8xf32> loc("dynamic_linear")
  %w1 = arith.constant dense<1.0> : tensor<8x3x3xf32>
  %c1 = aten.convolution %seq, %w1 {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, output_padding = array<i64: 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x16xf32>, tensor<8x3x3xf32>) -> tensor<1x8x14xf32> loc("conv1d")
  %wdw = arith.constant dense<1.0> : tensor<16x1x7x7xf32>
  %dw = aten.convolution %x, %wdw {stride = array<i64: 1, 1>, padding = array<i64: 3, 3>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 16 : i64, transposed = false} : (tensor<1x16x8x8xf32>, tensor<16x1x7x7xf32>) -> tensor<1x16x8x8xf32> loc("depthwise_7x7")
  // A 5x5 depthwise window (25 taps) stays on XNNPACK.
  %dw5 = arith.constant dense<1.0> : tensor<16x1x5x5xf32>
  %dwk = aten.convolution %x, %dw5 {stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 16 : i64, transposed = false} : (tensor<1x16x8x8xf32>, tensor<16x1x5x5xf32>) -> tensor<1x16x8x8xf32> loc("depthwise_5x5")
  // So does a strided 7x7 one, which the portable kernels run no faster.
  %dws = aten.convolution %x, %wdw {stride = array<i64: 2, 2>, padding = array<i64: 3, 3>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 16 : i64, transposed = false} : (tensor<1x16x8x8xf32>, tensor<16x1x7x7xf32>) -> tensor<1x16x4x4xf32> loc("depthwise_7x7_stride2")
  %elu = aten.elu %x {scale = 2.0 : f64} : tensor<1x16x8x8xf32> loc("scaled_elu")
  %neg7 = aten.neg %r7 : tensor<1x2x1x2x1x2x2xf32> loc("rank7")
  %w2 = arith.constant dense<1.0> : tensor<4x3x3x3xf32>
  %c2 = aten.convolution %img2, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> loc("batched_conv")
  %c3 = aten.convolution %big, %w2 {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x4096x4096xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x2048x2048xf32> loc("huge_conv")
  %sum = aten.sum %s : tensor<2x3x4xf32> -> tensor<f32> loc("sum_all")
  %table = arith.constant dense<1.0> : tensor<10x4xf32>
  %emb = aten.embedding %table, %i : (tensor<10x4xf32>, tensor<4x8xi64>) -> tensor<4x8x4xf32> loc("lookup")
  %neg9 = aten.neg %r9 : tensor<1x2x1x2x1x2x1x2x2xf32> loc("rank9")
  %hg = aten.abs %huge : tensor<1x1x9000x4000xf32> loc("too_big")
  %picked = aten.index_select %table, %rows {dim = 0 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32> loc("computed_index")
  %past = arith.constant dense<[0, 10]> : tensor<2xi64>
  %bad = aten.index_select %table, %past {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> loc("index_past_end")
  return
}
