//===- Ops.h - the bodies of the portable kernels ---------------*- C++ -*-===//
//
// Internal to the portable kernels. Each body runs one aten op on a
// KernelContext whose operand counts Registry.cpp has checked and whose
// float16/bfloat16 operands it has widened to float32 (for the ops it lists
// as computing in float). Bodies check everything else: dtypes, ranks,
// attribute values, and that every size agrees before touching memory; the
// loader runs them once in checking mode (KernelContext::checking), where
// they return after those checks, so a malformed call is refused at load.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_KERNELS_OPS_H
#define DUET_RUNTIME_KERNELS_OPS_H

#include "runtime/kernels/KernelSupport.h"

namespace duet::rt::portable {

using KernelBody = Status (*)(const KernelContext &ctx);

// Convolution.cpp
Status convolution(const KernelContext &ctx);

// MatrixProducts.cpp
Status linear(const KernelContext &ctx);
Status addmm(const KernelContext &ctx);
Status mm(const KernelContext &ctx);
Status bmm(const KernelContext &ctx);
Status matmul(const KernelContext &ctx);

// Normalization.cpp
Status batchNorm(const KernelContext &ctx);
Status layerNorm(const KernelContext &ctx);

// Unary.cpp
Status relu(const KernelContext &ctx);
Status hardswish(const KernelContext &ctx);
Status hardsigmoid(const KernelContext &ctx);
Status silu(const KernelContext &ctx);
Status sigmoid(const KernelContext &ctx);
Status tanh(const KernelContext &ctx);
Status abs(const KernelContext &ctx);
Status neg(const KernelContext &ctx);
Status exp(const KernelContext &ctx);
Status log(const KernelContext &ctx);
Status sqrt(const KernelContext &ctx);
Status rsqrt(const KernelContext &ctx);
Status hardtanh(const KernelContext &ctx);
Status clamp(const KernelContext &ctx);
Status hardshrink(const KernelContext &ctx);
Status gelu(const KernelContext &ctx);
Status leakyRelu(const KernelContext &ctx);
Status elu(const KernelContext &ctx);
Status pow(const KernelContext &ctx);

// Binary.cpp
Status add(const KernelContext &ctx);
Status sub(const KernelContext &ctx);
Status mul(const KernelContext &ctx);
Status div(const KernelContext &ctx);
Status maximum(const KernelContext &ctx);
Status minimum(const KernelContext &ctx);

// Predicates.cpp
Status eq(const KernelContext &ctx);
Status ne(const KernelContext &ctx);
Status lt(const KernelContext &ctx);
Status le(const KernelContext &ctx);
Status gt(const KernelContext &ctx);
Status ge(const KernelContext &ctx);
Status logicalAnd(const KernelContext &ctx);
Status logicalOr(const KernelContext &ctx);
Status logicalNot(const KernelContext &ctx);
Status where(const KernelContext &ctx);

// Reductions.cpp
Status any(const KernelContext &ctx);
Status mean(const KernelContext &ctx);
Status sum(const KernelContext &ctx);
Status amax(const KernelContext &ctx);
Status softmax(const KernelContext &ctx);
Status logSoftmax(const KernelContext &ctx);

// Pooling.cpp
Status adaptiveAvgPool2d(const KernelContext &ctx);
Status avgPool2d(const KernelContext &ctx);
Status maxPool2d(const KernelContext &ctx);

// DataMovement.cpp
Status view(const KernelContext &ctx);
Status permute(const KernelContext &ctx);
Status expand(const KernelContext &ctx);
Status slice(const KernelContext &ctx);
Status select(const KernelContext &ctx);
Status constantPadNd(const KernelContext &ctx);
Status clone(const KernelContext &ctx);
Status cat(const KernelContext &ctx);
Status splitWithSizes(const KernelContext &ctx);

// Cast.cpp
Status cast(const KernelContext &ctx);

// Resampling.cpp
Status upsampleNearest2d(const KernelContext &ctx);
Status upsampleBilinear2d(const KernelContext &ctx);

// Embedding.cpp
Status embedding(const KernelContext &ctx);

// Attention.cpp
Status scaledDotProductAttention(const KernelContext &ctx);

} // namespace duet::rt::portable

#endif // DUET_RUNTIME_KERNELS_OPS_H
