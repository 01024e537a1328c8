//===- DuetOps.td - the duet dialect: partitions and Vulkan layouts ------===//

#ifndef DUET_DUET_OPS_TD
#define DUET_DUET_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/DialectBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Duet_Dialect : Dialect {
  let name = "duet";
  let cppNamespace = "::duet";
  let summary = "Partitions of a graph assigned to a backend, and Vulkan tensor layouts";
  let description = [{
    The partitioner wraps the ops it assigns to a delegate backend in a
    `duet.delegate` region. Ops outside any delegate run on the portable
    kernels. Tensors that Vulkan stores carry a `#duet.vk_layout` attribute.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The layouts of an op's results inside a Vulkan partition: an array
    /// with one `#duet.vk_layout` per result.
    static constexpr ::llvm::StringLiteral kVkLayoutsAttrName = "duet.vk_layouts";
    /// The layouts of a Vulkan partition's inputs (its block arguments), on
    /// the `duet.delegate`: one `#duet.vk_layout` per input.
    static constexpr ::llvm::StringLiteral kVkArgLayoutsAttrName = "duet.vk_arg_layouts";
  }];
}

def Duet_DelegateKind : I32EnumAttr<"DelegateKind", "which backend a delegate is for", [
    I32EnumAttrCase<"vulkan", 0>,
    I32EnumAttrCase<"xnnpack", 1>]> {
  let cppNamespace = "::duet";
  let genSpecializedAttr = 0;
}
def Duet_DelegateKindAttr : EnumAttr<Duet_Dialect, Duet_DelegateKind, "backend"> {
  let assemblyFormat = "`<` $value `>`";
}

def Duet_Storage : I32EnumAttr<"Storage", "how Vulkan stores a tensor", [
    I32EnumAttrCase<"texture3d", 0>,
    I32EnumAttrCase<"buffer", 1>]> {
  let cppNamespace = "::duet";
}

def Duet_PackedDim : I32EnumAttr<"PackedDim", "the dim packed four to a texel", [
    I32EnumAttrCase<"width_packed", 0>,
    I32EnumAttrCase<"height_packed", 1>,
    I32EnumAttrCase<"channels_packed", 2>,
    I32EnumAttrCase<"contiguous", 3>]> {
  let cppNamespace = "::duet";
}

def Duet_VkLayoutAttr : AttrDef<Duet_Dialect, "VkLayout"> {
  let mnemonic = "vk_layout";
  let summary = "Vulkan storage and texel packing of a tensor";
  let description = [{
    A 3-D image packs four elements of one dim per texel; a buffer is
    contiguous. The layout planner also records a texture's image extents
    `[x, y, z]` (in texels), so the runtime can check them against the
    device's `maxImageDimension3D` without recomputing them.

    ```mlir
    #duet.vk_layout<texture3d, channels_packed>
    #duet.vk_layout<texture3d, width_packed, [2100, 84, 1]>
    #duet.vk_layout<buffer, contiguous>
    ```
  }];
  let parameters = (ins EnumParameter<Duet_Storage>:$storage,
                        EnumParameter<Duet_PackedDim>:$packing,
                        OptionalArrayRefParameter<"int64_t">:$extents);
  let builders = [
    AttrBuilder<(ins "Storage":$storage, "PackedDim":$packing), [{
      return $_get($_ctxt, storage, packing, ::llvm::ArrayRef<int64_t>{});
    }]>
  ];
  let assemblyFormat = "`<` $storage `,` $packing (`,` `[` $extents^ `]`)? `>`";
  let genVerifyDecl = 1;
}

class Duet_Op<string mnemonic, list<Trait> traits = []>
    : Op<Duet_Dialect, mnemonic, traits>;

def Duet_DelegateOp : Duet_Op<"delegate", [
    IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a partition of ops that one delegate backend runs";
  let description = [{
    The region's block arguments are the partition's inputs, bound to the
    operands; `duet.yield` gives its outputs. The region is isolated from
    above, so a partition is self-contained and can be compiled on its own.

    ```mlir
    %y = duet.delegate <vulkan> (%a = %x : tensor<1x16xf32>) -> (tensor<1x16xf32>) {
      %0 = aten.hardswish %a : tensor<1x16xf32>
      duet.yield %0 : tensor<1x16xf32>
    }
    ```
  }];
  let arguments = (ins Duet_DelegateKindAttr:$backend, Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Duet_LayoutConvertOp : Duet_Op<"layout_convert",
    [Pure, SameOperandsAndResultType]> {
  let summary = "re-lays a Vulkan tensor out in another storage or packing";
  let description = [{
    Inside a Vulkan partition, where the layout planner found that a tensor's
    producer writes it in one layout and a consumer reads it in another, it
    inserts this op: the same values, copied from layout `from` to layout
    `to`. The result is in layout `to`.

    ```mlir
    %1 = duet.layout_convert %0 from <texture3d, width_packed, [4, 8, 4]>
        to <texture3d, channels_packed, [16, 8, 1]> : tensor<1x4x8x16xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Duet_VkLayoutAttr:$from,
                       Duet_VkLayoutAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `from` $from `to` $to attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Duet_YieldOp : Duet_Op<"yield", [Pure, Terminator, HasParent<"DelegateOp">]> {
  let summary = "the outputs of a delegate partition";
  let description = [{
    ```mlir
    duet.yield %0, %1 : tensor<4xf32>, tensor<2xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* empty yield */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // DUET_DUET_OPS_TD
