//===- QuantizedTargets.h - PT2E's quantized_decomposed targets -*- C++ -*-===//
//
// The quantize and dequantize nodes of quantized PT2E programs
// (`torch.ops.quantized_decomposed.*`), as the aten dialect's quantization
// ops; with dynamic quantization, also the choose_qparams that computes their
// qparams at run time. They stay separate ops through import and the graph
// passes: whether a pattern of them is computed in integers is decided per
// backend after placement (docs/quantization.md), never here.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_QUANTIZEDTARGETS_H
#define DUET_COMPILER_IMPORT_QUANTIZEDTARGETS_H

#include "compiler/import/NodeContext.h"

namespace duet::import {

/// quantize_per_tensor.default and .tensor: with constant qparams
/// aten.quantize_per_tensor, with computed ones (dynamic quantization)
/// aten.quantize_per_tensor_dynamic.
void buildQuantizePerTensor(NodeContext &ctx);
/// dequantize_per_tensor.default and .tensor, likewise.
void buildDequantizePerTensor(NodeContext &ctx);
/// quantize_per_channel.default.
void buildQuantizePerChannel(NodeContext &ctx);
/// dequantize_per_channel.default.
void buildDequantizePerChannel(NodeContext &ctx);
/// choose_qparams.tensor: the qparams of dynamic quantization.
void buildChooseQparams(NodeContext &ctx);
/// choose_qparams_symmetric.tensor: refused with the reason.
void buildChooseQparamsSymmetric(NodeContext &ctx);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_QUANTIZEDTARGETS_H
