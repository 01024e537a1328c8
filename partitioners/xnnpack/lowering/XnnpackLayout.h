//===- XnnpackLayout.h - layouts of an XNNPACK partition --------*- C++ -*-===//
//
// The model's tensors are NCHW; XNNPACK's convolutions, pools and resizing
// take NHWC, and its fully connected, softmax and reshape read NCHW's last
// dim or element order. The planner visits a partition in program order and
// gives every value one layout:
//
// - convolutions, poolings (global average pooling: mean over H and W,
//   adaptive pooling to 1x1) and bilinear resizing read and write NHWC;
// - fully connected (linear, addmm, mm, matmul), softmax and view read and
//   write plain (a view reads NHWC as it is when both orders are the same and
//   nothing holds its input plain yet);
// - elementwise ops, clamps, casts, clone and padding follow their operand;
// - a binary op (add, sub, mul, div, maximum, minimum) with a 4-D result is
//   NHWC when every operand can be read so and that costs no more host
//   copies than plain, ties to NHWC when an operand is NHWC already. A
//   constant operand is repacked at compile time (so costs nothing), a
//   scalar reads the same in both layouts, and a runtime operand of lower
//   rank whose broadcast is not the same in NHWC keeps the op plain.
//
// A value read in a layout it does not have gets an `xnn.layout_change`
// before its first such reader, shared by the later ones: a reshape node when
// both layouts order its elements the same way, else a host copy (this
// XNNPACK's subgraph API has no transpose). A bf16 partition input is read
// only through host copies, which convert it to fp32; a partition output is
// plain in its own type, so a result yielded in NHWC or bf16 is copied out.
//
// Each node then runs in the first subgraph where all its inputs exist, and
// a host copy between the subgraph that writes its input and the next one:
// the partition becomes subgraphs split at its host copies, recorded as
// `xnn.subgraph`.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNPACKLAYOUT_H
#define DUET_PARTITIONERS_XNNPACK_XNNPACKLAYOUT_H

#include "dialects/duet/DuetDialect.h"

namespace duet::partition {

/// What one plan did.
struct XnnpackLayoutPlan {
  /// `xnn.layout_change` ops inserted, by transfer.
  unsigned reshapes = 0, hostCopies = 0, repacks = 0;
  /// Subgraph steps the partition runs as.
  unsigned subgraphs = 0;
};

/// Whether `delegate` (an XNNPACK partition) already has its plan.
bool hasXnnpackLayouts(DelegateOp delegate);

/// Plans the layouts and subgraphs of `delegate`, an XNNPACK partition in
/// program order without a plan. Fails, with an error on the op, when an op
/// reads a value that nothing in the partition has computed yet.
mlir::FailureOr<XnnpackLayoutPlan> planXnnpackLayouts(DelegateOp delegate);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKLAYOUT_H
