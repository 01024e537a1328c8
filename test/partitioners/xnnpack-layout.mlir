// RUN: duet-opt --split-input-file --duet-xnnpack-layout %s | FileCheck %s
// RUN: duet-opt --split-input-file --duet-xnnpack-layout --duet-xnnpack-layout %s | FileCheck %s

// A convolution, pooling and convolution chain runs in NHWC: the input is transposed once on entry, the output once on exit, and everything between is one subgraph.
// CHECK-LABEL: func.func @conv_pool_chain
// CHECK: duet.delegate <xnnpack> (%[[A:.*]] = %{{.*}} : tensor<1x3x8x8xf32>)
// CHECK: %[[IN:.*]] = xnn.layout_change %[[A]] from plain to nhwc by host_copy {xnn.subgraph = 0 : i64} : tensor<1x3x8x8xf32>
// CHECK-NEXT: %[[C0:.*]] = aten.convolution %[[IN]], {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[P:.*]] = aten.max_pool2d %[[C0]] {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[H:.*]] = aten.hardswish %[[P]] {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[C1:.*]] = aten.convolution %[[H]], {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[OUT:.*]] = xnn.layout_change %[[C1]] from nhwc to plain by host_copy {xnn.subgraph = 1 : i64} : tensor<1x8x4x4xf32>
// CHECK-NEXT: duet.yield %[[OUT]]
func.func @conv_pool_chain(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x8x4x4xf32>) {
    %w = arith.constant dense<0.5> : tensor<8x3x3x3xf32>
    %w2 = arith.constant dense<0.5> : tensor<8x8x1x1xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
    %1 = aten.max_pool2d %0 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
    %2 = aten.hardswish %1 : tensor<1x8x4x4xf32>
    %3 = aten.convolution %2, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
    duet.yield %3 : tensor<1x8x4x4xf32>
  }
  return %r : tensor<1x8x4x4xf32>
}

// -----

// Fully connected, softmax and view read the plain order, so a partition of them has no layout change at all.
// CHECK-LABEL: func.func @plain_readers
// CHECK-NOT: xnn.layout_change
// CHECK: aten.linear {{.*}}{xnn.layout = #xnn.layout<plain>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: aten.softmax {{.*}}xnn.layout = #xnn.layout<plain>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: aten.view {{.*}}{xnn.layout = #xnn.layout<plain>, xnn.subgraph = 0 : i64}
// CHECK-NOT: xnn.layout_change
// CHECK: return
func.func @plain_readers(%x: tensor<4x16xf32>) -> tensor<2x2x5xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<4x16xf32>) -> (tensor<2x2x5xf32>) {
    %w = arith.constant dense<0.5> : tensor<5x16xf32>
    %0 = aten.linear %a, %w : (tensor<4x16xf32>, tensor<5x16xf32>) -> tensor<4x5xf32>
    %1 = aten.softmax %0 {dim = 1 : i64} : tensor<4x5xf32>
    %2 = aten.view %1 : tensor<4x5xf32> -> tensor<2x2x5xf32>
    duet.yield %2 : tensor<2x2x5xf32>
  }
  return %r : tensor<2x2x5xf32>
}

// -----

// A convolution's NHWC result that a pool reads as it is and a softmax and a view read plain gets one host copy to plain, shared by both plain readers, which then run in the second subgraph.
// CHECK-LABEL: func.func @two_layouts
// CHECK: %[[C:.*]] = aten.convolution {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[P:.*]] = aten.max_pool2d %[[C]] {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[POUT:.*]] = xnn.layout_change %[[P]] from nhwc to plain by host_copy {xnn.subgraph = 1 : i64}
// CHECK-NEXT: %[[PLAIN:.*]] = xnn.layout_change %[[C]] from nhwc to plain by host_copy {xnn.subgraph = 1 : i64} : tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[S:.*]] = aten.softmax %[[PLAIN]] {{.*}}xnn.layout = #xnn.layout<plain>, xnn.subgraph = 1 : i64}
// CHECK-NEXT: %[[V:.*]] = aten.view %[[PLAIN]] {xnn.layout = #xnn.layout<plain>, xnn.subgraph = 1 : i64}
// CHECK-NEXT: duet.yield %[[POUT]], %[[S]], %[[V]]
func.func @two_layouts(%x: tensor<1x3x8x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>, tensor<1x512xf32>) {
  %r:3 = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>, tensor<1x512xf32>) {
    %w = arith.constant dense<0.5> : tensor<8x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
    %1 = aten.max_pool2d %0 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
    %2 = aten.softmax %0 {dim = 3 : i64} : tensor<1x8x8x8xf32>
    %3 = aten.view %0 : tensor<1x8x8x8xf32> -> tensor<1x512xf32>
    duet.yield %1, %2, %3 : tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>, tensor<1x512xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>, tensor<1x512xf32>
}

