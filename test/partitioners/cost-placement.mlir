// Placement by cost (docs/partitioning.md, "Placement by cost"): the same
// functions placed by priority and by the estimated cost of a profile.
// RUN: duet-opt --duet-partition="backends=vulkan,xnnpack" %s | FileCheck %s --check-prefix=PRIORITY
// RUN: duet-opt --duet-partition="backends=vulkan,xnnpack placement=cost target-profile=%S/Inputs/costly-transfers.json explain=true report=%t.json" %s 2>%t.explain | FileCheck %s --check-prefix=COST
// RUN: FileCheck %s --input-file=%t.explain --check-prefix=EXPLAIN
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT
// RUN: not duet-opt --duet-partition="placement=fastest" %s 2>&1 | FileCheck %s --check-prefix=BADMODE
// RUN: not duet-opt --duet-partition="placement=cost target-profile=%S/Inputs/costs-no-portable.json backends=xnnpack" %s 2>&1 | FileCheck %s --check-prefix=NOPORTABLE
// RUN: not duet-opt --duet-partition="placement=cost target-profile=%S/Inputs/costs-no-portable.json backends=vulkan" %s 2>&1 | FileCheck %s --check-prefix=NOVULKAN
// RUN: not duet-opt --duet-partition="placement=cost target-profile=%S/Inputs/costs-bad-rate.json" %s 2>&1 | FileCheck %s --check-prefix=BADRATE

// A transfer-heavy split avoided. By priority Vulkan takes the relu and the
// add, and XNNPACK the casts Vulkan cannot run between them: three
// partitions and six tensors crossing. The profile makes each Vulkan op
// cheaper than on XNNPACK but each Vulkan transfer 50 us, so by cost the
// whole chain is one XNNPACK partition.
// PRIORITY-LABEL: func.func @transfer_heavy
// PRIORITY: duet.delegate <vulkan>
// PRIORITY: duet.delegate <xnnpack>
// PRIORITY: duet.delegate <vulkan>
// COST-LABEL: func.func @transfer_heavy
// COST: duet.delegate <xnnpack>
// COST-NEXT: aten.relu
// COST-NEXT: aten.cast
// COST-NEXT: aten.cast
// COST-NEXT: aten.add
// COST-NEXT: duet.yield
// COST-NOT: duet.delegate
// COST: return
func.func @transfer_heavy(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %a = aten.relu %x : tensor<64x1024xf32>
  %h = aten.cast %a : tensor<64x1024xf32> -> tensor<64x1024xf16>
  %b = aten.cast %h : tensor<64x1024xf16> -> tensor<64x1024xf32>
  %c = aten.add %b, %a : tensor<64x1024xf32>, tensor<64x1024xf32> -> tensor<64x1024xf32>
  return %c : tensor<64x1024xf32>
}

// EXPLAIN: backends (placed by estimated cost): vulkan, xnnpack
// EXPLAIN-NEXT: costs: profile costly-transfers ({{.*}}costly-transfers.json)
// EXPLAIN-NEXT: estimated: 11.8 us (priority placement: 269.8 us; {{[0-9]+}} moves in {{[0-9]+}} estimates)
// EXPLAIN: #0    aten.relu  xnnpack   0
// EXPLAIN-NEXT: estimated: vulkan 1.66 us xnnpack 2.66 us portable 66.5 us
// EXPLAIN: #1    aten.cast  xnnpack   0
// EXPLAIN-NEXT: estimated: xnnpack 2.66 us portable 66.5 us
// EXPLAIN-NEXT: - vulkan: aten.cast: the Vulkan delegate computes in one float type per model
// EXPLAIN: partitions:
// EXPLAIN-NEXT: 0 xnnpack in @transfer_heavy: 4 ops, 1 inputs, 1 outputs; estimated 11.8 us (call 1.00, 2 transfers of 524288 bytes 0.20)

// REPORT: "placement": {
// REPORT-NEXT: "mode": "cost",
// REPORT-NEXT: "costs": "profile costly-transfers ({{.*}}costly-transfers.json)",
// REPORT-NEXT: "costs_source": "made up: Vulkan ops cost half of XNNPACK's, a Vulkan transfer 50 us",
// REPORT-NEXT: "estimated_us": 11.8,
// REPORT-NEXT: "priority_estimated_us": 270.0,
// REPORT: "node": "#0",
// REPORT: "backend": "xnnpack",
// REPORT: "estimated_us": {
// REPORT-NEXT: "vulkan": 1.66,
// REPORT-NEXT: "xnnpack": 2.66,
// REPORT-NEXT: "portable": 66.5
// REPORT-NEXT: }
// REPORT: "partitions": [
// REPORT: "layout_conversions": 0,
// REPORT-NEXT: "estimated_us": 11.8,
// REPORT-NEXT: "call_us": 1.0,
// REPORT-NEXT: "transfer_us": 0.2,
// REPORT-NEXT: "transfers": 2,
// REPORT-NEXT: "transfer_bytes": 524288

// BADMODE: placement must be priority or cost, got 'fastest'
// NOPORTABLE: error: the costs of profile costs-no-portable ({{.*}}costs-no-portable.json) have no entry for "portable" (docs/profiles.md)
// NOVULKAN: error: the costs of profile costs-no-portable ({{.*}}costs-no-portable.json) have no entry for backend "vulkan"; add one (docs/profiles.md) or leave the backend out
// BADRATE: error: device profile {{.*}}costs-bad-rate.json: costs: xnnpack.gemm_macs_per_us must be a number > 0
