// RUN: duet-opt --split-input-file --verify-diagnostics %s

// A yield whose types differ from the delegate's results is rejected.
func.func @yield_mismatch(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{yields 1 values whose types differ from its 1 results}}
  %r = duet.delegate <vulkan> (%a = %x : tensor<4xf32>) -> (tensor<2xf32>) {
    duet.yield %a : tensor<4xf32>
  }
  return %r : tensor<2xf32>
}

// -----

// A texture must be packed along one dim; a buffer cannot be.
// expected-error @+1 {{a buffer is contiguous and a texture3d is width-, height- or channels-packed, got texture3d with contiguous}}
func.func @bad_layout() attributes {l = #duet.vk_layout<texture3d, contiguous>} {
  return
}

// -----

// The region is isolated: it cannot use a value from outside without binding it.
func.func @not_isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = duet.delegate <xnnpack> () -> (tensor<4xf32>) {
    // expected-error @+1 {{using value defined outside the region}}
    %0 = aten.relu %x : tensor<4xf32>
    duet.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
