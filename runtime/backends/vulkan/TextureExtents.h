//===- TextureExtents.h - the image extents of a packed tensor --*- C++ -*-===//
//
// Header-only and free of LLVM, so that the runtime (which checks the extents
// a blob records) and the compiler (the duet dialect's verifier, the layout
// planner and the Vulkan rules, which choose them) compute them alike.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_VULKAN_TEXTUREEXTENTS_H
#define DUET_RUNTIME_BACKENDS_VULKAN_TEXTUREEXTENTS_H

#include "runtime/schema/types_generated.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace duet::rt::vulkan {

/// The extents `[x, y, z]` in texels of a tensor of `rank` dims `sizes`
/// stored as a 3-D image packed along `layout`. For sizes `(..., N, C, H, W)`,
/// missing dims being 1 and N counting only for rank 4, four elements share a
/// texel along the packed dim: width-packed `(ceil(W/4), H, C*N)`,
/// height-packed `(W, ceil(H/4), C*N)`, channels-packed `(W, H, ceil(C/4)*N)`.
/// Only textures (rank <= 4) have extents: contiguous gives `(0, 0, 0)`, as a
/// buffer's Placement records.
inline std::array<int64_t, 3> textureExtents(const int64_t *sizes, size_t rank,
                                             Layout layout) {
  auto dim = [&](size_t fromBack) -> int64_t {
    return fromBack < rank ? sizes[rank - 1 - fromBack] : 1;
  };
  int64_t w = dim(0), h = dim(1), c = dim(2);
  int64_t n = rank >= 4 ? dim(3) : 1;
  auto texels = [](int64_t size) -> int64_t { return (size + 3) / 4; };
  switch (layout) {
  case Layout::widthPacked:
    return {texels(w), h, c * n};
  case Layout::heightPacked:
    return {w, texels(h), c * n};
  case Layout::channelsPacked:
    return {w, h, texels(c) * n};
  case Layout::contiguous:
    break;
  }
  return {0, 0, 0};
}

} // namespace duet::rt::vulkan

#endif // DUET_RUNTIME_BACKENDS_VULKAN_TEXTUREEXTENTS_H
