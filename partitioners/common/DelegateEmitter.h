//===- DelegateEmitter.h - per-backend writers of delegate blobs -*- C++
//-*-===//
//
// The program emitter writes what every delegate has in common (its inputs,
// outputs, constants and its ops in aten form, for `duet run --reference` and
// `duet inspect`); a backend's DelegateEmitter (its BackendLowering's
// emitter()) writes the blob in the backend's own format
// (runtime/schema/<backend>.fbs) and may add constants it prepared (weights
// repacked into the layout its kernels read), so that loading does no work
// the compiler could have done.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_PARTITIONERS_COMMON_DELEGATEEMITTER_H
#define DUET_PARTITIONERS_COMMON_DELEGATEEMITTER_H

#include "dialects/duet/DuetDialect.h"
#include "partitioners/common/BackendLowering.h"
#include "runtime/core/DType.h"
#include "runtime/core/ProgramTypes.h"

#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace duet {

/// What a backend's emitter may ask of the program being written.
class DelegateEmitContext {
public:
  virtual ~DelegateEmitContext() = default;
  /// The program tensor id of a value of the delegate's region: a block
  /// argument (the delegate's input), a constant, or an op result.
  virtual int32_t tensorId(mlir::Value value) const = 0;
  /// Adds a constant to the program's segment and returns its tensor id.
  virtual int32_t addConstant(std::string name, rt::DType dtype,
                              std::vector<int64_t> sizes,
                              std::vector<uint8_t> bytes) = 0;
  /// Records where the delegate keeps tensor `id` (`duet inspect` shows it).
  /// A tensor two delegates read keeps the placement recorded first.
  virtual void setPlacement(int32_t id, rt::Placement placement) = 0;
  /// The backend options of the compilation (a backend's emitOnly options
  /// among them).
  virtual const partition::BackendOptions &options() const = 0;
};

class DelegateEmitter {
public:
  virtual ~DelegateEmitter() = default;
  /// Writes the blob of `op`. An op the backend cannot take is a partitioner
  /// bug: report it as an error on that op naming the rule that let it in.
  virtual mlir::LogicalResult emit(DelegateOp op, DelegateEmitContext &context,
                                   std::vector<uint8_t> &blob) = 0;
  /// For an op of its partitions that has no aten form because it only
  /// holds a value of the region another way inside the blob (an XNNPACK
  /// layout change): that value, whose program tensor it shares. Null for
  /// any other op.
  virtual mlir::Value heldValue(mlir::Operation *op) const { return {}; }
};

} // namespace duet

#endif // DUET_PARTITIONERS_COMMON_DELEGATEEMITTER_H
