//===- XnnpackQuantization.h - which XNNPACK nodes compute in qint8 -*- C++
//-*-===//
//
// A statically quantized PT2E program reads every quantized op's operands
// through dequantize nodes and quantizes its result again:
//
//   %x  = dequantize_per_tensor %xq       (int8 -> fp32)
//   %w  = dequantize_per_channel %wq, %s  (a quantized weight, constants)
//   %y  = convolution %x, %w, %b
//   %r  = relu %y
//   %yq = quantize_per_tensor %r          (fp32 -> int8)
//
// Inside one XNNPACK partition such a pattern becomes one qint8 node that
// reads %xq and writes %yq: the op gets `xnn.qint8`, and each quantize,
// dequantize and weight whose every reader or writer is such a node gets
// `xnn.folded` (it has no node). The decision is made here, on a partition
// that placement has already formed, so a quantize or dequantize is never
// absorbed by an op that does not run on XNNPACK (a Conv3d, an 8-D linear:
// those keep theirs, and run them on the portable kernels or as convert
// nodes). Everything that does not match stays as it is: dequantize and
// quantize become convert nodes and the op computes in fp32, reading a
// quantized weight dequantized at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_XNNPACK_XNNPACKQUANTIZATION_H
#define DUET_PARTITIONERS_XNNPACK_XNNPACKQUANTIZATION_H

#include "dialects/duet/DuetDialect.h"

#include <string>
#include <vector>

namespace duet::partition {

/// What became of one quantize, dequantize or quantized weight.
struct QuantizationFold {
  mlir::Operation *op = nullptr;
  /// The qint8 op that absorbs it; null when it keeps a node (or, for a
  /// weight, is dequantized at compile time).
  mlir::Operation *into = nullptr;
  /// Why it is not folded; empty when it is.
  std::string why;
};

/// Marks the qint8 nodes of `delegate`, an XNNPACK partition, and what they
/// absorb; returns one entry per quantize, dequantize and quantized weight of
/// the partition, in program order. Running it again changes nothing.
std::vector<QuantizationFold> planXnnpackQuantization(DelegateOp delegate);

/// Whether `op` computes in qint8 / has no node of its own.
bool isQint8(mlir::Operation *op);
bool isFoldedQuantization(mlir::Operation *op);

} // namespace duet::partition

#endif // DUET_PARTITIONERS_XNNPACK_XNNPACKQUANTIZATION_H
