//===- DuetDialect.h - the duet dialect -------------------------*- C++ -*-===//

#ifndef DUET_DIALECTS_DUET_DUETDIALECT_H
#define DUET_DIALECTS_DUET_DUETDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "runtime/schema/types_generated.h"

#include "dialects/duet/DuetDialect.h.inc"
#include "dialects/duet/DuetEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/duet/DuetAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/duet/DuetOps.h.inc"

namespace duet {

// Storage and PackedDim are ODS enums (DuetOps.td) so that the IR can spell
// them; their numbers are types.fbs's, so a layout reaches the runtime (the
// Vulkan blob, the program's placements) by a cast.
static_assert(static_cast<unsigned>(Storage::texture3d) ==
                      static_cast<unsigned>(rt::Storage::texture3d) &&
                  static_cast<unsigned>(Storage::buffer) ==
                      static_cast<unsigned>(rt::Storage::buffer) &&
                  getMaxEnumValForStorage() ==
                      static_cast<unsigned>(rt::Storage::MAX),
              "duet.Storage must number as runtime/schema/types.fbs Storage");
static_assert(static_cast<unsigned>(PackedDim::width_packed) ==
                      static_cast<unsigned>(rt::Layout::widthPacked) &&
                  static_cast<unsigned>(PackedDim::height_packed) ==
                      static_cast<unsigned>(rt::Layout::heightPacked) &&
                  static_cast<unsigned>(PackedDim::channels_packed) ==
                      static_cast<unsigned>(rt::Layout::channelsPacked) &&
                  static_cast<unsigned>(PackedDim::contiguous) ==
                      static_cast<unsigned>(rt::Layout::contiguous) &&
                  getMaxEnumValForPackedDim() ==
                      static_cast<unsigned>(rt::Layout::MAX),
              "duet.PackedDim must number as runtime/schema/types.fbs Layout");

/// `storage` as the runtime and the Vulkan blob hold it.
inline rt::Storage toRuntime(Storage storage) {
  return static_cast<rt::Storage>(storage);
}
/// `packing` as the runtime and the Vulkan blob hold it.
inline rt::Layout toRuntime(PackedDim packing) {
  return static_cast<rt::Layout>(packing);
}

/// The extents `[x, y, z]` in texels of a tensor of `shape` stored as a 3-D
/// image packed along `packing` (width, height or channels; not contiguous),
/// as rt::vulkan::textureExtents (runtime/backends/vulkan/TextureExtents.h)
/// defines them for the runtime and the compiler alike.
llvm::SmallVector<int64_t, 3> textureExtents(llvm::ArrayRef<int64_t> shape,
                                             PackedDim packing);

} // namespace duet

#endif // DUET_DIALECTS_DUET_DUETDIALECT_H
