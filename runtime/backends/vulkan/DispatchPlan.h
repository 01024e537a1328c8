//===- DispatchPlan.h - a Vulkan blob as dispatches -------------*- C++ -*-===//
//
// The device-independent half of loading a Vulkan delegate: it verifies the
// blob (structure, ids, shapes that every shader index relies on), checks
// each tensor against the device's limits, and turns every op into compute
// dispatches: which shader variant, its specialization constants, its
// parameter block and what each binding refers to. VulkanDelegate then only
// creates the objects the plan names.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_BACKENDS_VULKAN_DISPATCHPLAN_H
#define DUET_RUNTIME_BACKENDS_VULKAN_DISPATCHPLAN_H

#include "runtime/backends/vulkan/Shaders.h"
#include "runtime/backends/vulkan/VulkanDevice.h"
#include "runtime/core/Program.h"

#include <array>
#include <string>
#include <vector>

namespace duet::rt::vulkan {

/// Shaders index tensors with 8 dims, right-aligned.
inline constexpr int kMaxRank = 8;
/// Invocations per workgroup (local_size_x in tensor.glsl).
inline constexpr uint32_t kWorkGroupSize = 64;

/// Output texels along x that an invocation of conv.comp's texel kernels
/// computes (its TEXEL_BLOCK).
inline constexpr uint32_t kConvTexelBlock = 4;

/// Output rows that an invocation of matmul.comp's texel kernels computes
/// (its TEXEL_ROWS).
inline constexpr uint32_t kMatMulTexelRows = 4;

/// The output tile of matmul.comp's tiled kernel (its TILE_ROWS and
/// TILE_TEXELS), one workgroup each.
inline constexpr uint32_t kMatMulTileRows = 32;
inline constexpr uint32_t kMatMulTileTexels = 8;
/// The big output tile of matmul.comp (its BIG_ROWS and BIG_TEXELS): four
/// rows of two texels for each of its 128 invocations (BIG_THREADS).
inline constexpr uint32_t kMatMulBigTileRows = 64;
inline constexpr uint32_t kMatMulBigTileTexels = 16;
/// The tiles of a size below which a product takes a smaller tile, and
/// below which in small tiles it keeps the four-row kernel: fewer
/// workgroups of 64 leave a large GPU's cores idle (on the H200 ViT-Tiny's
/// linears of 42 to 168 tiles took twice as long tiled).
inline constexpr int64_t kMatMulMinTiles = 512;
/// The split small tile (matmul.comp's TILE_KERNEL 3): kMatMulSplitGroups
/// groups of 64 invocations share each tile, each summing every other
/// slice of the depth, for products in small tiles with fewer than
/// kMatMulSplitMaxTiles of them and sums at least kMatMulSplitMinDepth
/// long, computed in fp16 (the Whisper encoder's linears over 1500 rows and
/// its attention values, 564 tiles 1500 deep), on a device whose workgroups may
/// have that many invocations and kMatMulSplitSharedBytes of shared memory
/// (its fp32 build's tiles and sums). Four groups were slower on the H200
/// than two (the attention values 0.21 ms against 0.135).
inline constexpr uint32_t kMatMulSplitGroups = 2;
inline constexpr int64_t kMatMulSplitMaxTiles = 2048;
inline constexpr int64_t kMatMulSplitMinDepth = 256;
inline constexpr uint32_t kMatMulSplitSharedBytes =
    2 * kMatMulSplitGroups * 16 * 8 * 16 + (kMatMulSplitGroups - 1) * 64 * 4 * 16;
/// Depth parts (tile.glsl): on a GPU, a tiled product between fp32 images
/// (partial sums in fp16 images would lose precision) with fewer than
/// kMatMulPartsTiles tiles and sums at least 2 * kMatMulPartMinDepth deep
/// runs as up to kMatMulMaxParts products of part of its depth each, into a
/// texture of partial sums with a layer per part and layer of the output,
/// which reduce.comp's parts kernel adds up: the workgroups of one tile
/// split its sum, as the split small tile's groups do within one, so a large
/// GPU has enough of them (the Whisper encoder's attention values and
/// 1536-deep linears make 564 small tiles of sums 1500 and 1536 deep).
inline constexpr int64_t kMatMulPartsTiles = 2048;
inline constexpr int64_t kMatMulMaxParts = 4;
inline constexpr int64_t kMatMulPartMinDepth = 256;

/// A tensor the delegate keeps on the device (fp32 whatever its dtype).
struct PlannedTensor {
  /// partials: the partial sums of a product's depth parts, which the plan
  /// adds (its programId is the product's output, for messages);
  /// statistics: a softmax's maximum and sum of exponentials per line, from
  /// which the product reading the softmax computes it (its programId is
  /// the softmax's output).
  enum class Role : uint8_t { computed, input, constant, partials, statistics };
  int32_t programId = -1;
  DType dtype = DType::f32;
  std::vector<int64_t> sizes;
  bool texture = false;
  /// A texture's packing, contiguous for a buffer; the shaders take it as a
  /// specialization constant.
  Layout packing = Layout::contiguous;
  std::array<uint32_t, 3> extents = {0, 0, 0};
  Role role = Role::computed;
  int64_t numel = 1;
};

/// tensor.glsl's TensorDesc and Params, std140.
struct TensorDesc {
  int32_t sizeHi[4];
  int32_t sizeLo[4];
  int32_t geom[4];
  int32_t reserved[4];
};
struct ParamsBlock {
  TensorDesc t[4];
  int32_t iarg[8][4];
  float farg[2][4];
  int32_t work[4];
};
static_assert(sizeof(ParamsBlock) == 432, "must match tensor.glsl's Params");

/// What a binding refers to.
struct Ref {
  enum class Kind : uint8_t {
    none,
    /// plan.tensors[index]
    tensor,
    /// plan.weights[index], a device buffer of fp32 (int32 for an index)
    weight,
    /// plan.staging[index], a host-visible fp32 buffer
    staging,
    /// A small zero buffer standing for an absent optional weight.
    dummy,
  };
  Kind kind = Kind::none;
  int32_t index = -1;

