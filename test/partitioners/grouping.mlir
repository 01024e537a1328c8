// RUN: duet-opt --split-input-file --duet-partition="backends=xnnpack" %s | FileCheck %s
// RUN: duet-opt --split-input-file --duet-partition="backends=vulkan,xnnpack" %s | FileCheck %s --check-prefix=MIXED
// RUN: duet-opt --split-input-file --duet-partition="backends=xnnpack,vulkan" %s | FileCheck %s --check-prefix=MUTUAL

// A -> B -> C with A -> C directly, B unclaimed: putting A and C in one
// partition would need B's result inside the partition and B needs the
// partition's: a cycle. A and C get partitions of their own, with B between.
// CHECK-LABEL: func.func @no_cycle
// CHECK: %[[A:.*]] = duet.delegate <xnnpack>
// CHECK-NEXT: aten.relu
// CHECK-NEXT: duet.yield
// CHECK: %[[B:.*]] = aten.tanh %[[A]]
// CHECK: duet.delegate <xnnpack> (%{{.*}} = %[[B]] : tensor<4x8xf32>, %{{.*}} = %[[A]] : tensor<4x8xf32>)
// CHECK-NEXT: aten.add
// CHECK-NEXT: duet.yield
func.func @no_cycle(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = aten.relu %x : tensor<4x8xf32>
  %b = aten.tanh %a : tensor<4x8xf32>
  %c = aten.add %b, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A chain and a diamond of claimed ops form one partition.
// CHECK-LABEL: func.func @diamond
// CHECK: duet.delegate <xnnpack>
// CHECK-NEXT: aten.relu
// CHECK-NEXT: aten.sigmoid
// CHECK-NEXT: aten.abs
// CHECK-NEXT: aten.add
// CHECK-NEXT: duet.yield
// CHECK-NOT: duet.delegate
func.func @diamond(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = aten.relu %x : tensor<4x8xf32>
  %b = aten.sigmoid %a : tensor<4x8xf32>
  %c = aten.abs %a : tensor<4x8xf32>
  %d = aten.add %b, %c : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A and C (both from A, no path between them through B) form one partition
// although B sits between them in the block: the block is reordered so the
// partition is contiguous and B runs after it. D reads B, which depends on
// the partition, so D cannot join it.
// CHECK-LABEL: func.func @reorder
// CHECK: %[[P:.*]]:2 = duet.delegate <xnnpack>
// CHECK-NEXT: %[[A:.*]] = aten.relu
// CHECK-NEXT: %[[C:.*]] = aten.sigmoid %[[A]]
// CHECK-NEXT: duet.yield %[[A]], %[[C]]
// CHECK: %[[B:.*]] = aten.tanh %[[P]]#0
// CHECK: duet.delegate <xnnpack> (%{{.*}} = %[[B]] : tensor<4x8xf32>, %{{.*}} = %[[P]]#1 : tensor<4x8xf32>)
// CHECK-NEXT: aten.add
func.func @reorder(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = aten.relu %x : tensor<4x8xf32>
  %b = aten.tanh %a : tensor<4x8xf32>
  %c = aten.sigmoid %a : tensor<4x8xf32>
  %d = aten.add %b, %c : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// Ops of another backend count as "outside" too: Vulkan takes A and C, which
// XNNPACK's casts separate, so Vulkan gets two partitions.
// MIXED-LABEL: func.func @across_backends
// MIXED: %[[A:.*]] = duet.delegate <vulkan>
// MIXED-NEXT: aten.relu
// MIXED: %[[B:.*]] = duet.delegate <xnnpack> (%{{.*}} = %[[A]] : tensor<4x8xf32>)
// MIXED-NEXT: aten.cast
// MIXED-NEXT: aten.cast
// MIXED: duet.delegate <vulkan> (%{{.*}} = %[[B]] : tensor<4x8xf32>, %{{.*}} = %[[A]] : tensor<4x8xf32>)
// MIXED-NEXT: aten.add
func.func @across_backends(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = aten.relu %x : tensor<4x8xf32>
  %h = aten.cast %a : tensor<4x8xf32> -> tensor<4x8xf16>
  %b = aten.cast %h : tensor<4x8xf16> -> tensor<4x8xf32>
  %c = aten.add %b, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// Two partitions can each be convex and still need each other's output:
// {a, d} (XNNPACK) and {b, c} (Vulkan) with a -> c and b -> d would each wait
// for the other. So d, which reads b, does not join a; it gets a partition
// of its own after the Vulkan one.
// MUTUAL-LABEL: func.func @mutual
// MUTUAL: %[[A:.*]] = duet.delegate <xnnpack>
// MUTUAL-NEXT: aten.relu
// MUTUAL-NEXT: duet.yield
// MUTUAL: %[[BC:.*]]:2 = duet.delegate <vulkan>
// MUTUAL-NEXT: aten.tanh
// MUTUAL-NEXT: aten.div
// MUTUAL: duet.delegate <xnnpack> (%{{.*}} = %[[A]] : tensor<4x8xf32>, %{{.*}} = %[[BC]]#0 : tensor<4x8xf32>)
// MUTUAL-NEXT: aten.mul
func.func @mutual(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = aten.relu %x : tensor<4x8xf32>
  %b = aten.tanh %y : tensor<4x8xf32>
  %c = aten.div %a, %b {rounding_mode = #aten.rounding<floor>} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %d = aten.mul %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %c, %d : tensor<4x8xf32>, tensor<4x8xf32>
}
