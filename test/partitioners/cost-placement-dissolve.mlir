// A one-op partition dissolved (docs/partitioning.md, "Placement by cost"),
// under the built-in host-cpu profile, placed by priority and by cost.
// RUN: duet-opt --duet-partition="backends=xnnpack" %s | FileCheck %s --check-prefix=PRIORITY
// RUN: duet-opt --duet-partition="backends=xnnpack placement=cost target-profile=host-cpu explain=true" %s 2>%t.explain | FileCheck %s --check-prefix=COST
// RUN: FileCheck %s --input-file=%t.explain --check-prefix=EXPLAIN
// A one-op partition dissolved. By priority XNNPACK takes the view between
// two ops it lacks, a partition of one op that reads and writes one tensor
// each; by cost the view stays with its neighbours on the portable kernels
// (a view of 32 elements costs less than the call and the two copies).
// PRIORITY-LABEL: func.func @lone_view
// PRIORITY: aten.exp
// PRIORITY: duet.delegate <xnnpack>
// PRIORITY-NEXT: aten.view
// COST-LABEL: func.func @lone_view
// COST-NOT: duet.delegate
// COST: aten.exp
// COST-NEXT: aten.view
// COST-NEXT: aten.exp
func.func @lone_view(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %a = aten.exp %x : tensor<4x8xf32>
  %b = aten.view %a : tensor<4x8xf32> -> tensor<32xf32>
  %c = aten.exp %b : tensor<32xf32>
  return %c : tensor<32xf32>
}


// EXPLAIN: costs: profile host-cpu (built-in)
// EXPLAIN: #1    aten.view  portable  -
// EXPLAIN-NEXT: estimated: xnnpack {{.*}} us portable {{.*}} us
// EXPLAIN: partitions:
// EXPLAIN-NEXT: none
