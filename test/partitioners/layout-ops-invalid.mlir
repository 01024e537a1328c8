// RUN: duet-opt %s --split-input-file --verify-diagnostics

// Invalid uses of the Vulkan layout attributes and of duet.layout_convert
// are rejected by the verifiers, naming the attribute, the entry and the
// numbers.

func.func @same_layout(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    // expected-error @+1 {{converts a tensor to the layout it already has}}
    %0 = duet.layout_convert %a from <buffer, contiguous> to <buffer, contiguous> : tensor<4x8xf32>
    duet.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @outside_vulkan(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = duet.delegate <xnnpack> (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    // expected-error @+1 {{belongs inside a duet.delegate <vulkan>}}
    %0 = duet.layout_convert %a from <buffer, contiguous> to <texture3d, width_packed> : tensor<4x8xf32>
    duet.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @wrong_extents(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    // expected-error @+1 {{texture extents [8, 4, 1] differ from the [2, 4, 1] that 'tensor<4x8xf32>' has when width_packed}}
    %0 = duet.layout_convert %a from <buffer, contiguous> to <texture3d, width_packed, [8, 4, 1]> : tensor<4x8xf32>
    duet.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @texture_rank5(%x: tensor<1x2x3x4x5xf32>) -> tensor<1x2x3x4x5xf32> {
  %r = duet.delegate <vulkan> (%a = %x : tensor<1x2x3x4x5xf32>) -> (tensor<1x2x3x4x5xf32>) {
    // expected-error @+1 {{"duet.vk_layouts" entry 0: a texture3d holds at most 4 dims, got 'tensor<1x2x3x4x5xf32>'}}
    %0 = aten.relu %a {duet.vk_layouts = [#duet.vk_layout<texture3d, channels_packed>]} : tensor<1x2x3x4x5xf32>
    duet.yield %0 : tensor<1x2x3x4x5xf32>
  }
  return %r : tensor<1x2x3x4x5xf32>
}

// -----

func.func @count(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{"duet.vk_layouts" must be an array of 1 #duet.vk_layout, one per result}}
  %0 = aten.relu %x {duet.vk_layouts = []} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @arg_layouts_elsewhere(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{"duet.vk_arg_layouts" belongs on a duet.delegate}}
  %0 = aten.relu %x {duet.vk_arg_layouts = []} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @arg_layouts_count(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{"duet.vk_arg_layouts" must be an array of 1 #duet.vk_layout, one per partition input}}
  %r = duet.delegate <vulkan> (%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>) {
    duet.yield %a : tensor<4x8xf32>
  } attributes {duet.vk_arg_layouts = []}
  return %r : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{a buffer has no image extents, got 3}}
func.func @buffer_extents() attributes {l = #duet.vk_layout<buffer, contiguous, [1, 1, 1]>} {
  return
}

// -----

// expected-error @+1 {{texture extents must be three positive sizes [x, y, z], got [4, 0]}}
func.func @two_extents() attributes {l = #duet.vk_layout<texture3d, width_packed, [4, 0]>} {
  return
}

// -----

// expected-error @+1 {{unknown duet attribute "duet.layout"}}
func.func @unknown_attr() attributes {duet.layout = 1} {
  return
}