// -----

// A pooled [1,8,1,1] value orders its elements the same in both layouts: the softmax reads it through a reshape node in the same subgraph, and the view after the reshape reads that plain value too.
// CHECK-LABEL: func.func @same_order
// CHECK: %[[P:.*]] = aten.adaptive_avg_pool2d {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[R:.*]] = xnn.layout_change %[[P]] from nhwc to plain by reshape {xnn.subgraph = 0 : i64} : tensor<1x8x1x1xf32>
// CHECK-NEXT: aten.softmax %[[R]]
// CHECK-NEXT: aten.view %[[R]]
func.func @same_order(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x8xf32>) {
  %r:2 = duet.delegate <xnnpack> (%a = %x : tensor<1x8x4x4xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x8xf32>) {
    %0 = aten.adaptive_avg_pool2d %a {output_size = array<i64: 1, 1>} : tensor<1x8x4x4xf32> -> tensor<1x8x1x1xf32>
    %1 = aten.softmax %0 {dim = 3 : i64} : tensor<1x8x1x1xf32>
    %2 = aten.view %0 : tensor<1x8x1x1xf32> -> tensor<1x8xf32>
    duet.yield %1, %2 : tensor<1x8x1x1xf32>, tensor<1x8xf32>
  }
  return %r#0, %r#1 : tensor<1x8x1x1xf32>, tensor<1x8xf32>
}

// -----

// A view of a [1,8,1,1] value held only in NHWC reads it as it is, with no change of layout.
// CHECK-LABEL: func.func @view_as_is
// CHECK: %[[P:.*]] = aten.adaptive_avg_pool2d {{.*}}xnn.layout = #xnn.layout<nhwc>
// CHECK-NEXT: aten.view %[[P]] {xnn.layout = #xnn.layout<plain>, xnn.subgraph = 0 : i64}
func.func @view_as_is(%x: tensor<1x8x4x4xf32>) -> tensor<1x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x8x4x4xf32>) -> (tensor<1x8xf32>) {
    %0 = aten.adaptive_avg_pool2d %a {output_size = array<i64: 1, 1>} : tensor<1x8x4x4xf32> -> tensor<1x8x1x1xf32>
    %1 = aten.view %0 : tensor<1x8x1x1xf32> -> tensor<1x8xf32>
    duet.yield %1 : tensor<1x8xf32>
  }
  return %r : tensor<1x8xf32>
}

// -----

// The binary-op tie-break: NHWC and plain each cost one host copy for the add of an NHWC and a plain value, and the tie goes to NHWC because an operand is NHWC already; the mul of two plain values ties with no NHWC operand and stays plain.
// CHECK-LABEL: func.func @binary_tie
// CHECK: duet.delegate <xnnpack> (%{{.*}} = %{{.*}} : tensor<1x3x8x8xf32>, %[[B:.*]] = %{{.*}} : tensor<1x8x8x8xf32>, %[[C:.*]] = %{{.*}} : tensor<1x8x8x8xf32>)
// CHECK: %[[CONV:.*]] = aten.convolution
// CHECK-NEXT: %[[BN:.*]] = xnn.layout_change %[[B]] from plain to nhwc by host_copy {xnn.subgraph = 0 : i64}
// CHECK-NEXT: aten.add %[[CONV]], %[[BN]] {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK: aten.mul %[[B]], %[[C]] {xnn.layout = #xnn.layout<plain>, xnn.subgraph = 0 : i64}
func.func @binary_tie(%x: tensor<1x3x8x8xf32>, %y: tensor<1x8x8x8xf32>, %z: tensor<1x8x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %r:2 = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>, %b = %y : tensor<1x8x8x8xf32>, %c = %z : tensor<1x8x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<8x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
    %1 = aten.add %0, %b : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
    %2 = aten.mul %b, %c : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
    duet.yield %1, %2 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
  }
  return %r#0, %r#1 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// -----

