//===- XnnDialect.td - how XNNPACK holds and schedules a partition --------===//
//
// The XNNPACK lowering record that duet-xnnpack-layout writes and the XNNPACK
// emitter reads: the layout of every value of a `duet.delegate <xnnpack>`,
// where a value changes layout and how, and which subgraph each node and host
// copy belongs to.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNDIALECT_TD
#define DUET_PARTITIONERS_XNNPACK_XNNDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/DialectBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Xnn_Dialect : Dialect {
  let name = "xnn";
  let cppNamespace = "::duet::xnn";
  let summary = "Layouts, layout changes and subgraphs of XNNPACK partitions";
  let description = [{
    Inside a `duet.delegate <xnnpack>`, every op that becomes an XNNPACK node
    carries `xnn.layout` (the layout of its result) and `xnn.subgraph` (the
    subgraph step it runs in). Where a value is read in a layout other than
    the one it has, an `xnn.layout_change` holds it in the other one.
    Partition inputs and constants are `plain`.

    ```mlir
    %0 = xnn.layout_change %a from plain to nhwc by host_copy {xnn.subgraph = 0 : i64} : tensor<1x3x8x8xf32>
    %1 = aten.convolution %0, %w {..., xnn.layout = #xnn.layout<nhwc>, xnn.subgraph = 0 : i64} : ...
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The layout of an op's (single) result: an `#xnn.layout`.
    static constexpr ::llvm::StringLiteral kLayoutAttrName = "xnn.layout";
    /// The subgraph step an op's node runs in, or for a host copy the
    /// subgraph it runs before (after subgraph k - 1): a non-negative i64.
    static constexpr ::llvm::StringLiteral kSubgraphAttrName = "xnn.subgraph";
    /// A unit attribute on an op whose node computes in qint8
    /// (XnnpackQuantization.h): it reads the integers its dequantized
    /// operands come from and writes those of the quantize after it.
    static constexpr ::llvm::StringLiteral kQint8AttrName = "xnn.qint8";
    /// A unit attribute on a quantize, dequantize or quantized weight that
    /// the qint8 nodes reading or writing it absorb: it has no node.
    static constexpr ::llvm::StringLiteral kFoldedAttrName = "xnn.folded";
  }];
}

def Xnn_Layout : I32EnumAttr<"Layout", "how XNNPACK holds a value", [
    // The tensor's own dim order (NCHW for a 4-D tensor).
    I32EnumAttrCase<"plain", 0>,
    // [N, H, W, C] for a 4-D [N, C, H, W] tensor; a tensor of lower rank is
    // first given leading 1s, as broadcasting against a 4-D one aligns it.
    I32EnumAttrCase<"nhwc", 1>]> {
  let cppNamespace = "::duet::xnn";
  let genSpecializedAttr = 0;
}

def Xnn_LayoutAttr : EnumAttr<Xnn_Dialect, Xnn_Layout, "layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def Xnn_Transfer : I32EnumAttr<"Transfer", "how a value reaches another layout", [
    // A reshape node inside the subgraph: both layouts order the elements
    // the same way ([N,C,1,1], [N,1,H,W], a lower-rank tensor broadcast so).
    I32EnumAttrCase<"reshape", 0>,
    // A copy step on the host between two subgraphs (this XNNPACK's subgraph
    // API has no transpose): a transpose, and for a bf16 partition input or
    // output the conversion between bf16 and fp32.
    I32EnumAttrCase<"host_copy", 1>,
    // A constant, stored at compile time in the new layout.
    I32EnumAttrCase<"repack", 2>]> {
  let cppNamespace = "::duet::xnn";
  let genSpecializedAttr = 0;
}

def Xnn_TransferAttr : EnumAttr<Xnn_Dialect, Xnn_Transfer, "transfer"> {
  let assemblyFormat = "`<` $value `>`";
}

def Xnn_LayoutChangeOp : Op<Xnn_Dialect, "layout_change",
    [Pure, SameOperandsAndResultType]> {
  let summary = "holds a value of an XNNPACK partition in another layout";
  let description = [{
    The same elements as `input`, in layout `to` instead of `from`, reached
    `by` a reshape node, a host copy or (for a constant) at compile time.
    A `host_copy` with `from` equal to `to` converts a bf16 partition input
    to fp32 or a result to the partition output's bf16; the result of a
    `host_copy` that the region yields is the partition's output (always
    `plain`). In aten form (the program's record of the partition) the op is
    nothing: it changes how XNNPACK holds the value, not the value.

    ```mlir
    %1 = xnn.layout_change %0 from nhwc to plain by host_copy {xnn.subgraph = 1 : i64} : tensor<1x8x4x4xf32>
    %3 = xnn.layout_change %2 from nhwc to plain by reshape {xnn.subgraph = 0 : i64} : tensor<1x8x1x1xf32>
    %c = xnn.layout_change %cst from plain to nhwc by repack : tensor<8x1x1xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Xnn_LayoutAttr:$from,
                       Xnn_LayoutAttr:$to, Xnn_TransferAttr:$by);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `from` custom<LayoutKeyword>($from) `to` custom<LayoutKeyword>($to)
    `by` custom<TransferKeyword>($by) attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

#endif // DUET_PARTITIONERS_XNNPACK_XNNDIALECT_TD
