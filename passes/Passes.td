//===- Passes.td - duet's graph passes ------------------------------------===//
//
// The passes between import and partitioning, in pipeline order, and the
// per-backend decomposition that runs after partitioning. docs/passes.md says
// why they run in this order.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PASSES_TD
#define DUET_PASSES_TD

include "mlir/Pass/PassBase.td"

def NormalizePass : Pass<"duet-normalize", "::mlir::func::FuncOp"> {
  let summary = "Rewrites every IR flavour into one canonical form: linear, no identities, folded weights";
  let description = [{
    A program exported straight from `torch.export` (`TRAINING` IR) and one
    after `run_decompositions()` (`ATEN` IR) spell the same model differently.
    This pass gives both one form, so that the passes after it and the backend
    rules match one pattern per idea:

    - `addmm(b, x, permute(W, [1, 0]))` with `beta = alpha = 1` and a 1-D `b`
      becomes `linear(x, W, b)`; `mm` and `matmul` with a transposed 2-D
      weight become `linear` without bias. A constant `mat2` with no other
      user is taken as an already transposed weight.
    - `view(linear(view(x)))`, where the inner view flattens the leading dims
      of `x` and the outer one restores them, becomes one N-D `linear`.
    - Identities disappear: `clone`, `cast` to the same type, `cat` of one
      tensor, `view` to the same shape (and `view` of a `view` becomes one),
      `permute` by the identity, `expand` to the same shape.
    - An op whose operands are all constants is evaluated: `view`, `permute`,
      `slice`, `cat`, `embedding` (of any element type), float `cast`, the
      elementwise binary ops, `neg`, `abs`, `relu`, `sqrt`, `rsqrt`, `mean`,
      `sum`. A `permute` feeding `mm`/`addmm`/`matmul` is kept for the linear
      rewrite. Other all-constant ops stay and are counted.

    The identities and the evaluation are the aten ops' canonicalization
    patterns (`canonicalize()`, dialects/aten/AtenCanonicalize.cpp), which
    this pass runs; no other pass folds aten ops.

    ```mlir
    // before
    %wt = aten.permute %w {dims = array<i64: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
    %y = aten.addmm %b, %x, %wt : (tensor<8xf32>, tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %z = aten.clone %y : tensor<4x8xf32>
    // after
    %z = aten.linear %x, %w, %b : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let statistics = [
    Statistic<"numLinear", "linear-formed", "addmm/mm/matmul (and view pairs) rewritten as linear">,
    Statistic<"numScaled", "linear-scaled", "constant scales of a linear's outputs folded into its weight">,
    Statistic<"numIdentities", "identities-removed", "identity ops removed">,
    Statistic<"numConstantsFolded", "constants-folded", "all-constant ops evaluated at compile time">,
    Statistic<"numConstantsLeft", "constants-not-folded", "all-constant ops left in place (no evaluator, or a transposed weight kept for linear)">,
  ];
  let dependentDialects = ["::duet::aten::AtenDialect", "::mlir::arith::ArithDialect"];
}

def RecomposePass : Pass<"duet-recompose", "::mlir::func::FuncOp"> {
  let summary = "Recomposes decomposed hardswish, hardsigmoid, silu and safe softmax into their ops";
  let description = [{
    `run_decompositions()` writes activations as arithmetic. A backend with a
    native kernel runs the composite faster and, on some GPUs, more correctly
    than the pieces, so the composite is given back where the arithmetic is
    exactly its definition:

    - `clamp(x + 3, 0, 6) / 6` or `· (1/6)` → `hardsigmoid(x)`;
    - `x · hardsigmoid(x)`, `x · (clamp(x + 3, 0, 6) / 6)` and
      `(x · clamp(x + 3, 0, 6)) / 6` → `hardswish(x)`;
    - `x · sigmoid(x)` → `silu(x)`;
    - `where(logical_not(any(logical_not(eq(x, -inf)), dim, keepdim)), 0,
      softmax(x, dim))` (PyTorch's `_safe_softmax`, which decomposed attention
      leaves over every score matrix) → `softmax(x, dim) {safe}`.

    Both operand orders of `mul` and `add` match. The clamp may be
    `clamp{min = 0, max = 6}`, `hardtanh{0, 6}`, or a chain of a lower bound
    (`clamp{min = 0}`, `maximum(·, 0)`, `relu`) and an upper bound
    (`clamp{max = 6}`, `minimum(·, 6)`) in either order. The constants 3, 0 and
    6 must be exact; 1/6 may be off by at most one unit in the last place of
    its element type. Every intermediate must have no other user, so nothing
    is computed twice; otherwise, and for any other constant or operand, the
    IR is left as it is.

    ```mlir
    // before
    %a = aten.add %x, %c3 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
    %lo = aten.clamp %a {min = 0.0 : f64} : tensor<1x16xf32>
    %hi = aten.clamp %lo {max = 6.0 : f64} : tensor<1x16xf32>
    %m = aten.mul %x, %hi : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
    %y = aten.div %m, %c6 : tensor<1x16xf32>, tensor<f32> -> tensor<1x16xf32>
    // after
    %y = aten.hardswish %x : tensor<1x16xf32>
    ```
  }];
  let statistics = [
    Statistic<"numHardswish", "hardswish", "hardswish ops recomposed">,
    Statistic<"numHardsigmoid", "hardsigmoid", "hardsigmoid ops recomposed (and kept as such)">,
    Statistic<"numSilu", "silu", "silu ops recomposed">,
    Statistic<"numSafeSoftmax", "safe-softmax", "safe softmax ops recomposed">,
  ];
  let dependentDialects = ["::duet::aten::AtenDialect"];
}

def FoldBatchNormPass : Pass<"duet-fold-batchnorm", "::mlir::func::FuncOp"> {
  let summary = "Folds batch_norm into the convolution or 2-D linear before it";
  let description = [{
    With `s = γ/√(σ² + ε)`, a batch norm after a convolution or linear is the
    same layer with `W' = W·s` along the output channels and
    `b' = (b − μ)·s + β`. The fold happens only when all of these hold:

    - the batch norm's input is the result of `aten.convolution` or
      `aten.linear`, and the batch norm is that result's only user;
    - the weight, the bias if any, and the running mean, running variance,
      weight and bias of the batch norm are constants;
    - for linear, the output is 2-D: batch norm normalizes axis 1, which is
      the out-features axis only for `[N, C]`.

    Output channels are axis 0 of a convolution weight `[Cout, Cin/g, k…]` and
    of a linear weight `[out, in]`; for a transposed convolution, whose weight
    is `[Cin, Cout/g, k…]`, channel `g·Cout/g + j` is column `j` of the rows of
    group `g`. The math runs in double and each result is rounded once to the
    weight's element type. A channel whose `σ² + ε` is not positive would put
    inf or NaN into the weights, so such a batch norm stays too. Every batch
    norm left is counted by its reason.

    ```mlir
    // before
    %y = aten.convolution %x, %w, %b {...} : (...) -> tensor<1x2x4x4xf32>
    %z = aten.batch_norm %y, %mean, %var weight %g bias %beta {eps = 1.0e-05 : f64} : (...) -> tensor<1x2x4x4xf32>
    // after
    %z = aten.convolution %x, %w_folded, %b_folded {...} : (...) -> tensor<1x2x4x4xf32>
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark at each batch norm left unfolded, saying why">,
  ];
  let statistics = [
    Statistic<"numFolded", "folded", "batch norms folded">,
    Statistic<"numNoProducer", "not-after-conv-or-linear", "not folded: input is not a convolution or linear">,
    Statistic<"numOtherUsers", "producer-has-other-users", "not folded: the convolution or linear has other users">,
    Statistic<"numNotConstant", "not-constant", "not folded: a weight, bias or statistic is not a constant">,
    Statistic<"numLinearNot2D", "linear-not-2d", "not folded: the linear output is not 2-D">,
    Statistic<"numBadVariance", "non-positive-variance", "not folded: running_var + eps is not positive in some channel">,
  ];
  let dependentDialects = ["::duet::aten::AtenDialect", "::mlir::arith::ArithDialect"];
}

def FoldScalePass : Pass<"duet-fold-scale", "::mlir::func::FuncOp"> {
  let summary = "Folds a multiply by a scalar constant into the linear or convolution before it";
  let description = [{
    `mul(y, c)` (or `mul(c, y)`) with `c` a float constant of one element,
    where `y` is the result of an `aten.linear` or `aten.convolution`,
    possibly through `aten.view` and `aten.permute`, becomes that layer with
    weight `c·W` and bias `c·b`; the multiply is gone. Attention layers scale
    their queries so (`q_proj(x) * scaling`, after the head split). An
    `aten.scaled_dot_product_attention` whose query is such a layer's result
    likewise: its scale (`1/sqrt(E)` unless given) moves into the layer and
    the attention's becomes 1, which `duet-decompose` writes without a
    multiply. The fold happens only when all of these hold:

    - every value from the layer to the multiply has one user (so the scale
      reaches nothing else);
    - the weight, and the bias if any, are float constants;
    - the multiply's result has the type of `y` (no broadcast, no
      promotion), and the layer's weight, bias and result its element type.

    Each scaled element is computed in double and rounded once. The result differs from the unfolded
    graph's only by rounding: `x·(c·W)` instead of `c·(x·W)`. A constant
    another op reads too (a bias shared between layers) stays for it.

    ```mlir
    // before
    %y = aten.linear %x, %w, %b : (...) -> tensor<4x8xf32>
    %v = aten.view %y : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %z = aten.mul %v, %c : tensor<4x2x4xf32>, tensor<f32> -> tensor<4x2x4xf32>
    // after
    %y = aten.linear %x, %w_scaled, %b_scaled : (...) -> tensor<4x8xf32>
    %z = aten.view %y : tensor<4x8xf32> -> tensor<4x2x4xf32>
    ```
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "scalar multiplies folded">,
  ];
  let dependentDialects = ["::duet::aten::AtenDialect", "::mlir::arith::ArithDialect"];
}

def DecomposePass : Pass<"duet-decompose", "::mlir::func::FuncOp"> {
  let summary = "Decomposes composite ops the backend does not run natively into aten ops";
  let description = [{
    Rewrites every composite op that is not in `native` into aten ops, exactly
    in math, and repeats on what it produced until only native ops or ops with
    no decomposition remain. An op named in `native` is never decomposed, also
    when another decomposition produced it: with `native=aten.hardsigmoid`,
    hardswish becomes `x · hardsigmoid(x)` and the hardsigmoid stays.

    Decomposed: hardswish, hardsigmoid, silu, tanh-gelu, hardshrink,
    batch_norm with constant statistics, layer_norm, linear, addmm,
    scaled_dot_product_attention, mean, log_softmax, elu, leaky_relu, hardtanh
    (relu6), clamp. Exact gelu needs erf, which the dialect lacks; it stays.
    The partitioner calls `populateDecompositionPatterns` (passes/Decompose.h)
    with each partition's native set; this pass exposes the same patterns.

    ```mlir
    // duet-opt --duet-decompose="native=aten.mul,aten.sigmoid"
    // before
    %y = aten.silu %x : tensor<1x16xf32>
    // after
    %s = aten.sigmoid %x : tensor<1x16xf32>
    %y = aten.mul %x, %s : tensor<1x16xf32>, tensor<1x16xf32> -> tensor<1x16xf32>
    ```
  }];
  let options = [
    ListOption<"native", "native", "std::string",
               "Op names the backend runs natively (e.g. aten.hardswish,aten.mul); these are never decomposed">,
  ];
  let statistics = [
    Statistic<"numDecomposed", "decomposed", "composite ops decomposed">,
  ];
  let dependentDialects = ["::duet::aten::AtenDialect", "::mlir::arith::ArithDialect"];
}

#endif // DUET_PASSES_TD