// A lower-rank runtime operand whose broadcast orders the same in NHWC ([8,1,1]) is reshaped for its reader alone and the mul runs in NHWC; one whose broadcast does not ([8,8,8]) keeps the add plain, which then reads the convolution through a host copy.
// CHECK-LABEL: func.func @binary_lower_rank
// CHECK: duet.delegate <xnnpack> (%{{.*}} = %{{.*}} : tensor<1x3x8x8xf32>, %[[B:.*]] = %{{.*}} : tensor<8x8x8xf32>, %[[D:.*]] = %{{.*}} : tensor<8x1x1xf32>)
// CHECK: %[[CONV:.*]] = aten.convolution
// CHECK-NEXT: %[[DN:.*]] = xnn.layout_change %[[D]] from plain to nhwc by reshape {xnn.subgraph = 0 : i64} : tensor<8x1x1xf32>
// CHECK-NEXT: %[[M:.*]] = aten.mul %[[CONV]], %[[DN]] {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK: %[[PLAIN:.*]] = xnn.layout_change %[[CONV]] from nhwc to plain by host_copy {xnn.subgraph = 1 : i64}
// CHECK-NEXT: aten.add %[[PLAIN]], %[[B]] {xnn.layout = #xnn.layout<plain>, xnn.subgraph = 1 : i64}
func.func @binary_lower_rank(%x: tensor<1x3x8x8xf32>, %y: tensor<8x8x8xf32>, %s: tensor<8x1x1xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %r:2 = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>, %b = %y : tensor<8x8x8xf32>, %d = %s : tensor<8x1x1xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<8x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
    %1 = aten.mul %0, %d : tensor<1x8x8x8xf32>, tensor<8x1x1xf32> -> tensor<1x8x8x8xf32>
    %2 = aten.add %0, %b : tensor<1x8x8x8xf32>, tensor<8x8x8xf32> -> tensor<1x8x8x8xf32>
    duet.yield %1, %2 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
  }
  return %r#0, %r#1 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// -----

// Constants read in NHWC are repacked at compile time, once per constant (the [8,1,1] bias serves both adds), costing no host copy; a scalar is read as it is.
// CHECK-LABEL: func.func @constants_repacked
// CHECK: %[[K:.*]] = arith.constant dense<2.000000e+00> : tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<3.000000e+00> : tensor<8x1x1xf32>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[CONV:.*]] = aten.convolution
// CHECK-NEXT: %[[KN:.*]] = xnn.layout_change %[[K]] from plain to nhwc by repack : tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[M:.*]] = aten.mul %[[CONV]], %[[KN]] {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[CN:.*]] = xnn.layout_change %[[C]] from plain to nhwc by repack : tensor<8x1x1xf32>
// CHECK-NEXT: %[[A:.*]] = aten.add %[[M]], %[[CN]] {xnn.layout = #xnn.layout<nhwc>
// CHECK-NEXT: %[[S:.*]] = aten.sub %[[A]], %[[ONE]] {xnn.layout = #xnn.layout<nhwc>
// CHECK-NEXT: aten.add %[[S]], %[[CN]] {xnn.layout = #xnn.layout<nhwc>
func.func @constants_repacked(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x8x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<8x3x3x3xf32>
    %k = arith.constant dense<2.0> : tensor<1x8x8x8xf32>
    %c = arith.constant dense<3.0> : tensor<8x1x1xf32>
    %one = arith.constant dense<1.0> : tensor<f32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
    %1 = aten.mul %0, %k : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
    %2 = aten.add %1, %c : tensor<1x8x8x8xf32>, tensor<8x1x1xf32> -> tensor<1x8x8x8xf32>
    %3 = aten.sub %2, %one : tensor<1x8x8x8xf32>, tensor<f32> -> tensor<1x8x8x8xf32>
    %4 = aten.add %3, %c : tensor<1x8x8x8xf32>, tensor<8x1x1xf32> -> tensor<1x8x8x8xf32>
    duet.yield %4 : tensor<1x8x8x8xf32>
  }
  return %r : tensor<1x8x8x8xf32>
}

// -----

