//===- AtenOps.td - the ops of the aten dialect --------------------------===//

#ifndef DUET_ATEN_OPS_TD
#define DUET_ATEN_OPS_TD

include "dialects/aten/AtenDialect.td"

//===----------------------------------------------------------------------===//
// Convolution and matrix products
//===----------------------------------------------------------------------===//

def Aten_ConvolutionOp : Aten_Op<"convolution", [InferTypeOpAdaptor]> {
  let summary = "1-D, 2-D or 3-D convolution, grouped or transposed";
  let description = [{
    `aten.convolution` and its front ends `conv1d`, `conv2d`, `conv3d`,
    `conv_transpose1d`, `conv_transpose2d`. The input is `[N, C, L]`,
    `[N, C, H, W]` or `[N, C, D, H, W]` (3-D: not transposed); `stride`,
    `padding`, `dilation` and `output_padding` have one
    entry per spatial dimension. The weight is `[Cout, Cin/groups, k...]`, or
    `[Cin, Cout/groups, k...]` when `transposed`.

    ```mlir
    %y = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>,
        dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64, transposed = false}
        : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$input, Aten_FloatTensor:$weight,
                       Optional<Aten_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, DenseI64ArrayAttr:$output_padding,
                       I64Attr:$groups, BoolAttr:$transposed);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Aten_LinearOp : Aten_Op<"linear", [InferTypeOpAdaptor]> {
  let summary = "y = x·Wᵀ + b over the last dimension";
  let description = [{
    `input` is `[..., in]`, `weight` `[out, in]`, `bias` `[out]`; the result is
    `[..., out]`.

    ```mlir
    %y = aten.linear %x, %w, %b : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$input, Aten_FloatTensor:$weight,
                       Optional<Aten_FloatTensor>:$bias);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Aten_AddmmOp : Aten_Op<"addmm", [InferTypeOpAdaptor]> {
  let summary = "beta·self + alpha·(mat1 @ mat2)";
  let description = [{
    `mat1` is `[n, k]`, `mat2` `[k, m]`; `self` broadcasts to `[n, m]`.

    ```mlir
    %y = aten.addmm %b, %x, %wt : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$self, Aten_FloatTensor:$mat1, Aten_FloatTensor:$mat2,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self `,` $mat1 `,` $mat2 attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Aten_MatrixProductOp<string mnemonic, string what, string example>
    : Aten_Op<mnemonic, [InferTypeOpAdaptor]> {
  let summary = what;
  let description = [{
    ```mlir
    }] # example # [{
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$self, Aten_FloatTensor:$other);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self `,` $other attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Aten_MmOp : Aten_MatrixProductOp<"mm", "matrix product of `[n, k]` and `[k, m]`",
    "%y = aten.mm %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>">;
def Aten_BmmOp : Aten_MatrixProductOp<"bmm", "batched matrix product of `[b, n, k]` and `[b, k, m]`",
    "%y = aten.bmm %a, %b : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>">;
def Aten_MatmulOp : Aten_MatrixProductOp<"matmul",
    "matrix product with NumPy semantics: 1-D operands and broadcast batch dimensions",
    "%y = aten.matmul %a, %b : (tensor<2x3x4x16xf32>, tensor<16x8xf32>) -> tensor<2x3x4x8xf32>">;

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Aten_BatchNormOp : Aten_Op<"batch_norm", [AttrSizedOperandSegments, InferTypeOpAdaptor]> {
  let summary = "batch normalization with running statistics (inference)";
  let description = [{
    Normalizes axis 1 of `[N, C, ...]`: `(x - mean) / sqrt(var + eps) * weight + bias`.
    Covers `batch_norm` with `training = false` and
    `_native_batch_norm_legit_no_training` (whose first result it is). A missing
    `weight` is 1, a missing `bias` 0.

    ```mlir
    %y = aten.batch_norm %x, %mean, %var weight %g bias %b {eps = 1.0e-05 : f64}
        : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$input, Aten_FloatTensor:$running_mean,
                       Aten_FloatTensor:$running_var,
                       Optional<Aten_FloatTensor>:$weight, Optional<Aten_FloatTensor>:$bias,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $running_mean `,` $running_var (`weight` $weight^)? (`bias` $bias^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Aten_LayerNormOp : Aten_Op<"layer_norm", [AttrSizedOperandSegments, InferTypeOpAdaptor]> {
  let summary = "layer normalization over the trailing `normalized_shape` dimensions";
  let description = [{
    Covers `layer_norm` and the first result of `native_layer_norm`.

    ```mlir
    %y = aten.layer_norm %x weight %g bias %b {normalized_shape = array<i64: 16>, eps = 1.0e-05 : f64}
        : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$input,
                       Optional<Aten_FloatTensor>:$weight, Optional<Aten_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$normalized_shape,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise activations and math
//===----------------------------------------------------------------------===//

def Aten_ReluOp : Aten_UnaryOp<"relu", "max(x, 0)"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_HardswishOp : Aten_UnaryOp<"hardswish", "x * min(max(x + 3, 0), 6) / 6">,
    XnnpackNode<"HardSwish", "hardswish">;
def Aten_HardsigmoidOp : Aten_UnaryOp<"hardsigmoid", "min(max(x + 3, 0), 6) / 6">;
def Aten_SiluOp : Aten_UnaryOp<"silu", "x * sigmoid(x)">;
def Aten_SigmoidOp : Aten_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">,
    XnnpackNode<"Sigmoid", "sigmoid">;
def Aten_TanhOp : Aten_UnaryOp<"tanh", "tanh(x)">;
def Aten_AbsOp : Aten_UnaryOp<"abs", "|x|">,
    XnnpackNode<"Abs", "abs"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_NegOp : Aten_UnaryOp<"neg", "-x">,
    XnnpackNode<"Negate", "negate"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_ExpOp : Aten_UnaryOp<"exp", "e^x">;
def Aten_LogOp : Aten_UnaryOp<"log", "ln(x)">;
def Aten_SqrtOp : Aten_UnaryOp<"sqrt", "sqrt(x)">,
    XnnpackNode<"SquareRoot", "square_root"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_RsqrtOp : Aten_UnaryOp<"rsqrt", "1 / sqrt(x)"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_ErfOp : Aten_UnaryOp<"erf", "erf(x), the Gauss error function">;
def Aten_ErfinvOp : Aten_UnaryOp<"erfinv",
    "erf⁻¹(x), the inverse error function: ±inf at ±1, NaN outside [-1, 1]">;
def Aten_SinOp : Aten_UnaryOp<"sin", "sin(x), x in radians">;
def Aten_CosOp : Aten_UnaryOp<"cos", "cos(x), x in radians">;
def Aten_AcosOp : Aten_UnaryOp<"acos", "arccos(x), in [0, π]">;
def Aten_AsinOp : Aten_UnaryOp<"asin", "arcsin(x)">;
def Aten_AtanOp : Aten_UnaryOp<"atan", "arctan(x)">;
def Aten_SinhOp : Aten_UnaryOp<"sinh", "sinh(x)">;
def Aten_CoshOp : Aten_UnaryOp<"cosh", "cosh(x)">;
def Aten_TanOp : Aten_UnaryOp<"tan", "tan(x), x in radians">;
def Aten_AsinhOp : Aten_UnaryOp<"asinh", "arsinh(x)">;
def Aten_AcoshOp : Aten_UnaryOp<"acosh", "arcosh(x)">;
def Aten_AtanhOp : Aten_UnaryOp<"atanh", "artanh(x)">;
def Aten_Log1pOp : Aten_UnaryOp<"log1p", "ln(1 + x), exact for small x">;
def Aten_Expm1Op : Aten_UnaryOp<"expm1", "e^x - 1, exact for small x">;
def Aten_Log2Op : Aten_UnaryOp<"log2", "log₂(x)">;
def Aten_Log10Op : Aten_UnaryOp<"log10", "log₁₀(x)">;
def Aten_CeilOp : Aten_UnaryOp<"ceil", "the least integer ≥ x">,
    XnnpackNode<"Ceiling", "ceiling">;
def Aten_FloorOp : Aten_UnaryOp<"floor", "the greatest integer ≤ x">,
    XnnpackNode<"Floor", "floor">;
def Aten_RoundOp : Aten_UnaryOp<"round", "x rounded to the nearest integer, halves to even">,
    XnnpackNode<"BankersRounding", "bankers_rounding">;
def Aten_TruncOp : Aten_UnaryOp<"trunc", "x rounded toward zero">;
def Aten_SignOp : Aten_UnaryOp<"sign", "1, 0 or -1 as x is positive, zero (or NaN) or negative">;

def Aten_HardtanhOp : Aten_ParamUnaryOp<"hardtanh", "min(max(x, min_val), max_val)",
    (ins DefaultValuedAttr<F64Attr, "-1.0">:$min_val, DefaultValuedAttr<F64Attr, "1.0">:$max_val)> {
  let description = [{
    Clamps every element to `[min_val, max_val]`; `relu6` is `hardtanh` on `[0, 6]`.

    ```mlir
    %y = aten.hardtanh %x {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x16xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Aten_ClampOp : Aten_ParamUnaryOp<"clamp", "min(max(x, min), max)",
    (ins OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max)> {
  let description = [{
    Clamps every element below by `min` and above by `max`, each optional
    (`clamp_min` and `clamp_max` map here). Applied as `min(max(x, min), max)`,
    so `min > max` gives `max` everywhere, as in PyTorch.

    ```mlir
    %y = aten.clamp %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x16xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Aten_HardshrinkOp : Aten_ParamUnaryOp<"hardshrink", "|x| > lambd ? x : 0",
    (ins DefaultValuedAttr<F64Attr, "0.5">:$lambd)>;

def Aten_GeluOp : Aten_ParamUnaryOp<"gelu", "x * Φ(x), exact or tanh-approximated",
    (ins DefaultValuedAttr<Aten_GeluApproximateAttr, "GeluApproximate::none">:$approximate)>;

def Aten_LeakyReluOp : Aten_ParamUnaryOp<"leaky_relu", "x > 0 ? x : negative_slope * x",
    (ins DefaultValuedAttr<F64Attr, "0.01">:$negative_slope)>;

def Aten_EluOp : Aten_ParamUnaryOp<"elu",
    "x > 0 ? scale * x : scale * alpha * (exp(input_scale * x) - 1)",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha, DefaultValuedAttr<F64Attr, "1.0">:$scale,
         DefaultValuedAttr<F64Attr, "1.0">:$input_scale)>;

def Aten_PowOp : Aten_ParamUnaryOp<"pow", "x ^ exponent (a scalar exponent)",
    (ins F64Attr:$exponent)>;

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

def Aten_AddOp : Aten_BinaryOp<"add", "self + alpha * other",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)> {
  let hasCanonicalizeMethod = 1;
}
def Aten_SubOp : Aten_BinaryOp<"sub", "self - alpha * other",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)> {
  let hasCanonicalizeMethod = 1;
}
def Aten_MulOp : Aten_BinaryOp<"mul", "self * other">,
    XnnpackNode<"Multiply", "multiply2"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_DivOp : Aten_BinaryOp<"div", "self / other, rounded as `rounding_mode` says",
    (ins DefaultValuedAttr<Aten_DivRoundingAttr, "DivRounding::none">:$rounding_mode)> {
  let hasCanonicalizeMethod = 1;
}
def Aten_MaximumOp : Aten_BinaryOp<"maximum", "max(self, other)">,
    XnnpackNode<"Maximum", "maximum2"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_MinimumOp : Aten_BinaryOp<"minimum", "min(self, other)">,
    XnnpackNode<"Minimum", "minimum2"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_PowTensorOp : Aten_BinaryOp<"pow_tensor",
    "self ^ other, the exponent a tensor (`pow.Tensor_Tensor`)">;
def Aten_RemainderOp : Aten_BinaryOp<"remainder",
    "self - floor(self / other) * other, which has the sign of `other`">;
def Aten_Atan2Op : Aten_BinaryOp<"atan2",
    "the angle of the point (other, self) in (-pi, pi], atan2(self, other) (float)">;
def Aten_BitwiseAndOp : Aten_BinaryOp<"bitwise_and",
    "self & other, of integer tensors (boolean ones are aten.logical_and)">;
def Aten_BitwiseOrOp : Aten_BinaryOp<"bitwise_or",
    "self | other, of integer tensors (boolean ones are aten.logical_or)">;
def Aten_BitwiseXorOp : Aten_BinaryOp<"bitwise_xor",
    "self ^ other, of integer tensors (boolean ones are aten.ne)">;

//===----------------------------------------------------------------------===//
// Comparisons, logic and selection
//===----------------------------------------------------------------------===//

// Compares two tensors of one element type with broadcasting; the result is
// boolean (i1). The `.Scalar` overload has a 0-d constant `other`.
class Aten_CompareOp<string mnemonic, string relation>
    : Aten_Op<mnemonic, [InferTypeOpAdaptor]> {
  let kernelComputesInFloat = 0;
  let summary = "elementwise self " # relation # " other, with broadcasting";
  let description = [{
    ```mlir
    %zero = arith.constant dense<0.0> : tensor<f32>
    %m = aten.}] # mnemonic # [{ %x, %zero : tensor<4x4xf32>, tensor<f32> -> tensor<4x4xi1>
    ```
  }];
  let arguments = (ins Aten_Tensor:$self, Aten_Tensor:$other);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $self `,` $other attr-dict `:` type($self) `,` type($other) `->` type($result)
  }];
  let hasVerifier = 1;
}
def Aten_EqOp : Aten_CompareOp<"eq", "==">;
def Aten_NeOp : Aten_CompareOp<"ne", "!=">;
def Aten_LtOp : Aten_CompareOp<"lt", "<">;
def Aten_LeOp : Aten_CompareOp<"le", "<=">;
def Aten_GtOp : Aten_CompareOp<"gt", ">">;
def Aten_GeOp : Aten_CompareOp<"ge", ">=">;

// Logical ops read any element type as "non-zero is true" and give i1.
class Aten_LogicalBinaryOp<string mnemonic, string relation>
    : Aten_Op<mnemonic, [InferTypeOpAdaptor]> {
  let kernelComputesInFloat = 0;
  let summary = "elementwise logical " # relation # " with broadcasting";
  let description = [{
    ```mlir
    %m = aten.}] # mnemonic # [{ %a, %b : tensor<4x4xi1>, tensor<4x4xi1> -> tensor<4x4xi1>
    ```
  }];
  let arguments = (ins Aten_Tensor:$self, Aten_Tensor:$other);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $self `,` $other attr-dict `:` type($self) `,` type($other) `->` type($result)
  }];
  let hasVerifier = 1;
}
def Aten_LogicalAndOp : Aten_LogicalBinaryOp<"logical_and", "and">;
def Aten_LogicalOrOp : Aten_LogicalBinaryOp<"logical_or", "or">;

def Aten_LogicalNotOp : Aten_Op<"logical_not", [SameOperandsAndResultShape]> {
  let kernelComputesInFloat = 0;
  let summary = "elementwise logical not (zero is false)";
  let description = [{
    ```mlir
    %n = aten.logical_not %m : tensor<4x4xi1> -> tensor<4x4xi1>
    ```
  }];
  let arguments = (ins Aten_Tensor:$self);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
}

def Aten_WhereOp : Aten_Op<"where", [InferTypeOpAdaptor]> {
  let kernelComputesInFloat = 0;
  let summary = "elementwise condition ? self : other, with broadcasting";
  let description = [{
    All three operands broadcast to the result shape; `self`, `other` and the
    result share one element type.

    ```mlir
    %y = aten.where %m, %x, %zero : tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I1]>:$condition, Aten_Tensor:$self, Aten_Tensor:$other);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $self `,` $other attr-dict `:` type($condition) `,` type($self) `,` type($other)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aten_AnyOp : Aten_Op<"any", [InferTypeOpAdaptor]> {
  let kernelComputesInFloat = 0;
  let summary = "whether any element is true over the given dimensions";
  let description = [{
    Reduces a boolean tensor over `dim` (all dimensions when empty).

    ```mlir
    %y = aten.any %m {dim = array<i64: 1>, keepdim = true} : tensor<4x4xi1> -> tensor<4x1xi1>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I1]>:$self,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, pooling, softmax
//===----------------------------------------------------------------------===//

def Aten_MeanOp : Aten_ReductionOp<"mean", "the arithmetic mean"> {
  let hasCanonicalizeMethod = 1;
}
def Aten_SumOp : Aten_ReductionOp<"sum", "the sum", Aten_SumTensor> {
  let hasCanonicalizeMethod = 1;
}
def Aten_AmaxOp : Aten_ReductionOp<"amax", "the maximum", Aten_SumTensor>;
def Aten_ProdOp : Aten_ReductionOp<"prod", "the product", Aten_SumTensor>;

def Aten_AdaptiveAvgPool2dOp : Aten_Op<"adaptive_avg_pool2d"> {
  let summary = "average pooling to a fixed output size";
  let description = [{
    Output cell `(i, j)` averages input rows `[floor(i·H/oh), ceil((i+1)·H/oh))`
    and the same for columns. The output size is the result's trailing dims.

    ```mlir
    %y = aten.adaptive_avg_pool2d %x : tensor<1x16x7x7xf32> -> tensor<1x16x1x1xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$self);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}

def Aten_AvgPool2dOp : Aten_Op<"avg_pool2d", [InferTypeOpAdaptor]> {
  let summary = "2-D average pooling";
  let description = [{
    ```mlir
    %y = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>,
        padding = array<i64: 0, 0>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                       OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}

def Aten_MaxPool2dOp : Aten_Op<"max_pool2d", [InferTypeOpAdaptor]> {
  let summary = "2-D max pooling";
  let description = [{
    Padding counts as -infinity.

    ```mlir
    %y = aten.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>,
        padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}

def Aten_CumsumOp : Aten_Op<"cumsum", [SameOperandsAndResultType]> {
  let summary = "running sum along `dim`: element i sums elements 0 to i";
  let description = [{
    A `dtype` argument (and PyTorch's int64 result for integer and bool
    inputs) shows as the result's element type; the importer converts `self`
    to it first. Integer sums wrap around.

    ```mlir
    %y = aten.cumsum %x {dim = 1 : i64} : tensor<2x5x6xf32>
    ```
  }];
  let arguments = (ins Aten_Tensor:$self, I64Attr:$dim);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
  let hasVerifier = 1;
}

class Aten_SoftmaxFamilyOp<string mnemonic, string formula,
                           dag extra = (ins), string more = "">
    : Aten_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = formula # " along `dim`";
  let description = [{
    Covers `}] # mnemonic # [{.int` and `_}] # mnemonic # [{`.}] # more # [{

    ```mlir
    %y = aten.}] # mnemonic # [{ %x {dim = 1 : i64} : tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins Aten_FloatTensor:$self, I64Attr:$dim), extra);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
  let hasVerifier = 1;
}
def Aten_SoftmaxOp : Aten_SoftmaxFamilyOp<"softmax", "exp(x) / sum(exp(x))",
    (ins OptionalAttr<BoolAttr>:$safe), [{
    With `safe` (absent: false; optional so that programs written before it
    load), a row whose every element is -inf gives 0 instead of NaN:
    PyTorch's `_safe_softmax`, which `run_decompositions()` writes as
    softmax, eq, logical_not, any and where (duet-recompose gives it back).}]> {
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$self,
                   "::mlir::IntegerAttr":$dim), [{
      build($_builder, $_state, type, self, dim, ::mlir::BoolAttr());
    }]>
  ];
}
def Aten_LogSoftmaxOp : Aten_SoftmaxFamilyOp<"log_softmax", "log(softmax(x))">;

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Aten_ViewOp : Aten_ShapeOp<"view", (ins)> {
  let hasCanonicalizeMethod = 1;
  let summary = "the same elements in a new shape";
  let description = [{
    `view`, `reshape`, `_unsafe_view`, `flatten`, `squeeze` and `unsqueeze` all
    map here; the result type is the new shape.

    ```mlir
    %y = aten.view %x : tensor<1x16x1x1xf32> -> tensor<1x16xf32>
    ```
  }];
}

def Aten_PermuteOp : Aten_ShapeOp<"permute", (ins DenseI64ArrayAttr:$dims),
    [InferTypeOpAdaptor]> {
  let hasCanonicalizeMethod = 1;
  let summary = "reorders the dimensions: result dim i is input dim dims[i]";
  let description = [{
    `transpose` and `t` map here.

    ```mlir
    %y = aten.permute %x {dims = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
    ```
  }];
}

def Aten_ExpandOp : Aten_ShapeOp<"expand", (ins)> {
  let hasCanonicalizeMethod = 1;
  let summary = "broadcasts size-1 dimensions (and new leading ones) to the result shape";
  let description = [{
    ```mlir
    %y = aten.expand %x : tensor<1x4x1xf32> -> tensor<2x4x8xf32>
    ```
  }];
}

def Aten_RepeatOp : Aten_ShapeOp<"repeat", (ins DenseI64ArrayAttr:$repeats),
    [InferTypeOpAdaptor]> {
  let summary = "tiles the tensor `repeats[d]` times along each dim";
  let description = [{
    `repeats` has an entry per dim of the result, at least as many as `self`
    has dims; `self` is read as if it had leading dims of size 1, and result
    dim d is `repeats[d]` copies of it, element i reading `i % size`.

    ```mlir
    %y = aten.repeat %x {repeats = array<i64: 2, 1, 3>} : tensor<4x5xf32> -> tensor<2x4x15xf32>
    ```
  }];
}

def Aten_SliceOp : Aten_ShapeOp<"slice",
    (ins I64Attr:$dim, I64Attr:$start, I64Attr:$end, DefaultValuedAttr<I64Attr, "1">:$step),
    [InferTypeOpAdaptor]> {
  let hasCanonicalizeMethod = 1;
  let summary = "elements start, start+step, … below end along dim";
  let description = [{
    `start` and `end` are already clamped to `[0, size]` by the importer.

    ```mlir
    %y = aten.slice %x {dim = 1 : i64, start = 0 : i64, end = 8 : i64, step = 2 : i64}
        : tensor<2x16xf32> -> tensor<2x4xf32>
    ```
  }];
}

def Aten_SelectOp : Aten_ShapeOp<"select", (ins I64Attr:$dim, I64Attr:$index),
    [InferTypeOpAdaptor]> {
  let summary = "the slice at `index` along `dim`, with that dimension removed";
  let description = [{
    ```mlir
    %y = aten.select %x {dim = 0 : i64, index = 1 : i64} : tensor<3x4xf32> -> tensor<4xf32>
    ```
  }];
}

def Aten_ConstantPadNdOp : Aten_ShapeOp<"constant_pad_nd",
    (ins DenseI64ArrayAttr:$pad, DefaultValuedAttr<F64Attr, "0.0">:$value),
    [InferTypeOpAdaptor]> {
  let summary = "pads trailing dimensions with a constant";
  let description = [{
    `pad` holds (before, after) pairs starting from the last dimension, as in
    `torch.nn.functional.pad`; negative entries crop.

    ```mlir
    %y = aten.constant_pad_nd %x {pad = array<i64: 1, 1, 2, 0>} : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
    ```
  }];
}

def Aten_CloneOp : Aten_Op<"clone", [SameOperandsAndResultType]> {
  let hasCanonicalizeMethod = 1;
  let kernelComputesInFloat = 0;
  let summary = "a copy of the tensor (an identity at inference)";
  let description = [{
    ```mlir
    %y = aten.clone %x : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Aten_Tensor:$self);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
}

def Aten_CastOp : Aten_Op<"cast", [SameOperandsAndResultShape]> {
  let hasCanonicalizeMethod = 1;
  let kernelComputesInFloat = 0;
  let summary = "converts the element type (`_to_copy`, `to.dtype`)";
  let description = [{
    ```mlir
    %y = aten.cast %x : tensor<2x3xf32> -> tensor<2x3xbf16>
    ```
  }];
  let arguments = (ins Aten_Tensor:$self);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
}

def Aten_CatOp : Aten_Op<"cat", [InferTypeOpAdaptor]> {
  let hasCanonicalizeMethod = 1;
  let kernelComputesInFloat = 0;
  let summary = "concatenates tensors along `dim`";
  let description = [{
    ```mlir
    %y = aten.cat %a, %b {dim = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Aten_Tensor>:$tensors, I64Attr:$dim);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = "$tensors attr-dict `:` functional-type($tensors, $result)";
  let hasVerifier = 1;
}

def Aten_SplitWithSizesOp : Aten_Op<"split_with_sizes", [InferTypeOpAdaptor]> {
  let kernelComputesInFloat = 0;
  let summary = "splits `self` along `dim` into pieces of the given sizes";
  let description = [{
    `split.Tensor`, `split_with_sizes` and `chunk` map here.

    ```mlir
    %a, %b = aten.split_with_sizes %x {split_sizes = array<i64: 2, 3>, dim = 1 : i64}
        : (tensor<1x5x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x3x4xf32>)
    ```
  }];
  let arguments = (ins Aten_Tensor:$self, DenseI64ArrayAttr:$split_sizes, I64Attr:$dim);
  let results = (outs Variadic<Aten_Tensor>:$results);
  let assemblyFormat = "$self attr-dict `:` functional-type($self, $results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Resampling, lookup, attention
//===----------------------------------------------------------------------===//

class Aten_UpsampleOp<string mnemonic, string how, dag extra>
    : Aten_Op<mnemonic> {
  let summary = how # " 2-D upsampling of `[N, C, H, W]` to the result's `H` and `W`";
  let description = [{
    When given, `1/scales_h` and `1/scales_w` replace `in/out` as the ratio
    from output to source coordinates (as PyTorch does with `scale_factor`);
    bilinear with `align_corners` ignores them.

    ```mlir
    %y = aten.}] # mnemonic # [{ %x : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
    ```
  }];
  let arguments = !con((ins Aten_FloatTensor:$self,
                            OptionalAttr<F64Attr>:$scales_h, OptionalAttr<F64Attr>:$scales_w), extra);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}
def Aten_UpsampleNearest2dOp : Aten_UpsampleOp<"upsample_nearest2d", "nearest-neighbour", (ins)>;
def Aten_UpsampleBilinear2dOp : Aten_UpsampleOp<"upsample_bilinear2d", "bilinear",
    (ins DefaultValuedAttr<BoolAttr, "false">:$align_corners)>;

def Aten_UpsampleBicubic2dOp : Aten_UpsampleOp<"upsample_bicubic2d", "bicubic (a = -0.75)",
    (ins DefaultValuedAttr<BoolAttr, "false">:$align_corners)>;

def Aten_GridSampler2dOp : Aten_Op<"grid_sampler_2d", [InferTypeOpAdaptor]> {
  let summary = "samples `[N, C, H, W]` at the normalized points of a grid";
  let description = [{
    `grid` is `[N, Ho, Wo, 2]`, each point (x, y) in [-1, 1] across the input's
    width and height (the centres of the corner pixels with `align_corners`,
    their outer edges without). `interpolation_mode` is 0 bilinear or 1
    nearest; `padding_mode` 0 zeros, 1 border, 2 reflection: what a point
    outside the input reads. The result is `[N, C, Ho, Wo]`.

    ```mlir
    %y = aten.grid_sampler_2d %x, %grid {interpolation_mode = 0 : i64, padding_mode = 0 : i64,
        align_corners = false} : (tensor<1x3x6x7xf32>, tensor<1x4x5x2xf32>) -> tensor<1x3x4x5xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$input, Aten_FloatTensor:$grid,
                       I64Attr:$interpolation_mode, I64Attr:$padding_mode,
                       BoolAttr:$align_corners);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$input `,` $grid attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Aten_TopkOp : Aten_Op<"topk", [InferTypeOpAdaptor]> {
  let summary = "the `k` largest (or smallest) elements along `dim`, sorted, and their indices";
  let description = [{
    Along `dim`, the `k` largest elements in descending order (`largest`), or
    the `k` smallest in ascending order, with their int64 indices; float, or
    int32 and int64 compared exactly. NaN ranks
    above every number, as in PyTorch; equal elements keep their index order,
    so `sort` (k = the dim's size) is stable and `argmax` (k = 1) picks the
    first maximum.

    ```mlir
    %v, %i = aten.topk %x {k = 2 : i64, dim = 1 : i64, largest = true}
        : tensor<5x6xf32> -> tensor<5x2xf32>, tensor<5x2xi64>
    ```
  }];
  let arguments = (ins Aten_OrderedTensor:$self, I64Attr:$k, I64Attr:$dim,
                       BoolAttr:$largest);
  let results = (outs Aten_OrderedTensor:$values, StaticShapeTensorOf<[I64]>:$indices);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($values) `,` type($indices)";
  let hasVerifier = 1;
}

def Aten_ScatterOp : Aten_Op<"scatter", [InferTypeOpAdaptor]> {
  let summary = "`self` with `src` written at `index` along `dim`, or combined with what is there";
  let description = [{
    For every position `p` of `index`, the element of `self` at `p` with its
    `dim` coordinate replaced by `index[p]` receives `src[p]`: replaced
    (`none`, the last write winning), or combined by `sum`, `prod`, `amax`,
    `amin` or `mean`, with `self`'s own value taking part when
    `include_self`. `index` has the rank of `self` and `src` and is no larger
    than `src` in any dim, nor than `self` outside `dim`; an index outside
    `[0, size of dim)` is an error at run time. `scatter`, `scatter_add`,
    `scatter_reduce`, `index_copy`, `index_add` and `index_put` map here.

    ```mlir
    %y = aten.scatter %x, %i, %s {dim = 0 : i64, reduce = #aten.scatter_reduce<sum>, include_self = true}
        : (tensor<5x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
    ```
  }];
  let arguments = (ins Aten_Tensor:$self, Aten_IndexTensor:$index, Aten_Tensor:$src,
                       I64Attr:$dim, Aten_ScatterReduceAttr:$reduce, BoolAttr:$include_self);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = "$self `,` $index `,` $src attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Aten_EmbeddingOp : Aten_Op<"embedding", [InferTypeOpAdaptor]> {
  let hasCanonicalizeMethod = 1;
  let summary = "rows of `weight` picked by integer `indices`";
  let description = [{
    ```mlir
    %y = aten.embedding %w, %ids : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$weight, Aten_IndexTensor:$indices);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$weight `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

// Elements of `self` picked along `dim` by an integer `index`; they move
// elements of any dtype.
class Aten_IndexOp<string mnemonic, string what, string detail, string example>
    : Aten_Op<mnemonic, [InferTypeOpAdaptor]> {
  let kernelComputesInFloat = 0;
  let summary = what;
  let description = detail # [{ An index outside `[0, size of dim)` is an
    error when the op runs, as in PyTorch (a negative index does not count
    from the end).

    ```mlir
    }] # example # [{
    ```
  }];
  let arguments = (ins Aten_Tensor:$self, Aten_IndexTensor:$index, I64Attr:$dim);
  let results = (outs Aten_Tensor:$result);
  let assemblyFormat = "$self `,` $index attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def Aten_GatherOp : Aten_IndexOp<"gather",
    "elements of `self` picked along `dim` by an index of the result's shape",
    [{`result[i][j] = self[index[i][j]][j]` for `dim = 0`, and likewise for
    other dims: along `dim` the index names the element, along every other dim
    the result reads its own position. `index` has the rank of `self` and is
    no larger than `self` in any dim but `dim`.}],
    "%y = aten.gather %x, %i {dim = 1 : i64} : (tensor<2x5x6xf32>, tensor<2x4x6xi64>) -> tensor<2x4x6xf32>">;
def Aten_IndexSelectOp : Aten_IndexOp<"index_select",
    "the slices of `self` along `dim` that a 1-D index names, in its order",
    [{The result is `self` with dim `dim` replaced by the index's length; a
    0-d index picks one slice and keeps the dim.}],
    "%y = aten.index_select %x, %i {dim = 1 : i64} : (tensor<2x4x5xf32>, tensor<4xi64>) -> tensor<2x4x5xf32>">;

def Aten_ScaledDotProductAttentionOp : Aten_Op<"scaled_dot_product_attention", [InferTypeOpAdaptor]> {
  let summary = "softmax(q·kᵀ·scale + mask)·v";
  let description = [{
    `query` is `[..., L, E]`, `key` `[..., S, E]`, `value` `[..., S, Ev]`; the
    result is `[..., L, Ev]`. `scale` defaults to `1/sqrt(E)`. A boolean mask
    keeps positions where it is true; a float mask is added. Dropout is not
    part of inference and is refused at import.

    ```mlir
    %y = aten.scaled_dot_product_attention %q, %k, %v {is_causal = true}
        : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
    ```
  }];
  let arguments = (ins Aten_FloatTensor:$query, Aten_FloatTensor:$key, Aten_FloatTensor:$value,
                       Optional<Aten_Tensor>:$attn_mask,
                       DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                       OptionalAttr<F64Attr>:$scale);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $attn_mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization: the quantized_decomposed ops of PT2E programs
//===----------------------------------------------------------------------===//

def Aten_QuantElement : AnyTypeOf<[I8, UI8, I16, I32]>;
def Aten_QuantTensor : StaticShapeTensorOf<[Aten_QuantElement]>;

def Aten_QuantizePerTensorOp : Aten_Op<"quantize_per_tensor",
    [SameOperandsAndResultShape]> {
  let summary = "affine quantization with one scale and zero point";
  let description = [{
    `quantized_decomposed.quantize_per_tensor` (`.default`, and `.tensor` with
    constant qparams): `clamp(round(x * (1 / scale)) + zero_point, quant_min,
    quant_max)` in float32, converted to the result's integer type, exactly as
    PyTorch computes it (`1 / scale` in double, rounded once to float32; round
    half to even). The result type is the op's `dtype`.

    ```mlir
    %q = aten.quantize_per_tensor %x {scale = 0.05 : f64, zero_point = -3 : i64,
        quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xi8>
    ```
  }];
  let arguments = (ins F32Tensor:$self, F64Attr:$scale, I64Attr:$zero_point,
                       I64Attr:$quant_min, I64Attr:$quant_max);
  let results = (outs Aten_QuantTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}

def Aten_DequantizePerTensorOp : Aten_Op<"dequantize_per_tensor",
    [SameOperandsAndResultShape]> {
  let summary = "the real values of affine-quantized integers";
  let description = [{
    `quantized_decomposed.dequantize_per_tensor`: `(float(q) - zero_point) *
    scale` in float32 (`scale` rounded to float32), the result in its
    `out_dtype` (float32 unless given). `quant_min` and `quant_max` are the
    range the integers were quantized to.

    ```mlir
    %x = aten.dequantize_per_tensor %q {scale = 0.05 : f64, zero_point = -3 : i64,
        quant_min = -128 : i64, quant_max = 127 : i64} : tensor<1x8x4x4xi8> -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Aten_QuantTensor:$self, F64Attr:$scale,
                       I64Attr:$zero_point, I64Attr:$quant_min,
                       I64Attr:$quant_max);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self) `->` type($result)";
  let hasVerifier = 1;
}

def Aten_QuantizePerChannelOp : Aten_Op<"quantize_per_channel",
    [SameOperandsAndResultShape]> {
  let summary = "affine quantization with a scale and zero point per channel";
  let description = [{
    `quantized_decomposed.quantize_per_channel`: element `x` at index `c` of
    dim `axis` becomes `clamp(round(x * (1 / scales[c])) + zero_points[c],
    quant_min, quant_max)`, computed in the type of `scales` (float32 or
    float64, as PyTorch promotes).

    ```mlir
    %q = aten.quantize_per_channel %x, %s, %z {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64}
        : (tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<8xi64>) -> tensor<8x3x3x3xi8>
    ```
  }];
  let arguments = (ins F32Tensor:$self, Aten_FloatTensor:$scales,
                       Aten_IndexTensor:$zero_points, I64Attr:$axis,
                       I64Attr:$quant_min, I64Attr:$quant_max);
  let results = (outs Aten_QuantTensor:$result);
  let assemblyFormat = [{
    $self `,` $scales `,` $zero_points attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Aten_DequantizePerChannelOp : Aten_Op<"dequantize_per_channel"> {
  let summary = "the real values of integers quantized per channel";
  let description = [{
    `quantized_decomposed.dequantize_per_channel`: element `q` at index `c` of
    dim `axis` becomes `(q - zero_points[c]) * scales[c]` in the type of
    `scales`, then the result's type. Without `zero_points` they are 0. A
    weight of a quantized convolution or linear is this op on constants.

    ```mlir
    %w = aten.dequantize_per_channel %q, %s, %z {axis = 0 : i64, quant_min = -127 : i64, quant_max = 127 : i64}
        : (tensor<8x3x3x3xi8>, tensor<8xf32>, tensor<8xi64>) -> tensor<8x3x3x3xf32>
    ```
  }];
  let arguments = (ins Aten_QuantTensor:$self, Aten_FloatTensor:$scales,
                       Optional<Aten_IndexTensor>:$zero_points, I64Attr:$axis,
                       I64Attr:$quant_min, I64Attr:$quant_max);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = [{
    $self `,` $scales (`zero_points` $zero_points^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dynamic quantization: qparams computed at run time
//===----------------------------------------------------------------------===//

def Aten_ChooseQparamsOp : Aten_Op<"choose_qparams"> {
  // The float64 scale is data: the kernel reads each dtype itself.
  let kernelComputesInFloat = 0;
  let summary = "per-tensor affine qparams from the range of a tensor, at run time";
  let description = [{
    `quantized_decomposed.choose_qparams.tensor` (dynamic quantization), as
    PyTorch's `determine_qparams` computes it in float32: `min = min(min(x), 0)`,
    `max = max(max(x), 0)`, `scale = max((max - min) / float(quant_max -
    quant_min), float(eps))`, `zero_point = clamp(quant_min - int(round(min /
    scale)), quant_min, quant_max)` (round half to even). The results are
    `[1]` tensors: the scale widened to float64, the zero point as int64. An
    empty `self` gives scale 1 and zero point 0. `quant_min <= 0 <= quant_max`.

    ```mlir
    %s, %z = aten.choose_qparams %x {quant_min = -128 : i64, quant_max = 127 : i64, eps = 2.44140625e-04 : f64}
        : tensor<4x32xf32> -> (tensor<1xf64>, tensor<1xi64>)
    ```
  }];
  let arguments = (ins F32Tensor:$self, I64Attr:$quant_min, I64Attr:$quant_max,
                       F64Attr:$eps);
  let results = (outs StaticShapeTensorOf<[F64]>:$scale,
                      StaticShapeTensorOf<[I64]>:$zero_point);
  let assemblyFormat = [{
    $self attr-dict `:` type($self) `->` `(` type($scale) `,` type($zero_point) `)`
  }];
  let hasVerifier = 1;
}

def Aten_QuantizePerTensorDynamicOp : Aten_Op<"quantize_per_tensor_dynamic"> {
  // The float64 scale is data: the kernel reads each dtype itself.
  let kernelComputesInFloat = 0;
  let summary = "affine quantization with a scale and zero point computed at run time";
  let description = [{
    `quantized_decomposed.quantize_per_tensor.tensor` whose `scale` and
    `zero_point` are not constants (they come from `choose_qparams`):
    `aten.quantize_per_tensor`'s arithmetic with the one-element `scale`
    (float32 or float64, read as a double) and `zero_point` (int32 or int64)
    read when it runs.

    ```mlir
    %q = aten.quantize_per_tensor_dynamic %x, %s, %z {quant_min = -128 : i64, quant_max = 127 : i64}
        : (tensor<4x32xf32>, tensor<1xf64>, tensor<1xi64>) -> tensor<4x32xi8>
    ```
  }];
  let arguments = (ins F32Tensor:$self, Aten_FloatTensor:$scale,
                       Aten_IndexTensor:$zero_point, I64Attr:$quant_min,
                       I64Attr:$quant_max);
  let results = (outs Aten_QuantTensor:$result);
  let assemblyFormat = [{
    $self `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Aten_DequantizePerTensorDynamicOp : Aten_Op<"dequantize_per_tensor_dynamic"> {
  // The float64 scale is data: the kernel reads each dtype itself.
  let kernelComputesInFloat = 0;
  let summary = "the real values of integers quantized with run-time qparams";
  let description = [{
    `quantized_decomposed.dequantize_per_tensor.tensor` whose `scale` and
    `zero_point` are not constants: `aten.dequantize_per_tensor`'s arithmetic
    with the one-element `scale` and `zero_point` read when it runs.

    ```mlir
    %y = aten.dequantize_per_tensor_dynamic %q, %s, %z {quant_min = -128 : i64, quant_max = 127 : i64}
        : (tensor<4x32xi8>, tensor<1xf64>, tensor<1xi64>) -> tensor<4x32xf32>
    ```
  }];
  let arguments = (ins Aten_QuantTensor:$self, Aten_FloatTensor:$scale,
                       Aten_IndexTensor:$zero_point, I64Attr:$quant_min,
                       I64Attr:$quant_max);
  let results = (outs Aten_FloatTensor:$result);
  let assemblyFormat = [{
    $self `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // DUET_ATEN_OPS_TD
