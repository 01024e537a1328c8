// RUN: duet-opt --duet-partition="enable-bf16=true report=%t.on.json" %s | FileCheck %s --check-prefix=ON
// RUN: FileCheck %s --check-prefix=ON-REPORT < %t.on.json
// RUN: duet-opt --duet-partition="report=%t.off.json" %s | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --check-prefix=OFF-REPORT < %t.off.json
// RUN: duet-opt --duet-partition="enable-bf16=true explain=true" %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TABLE

// A bf16 attention block. Vulkan computes in fp32 or fp16, never bf16. The
// Debian XNNPACK has no bf16 type: under enable-bf16 the linears go to
// XNNPACK (computed in fp32 between conversions at the partition boundary),
// but softmax is one of the ops whose XNNPACK path cannot, so it stays
// portable, as do the transpose and the activation-by-activation matmuls.

// ON-LABEL: func.func @attention
// ON-COUNT-3: duet.delegate <xnnpack>
// ON: aten.permute
// ON: aten.matmul
// ON: aten.softmax
// ON: aten.matmul
// ON: duet.delegate <xnnpack>
// ON-NEXT: arith.constant
// ON-NEXT: aten.linear
// ON-NOT: duet.delegate

// ON-REPORT: "enable_bf16": true
// ON-REPORT: "summary": {
// ON-REPORT-NEXT: "ops": 8,
// ON-REPORT-NEXT: "vulkan": 0,
// ON-REPORT-NEXT: "xnnpack": 4,
// ON-REPORT-NEXT: "portable": 4,
// ON-REPORT: "node": "q_proj"
// ON-REPORT-NEXT: "index": 0
// ON-REPORT-NEXT: "op": "aten.linear"
// ON-REPORT-NEXT: "backend": "xnnpack"
// ON-REPORT-NEXT: "partition": 0
// ON-REPORT-NEXT: "rejections": [
// ON-REPORT-NEXT: {
// ON-REPORT-NEXT: "backend": "vulkan",
// ON-REPORT-NEXT: "reason": "vulkan: dtype bf16 (input 0) not accepted by aten.linear (accepts f32, f16)"
// ON-REPORT: "node": "attn"
// ON-REPORT-NEXT: "index": 5
// ON-REPORT-NEXT: "op": "aten.softmax"
// ON-REPORT-NEXT: "backend": "portable"
// ON-REPORT: "reason": "vulkan: dtype bf16 (input 0) not accepted by aten.softmax (accepts f32, f16)"
// ON-REPORT: "reason": "xnnpack: bf16 aten.softmax not supported by this XNNPACK (enable-bf16 is per op)"
// ON-REPORT: "node": "out_proj"
// ON-REPORT: "backend": "xnnpack"

// The --explain table: one line per op, the reasons of the backends that
// said no indented below it, then the partitions.
// TABLE: node      op            backend   partition
// TABLE-NEXT: q_proj    aten.linear   xnnpack   0
// TABLE-NEXT:     - vulkan: dtype bf16 (input 0) not accepted by aten.linear (accepts f32, f16)
// TABLE: attn      aten.softmax  portable  -
// TABLE-NEXT:     - vulkan: dtype bf16 (input 0) not accepted by aten.softmax (accepts f32, f16)
// TABLE-NEXT:     - xnnpack: bf16 aten.softmax not supported by this XNNPACK (enable-bf16 is per op)
// TABLE: partitions:
// TABLE-NEXT: 0 xnnpack in @attention: 1 ops, 1 inputs, 1 outputs

// Without the flag no bf16 op goes to XNNPACK.
// OFF-LABEL: func.func @attention
// OFF-NOT: duet.delegate
// OFF: return

// OFF-REPORT: "summary": {
// OFF-REPORT-NEXT: "ops": 8,
// OFF-REPORT-NEXT: "vulkan": 0,
// OFF-REPORT-NEXT: "xnnpack": 0,
// OFF-REPORT-NEXT: "portable": 8,
// OFF-REPORT: "node": "q_proj"
// OFF-REPORT: "backend": "portable"
// OFF-REPORT: "reason": "xnnpack: bf16 aten.linear needs enable-bf16 (this XNNPACK has no bf16; the delegate would compute it in fp32)"
func.func @attention(%x: tensor<1x8x32xbf16>) -> tensor<1x8x32xbf16> {
  %wq = arith.constant dense<0.125> : tensor<32x32xbf16>
  %wk = arith.constant dense<0.25> : tensor<32x32xbf16>
  %wv = arith.constant dense<0.5> : tensor<32x32xbf16>
  %wo = arith.constant dense<1.0> : tensor<32x32xbf16>
  %q = aten.linear %x, %wq : (tensor<1x8x32xbf16>, tensor<32x32xbf16>) -> tensor<1x8x32xbf16> loc("q_proj")
  %k = aten.linear %x, %wk : (tensor<1x8x32xbf16>, tensor<32x32xbf16>) -> tensor<1x8x32xbf16> loc("k_proj")
  %v = aten.linear %x, %wv : (tensor<1x8x32xbf16>, tensor<32x32xbf16>) -> tensor<1x8x32xbf16> loc("v_proj")
  %kt = aten.permute %k {dims = array<i64: 0, 2, 1>} : tensor<1x8x32xbf16> -> tensor<1x32x8xbf16> loc("k_t")
  %s = aten.matmul %q, %kt : (tensor<1x8x32xbf16>, tensor<1x32x8xbf16>) -> tensor<1x8x8xbf16> loc("scores")
  %p = aten.softmax %s {dim = 2 : i64} : tensor<1x8x8xbf16> loc("attn")
  %o = aten.matmul %p, %v : (tensor<1x8x8xbf16>, tensor<1x8x32xbf16>) -> tensor<1x8x32xbf16> loc("context")
  %y = aten.linear %o, %wo : (tensor<1x8x32xbf16>, tensor<32x32xbf16>) -> tensor<1x8x32xbf16> loc("out_proj")
  return %y : tensor<1x8x32xbf16>
}