// A bf16 partition input is read only through host copies from it, one per layout (converting to fp32), and a bf16 result is copied out even when plain; the add reading a value copied after subgraph 0 runs in subgraph 1.
// CHECK-LABEL: func.func @bf16_boundary
// CHECK: duet.delegate <xnnpack> (%[[A:.*]] = %{{.*}} : tensor<1x3x8x8xbf16>)
// CHECK-NEXT: %[[AP:.*]] = xnn.layout_change %[[A]] from plain to plain by host_copy {xnn.subgraph = 0 : i64} : tensor<1x3x8x8xbf16>
// CHECK-NEXT: %[[R:.*]] = aten.relu %[[AP]] {xnn.layout = #xnn.layout<plain>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[AN:.*]] = xnn.layout_change %[[A]] from plain to nhwc by host_copy {xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[P:.*]] = aten.max_pool2d %[[AN]] {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[RN:.*]] = xnn.layout_change %[[R]] from plain to nhwc by host_copy {xnn.subgraph = 1 : i64}
// CHECK-NEXT: %[[SUM:.*]] = aten.add %[[RN]], %[[P]] {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 1 : i64}
// CHECK-NEXT: %[[OUT:.*]] = xnn.layout_change %[[SUM]] from nhwc to plain by host_copy {xnn.subgraph = 2 : i64}
// CHECK-NEXT: duet.yield %[[OUT]]
func.func @bf16_boundary(%x: tensor<1x3x8x8xbf16>) -> tensor<1x3x8x8xbf16> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xbf16>) -> (tensor<1x3x8x8xbf16>) {
    %0 = aten.relu %a : tensor<1x3x8x8xbf16>
    %1 = aten.max_pool2d %a {kernel_size = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : tensor<1x3x8x8xbf16> -> tensor<1x3x8x8xbf16>
    %2 = aten.add %0, %1 : tensor<1x3x8x8xbf16>, tensor<1x3x8x8xbf16> -> tensor<1x3x8x8xbf16>
    duet.yield %2 : tensor<1x3x8x8xbf16>
  }
  return %r : tensor<1x3x8x8xbf16>
}

// -----

// A plain bf16 result is still copied out, converting it to the partition output's bf16, after the subgraph that computes it.
// CHECK-LABEL: func.func @bf16_plain_output
// CHECK: duet.delegate <xnnpack> (%[[A:.*]] = %{{.*}} : tensor<2x8xbf16>)
// CHECK: %[[AP:.*]] = xnn.layout_change %[[A]] from plain to plain by host_copy {xnn.subgraph = 0 : i64} : tensor<2x8xbf16>
// CHECK-NEXT: %[[L:.*]] = aten.linear %[[AP]], {{.*}}{xnn.layout = #xnn.layout<plain>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[LOUT:.*]] = xnn.layout_change %[[L]] from plain to plain by host_copy {xnn.subgraph = 1 : i64} : tensor<2x4xbf16>
// CHECK-NEXT: duet.yield %[[LOUT]]
func.func @bf16_plain_output(%x: tensor<2x8xbf16>) -> tensor<2x4xbf16> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<2x8xbf16>) -> (tensor<2x4xbf16>) {
    %w = arith.constant dense<0.5> : tensor<4x8xbf16>
    %0 = aten.linear %a, %w : (tensor<2x8xbf16>, tensor<4x8xbf16>) -> tensor<2x4xbf16>
    duet.yield %0 : tensor<2x4xbf16>
  }
  return %r : tensor<2x4xbf16>
}

// -----

// The rounding ops are one-node ops from the op table (XnnpackNode): each follows its input's NHWC layout, so the chain stays one subgraph.
// CHECK-LABEL: func.func @rounding_chain
// CHECK: %[[C0:.*]] = aten.convolution {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[CE:.*]] = aten.ceil %[[C0]] {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[FL:.*]] = aten.floor %[[CE]] {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: %[[RO:.*]] = aten.round %[[FL]] {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
// CHECK-NEXT: aten.convolution %[[RO]], {{.*}}xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64}
func.func @rounding_chain(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x8x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<8x3x3x3xf32>
    %w2 = arith.constant dense<0.5> : tensor<8x8x1x1xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
    %1 = aten.ceil %0 : tensor<1x8x8x8xf32>
    %2 = aten.floor %1 : tensor<1x8x8x8xf32>
    %3 = aten.round %2 : tensor<1x8x8x8xf32>
    %4 = aten.convolution %3, %w2 {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
    duet.yield %4 : tensor<1x8x8x8xf32>
  }
  return %r : tensor<1x8x8x8xf32>
}
