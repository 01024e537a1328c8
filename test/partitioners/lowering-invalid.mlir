// RUN: duet-opt --split-input-file --verify-diagnostics %s

// The xnn and fusion records are checked where they are read: a 2-D result cannot be NHWC.
func.func @nhwc_2d(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    // expected-error @+1 {{only a 4-D result can be nhwc}}
    %0 = aten.relu %a {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : tensor<4x8xf32>
    duet.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// An XNNPACK layout belongs to XNNPACK partitions only.
func.func @layout_on_vulkan(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    // expected-error @+1 {{xnn.layout belongs inside a duet.delegate <xnnpack>}}
    %0 = aten.relu %a {xnn.layout = #xnn.layout<plain>} : tensor<4x8xf32>
    duet.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// A reshape cannot change the layout of a tensor whose two orders differ.
func.func @reshape_reorders(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32>) {
    // expected-error @+1 {{a reshape changes between two layouts that order the elements the same way}}
    %0 = xnn.layout_change %a from plain to nhwc by reshape {xnn.subgraph = 0 : i64} : tensor<1x3x8x8xf32>
    duet.yield %0 : tensor<1x3x8x8xf32>
  }
  return %r : tensor<1x3x8x8xf32>
}

// -----

// A host copy to the same layout only converts bf16.
func.func @copy_to_same(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32>) {
    // expected-error @+1 {{a host copy to the same layout converts bf16}}
    %0 = xnn.layout_change %a from plain to plain by host_copy {xnn.subgraph = 0 : i64} : tensor<1x3x8x8xf32>
    duet.yield %0 : tensor<1x3x8x8xf32>
  }
  return %r : tensor<1x3x8x8xf32>
}

// -----

// Only a constant is repacked at compile time.
func.func @repack_input(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32>) {
    // expected-error @+1 {{only a constant is repacked}}
    %0 = xnn.layout_change %a from plain to nhwc by repack : tensor<1x3x8x8xf32>
    duet.yield %0 : tensor<1x3x8x8xf32>
  }
  return %r : tensor<1x3x8x8xf32>
}

// -----

// Output bounds on a node the backend gives none (XNNPACK's hardswish) are refused.
func.func @bounds_on_hardswish(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    // expected-error @+1 {{its xnnpack node takes no output bounds}}
    %0 = aten.hardswish %a {fusion.output_bounds = array<f32: 0.0, 6.0>} : tensor<4x8xf32>
    duet.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// XNNPACK bounds keep min < max.
func.func @empty_bounds(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<4x8xf32>, %b = %y : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    // expected-error @+1 {{the backend needs min < max}}
    %0 = aten.add %a, %b {fusion.output_bounds = array<f32: 1.0, 1.0>} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    duet.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// A folded activation's operand has no other reader, which would see the bounds.
func.func @folded_shared(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = duet.delegate <xnnpack> (%a = %x : tensor<4x8xf32>, %b = %y : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %0 = aten.add %a, %b {fusion.output_bounds = array<f32: 0.0, 0x7F800000>} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    // expected-error @+1 {{other ops read its operand}}
    %1 = aten.relu %0 {fusion.folded} : tensor<4x8xf32>
    duet.yield %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Vulkan's convolution takes one folded activation, not a chain.
func.func @vulkan_chain(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<1x3x8x8xf32>) -> (tensor<1x4x8x8xf32>) {
    %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
    %0 = aten.convolution %a, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false, fusion.output_bounds = array<f32: 0.0, 6.0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    %1 = aten.relu %0 {fusion.folded} : tensor<1x4x8x8xf32>
    // expected-error @+1 {{is folded after another folded activation}}
    %2 = aten.hardtanh %1 {min_val = 0.0 : f64, max_val = 6.0 : f64, fusion.folded} : tensor<1x4x8x8xf32>
    duet.yield %2 : tensor<1x4x8x8xf32>
  }
  return %r : tensor<1x4x8x8xf32>
}

// -----

// Only a relu, hardtanh or clamp folds.
func.func @folded_sigmoid(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<4x8xf32>, %b = %y : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    %0 = aten.add %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    // expected-error @+1 {{fusion.folded is a unit attribute of a relu, hardtanh or clamp}}
    %1 = aten.sigmoid %0 {fusion.folded} : tensor<4x8xf32>
    duet.yield %1 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
