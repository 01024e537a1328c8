// A one-op partition dissolved (docs/partitioning.md, "Placement by cost").
// By priority Vulkan takes the relu between two casts it cannot run: a
// partition of one op, one upload and one download. Under lavapipe's costs
// (a Vulkan call costs about a millisecond there) the relu joins its
// neighbours on the portable kernels and no partition is left.
// RUN: duet-opt --duet-partition="backends=vulkan target-profile=lavapipe" %s | FileCheck %s --check-prefix=PRIORITY
// RUN: duet-opt --duet-partition="backends=vulkan placement=cost target-profile=lavapipe explain=true" %s 2>%t.explain | FileCheck %s --check-prefix=COST
// RUN: FileCheck %s --input-file=%t.explain --check-prefix=EXPLAIN

// PRIORITY-LABEL: func.func @lone_relu
// PRIORITY: aten.cast
// PRIORITY: duet.delegate <vulkan>
// PRIORITY-NEXT: aten.relu
// COST-LABEL: func.func @lone_relu
// COST-NOT: duet.delegate
// COST: aten.cast
// COST-NEXT: aten.relu
// COST-NEXT: aten.cast
func.func @lone_relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %h = aten.cast %x : tensor<4x8xf32> -> tensor<4x8xf16>
  %r = aten.relu %h : tensor<4x8xf16>
  %y = aten.cast %r : tensor<4x8xf16> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// EXPLAIN: costs: profile lavapipe (built-in)
// EXPLAIN: estimated: {{.*}} us (priority placement: {{1[0-9][0-9][0-9]\.[0-9]}} us;
// EXPLAIN: #1    aten.relu  portable  -
// EXPLAIN-NEXT: estimated: vulkan 300.3 us portable 0.58 us
// EXPLAIN: partitions:
// EXPLAIN-NEXT: none
