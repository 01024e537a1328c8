//===- ProgramTypes.h - the contents of a program file as C++ --*- C++ -*-===//
//
// Plain structs mirroring runtime/schema/program.fbs. The writer takes them,
// the loader produces them after verification, so nothing but ProgramBuilder
// and Program touches the generated FlatBuffers code.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_PROGRAMTYPES_H
#define DUET_RUNTIME_CORE_PROGRAMTYPES_H

#include "runtime/core/AttrMap.h"
#include "runtime/core/DType.h"
#include "runtime/schema/types_generated.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace duet::rt {

/// The format version this runtime writes and the newest it reads.
inline constexpr uint32_t kProgramFormatVersion = 2;
/// The oldest format version whose placements this runtime reads: version 1
/// numbered Placement's storage and layout otherwise than types.fbs does.
inline constexpr uint32_t kOldestPlacementFormatVersion = 2;
/// Alignment of the constant segment and of every constant in it.
inline constexpr size_t kConstantAlignment = 64;
/// Zero bytes the writer puts after the last constant. XNNPACK may read up
/// to 16 bytes (XNN_EXTRA_BYTES) past an operand, and a constant handed to it
/// in place must not make it read past the end of a mapped file.
inline constexpr size_t kConstantTailBytes = 16;
/// Alignment of a delegate blob inside the FlatBuffer, enough for any scalar
/// of the backend's own FlatBuffer.
inline constexpr size_t kBlobAlignment = 16;

/// `value` rounded up to a multiple of `alignment`.
inline uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// TensorKind (where a tensor's bytes come from), Storage (how a delegate
// stores a tensor) and Layout (the dim a texture packs four to a texel) are
// generated into this namespace from runtime/schema/types.fbs: one numbering
// for the program file, the Vulkan blob, the duet dialect and the shaders.

std::string_view tensorKindName(TensorKind kind);
std::string_view storageName(Storage storage);
std::string_view layoutName(Layout layout);

/// Where a delegate keeps a tensor.
struct Placement {
  std::string backend;
  Storage storage = Storage::buffer;
  Layout layout = Layout::contiguous;
  std::array<uint32_t, 3> extents = {0, 0, 0};

  bool operator==(const Placement &other) const {
    return backend == other.backend && storage == other.storage &&
           layout == other.layout && extents == other.extents;
  }
};

/// One tensor of the program. `nbytes` and `constantOffset` are computed by
/// ProgramBuilder; the loader checks them.
struct TensorInfo {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> sizes;
  TensorKind kind = TensorKind::activation;
  uint64_t nbytes = 0;
  /// Kind constant: offset in the constant segment.
  uint64_t constantOffset = 0;
  /// Kinds input, output, activation: offset in the arena; -1 otherwise.
  int64_t arenaOffset = -1;
  std::optional<Placement> placement;

  bool operator==(const TensorInfo &other) const {
    return name == other.name && dtype == other.dtype && sizes == other.sizes &&
           kind == other.kind && nbytes == other.nbytes &&
           constantOffset == other.constantOffset &&
           arenaOffset == other.arenaOffset && placement == other.placement;
  }
};

/// An attribute under its aten-dialect name; AttrValue (AttrMap.h) is an
/// int, float, bool, int list or string (enums are strings).
struct Attribute {
  std::string name;
  AttrValue value;

  bool operator==(const Attribute &other) const {
    return name == other.name && value == other.value;
  }
};

/// An aten op run by its portable kernel; an input id of -1 is an absent
/// optional operand.
struct KernelCall {
  std::string op;
  std::vector<Attribute> attributes;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  /// The .pt2 node it computes (program.fbs says which for fused and
  /// decomposed ops); empty when none is known.
  std::string node;

  bool operator==(const KernelCall &other) const {
    return op == other.op && attributes == other.attributes &&
           inputs == other.inputs && outputs == other.outputs &&
           node == other.node;
  }
};

/// The attributes of `call` as kernels read them.
inline AttrMap attributeMap(const KernelCall &call) {
  AttrMap attrs;
  for (const Attribute &attr : call.attributes)
    attrs.set(attr.name, attr.value);
  return attrs;
}

/// A run of delegate `delegate`.
struct DelegateCall {
  uint32_t delegate = 0;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;

  bool operator==(const DelegateCall &other) const {
    return delegate == other.delegate && inputs == other.inputs &&
           outputs == other.outputs;
  }
};

using Instruction = std::variant<KernelCall, DelegateCall>;

/// Bytes the caller or the program owns; not owned by the span.
struct ByteSpan {
  const uint8_t *data = nullptr;
  size_t size = 0;
};

/// A delegate partition as the writer receives it.
struct DelegateSpec {
  std::string backend;
  std::vector<uint8_t> blob;
  std::vector<KernelCall> ops;
};

/// A delegate partition as loaded: the blob lies in the program's memory.
struct DelegateInfo {
  std::string backend;
  ByteSpan blob;
  std::vector<KernelCall> ops;
};

struct MemoryPlan {
  uint64_t arenaBytes = 0;
  /// The most bytes alive at once (the lower bound of any plan).
  uint64_t peakBytes = 0;

  bool operator==(const MemoryPlan &other) const {
    return arenaBytes == other.arenaBytes && peakBytes == other.peakBytes;
  }
};

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_PROGRAMTYPES_H
