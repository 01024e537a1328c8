// RUN: duet-opt --split-input-file --verify-diagnostics %s

// choose_qparams' range holds 0, as PyTorch's validate_qmin_qmax requires.
func.func @choose_range(%x: tensor<4xf32>) -> tensor<1xf64> {
  // expected-error @+1 {{quant_min 1 and quant_max 255 must satisfy quant_min <= 0 <= quant_max and quant_min < quant_max}}
  %s, %z = aten.choose_qparams %x {quant_min = 1 : i64, quant_max = 255 : i64, eps = 2.44140625e-04 : f64} : tensor<4xf32> -> (tensor<1xf64>, tensor<1xi64>)
  return %s : tensor<1xf64>
}

// -----

// choose_qparams' eps is not negative.
func.func @choose_eps(%x: tensor<4xf32>) -> tensor<1xf64> {
  // expected-error @+1 {{eps -1.000000e+00 must be finite and not negative}}
  %s, %z = aten.choose_qparams %x {quant_min = -128 : i64, quant_max = 127 : i64, eps = -1.0 : f64} : tensor<4xf32> -> (tensor<1xf64>, tensor<1xi64>)
  return %s : tensor<1xf64>
}

// -----

// choose_qparams gives one scale and one zero point.
func.func @choose_shape(%x: tensor<4xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{scale must have shape [1], got [2]}}
  %s, %z = aten.choose_qparams %x {quant_min = -128 : i64, quant_max = 127 : i64, eps = 2.44140625e-04 : f64} : tensor<4xf32> -> (tensor<2xf64>, tensor<1xi64>)
  return %s : tensor<2xf64>
}

// -----

// A dynamic quantize takes one scale, as PyTorch asserts.
func.func @quantize_scale(%x: tensor<4xf32>, %s: tensor<2xf64>, %z: tensor<1xi64>) -> tensor<4xi8> {
  // expected-error @+1 {{scale must have one element, got [2]}}
  %q = aten.quantize_per_tensor_dynamic %x, %s, %z {quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<4xf32>, tensor<2xf64>, tensor<1xi64>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

// A dynamic dequantize's range fits its integer type.
func.func @dequantize_range(%q: tensor<4xi8>, %s: tensor<1xf64>, %z: tensor<1xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{quant_min 0 and quant_max 255 must satisfy -128 <= quant_min <= quant_max <= 127 for 'i8'}}
  %d = aten.dequantize_per_tensor_dynamic %q, %s, %z {quant_min = 0 : i64, quant_max = 255 : i64} : (tensor<4xi8>, tensor<1xf64>, tensor<1xi64>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A dynamic quantize keeps the shape.
func.func @quantize_shape(%x: tensor<4xf32>, %s: tensor<1xf64>, %z: tensor<1xi64>) -> tensor<5xi8> {
  // expected-error @+1 {{result shape [5]}}
  %q = aten.quantize_per_tensor_dynamic %x, %s, %z {quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<4xf32>, tensor<1xf64>, tensor<1xi64>) -> tensor<5xi8>
  return %q : tensor<5xi8>
}