  static Ref tensor(int32_t index) { return {Kind::tensor, index}; }
  static Ref weight(int32_t index) { return {Kind::weight, index}; }
  static Ref staging(int32_t index) { return {Kind::staging, index}; }
  static Ref dummy() { return {Kind::dummy, -1}; }
};

/// One vkCmdDispatch with everything its pipeline and descriptors need.
struct Dispatch {
  ShaderFamily family = ShaderFamily::Gather;
  bool inputsInBuffers = false;
  bool outputInBuffer = false;
  /// Specialization constants 0..6 (tensor.glsl).
  std::array<int32_t, 7> spec = {0, 0, 0, 0, 0, 0, 0};
  ParamsBlock params{};
  Ref output;
  std::array<Ref, 3> inputs;
  /// Where input i is read through a map (a product's operand view,
  /// matmul.comp's mappedTexel): the blob tensor the op reads, whose sizes
  /// the shader is given, while inputs[i] binds the tensor it is a view of.
  std::array<int32_t, 3> viewed = {-1, -1, -1};
  /// Where the output is not the tensor the shader computes element by
  /// element (a softmax's statistics, one texel per line): the blob tensor
  /// whose sizes the shader is given for it and the work is sized by.
  int32_t outputViewed = -1;
  std::array<Ref, 2> weights;
  /// Output texels along x that one work item of a texture output computes
  /// (a texel kernel's block; 1 for most). add() sizes the work by it.
  uint32_t itemWidth = 1;
  /// Output texel rows (along y) that one work item computes, likewise.
  uint32_t itemHeight = 1;
  /// The work items where they are not the output's texels over
  /// itemWidth and itemHeight (a tiled convolution's tiles); 0 otherwise.
  int64_t workItems = 0;
  /// One workgroup per line along this dim (its position among the eight;
  /// shaders/line.glsl): the work is the number of lines, not of texels.
  int32_t lineDim = -1;
  /// One workgroup per work item (a group kernel, whose invocations share
  /// the item's work) rather than one invocation.
  bool groupPerItem = false;
  /// A kernel that can split its work items' sums between invocations
  /// (conv.comp's texel kernel, matmul.comp's): the steps of each sum
  /// (input texels, or texel and kernel-row pairs). add() then sizes
  /// `split` by the work and writes it to iarg[3].x; 0 for other kernels.
  int64_t splitSteps = 0;
  /// Invocations that share each work item, a power of two dividing
  /// kWorkGroupSize (set by add()).
  uint32_t split = 1;
  /// Workgroups along x and y.
  std::array<uint32_t, 2> groups = {1, 1};
  /// The op it runs, for messages.
  std::string op;
};

/// A host-visible fp32 row-major buffer the host fills or reads.
struct StagingBuffer {
  /// observed: a delegate-internal tensor staged out after each run for
  /// LoadOptions::observer.
  enum class Use : uint8_t { input, output, constant, observed };
  int32_t tensor = -1;
  Use use = Use::input;
};

struct DispatchPlan {
  std::vector<PlannedTensor> tensors;
  /// Tensor indices in the order of the DelegateCall's inputs and outputs.
  std::vector<int32_t> inputs, outputs;
  /// Program constant ids uploaded as weight buffers: fp32, or int32 for an
  /// integer index.
  std::vector<int32_t> weights;
  /// Delegate inputs, constants read as tensors, observed tensors, and
  /// last the outputs.
  std::vector<StagingBuffer> staging;
  /// Run once at load: constants from staging into their layouts.
  std::vector<Dispatch> loadDispatches;
  /// Run every time: inputs in, the ops, outputs out.
  std::vector<Dispatch> runDispatches;
  /// Textures are RGBA16F (--force-fp16) rather than RGBA32F.
  bool fp16Images = false;
};

/// Builds the plan of delegate `index` of `program` from its blob, checking
/// it against `limits` of `device` (whose own, unlowered limits are
/// `device.limits`, for messages).
Status buildDispatchPlan(const Program &program, uint32_t index, ByteSpan blob,
                         const PhysicalDeviceInfo &device,
                         const DeviceLimits &limits, DispatchPlan &plan);

} // namespace duet::rt::vulkan

#endif // DUET_RUNTIME_BACKENDS_VULKAN_DISPATCHPLAN_H
