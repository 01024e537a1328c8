//===- XnnpackEmitter.h - writes XNNPACK partition blobs --------*- C++ -*-===//
//
// Turns a lowered `duet.delegate <xnnpack>` into the delegate blob of
// runtime/schema/xnnpack.fbs. It decides nothing the IR does not say:
//
// - Layouts, layout changes and subgraphs come from duet-xnnpack-layout
//   (`xnn.layout`, `xnn.layout_change`, `xnn.subgraph`;
//   partitioners/xnnpack/lowering/XnnpackLayout.h): each op's node is written
//   in its recorded layout and subgraph, each layout change as the reshape
//   node, host copy or NHWC constant it names. Partition inputs and outputs are
//   NCHW, as everywhere else in the program.
// - Output bounds come from duet-fuse-activations (`fusion.output_bounds`,
//   `fusion.folded`): a folded activation writes no node of its own.
// - Types. bf16 partition inputs and outputs are converted by the host
//   copies the plan put there; bf16 weights are stored converted.
// - Weights are repacked into what each node takes (XnnpackWeights.h) and
//   added as program constants; a weight already in that layout is used as
//   it is.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNPACKEMITTER_H
#define DUET_PARTITIONERS_XNNPACK_XNNPACKEMITTER_H

#include "partitioners/common/DelegateEmitter.h"

namespace duet {

/// The emitter of XNNPACK delegate blobs.
DelegateEmitter &xnnpackEmitter();

} // namespace duet

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKEMITTER_H
