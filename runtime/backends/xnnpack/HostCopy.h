//===- HostCopy.h - host transposes between subgraphs -----------*- C++ -*-===//
//
// The XNNPACK subgraph API duet builds against has no transpose, and XNNPACK
// has no bf16, so an XNNPACK delegate changes the layout of a value (NCHW to
// NHWC and back) and converts bf16 on the host, between its subgraphs.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_XNNPACK_HOSTCOPY_H
#define DUET_RUNTIME_BACKENDS_XNNPACK_HOSTCOPY_H

#include "runtime/core/DType.h"

#include <cstddef>
#include <cstdint>
#include <vector>

struct pthreadpool;

namespace duet::rt::xnnpack {

/// Element types of values on the host. A host copy converts between the
/// float ones; it copies the int8 of a qint8 value as they are (to int8
/// only). int32 is a qcint32 bias, a constant no copy reads.
enum class HostType : uint8_t { f32, f16, bf16, i8, i32 };

size_t hostTypeSize(HostType type);

/// The host type of a program dtype; false for one a host copy cannot read.
bool fromDType(DType dtype, HostType &type);

/// Whether hostCopy copies `from` into `to`: between float types, or int8
/// to int8.
bool hostCopyable(HostType from, HostType to);

/// Writes `input` (of `inputDims`, row-major) to `output` with output dim i
/// being input dim `permutation[i]` (an empty permutation keeps the order),
/// converting each element from `inputType` to `outputType` (rounding to
/// nearest even when narrowing; int8 only to int8). The work is split over the threads of
/// `threadpool` when one is given.
void hostCopy(const void *input, HostType inputType,
              const std::vector<size_t> &inputDims, void *output,
              HostType outputType, const std::vector<uint8_t> &permutation,
              pthreadpool *threadpool = nullptr);

} // namespace duet::rt::xnnpack

#endif // DUET_RUNTIME_BACKENDS_XNNPACK_HOSTCOPY_H
