//===- XnnpackEmitter.h - writes XNNPACK partition blobs --------*- C++ -*-===//
//
// Turns a legalized `duet.delegate <xnnpack>` into the delegate blob of
// runtime/schema/xnnpack.fbs, deciding at compile time everything the
// runtime would otherwise work out at each load:
//
// - Layout. 4-D values are NHWC where XNNPACK wants them so (convolutions,
//   pools, resizing) and stay NCHW where the op reads the last dim (fully
//   connected, softmax, a reshape); elementwise ops follow their operands.
//   A value changes layout where a consumer needs the other one: in the
//   subgraph through a reshape when both orders are the same in memory
//   ([N,C,1,1], [N,1,H,W]), otherwise through a host transpose between two
//   subgraphs (the subgraph API here has no transpose). Partition inputs and
//   outputs are NCHW, as everywhere else in the program.
// - Types. bf16 partition inputs are converted to fp32 on entry and outputs
//   back on exit; bf16 weights are stored converted.
// - Weights. Repacked into the layout XNNPACK takes (OHWI for convolutions,
//   [1,KH,KW,C] for depthwise ones, [Cout,KH,KW,Cin/groups] for
//   deconvolutions, [out,in] for fully connected) and added as program
//   constants; a weight already in that layout is used as it is.
// - Fusion. A relu, hardtanh or clamp whose input has no other use is folded
//   into the output bounds of the node that computes it.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_EMIT_XNNPACKEMITTER_H
#define DUET_COMPILER_EMIT_XNNPACKEMITTER_H

#include "compiler/emit/DelegateEmitter.h"

namespace duet {

/// The emitter of XNNPACK delegate blobs.
DelegateEmitter &xnnpackEmitter();

} // namespace duet

#endif // DUET_COMPILER_EMIT_XNNPACKEMITTER_H
