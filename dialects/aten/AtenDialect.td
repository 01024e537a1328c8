//===- AtenDialect.td - the aten dialect and its shared op classes -------===//
//
// The ATen ops duet supports, one op per overload family, on ranked tensors of
// static shape. Scalars of the `.Scalar` overloads are 0-d constant tensors
// (`arith.constant`), so every binary op has one form. Dimensions are
// normalized to be non-negative by the importer; verifiers hold them to it.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_ATEN_DIALECT_TD
#define DUET_ATEN_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/DialectBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Aten_Dialect : Dialect {
  let name = "aten";
  let cppNamespace = "::duet::aten";
  let summary = "The ATen operators duet imports from torch.export programs";
  let description = [{
    One op per ATen overload family (`aten.add` covers `add.Tensor` and
    `add.Scalar`), on statically shaped ranked tensors. In-place variants are
    imported as their functional op. Integer, float and bool arguments are
    attributes; tensors are operands.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Aten_FloatElement : AnyTypeOf<[F16, BF16, F32, F64]>;
def Aten_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, UI8, I16, I32, I64]>;

def Aten_Tensor : StaticShapeTensorOf<[Aten_Element]>;
def Aten_FloatTensor : StaticShapeTensorOf<[Aten_FloatElement]>;
def Aten_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
/// What a sum, product or maximum takes: floats, and int64 (PyTorch sums
/// and multiplies every integer and boolean tensor in int64, wrapping around;
/// the importer takes the extremes of narrower integers in int64, exactly).
def Aten_SumTensor : StaticShapeTensorOf<[Aten_FloatElement, I64]>;
/// What an ordering op (topk) compares: floats, and the integers too wide to
/// be exact in float.
def Aten_OrderedTensor : StaticShapeTensorOf<[Aten_FloatElement, I32, I64]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Aten_GeluApproximate : I32EnumAttr<"GeluApproximate", "how gelu is evaluated", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::duet::aten";
  let genSpecializedAttr = 0;
}
def Aten_GeluApproximateAttr : EnumAttr<Aten_Dialect, Aten_GeluApproximate, "approximate"> {
  let assemblyFormat = "`<` $value `>`";
}

def Aten_DivRounding : I32EnumAttr<"DivRounding", "rounding of a division", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"trunc", 1>,
    I32EnumAttrCase<"floor", 2>]> {
  let cppNamespace = "::duet::aten";
  let genSpecializedAttr = 0;
}
def Aten_DivRoundingAttr : EnumAttr<Aten_Dialect, Aten_DivRounding, "rounding"> {
  let assemblyFormat = "`<` $value `>`";
}

def Aten_ScatterReduce : I32EnumAttr<"ScatterReduce", "how scatter combines a value with the element it lands on", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"sum", 1>,
    I32EnumAttrCase<"prod", 2>,
    I32EnumAttrCase<"amax", 3>,
    I32EnumAttrCase<"amin", 4>,
    I32EnumAttrCase<"mean", 5>]> {
  let cppNamespace = "::duet::aten";
  let genSpecializedAttr = 0;
}
def Aten_ScatterReduceAttr : EnumAttr<Aten_Dialect, Aten_ScatterReduce, "scatter_reduce"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Op classes
//===----------------------------------------------------------------------===//

class Aten_Op<string mnemonic, list<Trait> traits = []>
    : Op<Aten_Dialect, mnemonic, !listconcat([Pure], traits)> {
  // Whether the op's portable kernel computes in float32, float16 and
  // bfloat16 operands widened around it (0: it moves, compares or converts
  // elements of any dtype). dialects/aten/gen_op_tables.py writes it into
  // the kernel registry with the op's operands and attributes.
  bit kernelComputesInFloat = 1;
}

// An op that XNNPACK computes with one node of its own: the same operands,
// the same result, no attribute. `node` names the node type in
// runtime/schema/xnnpack.fbs and `define` the `xnn_define_` function the
// delegate calls for it. gen_op_tables.py writes these ops into
// AtenXnnpackNodes.inc, from which the XNNPACK rule table, layout planner and
// emitter take their rows, so such an op is added to XNNPACK here alone.
// Ops with attributes or several nodes keep hand-written rows.
class XnnpackNode<string node, string define> {
  string xnnpackNode = node;
  string xnnpackDefine = define;
}

// Elementwise on one float tensor, result of the same type.
class Aten_UnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Aten_Op<mnemonic, !listconcat([SameOperandsAndResultType], traits)> {
  let summary = "elementwise " # mnemonic # ": " # formula;
  let description = [{
    Applies `}] # formula # [{` to every element.

    ```mlir
    %y = aten.}] # mnemonic # [{ %x : tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$self);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
}

// Elementwise on one float tensor with scalar parameters given as `params`.
class Aten_ParamUnaryOp<string mnemonic, string formula, dag params>
    : Aten_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "elementwise " # mnemonic # ": " # formula;
  let description = [{
    Applies `}] # formula # [{` to every element.
  }];
  let arguments = !con((ins Aten_FloatTensor:$self), params);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
}

// Elementwise on two tensors with NumPy broadcasting. Both operands and the
// result share one element type (the importer casts where PyTorch promotes).
class Aten_BinaryOp<string mnemonic, string formula, dag extra = (ins)>
    : Aten_Op<mnemonic, [InferTypeOpAdaptor]> {
  let summary = "elementwise " # mnemonic # " with broadcasting: " # formula;
  let description = [{
    Computes `}] # formula # [{` elementwise after broadcasting both operands
    to the result shape. The `.Scalar` overload has a 0-d constant `other`.

    ```mlir
    %three = arith.constant dense<3.0> : tensor<f32>
    %y = aten.}] # mnemonic # [{ %x, %three : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
    ```
  }];
  let arguments = !con((ins Aten_Tensor:$self, Aten_Tensor:$other), extra);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = [{
    $self `,` $other attr-dict `:` type($self) `,` type($other) `->` type($result)
  }];
  let hasVerifier = 1;
}

// A reduction over `dim` (empty: every dim), keeping reduced dims as size 1
// when `keepdim` is set.
class Aten_ReductionOp<string mnemonic, string what,
                       Type tensor = Aten_FloatTensor>
    : Aten_Op<mnemonic, [InferTypeOpAdaptor]> {
  let summary = what # " over the given dimensions";
  let description = [{
    Reduces `self` over `dim` (all dimensions when `dim` is empty) with }] # what # [{.

    ```mlir
    %y = aten.}] # mnemonic # [{ %x {dim = array<i64: 2, 3>, keepdim = true}
        : tensor<1x16x8x8xf32> -> tensor<1x16x1x1xf32>
    ```
  }];
  let arguments = (ins tensor:$self,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs tensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}

// Shape-changing ops on one tensor whose result type states the new shape.
class Aten_ShapeOp<string mnemonic, dag attrs, list<Trait> traits = []>
    : Aten_Op<mnemonic, traits> {
  let kernelComputesInFloat = 0;
  let arguments = !con((ins Aten_Tensor:$self), attrs);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}

#endif // DUET_ATEN_DIALECT_TD
