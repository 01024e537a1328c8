//===- Passes.td - the partitioner's passes -------------------------------===//
//
// `duet-partition` is the partition, legalize and plan steps of the pipeline
// in one pass (they share the placement decisions and the report); its
// options include every backend's (BackendLowering::options), added when the
// pass is made. docs/partitioning.md describes the rules and the report.
// `duet-fuse-activations` lowers the partitions for their emitters after
// each backend's own lowering passes (<backend>/*Passes.td;
// docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_PASSES_TD
#define DUET_PARTITIONERS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PartitionPass : Pass<"duet-partition", "::mlir::ModuleOp"> {
  let summary = "Places each op on Vulkan, XNNPACK or portable and wraps each partition in duet.delegate";
  let description = [{
    Asks the backends, in priority order, whether they can run each op (each
    backend's rule table: element types, ranks, argument predicates, Vulkan
    texture limits), groups the claimed ops into maximal partitions that
    create no cycle with the rest of the graph, wraps each in a
    `duet.delegate`, decomposes inside each partition the ops its backend
    does not run natively, and plans the storage and packing of every Vulkan
    tensor. Ops no backend claims stay outside and run on portable kernels.
    With `report`, every decision and every rejection reason is written as
    JSON.

    ```mlir
    // duet-opt --duet-partition="backends=xnnpack"
    // before
    %y = aten.linear %x, %w, %b : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %z = aten.silu %y : tensor<4x8xf32>
    // after
    %z = duet.delegate <xnnpack> (%a = %x : tensor<4x16xf32>) -> (tensor<4x8xf32>) {
      %w2 = arith.constant ...
      %b2 = arith.constant ...
      %y = aten.linear %a, %w2, %b2 : ...
      %s = aten.sigmoid %y : tensor<4x8xf32>
      %m = aten.mul %y, %s : ...
      duet.yield %m : tensor<4x8xf32>
    }
    ```
  }];
  let options = [
    ListOption<"backends", "backends", "std::string",
               "Backends in priority order (default: every backend, in the default order)">,
    Option<"placement", "placement", "std::string", "\"priority\"",
           "priority (the first backend that claims an op takes it) or cost "
           "(the least estimated time under the target profile's costs)">,
    Option<"reportPath", "report", "std::string", "\"\"",
           "Write the JSON report to this file ('-' for stdout)">,
    Option<"explain", "explain", "bool", "false",
           "Print the decision table to stderr">,
    Option<"strict", "strict", "bool", "false",
           "Fail when any op falls to portable, listing them">,
  ];
  let statistics = [
    Statistic<"numPartitions", "partitions", "delegate partitions formed">,
    Statistic<"numPortable", "portable-ops", "ops left to portable kernels">,
  ];
  let dependentDialects = ["::duet::DuetDialect", "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def FuseActivationsPass : Pass<"duet-fuse-activations", "::mlir::ModuleOp"> {
  let summary = "Folds relu, hardtanh and clamp into the output bounds of the node before them";
  let description = [{
    Inside every `duet.delegate`, a relu, hardtanh or clamp whose operand
    nothing else reads, produced by an op of the partition held in the same
    layout, is folded into that op's node when the backend's node takes
    output bounds: the producer gets `fusion.output_bounds`, the activation
    `fusion.folded`, and it stays in the region (the program records the
    partition's aten form). The rule is one; what each backend takes is its
    FusionTarget (its BackendLowering's fusionTarget()): XNNPACK folds
    into every node with output_min/output_max and intersects successive
    activations while min < max, Vulkan folds one activation into a
    convolution. Run it after the layouts are planned (`duet-partition`
    plans Vulkan's, `duet-xnnpack-layout` XNNPACK's): an activation whose
    layouts are not recorded is left alone.

    ```mlir
    // before
    %0 = aten.convolution %a, %w {..., xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : ...
    %1 = aten.relu %0 {xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : tensor<1x8x8x8xf32>
    // after
    %0 = aten.convolution %a, %w {..., fusion.output_bounds = array<f32: 0.000000e+00, 0x7F800000>, ...} : ...
    %1 = aten.relu %0 {fusion.folded, xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : tensor<1x8x8x8xf32>
    ```
  }];
  let options = [
    ListOption<"backends", "backends", "std::string",
               "Backends whose partitions to fuse in (default: all)">,
  ];
  let statistics = [
    Statistic<"numFolded", "folded", "activations folded into their producer">,
  ];
  let dependentDialects = ["::duet::fusion::FusionDialect"];
}

#endif // DUET_PARTITIONERS_PASSES_TD
