//===- QuantizedTargets.h - PT2E's quantized_decomposed targets -*- C++ -*-===//
//
// The quantize and dequantize nodes of statically quantized PT2E programs
// (`torch.ops.quantized_decomposed.*`), as the aten dialect's quantization
// ops. They stay separate ops through import and the graph passes: whether a
// pattern of them is computed in integers is decided per backend after
// placement (docs/quantization.md), never here.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_QUANTIZEDTARGETS_H
#define DUET_COMPILER_IMPORT_QUANTIZEDTARGETS_H

#include "compiler/import/NodeContext.h"

namespace duet::import {

/// quantize_per_tensor.default, and .tensor with constant qparams.
void buildQuantizePerTensor(NodeContext &ctx);
/// dequantize_per_tensor.default, and .tensor with constant qparams.
void buildDequantizePerTensor(NodeContext &ctx);
/// quantize_per_channel.default.
void buildQuantizePerChannel(NodeContext &ctx);
/// dequantize_per_channel.default.
void buildDequantizePerChannel(NodeContext &ctx);
/// choose_qparams.tensor and choose_qparams_symmetric.tensor: refused with
/// the reason (dynamic quantization).
void buildChooseQparams(NodeContext &ctx);

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_QUANTIZEDTARGETS_H
