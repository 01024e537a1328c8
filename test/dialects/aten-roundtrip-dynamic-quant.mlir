// RUN: duet-opt %s | duet-opt | FileCheck %s

// Dynamic quantization prints and parses back: choose_qparams' two results
// feed the quantize and dequantize whose qparams are operands.

// CHECK-LABEL: func.func @dynamic_linear_input
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x32xf32>)
// CHECK: %[[S:.*]], %[[Z:.*]] = aten.choose_qparams %[[X]] {eps = 2.44140625E-4 : f64, quant_max = 127 : i64, quant_min = -128 : i64} : tensor<4x32xf32> -> (tensor<1xf64>, tensor<1xi64>)
// CHECK: %[[Q:.*]] = aten.quantize_per_tensor_dynamic %[[X]], %[[S]], %[[Z]] {quant_max = 127 : i64, quant_min = -128 : i64} : (tensor<4x32xf32>, tensor<1xf64>, tensor<1xi64>) -> tensor<4x32xi8>
// CHECK: %[[D:.*]] = aten.dequantize_per_tensor_dynamic %[[Q]], %[[S]], %[[Z]] {{.*}} -> tensor<4x32xf32>
// CHECK: return %[[D]]
func.func @dynamic_linear_input(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %s, %z = aten.choose_qparams %x {quant_min = -128 : i64, quant_max = 127 : i64, eps = 2.44140625e-04 : f64} : tensor<4x32xf32> -> (tensor<1xf64>, tensor<1xi64>)
  %q = aten.quantize_per_tensor_dynamic %x, %s, %z {quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<4x32xf32>, tensor<1xf64>, tensor<1xi64>) -> tensor<4x32xi8>
  %d = aten.dequantize_per_tensor_dynamic %q, %s, %z {quant_min = -128 : i64, quant_max = 127 : i64} : (tensor<4x32xi8>, tensor<1xf64>, tensor<1xi64>) -> tensor<4x32xf32>
  return %d : tensor<4x32xf32>
}
