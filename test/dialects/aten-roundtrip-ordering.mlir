// RUN: duet-opt %s | duet-opt | FileCheck %s

// The ordering and sampling ops of the core ATen set print as they parse.
// CHECK-LABEL: func @ordering_sampling
func.func @ordering_sampling(%x: tensor<5x6xf32>, %img: tensor<1x3x6x7xf32>, %g: tensor<1x4x5x2xf32>) -> (tensor<5x2xf32>, tensor<5x2xi64>, tensor<1x3x4x5xf32>, tensor<1x3x12x14xf32>, tensor<5x6xf32>) {
  // CHECK: aten.topk %{{.*}} {dim = 1 : i64, k = 2 : i64, largest = true} : tensor<5x6xf32> -> tensor<5x2xf32>, tensor<5x2xi64>
  %v, %i = aten.topk %x {k = 2 : i64, dim = 1 : i64, largest = true} : tensor<5x6xf32> -> tensor<5x2xf32>, tensor<5x2xi64>
  // CHECK: aten.grid_sampler_2d
  %s = aten.grid_sampler_2d %img, %g {interpolation_mode = 1 : i64, padding_mode = 2 : i64, align_corners = false} : (tensor<1x3x6x7xf32>, tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32>
  // CHECK: aten.upsample_bicubic2d %{{.*}} {align_corners = true}
  %u = aten.upsample_bicubic2d %img {align_corners = true} : tensor<1x3x6x7xf32> -> tensor<1x3x12x14xf32>
  // CHECK: aten.scatter %{{.*}}, %{{.*}}, %{{.*}} {dim = 0 : i64, include_self = false, reduce = #aten.scatter_reduce<amax>}
  %c = aten.scatter %x, %i, %v {dim = 0 : i64, reduce = #aten.scatter_reduce<amax>, include_self = false} : (tensor<5x6xf32>, tensor<5x2xi64>, tensor<5x2xf32>) -> tensor<5x6xf32>
  // CHECK: aten.pow_tensor
  %p = aten.pow_tensor %x, %x : tensor<5x6xf32>, tensor<5x6xf32> -> tensor<5x6xf32>
  return %v, %i, %s, %u, %p : tensor<5x2xf32>, tensor<5x2xi64>, tensor<1x3x4x5xf32>, tensor<1x3x12x14xf32>, tensor<5x6xf32>
}

// topk orders int32 and int64 as they are.
// CHECK-LABEL: func @topk_integers
func.func @topk_integers(%a: tensor<3x4xi64>, %b: tensor<4xi32>) -> (tensor<3x4xi64>, tensor<3x4xi64>, tensor<1xi32>, tensor<1xi64>) {
  // CHECK: aten.topk %{{.*}} : tensor<3x4xi64> -> tensor<3x4xi64>, tensor<3x4xi64>
  %v, %i = aten.topk %a {k = 4 : i64, dim = 1 : i64, largest = false} : tensor<3x4xi64> -> tensor<3x4xi64>, tensor<3x4xi64>
  // CHECK: aten.topk %{{.*}} : tensor<4xi32> -> tensor<1xi32>, tensor<1xi64>
  %w, %j = aten.topk %b {k = 1 : i64, dim = 0 : i64, largest = true} : tensor<4xi32> -> tensor<1xi32>, tensor<1xi64>
  return %v, %i, %w, %j : tensor<3x4xi64>, tensor<3x4xi64>, tensor<1xi32>, tensor<1xi64>
}
