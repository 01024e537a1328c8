// RUN: duet-opt --split-input-file --verify-diagnostics %s

// upsample takes [N, C, H, W].
func.func @upsample_rank(%x: tensor<4x8x8xf32>) -> tensor<4x16x16xf32> {
  // expected-error @+1 {{input must have rank 4, got 3}}
  %0 = aten.upsample_nearest2d %x : tensor<4x8x8xf32> -> tensor<4x16x16xf32>
  return %0 : tensor<4x16x16xf32>
}

// -----

// upsample keeps the element type.
func.func @upsample_type(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x16x16xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.upsample_bilinear2d %x : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf16>
  return %0 : tensor<1x4x16x16xf16>
}

// -----

// upsample keeps N and C.
func.func @upsample_channels(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x16x16xf32> {
  // expected-error @+1 {{result [1, 8, 16, 16] must keep N and C of the input [1, 4, 8, 8] and have positive H and W}}
  %0 = aten.upsample_nearest2d %x : tensor<1x4x8x8xf32> -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

// upsample's output H and W are positive.
func.func @upsample_empty(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x0x16xf32> {
  // expected-error @+1 {{result [1, 4, 0, 16] must keep N and C of the input [1, 4, 8, 8] and have positive H and W}}
  %0 = aten.upsample_bilinear2d %x {align_corners = true} : tensor<1x4x8x8xf32> -> tensor<1x4x0x16xf32>
  return %0 : tensor<1x4x0x16xf32>
}

// -----

// upsample's result is 4-D too.
func.func @upsample_result_rank(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{result [1, 4, 16] must keep N and C of the input [1, 4, 8, 8] and have positive H and W}}
  %0 = aten.upsample_nearest2d %x : tensor<1x4x8x8xf32> -> tensor<1x4x16xf32>
  return %0 : tensor<1x4x16xf32>
}

// -----

// The embedding table is a matrix.
func.func @embedding_weight_rank(%w: tensor<100xf32>, %ids: tensor<5xi64>) -> tensor<5xf32> {
  // expected-error @+1 {{weight must have rank 2, got 1}}
  %0 = aten.embedding %w, %ids : (tensor<100xf32>, tensor<5xi64>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// embedding keeps the table's element type.
func.func @embedding_type(%w: tensor<100x16xf32>, %ids: tensor<5xi64>) -> tensor<5x16xf16> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.embedding %w, %ids : (tensor<100x16xf32>, tensor<5xi64>) -> tensor<5x16xf16>
  return %0 : tensor<5x16xf16>
}

// -----

// embedding's result is the indices' shape plus the row width.
func.func @embedding_result_shape(%w: tensor<100x16xf32>, %ids: tensor<2x5xi64>) -> tensor<10x16xf32> {
  // expected-error @+1 {{result shape [10, 16] does not match the computed shape [2, 5, 16]}}
  %0 = aten.embedding %w, %ids : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<10x16xf32>
  return %0 : tensor<10x16xf32>
}

// -----

// query, key and value share one element type.
func.func @sdpa_type(%q: tensor<1x8x16xf32>, %k: tensor<1x8x16xf16>) -> tensor<1x8x16xf32> {
  // expected-error @+1 {{operands and results must share one element type, got 'f32' and 'f16'}}
  %0 = aten.scaled_dot_product_attention %q, %k, %q : (tensor<1x8x16xf32>, tensor<1x8x16xf16>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  return %0 : tensor<1x8x16xf32>
}

// -----

// query, key and value share one rank.
func.func @sdpa_rank(%q: tensor<1x2x8x16xf32>, %k: tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{query, key and value must share one rank of 2 or more}}
  %0 = aten.scaled_dot_product_attention %q, %k, %k : (tensor<1x2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// Attention needs [L, E] matrices at least.
func.func @sdpa_vector(%q: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{query, key and value must share one rank of 2 or more}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// The batch dims match exactly (no broadcasting of heads).
func.func @sdpa_batch(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  // expected-error @+1 {{query, key and value must share batch dims}}
  %0 = aten.scaled_dot_product_attention %q, %k, %k : (tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// -----

// query and key share the embedding width E.
func.func @sdpa_width(%q: tensor<1x8x16xf32>, %k: tensor<1x8x8xf32>, %v: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
  // expected-error @+1 {{query [1, 8, 16], key [1, 8, 8] and value [1, 8, 16] do not match}}
  %0 = aten.scaled_dot_product_attention %q, %k, %v : (tensor<1x8x16xf32>, tensor<1x8x8xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  return %0 : tensor<1x8x16xf32>
}

// -----

// key and value share the source length S.
func.func @sdpa_length(%q: tensor<1x8x16xf32>, %k: tensor<1x6x16xf32>, %v: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
  // expected-error @+1 {{query [1, 8, 16], key [1, 6, 16] and value [1, 8, 16] do not match}}
  %0 = aten.scaled_dot_product_attention %q, %k, %v : (tensor<1x8x16xf32>, tensor<1x6x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  return %0 : tensor<1x8x16xf32>
}

// -----

// An explicit mask and is_causal exclude each other, as in PyTorch.
func.func @sdpa_mask_and_causal(%q: tensor<1x8x16xf32>, %m: tensor<8x8xi1>) -> tensor<1x8x16xf32> {
  // expected-error @+1 {{takes either attn_mask or is_causal, not both}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q mask %m {is_causal = true} : (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<8x8xi1>) -> tensor<1x8x16xf32>
  return %0 : tensor<1x8x16xf32>
}

// -----

// The mask is boolean or of the query's element type; an integer mask has no meaning.
func.func @sdpa_mask_type(%q: tensor<1x8x16xf32>, %m: tensor<8x8xi32>) -> tensor<1x8x16xf32> {
  // expected-error @+1 {{attn_mask must be boolean or of the query's element type, got 'i32'}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q mask %m : (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<8x8xi32>) -> tensor<1x8x16xf32>
  return %0 : tensor<1x8x16xf32>
}

// -----

// A float mask of another float type is refused too (the importer casts it).
func.func @sdpa_mask_float_type(%q: tensor<1x8x16xf16>, %m: tensor<8x8xf32>) -> tensor<1x8x16xf16> {
  // expected-error @+1 {{attn_mask must be boolean or of the query's element type, got 'f32'}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q mask %m : (tensor<1x8x16xf16>, tensor<1x8x16xf16>, tensor<1x8x16xf16>, tensor<8x8xf32>) -> tensor<1x8x16xf16>
  return %0 : tensor<1x8x16xf16>
}

// -----

// The mask broadcasts to the [..., L, S] scores (one error, not two).
func.func @sdpa_mask_shape(%q: tensor<1x4x8xf32>, %m: tensor<3x8xi1>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{attn_mask [3, 8] must broadcast to the scores [1, 4, 4]}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q mask %m : (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<3x8xi1>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}

// -----

// A mask that broadcasts but would enlarge the scores is refused.
func.func @sdpa_mask_larger(%q: tensor<1x4x8xf32>, %m: tensor<2x4x4xi1>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{attn_mask [2, 4, 4] must broadcast to the scores [1, 4, 4]}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q mask %m : (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<2x4x4xi1>) -> tensor<1x4x8xf32>
  return %0 : tensor<1x4x8xf32>
}

// -----

// The attention result is [..., L, Ev].
func.func @sdpa_result_shape(%q: tensor<1x8x16xf32>, %k: tensor<1x6x16xf32>, %v: tensor<1x6x4xf32>) -> tensor<1x8x16xf32> {
  // expected-error @+1 {{result shape [1, 8, 16] does not match the computed shape [1, 8, 4]}}
  %0 = aten.scaled_dot_product_attention %q, %k, %v : (tensor<1x8x16xf32>, tensor<1x6x16xf32>, tensor<1x6x4xf32>) -> tensor<1x8x16xf32>
  return %0 : tensor<1x8x16xf32>
}

// -----

// Float-only ops refuse integer tensors (ODS type constraint).
func.func @relu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = aten.relu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Every aten tensor has a static shape (ODS type constraint).
func.func @add_dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = aten.add %x, %x : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Unranked tensors are refused (generic form, since the custom form needs a ranked type).
func.func @clone_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = "aten.clone"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Element types outside ATen's supported set are refused.
func.func @clone_complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{but got 'tensor<4xcomplex<f32>>'}}
  %0 = aten.clone %x : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// embedding's indices are i32 or i64 (ODS type constraint).
func.func @embedding_float_indices(%w: tensor<10x4xf32>, %ids: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = aten.embedding %w, %ids : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A unary op's result has its operand's type (generic form bypasses the one-type syntax).
func.func @relu_result_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "aten.relu"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// cast changes the element type only, never the shape.
func.func @cast_shape(%x: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = aten.cast %x : tensor<2x3xf32> -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

// Attributes without a default are required.
func.func @conv_missing_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{requires attribute 'groups'}}
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>, transposed = false} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// pow's exponent has no default.
func.func @pow_missing_exponent(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires attribute 'exponent'}}
  %0 = aten.pow %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Integer attributes must be integers.
func.func @softmax_float_dim(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = aten.softmax %x {dim = 1.0 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Float attributes must be f64.
func.func @clamp_int_bound(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'min' failed to satisfy constraint: 64-bit float attribute}}
  %0 = aten.clamp %x {min = 1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gelu's approximate is none or tanh.
func.func @gelu_bad_enum(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::duet::aten::GeluApproximate to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Aten_GeluApproximateAttr parameter 'value'}}
  %0 = aten.gelu %x {approximate = #aten.approximate<fast>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// div's rounding_mode is none, trunc or floor.
func.func @div_bad_enum(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::duet::aten::DivRounding to be one of: none, trunc, floor}}
  // expected-error @+1 {{failed to parse Aten_DivRoundingAttr parameter 'value'}}
  %0 = aten.div %x, %x {rounding_mode = #aten.rounding<ceil>} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gather's index has the rank of self.
func.func @gather_rank(%x: tensor<2x5xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{index [4] must have the rank of self [2, 5]}}
  %0 = aten.gather %x, %i {dim = 1 : i64} : (tensor<2x5xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gather's index is no larger than self in the dims it does not index.
func.func @gather_wide(%x: tensor<2x5xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  // expected-error @+1 {{index [3, 2] is larger than self [2, 5] in dim 0, which is not dim 1}}
  %0 = aten.gather %x, %i {dim = 1 : i64} : (tensor<2x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// gather's result has the index's shape.
func.func @gather_result(%x: tensor<2x5xf32>, %i: tensor<2x3xi64>) -> tensor<2x5xf32> {
  // expected-error @+1 {{result shape [2, 5] does not match the computed shape [2, 3]}}
  %0 = aten.gather %x, %i {dim = 1 : i64} : (tensor<2x5xf32>, tensor<2x3xi64>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// index_select takes a 1-D (or 0-d) index.
func.func @index_select_rank(%x: tensor<2x5xf32>, %i: tensor<2x2xi64>) -> tensor<2x4xf32> {
  // expected-error @+1 {{index must have rank 0 or 1, got 2}}
  %0 = aten.index_select %x, %i {dim = 1 : i64} : (tensor<2x5xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// index_select's dim is normalized.
func.func @index_select_dim(%x: tensor<2x5xf32>, %i: tensor<3xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{dim -1 is out of range for rank 2}}
  %0 = aten.index_select %x, %i {dim = -1 : i64} : (tensor<2x5xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The index is an integer tensor.
func.func @index_select_float_index(%x: tensor<2x5xf32>, %i: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = aten.index_select %x, %i {dim = 1 : i64} : (tensor<2x5xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
