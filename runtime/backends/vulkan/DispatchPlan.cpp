//===- DispatchPlan.cpp - a Vulkan blob as dispatches ---------------------===//
//
// Shaders index their inputs at positions derived from the sizes in the
// parameter block, and storage buffers are read without robustness checks,
// so every shape relation a shader relies on is verified here: a corrupt
// program file must fail to load, not read out of bounds on the device.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/vulkan/DispatchPlan.h"

#include "runtime/backends/vulkan/TextureExtents.h"
#include "runtime/core/Escape.h"
#include "runtime/core/Faults.h"
#include "runtime/core/FlatVectors.h"
#include "runtime/schema/vulkan_generated.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

namespace duet::rt::vulkan {
namespace {

namespace sc = ::duet::vulkan::schema;

constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();
/// The gather shader's op for staging copies, layout conversions and the
/// parts of a concatenation.
constexpr int32_t kAffineGather = static_cast<int32_t>(sc::GatherKind::Affine);

std::string formatSizes(const std::vector<int64_t> &sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ","));
}

/// A texture's packing in messages.
const char *packingName(Layout packing) {
  switch (packing) {
  case Layout::widthPacked:
    return "width-packed";
  case Layout::heightPacked:
    return "height-packed";
  case Layout::channelsPacked:
    return "channels-packed";
  case Layout::contiguous:
    break;
  }
  return "buffer";
}

/// The 8-dim position of dim `dim` of a tensor of rank `rank`.
int32_t position(int64_t dim, size_t rank) {
  return static_cast<int32_t>(kMaxRank - static_cast<int64_t>(rank) + dim);
}

/// The lines along dim `lineDim` (a position among the eight) of `tensor`,
/// as shaders/line.glsl counts them: every index but that dim's, the dim a
/// texture packs counted in texels.
int64_t lineCount(const PlannedTensor &tensor, bool inBuffer, int32_t lineDim) {
  int32_t packed = inBuffer                                 ? -1
                   : tensor.packing == Layout::widthPacked  ? 7
                   : tensor.packing == Layout::heightPacked ? 6
                                                            : 5;
  int64_t lines = 1;
  size_t rank = tensor.sizes.size();
  for (size_t d = 0; d < rank; ++d) {
    int32_t at = position(static_cast<int64_t>(d), rank);
    if (at == lineDim)
      continue;
    lines *= at == packed ? (tensor.sizes[d] + 3) / 4 : tensor.sizes[d];
  }
  return lines;
}

/// How many invocations share each of `blocks` work items of a splitting
/// kernel (Dispatch::splitSteps), dividing its `inTexels` steps between
/// them: enough that the blocks keep the device busy. A deep layer of a small
/// image has few blocks and long sums, which one invocation each would add up
/// in a long serial chain while most of a GPU idles. A CPU device (lavapipe)
/// runs a workgroup's invocations as SIMD lanes on a few cores and needs far
/// fewer.
uint32_t splitFor(int64_t blocks, int64_t inTexels, VkPhysicalDeviceType type) {
  int64_t wanted = type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 64 : 65536;
  uint32_t split = 1;
  while (split < kWorkGroupSize && 2 * split <= inTexels &&
         blocks * split < wanted)
    split *= 2;
  return split;
}

/// Reductions of at least this many elements per output run reduce.comp's
/// group kernel: below it one invocation per output texel is enough work.
constexpr int64_t kGroupReductionMin = 128;

/// The kernel of reduce.comp for a Reduce dispatch from `input` to `output`
/// reducing `count` elements per output element: the plane kernel (FLAG0 and
/// FLAG1) for a reduction over H and W (positions 6 and 7) between
/// channels-packed textures of the same N and C, a workgroup per output
/// texel whatever the plane's size, reading whole texels without the index
/// arithmetic of the general kernels (one invocation per texel adding up a
/// 7x7 plane lane by lane took 45 µs on the H200, as much as a pool of
/// 112x112); else the group kernel (FLAG0) where the reduction is long
/// enough to share; else one invocation per output texel.
void useReductionKernel(Dispatch &dispatch, int64_t count,
                        const PlannedTensor &input,
                        const PlannedTensor &output) {
  const int32_t(&p)[8][4] = dispatch.params.iarg;
  bool plane = p[2][0] == kMaxRank - 2 && p[2][1] == kMaxRank - 1 &&
               input.texture && output.texture &&
               input.packing == Layout::channelsPacked &&
               output.packing == Layout::channelsPacked &&
               input.sizes.size() == 4 && output.sizes.size() == 4 &&
               input.sizes[0] == output.sizes[0] &&
               input.sizes[1] == output.sizes[1];
  if (!plane && count < kGroupReductionMin)
    return;
  dispatch.groupPerItem = true;
  dispatch.spec[5] = 1;
  dispatch.spec[6] = plane ? 1 : 0;
}

/// Whether `input` broadcasts to `output` (NumPy rules, aligned right).
bool broadcasts(const std::vector<int64_t> &input,
                const std::vector<int64_t> &output) {
  if (input.size() > output.size())
    return false;
  size_t lead = output.size() - input.size();
  for (size_t d = 0; d < input.size(); ++d)
    if (input[d] != 1 && input[d] != output[lead + d])
      return false;
  return true;
}

/// The kernel of conv.comp for a convolution of `spatial` dims in `groups`
/// groups of `inPerGroup` channels in and `outPerGroup` out, from `input` to
/// `output`: a texel kernel where both are textures that pack C
/// (channels-packed [N,C,H,W], height-packed [N,C,L]) and the groups fill
/// whole texels (or hold one channel each), else the kernel that computes
/// each element on its own.
sc::ConvKernel convKernel(size_t spatial, bool transposed, int64_t groups,
                          int64_t inPerGroup, int64_t outPerGroup,
                          const PlannedTensor &input,
                          const PlannedTensor &output) {
  Layout packsC = spatial == 2 ? Layout::channelsPacked : Layout::heightPacked;
  bool texels = !transposed && input.texture && output.texture &&
                input.packing == packsC && output.packing == packsC;
  if (!texels)
    return sc::ConvKernel::Element;
  if (inPerGroup == 1 && outPerGroup == 1)
    return sc::ConvKernel::DepthwiseTexel;
  if (groups == 1 || (inPerGroup % 4 == 0 && outPerGroup % 4 == 0))
    return sc::ConvKernel::Texel;
  return sc::ConvKernel::Element;
}

/// Sizes the work of matmul.comp's texel kernels for a product of `depth`
/// into `output` (`dispatch.family` one of the two texel families): the big
/// tiled kernel (its _big family, FLAG1 2) where the output holds
/// kMatMulMinTiles big tiles, else the small one (its _tiled family, FLAG1
/// 1) where it holds that many small ones, split (its _split family, FLAG1
/// 3) where those are few and the sums long, the product computes in fp16
/// (`fp16Math`) and `limits` allow, else the kernel of four rows per
/// invocation, which splits long sums of few items. On the H200 the Whisper
/// encoder's linears split took 0.70 ms in fp16 against 1.10 unsplit, but
/// 1.21 against 1.11 in fp32; its attention values' matmuls in fp32, since
/// the tiles moved to tile.glsl, 0.68 ms split against 0.48 unsplit.
/// Returns the tiles of the small or big tiled kernel, which may run in depth
/// parts (PlanBuilder::addProduct); 0 for the others.
int64_t useTexelProduct(Dispatch &dispatch, const PlannedTensor &output,
                        int64_t depth, const DeviceLimits &limits,
                        bool fp16Math) {
  auto tiles = [&](int64_t texels, int64_t rows) {
    return (int64_t{output.extents[0]} + texels - 1) / texels *
           ((int64_t{output.extents[1]} + rows - 1) / rows) *
           int64_t{output.extents[2]};
  };
  for (auto [kernel, texels, rows] :
       {std::tuple{2, kMatMulBigTileTexels, kMatMulBigTileRows},
        std::tuple{1, kMatMulTileTexels, kMatMulTileRows}})
    if (int64_t count = tiles(texels, rows); count >= kMatMulMinTiles) {
      bool linear = dispatch.family == ShaderFamily::MatMulLinearTexel;
      int chosen = kernel;
      if (kernel == 1 && count < kMatMulSplitMaxTiles &&
          depth >= kMatMulSplitMinDepth && fp16Math &&
          limits.maxComputeWorkGroupInvocations >= 64 * kMatMulSplitGroups &&
          limits.maxComputeSharedMemorySize >= kMatMulSplitSharedBytes)
        chosen = 3;
      dispatch.family =
          chosen == 2 ? (linear ? ShaderFamily::MatMulLinearTexelBig
                                : ShaderFamily::MatMulTexelBig)
          : chosen == 3
              ? (linear ? ShaderFamily::MatMulLinearTexelSplit
                        : ShaderFamily::MatMulTexelSplit)
              : (linear ? ShaderFamily::MatMulLinearTexelTiled
                        : ShaderFamily::MatMulTexelTiled);
      dispatch.spec[6] = chosen;
      dispatch.itemWidth = texels;
      dispatch.itemHeight = rows;
      dispatch.groupPerItem = true;
      return chosen == 3 ? 0 : count;
    }
  dispatch.itemHeight = kMatMulTexelRows;
  dispatch.splitSteps = (depth + 3) / 4;
  return 0;
}

/// Whether `family` is one of the texel kernels of matmul.comp or
/// conv.comp, which store through an epilogue (shaders/epilogue.glsl):
/// those whose third tensor input is its addend (every family with three
/// but addmm, whose third is its own operand).
bool texelProduct(ShaderFamily family) {
  return shaderBindings(family).inputs == 3 &&
         family != ShaderFamily::MatMulAdd;
}

/// The depth of each part of a tiled product of `tiles` tiles and sums
/// `depth` long in depth parts (kMatMulPartsTiles): enough parts to make
/// kMatMulPartsTiles workgroups, at most kMatMulMaxParts and at most one
/// per kMatMulPartMinDepth of the depth; every part but the last a whole
/// number of the split small tile's steps (tile.glsl), the last the rest; 0
/// for a product that keeps one part.
int64_t depthPartFor(int64_t tiles, int64_t depth) {
  int64_t parts =
      std::min({kMatMulMaxParts, (kMatMulPartsTiles + tiles - 1) / tiles,
                depth / kMatMulPartMinDepth});
  if (parts < 2)
    return 0;
  constexpr int64_t step = 16 * kMatMulSplitGroups;
  return ((depth + parts - 1) / parts + step - 1) / step * step;
}

/// Runs a texel-kernel convolution of one group as a product in tiles
/// (conv.comp's conv_tiled and conv_tiled_big families, an implicit GEMM:
/// rows are each batch's `positions` output positions, columns its
/// `outTexels` output channel texels) where it makes as many tiles as a
/// product takes tiled (useTexelProduct's kMatMulMinTiles): the texel
/// kernel does about 8 multiply-adds per texel it fetches, a small tile
/// 64. Whisper's 1-D stem (3000 and 1500 positions, 96 texels) and
/// ResNet-18's 7x7 first convolution qualify; the deep layers of small
/// images keep the texel kernel.
void useTiledConvolution(Dispatch &dispatch, int64_t positions,
                         int64_t outTexels, int64_t batch) {
  auto tiles = [&](int64_t texels, int64_t rows) {
    return (outTexels + texels - 1) / texels *
           ((positions + rows - 1) / rows) * batch;
  };
  for (auto [family, texels, rows] :
       {std::tuple{ShaderFamily::ConvolutionTiledBig, kMatMulBigTileTexels,
                   kMatMulBigTileRows},
        std::tuple{ShaderFamily::ConvolutionTiled, kMatMulTileTexels,
                   kMatMulTileRows}})
    if (int64_t count = tiles(texels, rows); count >= kMatMulMinTiles) {
      dispatch.family = family;
      dispatch.workItems = count;
      dispatch.groupPerItem = true;
      return;
    }
}

template <typename T>
std::vector<T> toVector(const flatbuffers::Vector<T> *values) {
  return copyVector(values);
}

class PlanBuilder {
public:
  PlanBuilder(const Program &program, uint32_t index,
              const PhysicalDeviceInfo &device, const DeviceLimits &limits,
              DispatchPlan &plan)
      : program_(program), index_(index), device_(device), limits_(limits),
        plan_(plan) {}

  Status build(ByteSpan blob);

private:
  /// Whether the products compute in fp16: fp16 images on a device with
  /// shaderFloat16, as the delegate loads them (VulkanDelegate::load; the
  /// test hook stands for a device without it).
  bool computesInFp16() const {
    return plan_.fp16Images && device_.shaderFloat16 &&
           !program_.options().vulkan.testNoFp16Math;
  }
  Status readTensor(const sc::Tensor *tensor, size_t position);
  /// The blob's inputs and outputs are the tensors of the DelegateCall, in
  /// its order: execute() stages the call's host tensors into them, so a
  /// mismatch would copy the wrong number of elements.
  Status checkCall() const;
  Status checkLimits(const PlannedTensor &tensor) const;
  Status readOp(const sc::Op *op);
  Status readWeight(int32_t id, const char *what,
                    std::optional<int64_t> expectedNumel, Ref &ref,
                    std::vector<int64_t> *sizes = nullptr);
  /// readWeight's checks of weight `id` (present), without uploading it.
  Status checkWeight(int32_t id, const char *what,
                     std::optional<int64_t> expectedNumel,
                     std::vector<int64_t> *sizes);
  /// Weight `id` as a constant texture of `sizes` (its elements in the same
  /// row-major order) packed along `packing`, uploaded at load through
  /// staging; false, adding nothing, when its extents exceed the device's.
  /// It appends to plan_.tensors: references into it do not survive.
  bool addPackedWeight(int32_t id, std::vector<int64_t> sizes, Layout packing,
                       Ref &ref);
  /// An integer index constant of `count` values, each in [0, limit): the
  /// shader reads them without checks.
  Status readIndexWeight(int32_t id, int64_t count, int64_t limit, Ref &ref);
  /// The weight ref of program constant `id`, uploaded once however many
  /// ops read it.
  Ref addWeight(int32_t id);
  /// Fills the derived fields of `dispatch` and appends it.
  Status add(std::vector<Dispatch> &list, Dispatch dispatch);
  /// Appends product `dispatch` of `tiles` small or big tiles and sums
  /// `depth` long, in depth parts where they pay (depthPartFor) on a GPU in
  /// fp32 images: the product into a partials texture, then the parts
  /// kernel adding them into the output.
  Status addProduct(Dispatch dispatch, int64_t tiles, int64_t depth);
  TensorDesc describe(Ref ref) const;
  const PlannedTensor &tensorOf(Ref ref) const {
    return plan_.tensors[ref.kind == Ref::Kind::staging
                             ? plan_.staging[ref.index].tensor
                             : ref.index];
  }
  const std::vector<int64_t> &sizes(int32_t tensor) const {
    return plan_.tensors[tensor].sizes;
  }
  /// An identity gather from `from` to `to` (staging, layout conversions).
  Status addCopy(std::vector<Dispatch> &list, Ref from, Ref to, std::string op);
  /// The dispatch planting `fault` on `tensor`, in place (fault.comp).
  Status addFault(const TensorFault &fault, int32_t tensor);

  /// Epilogues (docs/vulkan.md, shaders/epilogue.glsl): the elementwise
  /// ops after a texel product that its dispatch computes as it stores,
  /// an add or sub of a tensor and then one unary op. A product whose
  /// result only such an op reads is not added at once but held in
  /// `pending_`; that op, when read, folds itself into it and adds it (or
  /// holds it again for the next). So the product's dispatch runs where the
  /// last op it absorbs stood, after every tensor that op reads. What it
  /// has absorbed so far its parameters say: iarg[7].x an add, OP an
  /// activation.
  struct Pending {
    Dispatch dispatch;
    int64_t tiles = 0, depth = 0;
    /// The blob op that folds into it.
    size_t consumer = 0;
  };
  /// Whether the only op reading the result of `product` can fold into its
  /// dispatch, and which op it is.
  std::optional<size_t> epilogueConsumer(const Dispatch &product) const;
  /// Adds product `dispatch` (of `tiles` and `depth`, as addProduct takes
  /// them), or holds it when its result's reader folds into it.
  Status addOrHold(Dispatch dispatch, int64_t tiles, int64_t depth);
  /// Folds op `op` (read into `own`, its dispatch had it no product before
  /// it) into the pending product.
  Status foldIntoPending(const sc::Op *op, const Dispatch &own);

  /// Operand views (docs/vulkan.md): a view that only a matmul or linear
  /// reads, which reads it from the view's source through a map
  /// (matmul.comp's mappedTexel) instead of a gather copying it first: a
  /// head split read in place, keys read by column instead of transposed,
  /// merged heads read from the heads. The gathers are held, not added; the
  /// product adds them itself where its kernel cannot read the map.
  struct OperandView {
    /// The blob tensor the view is taken of.
    int32_t source = -1;
    /// The product's iarg[4] (lhs) or iarg[5] (rhs), matmul.comp's
    /// mappedTexel: texel x + z * map[0] + map[1] of the source's row, in
    /// layer 0 where map[2] is set; texel x % map[3] of layer x / map[3]
    /// where map[3] is (merged heads).
    std::array<int32_t, 4> map = {0, 0, 0, 0};
    /// The rhs read by column (the view is the transpose of rows): only the
    /// tiled kernels can.
    bool byColumn = false;
    /// A softmax along the last dim read from its input (`source`) and its
    /// statistics (this plan tensor), a safe one where `safe`: only a
    /// matmul's texel kernels can (iarg[6]).
    int32_t statistics = -1;
    bool safe = false;
    /// The view's ops, for the product's dispatch name.
    std::string op;
    /// The gathers that make the view, in order, held.
    std::vector<Dispatch> gathers;
  };
  /// The view a product may read in place of strided view `output` of
  /// `input` (of `strides` from `base`); nothing when no product would.
  std::optional<OperandView> operandView(int32_t input, int32_t output,
                                         const std::vector<int32_t> &strides,
                                         int64_t base) const;
  /// The merged heads a product may read in place of the reshape that
  /// reads `output`, which is a strided view of `input` (of `strides` from
  /// `base`) as a permute of the heads [H, R, D] to [R, H, D]; and the
  /// reshape's result, to which the view belongs.
  std::optional<std::pair<int32_t, OperandView>>
  mergedHeadsView(int32_t input, int32_t output,
                  const std::vector<int32_t> &strides, int64_t base) const;
  /// Whether the one op reading `tensor` is a product that may read it
  /// through a map: a matmul (not addmm) or linear of which it is the lhs
  /// or (not a linear) the rhs, not both, and it is no delegate output, no
  /// planted fault's tensor, and no observer loaded. Gives the operand.
  std::optional<int> viewReader(int32_t tensor) const;
  /// Whether a matmul of `lhs` and `rhs` into `out` runs matmul.comp's
  /// texel kernels: width-packed textures of the same batch dims.
  bool texelMatMul(int32_t lhs, int32_t rhs, int32_t out) const;
  /// Whether softmax `op` (from `input` to `output`) can be read by the
  /// matmul after it from its input and statistics: a softmax (not log)
  /// along the last dim of width-packed fp32 textures, read by one texel
  /// matmul as its lhs (viewReader).
  bool softmaxReadInPlace(const sc::Softmax *op, int32_t input,
                          int32_t output) const;

  /// "delegate 0 op 3 (aten.convolution 'conv1')".
  template <typename... Args>
  Status opError(fmt::format_string<Args...> format, Args &&...args) const {
    return Status::error("vulkan delegate {} op {} ({}): {}", index_, opIndex_,
                         opName_,
                         fmt::format(format, std::forward<Args>(args)...));
  }

  const Program &program_;
  uint32_t index_;
  const PhysicalDeviceInfo &device_;
  const DeviceLimits &limits_;
  DispatchPlan &plan_;
  size_t opIndex_ = 0;
  std::string opName_;
  /// The blob's tensors, the first of plan_.tensors: the ops name these
  /// only, not the packed weights and partials the plan appends.
  size_t blobTensors_ = 0;
  const sc::Delegate *root_ = nullptr;
  /// Per blob tensor: how many op inputs read it, and the last op that does.
  std::vector<int32_t> reads_;
  std::vector<size_t> lastReader_;
  /// The faults planted in this delegate.
  std::vector<TensorFault> faults_;
  std::optional<Pending> pending_;
  /// Per blob tensor: the view a product reads in place of it.
  std::vector<std::optional<OperandView>> views_;
  /// Per blob tensor: the reshape result whose merged-heads view the
  /// reshape reading it completes (-1 for none).
  std::vector<int32_t> mergedInto_;
};

Status PlanBuilder::build(ByteSpan blob) {
  flatbuffers::Verifier verifier(blob.data, blob.size);
  if (!blob.data || !sc::DelegateBufferHasIdentifier(blob.data) ||
      !sc::VerifyDelegateBuffer(verifier))
    return Status::error("vulkan delegate {}: the blob is not a valid Vulkan "
                         "delegate (runtime/schema/vulkan.fbs)",
                         index_);
  const sc::Delegate *root = sc::GetDelegate(blob.data);
  if (!root->tensors() || !root->inputs() || !root->outputs() || !root->ops())
    return Status::error("vulkan delegate {}: the blob lacks its tensors, "
                         "inputs, outputs or ops",
                         index_);
  plan_.fp16Images = root->fp16_images();
  for (size_t i = 0; i < root->tensors()->size(); ++i)
    DUET_RETURN_IF_ERROR(readTensor(root->tensors()->Get(i), i));
  blobTensors_ = plan_.tensors.size();
  auto readIndices = [&](const flatbuffers::Vector<int32_t> *indices,
                         std::vector<int32_t> &out, const char *what) {
    for (int32_t tensor : *indices) {
      if (tensor < 0 || static_cast<size_t>(tensor) >= plan_.tensors.size())
        return Status::error("vulkan delegate {}: {} names tensor {} of {}",
                             index_, what, tensor, plan_.tensors.size());
      out.push_back(tensor);
    }
    return Status::ok();
  };
  DUET_RETURN_IF_ERROR(readIndices(root->inputs(), plan_.inputs, "an input"));
  DUET_RETURN_IF_ERROR(
      readIndices(root->outputs(), plan_.outputs, "an output"));
  DUET_RETURN_IF_ERROR(checkCall());

  // Inputs are staged in before the ops and outputs out after them.
  for (int32_t tensor : plan_.inputs) {
    if (plan_.tensors[tensor].role != PlannedTensor::Role::input)
      return Status::error("vulkan delegate {}: input tensor {} is not "
                           "marked as an input",
                           index_, tensor);
    plan_.staging.push_back({tensor, StagingBuffer::Use::input});
    DUET_RETURN_IF_ERROR(
        addCopy(plan_.runDispatches,
                Ref::staging(static_cast<int32_t>(plan_.staging.size() - 1)),
                Ref::tensor(tensor), "staging an input in"));
  }
  for (int32_t tensor = 0; tensor < static_cast<int32_t>(plan_.tensors.size());
       ++tensor) {
    if (plan_.tensors[tensor].role != PlannedTensor::Role::constant)
      continue;
    plan_.staging.push_back({tensor, StagingBuffer::Use::constant});
    DUET_RETURN_IF_ERROR(
        addCopy(plan_.loadDispatches,
                Ref::staging(static_cast<int32_t>(plan_.staging.size() - 1)),
                Ref::tensor(tensor), "uploading a constant"));
  }
  faults_ = delegateFaults(program_, index_);
  std::vector<bool> planted(faults_.size(), false);
  root_ = root;
  reads_.assign(blobTensors_, 0);
  lastReader_.assign(blobTensors_, 0);
  views_.assign(blobTensors_, std::nullopt);
  mergedInto_.assign(blobTensors_, -1);
  for (size_t i = 0; i < root->ops()->size(); ++i)
    if (const auto *inputs = root->ops()->Get(i)->inputs())
      for (int32_t tensor : *inputs)
        if (tensor >= 0 && static_cast<size_t>(tensor) < blobTensors_) {
          ++reads_[tensor];
          lastReader_[tensor] = i;
        }
  for (size_t i = 0; i < root->ops()->size(); ++i) {
    opIndex_ = i;
    const sc::Op *op = root->ops()->Get(i);
    opName_ = op->name() ? escaped(op->name()->str()) : "unnamed";
    DUET_RETURN_IF_ERROR(readOp(op));
    for (size_t f = 0; f < faults_.size(); ++f)
      for (int32_t tensor : toVector(op->outputs()))
        if (plan_.tensors[tensor].programId == faults_[f].tensor) {
          DUET_RETURN_IF_ERROR(addFault(faults_[f], tensor));
          planted[f] = true;
        }
  }
  if (pending_)
    return Status::error("vulkan delegate {}: internal error: op {} was to "
                         "fold into a product but did not",
                         index_, pending_->consumer);
  // A view held for a product that never read it: its reader came before
  // it (the blob's ops out of order).
  for (size_t tensor = 0; tensor < views_.size(); ++tensor)
    if (views_[tensor])
      return Status::error("vulkan delegate {}: tensor {} ({}) is read "
                           "before it is written; the blob is corrupt",
                           index_, tensor, views_[tensor]->op);
  for (size_t f = 0; f < faults_.size(); ++f)
    if (!planted[f])
      return Status::error(
          "{}: the vulkan delegate {} computes no tensor of its own for it "
          "(its op is fused into a later op's dispatch, as an activation "
          "folded into a convolution is); plant the fault at {}, which "
          "computes the fused result",
          describeFault(faults_[f]), index_, fusedInto(program_, faults_[f]));
  // Observed tensors are staged out after the ops. Tensors share memory by
  // lifetime (VulkanDelegate::bindArena), and these copies at the end of
  // the run make each observed tensor's last, so each still holds what its
  // op wrote.
  if (program_.options().observer)
    for (int32_t tensor = 0;
         tensor < static_cast<int32_t>(plan_.tensors.size()); ++tensor) {
      const PlannedTensor &planned = plan_.tensors[tensor];
      if (planned.role != PlannedTensor::Role::computed ||
          program_.tensors()[planned.programId].kind !=
              TensorKind::delegateInternal)
        continue;
      plan_.staging.push_back({tensor, StagingBuffer::Use::observed});
      DUET_RETURN_IF_ERROR(
          addCopy(plan_.runDispatches, Ref::tensor(tensor),
                  Ref::staging(static_cast<int32_t>(plan_.staging.size() - 1)),
                  "staging a tensor out for an observer"));
    }
  for (int32_t tensor : plan_.outputs) {
    plan_.staging.push_back({tensor, StagingBuffer::Use::output});
    DUET_RETURN_IF_ERROR(
        addCopy(plan_.runDispatches, Ref::tensor(tensor),
                Ref::staging(static_cast<int32_t>(plan_.staging.size() - 1)),
                "staging an output out"));
  }
  return Status::ok();
}

Status PlanBuilder::checkCall() const {
  const DelegateCall *call = nullptr;
  for (const Instruction &instruction : program_.instructions())
    if (const auto *c = std::get_if<DelegateCall>(&instruction);
        c && c->delegate == index_)
      call = c;
  if (!call)
    return Status::error("vulkan delegate {}: no instruction calls it", index_);
  auto match = [&](const std::vector<int32_t> &planned,
                   const std::vector<int32_t> &called, const char *what) {
    if (planned.size() != called.size())
      return Status::error("vulkan delegate {}: the blob has {} {}s but the "
                           "call passes {}",
                           index_, planned.size(), what, called.size());
    for (size_t i = 0; i < planned.size(); ++i)
      if (plan_.tensors[planned[i]].programId != called[i])
        return Status::error(
            "vulkan delegate {}: {} {} of the blob is {}, but the call "
            "passes {}",
            index_, what, i,
            program_.describeTensor(plan_.tensors[planned[i]].programId),
            program_.describeTensor(called[i]));
    return Status::ok();
  };
  DUET_RETURN_IF_ERROR(match(plan_.inputs, call->inputs, "input"));
  return match(plan_.outputs, call->outputs, "output");
}

Status PlanBuilder::readTensor(const sc::Tensor *tensor, size_t position) {
  PlannedTensor planned;
  planned.programId = tensor->id();
  const std::vector<TensorInfo> &infos = program_.tensors();
  if (planned.programId < 0 ||
      static_cast<size_t>(planned.programId) >= infos.size())
    return Status::error("vulkan delegate {}: tensor {} names program "
                         "tensor {} of {}",
                         index_, position, planned.programId, infos.size());
  const TensorInfo &info = infos[planned.programId];
  std::string name = program_.describeTensor(planned.programId);
  planned.sizes = toVector(tensor->sizes());
  if (planned.sizes != info.sizes || tensor->dtype() != info.dtype)
    return Status::error("vulkan delegate {}: {} has sizes {} or dtype {} "
                         "that differ from the program's",
                         index_, name, formatSizes(planned.sizes),
                         static_cast<int>(tensor->dtype()));
  planned.dtype = info.dtype;
  if (planned.dtype != DType::f32 && planned.dtype != DType::f16)
    return Status::error("vulkan delegate {}: {} is {}; the Vulkan delegate "
                         "holds float32 and float16 tensors",
                         index_, name, dtypeName(planned.dtype));
  if (planned.sizes.size() > static_cast<size_t>(kMaxRank))
    return Status::error("vulkan delegate {}: {} has rank {} > {}", index_,
                         name, planned.sizes.size(), kMaxRank);
  for (int64_t size : planned.sizes) {
    if (size < 1)
      return Status::error("vulkan delegate {}: {} {} has an empty dim", index_,
                           name, formatSizes(planned.sizes));
    if (__builtin_mul_overflow(planned.numel, size, &planned.numel) ||
        planned.numel > kMaxIndex)
      return Status::error("vulkan delegate {}: {} {} has more than 2^31 "
                           "elements",
                           index_, name, formatSizes(planned.sizes));
  }
  switch (tensor->role()) {
  case sc::TensorRole::Computed:
    planned.role = PlannedTensor::Role::computed;
    break;
  case sc::TensorRole::Input:
    planned.role = PlannedTensor::Role::input;
    break;
  case sc::TensorRole::Constant:
    planned.role = PlannedTensor::Role::constant;
    if (info.kind != TensorKind::constant)
      return Status::error("vulkan delegate {}: {} is used as a constant "
                           "but is not one",
                           index_, name);
    break;
  default:
    return Status::error("vulkan delegate {}: {} has an unknown role", index_,
                         name);
  }

  planned.texture = tensor->storage() == Storage::texture3d;
  planned.packing = tensor->packing();
  if (tensor->storage() > Storage::MAX || planned.packing > Layout::MAX ||
      planned.texture != (planned.packing != Layout::contiguous))
    return Status::error("vulkan delegate {}: {} has storage {} with packing "
                         "{}",
                         index_, name, static_cast<int>(tensor->storage()),
                         static_cast<int>(tensor->packing()));
  if (planned.texture) {
    if (planned.sizes.size() > 4)
      return Status::error("vulkan delegate {}: {} {} is a texture of rank "
                           "{} > 4",
                           index_, name, formatSizes(planned.sizes),
                           planned.sizes.size());
    std::array<int64_t, 3> expected = textureExtents(
        planned.sizes.data(), planned.sizes.size(), planned.packing);
    std::vector<uint32_t> recorded = toVector(tensor->extents());
    if (recorded.size() != 3 ||
        !std::equal(recorded.begin(), recorded.end(), expected.begin()))
      return Status::error("vulkan delegate {}: {} {} records extents that "
                           "are not ({},{},{}), its {} extents",
                           index_, name, formatSizes(planned.sizes),
                           expected[0], expected[1], expected[2],
                           packingName(planned.packing));
    if (expected[0] * expected[1] * expected[2] > kMaxIndex)
      return Status::error("vulkan delegate {}: {} has more than 2^31 texels",
                           index_, name);
    for (int axis = 0; axis < 3; ++axis)
      planned.extents[axis] = static_cast<uint32_t>(expected[axis]);
  }
  DUET_RETURN_IF_ERROR(checkLimits(planned));
  plan_.tensors.push_back(std::move(planned));
  return Status::ok();
}

Status PlanBuilder::checkLimits(const PlannedTensor &tensor) const {
  std::string name = program_.describeTensor(tensor.programId);
  if (tensor.texture) {
    uint32_t limit = limits_.maxImageDimension3D;
    uint32_t largest =
        *std::max_element(tensor.extents.begin(), tensor.extents.end());
    if (largest <= limit)
      return Status::ok();
    std::string lowered =
        limit < device_.limits.maxImageDimension3D
            ? fmt::format(", lowered from {} by the test hook {}",
                          device_.limits.maxImageDimension3D,
                          kVulkanTestMaxImage3DVariable)
            : "";
    return Status::error(
        "vulkan delegate {}: {} {} is a {} 3-D image of ({},{},{}) texels, "
        "over the maxImageDimension3D {} of device '{}'{}; recompile the "
        "model for this device with --texture-limits {},{},{} or with "
        "--target-profile FILE (`duet devices --profile-out FILE` writes one)",
        index_, name, formatSizes(tensor.sizes), packingName(tensor.packing),
        tensor.extents[0], tensor.extents[1], tensor.extents[2], limit,
        device_.name, lowered, limit, limit, limit);
  }
  uint64_t bytes = static_cast<uint64_t>(tensor.numel) * sizeof(float);
  if (bytes <= limits_.maxStorageBufferRange)
    return Status::ok();
  std::string lowered =
      limits_.maxStorageBufferRange < device_.limits.maxStorageBufferRange
          ? fmt::format(", lowered from {} by the test hook {}",
                        device_.limits.maxStorageBufferRange,
                        kVulkanTestMaxBufferRangeVariable)
          : "";
  return Status::error(
      "vulkan delegate {}: {} {} is a storage buffer of {} bytes (fp32), over "
      "the maxStorageBufferRange {} of device '{}'{}; recompile the model for "
      "this device with --target-profile FILE (`duet devices --profile-out "
      "FILE` writes one)",
      index_, name, formatSizes(tensor.sizes), bytes,
      limits_.maxStorageBufferRange, device_.name, lowered);
}

Status PlanBuilder::readWeight(int32_t id, const char *what,
                               std::optional<int64_t> expectedNumel, Ref &ref,
                               std::vector<int64_t> *sizesOut) {
  if (id < 0) {
    if (expectedNumel)
      return opError("has no {}", what);
    ref = Ref::dummy();
    return Status::ok();
  }
  DUET_RETURN_IF_ERROR(checkWeight(id, what, expectedNumel, sizesOut));
  ref = addWeight(id);
  return Status::ok();
}

Status PlanBuilder::checkWeight(int32_t id, const char *what,
                                std::optional<int64_t> expectedNumel,
                                std::vector<int64_t> *sizesOut) {
  const std::vector<TensorInfo> &infos = program_.tensors();
  if (id < 0 || static_cast<size_t>(id) >= infos.size() ||
      infos[id].kind != TensorKind::constant || !isFloat(infos[id].dtype))
    return opError("its {} is program tensor {}, which is not a float "
                   "constant",
                   what, id);
  const TensorInfo &info = infos[id];
  const int64_t numel =
      static_cast<int64_t>(info.nbytes / dtypeSize(info.dtype));
  if (expectedNumel && numel != *expectedNumel)
    return opError("its {} {} {} has {} elements, expected {}", what,
                   program_.describeTensor(id), formatSizes(info.sizes), numel,
                   *expectedNumel);
  if (static_cast<uint64_t>(numel) * sizeof(float) >
      limits_.maxStorageBufferRange)
    return opError("its {} {} needs {} bytes as fp32, over the "
                   "maxStorageBufferRange {} of device '{}'",
                   what, program_.describeTensor(id), numel * sizeof(float),
                   limits_.maxStorageBufferRange, device_.name);
  if (sizesOut)
    *sizesOut = info.sizes;
  return Status::ok();
}

bool PlanBuilder::addPackedWeight(int32_t id, std::vector<int64_t> sizes,
                                  Layout packing, Ref &ref) {
  for (size_t t = 0; t < plan_.tensors.size(); ++t) {
    const PlannedTensor &tensor = plan_.tensors[t];
    if (tensor.role == PlannedTensor::Role::constant &&
        tensor.programId == id && tensor.sizes == sizes &&
        tensor.packing == packing) {
      ref = Ref::tensor(static_cast<int32_t>(t));
      return true;
    }
  }
  PlannedTensor packed;
  packed.programId = id;
  packed.dtype = DType::f32;
  packed.texture = true;
  packed.packing = packing;
  packed.role = PlannedTensor::Role::constant;
  std::array<int64_t, 3> extents =
      textureExtents(sizes.data(), sizes.size(), packing);
  for (int axis = 0; axis < 3; ++axis) {
    if (extents[axis] > limits_.maxImageDimension3D)
      return false;
    packed.extents[axis] = static_cast<uint32_t>(extents[axis]);
  }
  for (int64_t size : sizes)
    packed.numel *= size;
  packed.sizes = std::move(sizes);
  plan_.tensors.push_back(std::move(packed));
  int32_t tensor = static_cast<int32_t>(plan_.tensors.size() - 1);
  plan_.staging.push_back({tensor, StagingBuffer::Use::constant});
  ref = Ref::tensor(tensor);
  // A copy between a staging buffer and a texture of the planned shape
  // cannot fail the checks of add().
  Status status =
      addCopy(plan_.loadDispatches,
              Ref::staging(static_cast<int32_t>(plan_.staging.size() - 1)), ref,
              "packing a weight");
  return status.isOk();
}

Status PlanBuilder::readIndexWeight(int32_t id, int64_t count, int64_t limit,
                                    Ref &ref) {
  const std::vector<TensorInfo> &infos = program_.tensors();
  if (id < 0 || static_cast<size_t>(id) >= infos.size() ||
      infos[id].kind != TensorKind::constant ||
      (infos[id].dtype != DType::i64 && infos[id].dtype != DType::i32))
    return opError("its index is program tensor {}, which is not an int32 or "
                   "int64 constant",
                   id);
  TensorView index = program_.constantView(id);
  if (index.numel() != count)
    return opError("its index {} {} has {} elements, expected {}",
                   program_.describeTensor(id), formatSizes(index.sizes),
                   index.numel(), count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t value = index.dtype == DType::i64
                        ? index.as<const int64_t>()[i]
                        : static_cast<int64_t>(index.as<const int32_t>()[i]);
    if (value < 0 || value >= limit)
      return opError("its index {} holds {} at position {}, outside [0, {})",
                     program_.describeTensor(id), value, i, limit);
  }
  ref = addWeight(id);
  return Status::ok();
}

Ref PlanBuilder::addWeight(int32_t id) {
  auto found = std::find(plan_.weights.begin(), plan_.weights.end(), id);
  if (found == plan_.weights.end()) {
    plan_.weights.push_back(id);
    found = plan_.weights.end() - 1;
  }
  return Ref::weight(static_cast<int32_t>(found - plan_.weights.begin()));
}

TensorDesc PlanBuilder::describe(Ref ref) const {
  TensorDesc desc{};
  const PlannedTensor &tensor = tensorOf(ref);
  bool texture = ref.kind == Ref::Kind::tensor && tensor.texture;
  size_t lead = kMaxRank - tensor.sizes.size();
  for (int d = 0; d < kMaxRank; ++d) {
    int32_t size = d < static_cast<int>(lead)
                       ? 1
                       : static_cast<int32_t>(tensor.sizes[d - lead]);
    (d < 4 ? desc.sizeHi[d] : desc.sizeLo[d - 4]) = size;
  }
  desc.geom[0] = texture ? static_cast<int32_t>(tensor.extents[0]) : 0;
  desc.geom[1] = texture ? static_cast<int32_t>(tensor.extents[1]) : 0;
  desc.geom[2] = (desc.sizeLo[1] + 3) / 4;
  desc.geom[3] = static_cast<int32_t>(tensor.numel);
  return desc;
}

Status PlanBuilder::addProduct(Dispatch dispatch, int64_t tiles,
                               int64_t depth) {
  bool gpu = device_.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU ||
             program_.options().vulkan.testDepthParts;
  if (!gpu || plan_.fp16Images)
    return add(plan_.runDispatches, std::move(dispatch));
  // A copy: the partials are appended to plan_.tensors below.
  const PlannedTensor out = tensorOf(dispatch.output);
  int64_t part = depthPartFor(tiles, depth);
  int64_t parts = part > 0 ? (depth + part - 1) / part : 1;
  if (parts < 2 || out.extents[2] * parts > limits_.maxImageDimension3D)
    return add(plan_.runDispatches, std::move(dispatch));
  // Layer z of a texture holds the leading dims (row-major) up to the third
  // from the end, so parts times the first of three or more dims puts part
  // p's layers after part p - 1's.
  PlannedTensor partials = out;
  partials.role = PlannedTensor::Role::partials;
  partials.sizes.insert(
      partials.sizes.begin(),
      std::max<size_t>(3, out.sizes.size()) - out.sizes.size(), 1);
  partials.sizes[0] *= parts;
  partials.extents[2] = out.extents[2] * static_cast<uint32_t>(parts);
  partials.numel = out.numel * parts;
  plan_.tensors.push_back(std::move(partials));
  Ref sums = Ref::tensor(static_cast<int32_t>(plan_.tensors.size() - 1));

  Dispatch sum;
  sum.family = ShaderFamily::PartsSum;
  sum.params.iarg[0][0] = static_cast<int32_t>(out.extents[2]);
  sum.params.iarg[0][1] = static_cast<int32_t>(parts);
  sum.output = dispatch.output;
  sum.inputs[0] = sums;
  // The product's epilogue moves to the sum of its parts.
  bool adds = dispatch.params.iarg[7][0] != 0;
  sum.inputs[1] = adds ? dispatch.inputs[2] : sums;
  sum.spec[4] = std::exchange(dispatch.spec[4], 0);
  sum.params.iarg[7][0] = std::exchange(dispatch.params.iarg[7][0], 0);
  std::copy(std::begin(dispatch.params.farg[1]),
            std::end(dispatch.params.farg[1]), std::begin(sum.params.farg[1]));
  sum.op = dispatch.op;
  dispatch.output = sums;
  dispatch.params.work[1] = static_cast<int32_t>(out.extents[2]);
  dispatch.params.work[2] = static_cast<int32_t>(part);
  DUET_RETURN_IF_ERROR(add(plan_.runDispatches, std::move(dispatch)));
  return add(plan_.runDispatches, std::move(sum));
}

Status PlanBuilder::add(std::vector<Dispatch> &list, Dispatch dispatch) {
  auto inBuffer = [&](Ref ref) {
    return ref.kind == Ref::Kind::staging || !tensorOf(ref).texture;
  };
  auto packingOf = [&](Ref ref) {
    return static_cast<int32_t>(inBuffer(ref) ? Layout::contiguous
                                              : tensorOf(ref).packing);
  };
  dispatch.outputInBuffer = inBuffer(dispatch.output);
  Ref described = dispatch.outputViewed >= 0
                      ? Ref::tensor(dispatch.outputViewed)
                      : dispatch.output;
  dispatch.params.t[0] = describe(described);
  dispatch.spec[0] = packingOf(dispatch.output);
  ShaderBindings bindings = shaderBindings(dispatch.family);
  for (int i = 0; i < 3; ++i) {
    Ref input = dispatch.inputs[i];
    if ((i < bindings.inputs) != (input.kind != Ref::Kind::none))
      return opError("internal error: {} binds {} tensor inputs",
                     shaderName(dispatch.family), bindings.inputs);
    if (input.kind == Ref::Kind::none)
      continue;
    if (i == 0)
      dispatch.inputsInBuffers = inBuffer(input);
    else if (inBuffer(input) != dispatch.inputsInBuffers)
      return opError("its inputs mix textures and buffers, which no Vulkan "
                     "kernel reads");
    dispatch.params.t[1 + i] = describe(
        dispatch.viewed[i] >= 0 ? Ref::tensor(dispatch.viewed[i]) : input);
    dispatch.spec[1 + i] = packingOf(input);
  }
  if (!shaderCode(dispatch.family, dispatch.inputsInBuffers,
                  dispatch.outputInBuffer, plan_.fp16Images)
           .words)
    return opError("no {} shader reads {} and writes a {}",
                   shaderName(dispatch.family),
                   dispatch.inputsInBuffers ? "buffers" : "textures",
                   dispatch.outputInBuffer ? "buffer" : "texture");

  const PlannedTensor &out = tensorOf(described);
  int64_t work =
      dispatch.outputInBuffer
          ? (out.numel + 3) / 4
          : (static_cast<int64_t>(out.extents[0]) + dispatch.itemWidth - 1) /
                dispatch.itemWidth *
                ((static_cast<int64_t>(out.extents[1]) + dispatch.itemHeight -
                  1) /
                 dispatch.itemHeight) *
                out.extents[2];
  if (dispatch.lineDim >= 0)
    work = lineCount(out, dispatch.outputInBuffer, dispatch.lineDim);
  if (dispatch.workItems > 0)
    work = dispatch.workItems;
  dispatch.params.work[0] = static_cast<int32_t>(work);
  if (dispatch.splitSteps > 0) {
    dispatch.split = splitFor(work, dispatch.splitSteps, device_.deviceType);
    dispatch.params.iarg[3][0] = static_cast<int32_t>(dispatch.split);
  }
  int64_t groups =
      dispatch.lineDim >= 0 || dispatch.groupPerItem
          ? work
          : (work * dispatch.split + kWorkGroupSize - 1) / kWorkGroupSize;
  int64_t maxX = limits_.maxComputeWorkGroupCount[0];
  int64_t maxY = limits_.maxComputeWorkGroupCount[1];
  if (groups <= maxX) {
    dispatch.groups = {static_cast<uint32_t>(groups), 1};
  } else {
    int64_t rows = (groups + maxX - 1) / maxX;
    if (rows > maxY)
      return opError("needs {} workgroups, more than device '{}' dispatches",
                     groups, device_.name);
    dispatch.groups = {static_cast<uint32_t>(maxX),
                       static_cast<uint32_t>(rows)};
  }
  if (dispatch.op.empty())
    dispatch.op = opName_;
  list.push_back(std::move(dispatch));
  return Status::ok();
}

Status PlanBuilder::addCopy(std::vector<Dispatch> &list, Ref from, Ref to,
                            std::string op) {
  Dispatch copy;
  copy.family = ShaderFamily::Gather;
  copy.op = std::move(op);
  copy.output = to;
  copy.inputs[0] = from;
  copy.spec[4] = kAffineGather;
  // gather.comp's FLAG1: the identity map, between tensors of one shape.
  copy.spec[6] = 1;
  for (int d = 0; d < kMaxRank; ++d) {
    copy.params.iarg[d / 4][d % 4] = d;
    copy.params.iarg[2 + d / 4][d % 4] = 1;
  }
  return add(list, std::move(copy));
}

Status PlanBuilder::addFault(const TensorFault &fault, int32_t tensor) {
  Dispatch dispatch;
  dispatch.family = ShaderFamily::Fault;
  dispatch.op = describeFault(fault);
  dispatch.output = Ref::tensor(tensor);
  // x * a + b (fault.comp) with the formula of faultedValue.
  float a = fault.kind == runtime::FaultKind::zero ? 0.f : 1.f;
  float b = faultedValue(fault, 0.f);
  dispatch.params.farg[0][0] = a;
  dispatch.params.farg[0][1] = b;
  return add(plan_.runDispatches, std::move(dispatch));
}

Status PlanBuilder::readOp(const sc::Op *op) {
  std::vector<int32_t> inputs = toVector(op->inputs());
  std::vector<int32_t> outputs = toVector(op->outputs());
  for (int32_t tensor : inputs)
    if (tensor < 0 || static_cast<size_t>(tensor) >= blobTensors_)
      return opError("reads tensor {} of {}", tensor, blobTensors_);
  for (int32_t tensor : outputs) {
    if (tensor < 0 || static_cast<size_t>(tensor) >= blobTensors_)
      return opError("writes tensor {} of {}", tensor, blobTensors_);
    if (plan_.tensors[tensor].role != PlannedTensor::Role::computed)
      return opError("writes tensor {}, an input or a constant", tensor);
  }
  auto expectArity = [&](size_t in, size_t out) {
    if (inputs.size() != in || outputs.size() != out)
      return opError("has {} inputs and {} outputs, expected {} and {}",
                     inputs.size(), outputs.size(), in, out);
    return Status::ok();
  };
  auto sameSizes = [&](int32_t a, int32_t b) {
    if (sizes(a) != sizes(b))
      return opError("input {} and output {} differ in shape",
                     formatSizes(sizes(a)), formatSizes(sizes(b)));
    return Status::ok();
  };

  // A union's kind without its table verifies, but has nothing to read.
  if (op->args_type() != sc::OpArgs::NONE && !op->args())
    return opError("has arguments of kind {} but no arguments; the blob is "
                   "corrupt",
                   static_cast<int>(op->args_type()));
  Dispatch dispatch;
  // A tiled product's tiles and depth, which may run in depth parts
  // (addProduct).
  int64_t productTiles = 0, productDepth = 0;
  // A gather that a product reads in place (operand views): the view of
  // its result, or the merged heads of the reshape reading it.
  std::optional<OperandView> viewed;
  std::optional<std::pair<int32_t, OperandView>> merged;
  // A softmax that the matmul reading it reads from its input and
  // statistics (softmaxReadInPlace).
  bool softmaxInPlace = false;
  switch (op->args_type()) {
  case sc::OpArgs::Unary: {
    const sc::Unary *args = op->args_as_Unary();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    DUET_RETURN_IF_ERROR(sameSizes(inputs[0], outputs[0]));
    if (args->op() > sc::UnaryOp::MAX)
      return opError("unknown unary op {}", static_cast<int>(args->op()));
    dispatch.family = ShaderFamily::Unary;
    dispatch.spec[4] = static_cast<int32_t>(args->op());
    dispatch.params.farg[0][0] = args->a();
    dispatch.params.farg[0][1] = args->b();
    dispatch.params.farg[0][2] = args->c();
    break;
  }
  case sc::OpArgs::Binary: {
    const sc::Binary *args = op->args_as_Binary();
    DUET_RETURN_IF_ERROR(expectArity(2, 1));
    for (int32_t input : inputs)
      if (!broadcasts(sizes(input), sizes(outputs[0])))
        return opError("input {} does not broadcast to the output {}",
                       formatSizes(sizes(input)),
                       formatSizes(sizes(outputs[0])));
    if (args->op() > sc::BinaryOp::MAX)
      return opError("unknown binary op {}", static_cast<int>(args->op()));
    dispatch.family = ShaderFamily::Binary;
    dispatch.spec[4] = static_cast<int32_t>(args->op());
    dispatch.params.farg[0][0] = args->alpha();
    break;
  }
  case sc::OpArgs::MatMul: {
    const sc::MatMul *args = op->args_as_MatMul();
    bool linear = args->kind() == sc::MatMulKind::Linear;
    bool addmm = args->kind() == sc::MatMulKind::Addmm;
    DUET_RETURN_IF_ERROR(expectArity(linear ? 1 : addmm ? 3 : 2, 1));
    const std::vector<int64_t> &a = sizes(inputs[0]);
    const std::vector<int64_t> &out = sizes(outputs[0]);
    if (a.size() < 2 && !linear)
      return opError("multiplies a rank-{} tensor", a.size());
    if (a.empty() || out.empty())
      return opError("multiplies a scalar");
    int64_t depth = a.back(), columns = out.back();
    if (linear) {
      if (a.size() != out.size() ||
          !std::equal(a.begin(), a.end() - 1, out.begin()))
        return opError("input {} and output {} do not fit a linear layer",
                       formatSizes(a), formatSizes(out));
      DUET_RETURN_IF_ERROR(
          checkWeight(args->weight(), "weight", depth * columns, nullptr));
      // Between width-packed textures a texel kernel reads the weight as a
      // texture too (matmul.comp).
      const PlannedTensor &x = plan_.tensors[inputs[0]];
      const PlannedTensor &y = plan_.tensors[outputs[0]];
      bool texel = x.texture && y.texture && x.packing == Layout::widthPacked &&
                   y.packing == Layout::widthPacked &&
                   addPackedWeight(args->weight(), {columns, depth},
                                   Layout::widthPacked, dispatch.inputs[1]);
      dispatch.family =
          texel ? ShaderFamily::MatMulLinearTexel : ShaderFamily::MatMulLinear;
      if (!texel)
        dispatch.weights[0] = addWeight(args->weight());
      if (texel) {
        productTiles = useTexelProduct(dispatch, plan_.tensors[outputs[0]],
                                       depth, limits_, computesInFp16());
        productDepth = depth;
      }
      DUET_RETURN_IF_ERROR(readWeight(
          args->bias(), "bias",
          args->bias() < 0 ? std::nullopt : std::optional<int64_t>(columns),
          dispatch.weights[1]));
      dispatch.spec[5] = args->bias() >= 0;
    } else {
      const std::vector<int64_t> &b = sizes(inputs[1]);
      if (b.size() < 2 || out.size() < 2 || b[b.size() - 2] != depth ||
          b.back() != columns || a[a.size() - 2] != out[out.size() - 2])
        return opError("{} times {} is not {}", formatSizes(a), formatSizes(b),
                       formatSizes(out));
      auto batch = [](std::vector<int64_t> sizes) {
        sizes.resize(sizes.size() - 2);
        return sizes;
      };
      if (!broadcasts(batch(a), batch(out)) ||
          !broadcasts(batch(b), batch(out)))
        return opError("the batch dims of {} and {} do not broadcast to {}",
                       formatSizes(a), formatSizes(b), formatSizes(out));
      dispatch.family = addmm ? ShaderFamily::MatMulAdd : ShaderFamily::MatMul;
      // Between width-packed textures of the same batch dims a texel kernel
      // computes four columns at once (matmul.comp).
      if (!addmm && texelMatMul(inputs[0], inputs[1], outputs[0])) {
        dispatch.family = ShaderFamily::MatMulTexel;
        productTiles = useTexelProduct(dispatch, plan_.tensors[outputs[0]],
                                       depth, limits_, computesInFp16());
        productDepth = depth;
      }
      if (addmm && !broadcasts(sizes(inputs[2]), out))
        return opError("the added tensor {} does not broadcast to {}",
                       formatSizes(sizes(inputs[2])), formatSizes(out));
      dispatch.params.farg[0][0] = args->alpha();
      dispatch.params.farg[0][1] = args->beta();
    }
    break;
  }
  case sc::OpArgs::Convolution: {
    const sc::Convolution *args = op->args_as_Convolution();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    // Copies: addPackedWeight below appends to plan_.tensors, which would
    // leave references into it dangling.
    const std::vector<int64_t> x = sizes(inputs[0]);
    const std::vector<int64_t> y = sizes(outputs[0]);
    if ((x.size() != 3 && x.size() != 4) || y.size() != x.size() ||
        x[0] != y[0])
      return opError("convolves {} into {}; expected [N,C,L] or [N,C,H,W] "
                     "with the same N",
                     formatSizes(x), formatSizes(y));
    size_t spatial = x.size() - 2;
    std::vector<int32_t> stride = toVector(args->stride());
    std::vector<int32_t> padding = toVector(args->padding());
    std::vector<int32_t> dilation = toVector(args->dilation());
    int64_t groups = args->groups();
    int64_t inChannels = x[1], outChannels = y[1];
    if (stride.size() != spatial || padding.size() != spatial ||
        dilation.size() != spatial || groups < 1 || inChannels % groups ||
        outChannels % groups)
      return opError("has stride, padding, dilation or groups that do not "
                     "fit a {}-D convolution of {} into {}",
                     spatial, formatSizes(x), formatSizes(y));
    for (size_t i = 0; i < spatial; ++i)
      if (stride[i] < 1 || dilation[i] < 1 || padding[i] < 0)
        return opError("has a stride or dilation below 1 or a negative "
                       "padding");
    std::vector<int64_t> w;
    DUET_RETURN_IF_ERROR(
        checkWeight(args->weight(), "weight", std::nullopt, &w));
    std::vector<int64_t> expected =
        args->transposed()
            ? std::vector<int64_t>{inChannels, outChannels / groups}
            : std::vector<int64_t>{outChannels, inChannels / groups};
    if (w.size() != spatial + 2 || w[0] != expected[0] || w[1] != expected[1])
      return opError("its weight {} does not fit {} channels in, {} out, "
                     "{} groups{}",
                     formatSizes(w), inChannels, outChannels, groups,
                     args->transposed() ? ", transposed" : "");
    DUET_RETURN_IF_ERROR(readWeight(
        args->bias(), "bias",
        args->bias() < 0 ? std::nullopt : std::optional<int64_t>(outChannels),
        dispatch.weights[1]));
    sc::ConvKernel kernel =
        convKernel(spatial, args->transposed(), groups, inChannels / groups,
                   outChannels / groups, plan_.tensors[inputs[0]],
                   plan_.tensors[outputs[0]]);
    // The texel kernels read the weight as a texture (conv.comp says how
    // it is packed): a texel per fetch instead of four buffer loads.
    // A 1-D weight [O, I, kw] is one of kh 1.
    int64_t kh = spatial == 2 ? w[2] : 1, kw = w.back();
    if (kernel == sc::ConvKernel::DepthwiseTexel &&
        !addPackedWeight(args->weight(), {1, outChannels, kh, kw},
                         Layout::channelsPacked, dispatch.inputs[1]))
      kernel = sc::ConvKernel::Element;
    if (kernel == sc::ConvKernel::Texel &&
        !addPackedWeight(args->weight(),
                         {outChannels, inChannels / groups, kh * kw},
                         Layout::heightPacked, dispatch.inputs[1]))
      kernel = sc::ConvKernel::Element;
    if (kernel == sc::ConvKernel::Element)
      dispatch.weights[0] = addWeight(args->weight());
    dispatch.family = kernel == sc::ConvKernel::Element
                          ? ShaderFamily::Convolution
                          : ShaderFamily::ConvolutionTexel;
    dispatch.spec[5] = args->bias() >= 0;
    dispatch.spec[6] = static_cast<int32_t>(kernel);
    // Each weight fetch serves a block of outputs along x (conv.comp).
    if (kernel != sc::ConvKernel::Element)
      dispatch.itemWidth = kConvTexelBlock;
    // The texel kernel splits (input texel, kernel row) pairs, the
    // depthwise one kernel rows (conv.comp).
    if (kernel == sc::ConvKernel::Texel)
      dispatch.splitSteps = (inChannels / groups + 3) / 4 * kh;
    else if (kernel == sc::ConvKernel::DepthwiseTexel)
      dispatch.splitSteps = kh;
    if (kernel == sc::ConvKernel::Texel && groups == 1) {
      int64_t positions = spatial == 2 ? y[2] * y[3] : y[2];
      useTiledConvolution(dispatch, positions, (outChannels + 3) / 4, y[0]);
      if (dispatch.family != ShaderFamily::ConvolutionTexel) {
        dispatch.itemWidth = 1;
        dispatch.splitSteps = 0;
      }
    }
    bool twoD = spatial == 2;
    int32_t(&p)[8][4] = dispatch.params.iarg;
    p[0][0] = twoD ? stride[0] : 1;
    p[0][1] = stride[spatial - 1];
    p[0][2] = twoD ? padding[0] : 0;
    p[0][3] = padding[spatial - 1];
    p[1][0] = twoD ? dilation[0] : 1;
    p[1][1] = dilation[spatial - 1];
    p[1][2] = static_cast<int32_t>(groups);
    p[1][3] = args->transposed() ? 1 : 0;
    p[2][0] = static_cast<int32_t>(kh);
    p[2][1] = static_cast<int32_t>(kw);
    p[2][2] = static_cast<int32_t>(spatial);
    dispatch.params.farg[0][0] = args->clamp_min();
    dispatch.params.farg[0][1] = args->clamp_max();
    break;
  }
  case sc::OpArgs::BatchNorm: {
    const sc::BatchNorm *args = op->args_as_BatchNorm();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    DUET_RETURN_IF_ERROR(sameSizes(inputs[0], outputs[0]));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    if (x.size() < 2)
      return opError("normalizes a rank-{} tensor", x.size());
    DUET_RETURN_IF_ERROR(
        readWeight(args->scale(), "scale", x[1], dispatch.weights[0]));
    DUET_RETURN_IF_ERROR(
        readWeight(args->shift(), "shift", x[1], dispatch.weights[1]));
    dispatch.family = ShaderFamily::BatchNorm;
    dispatch.params.iarg[0][0] = position(1, x.size());
    break;
  }
  case sc::OpArgs::LayerNorm: {
    const sc::LayerNorm *args = op->args_as_LayerNorm();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    DUET_RETURN_IF_ERROR(sameSizes(inputs[0], outputs[0]));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    if (x.empty())
      return opError("normalizes a scalar");
    auto expected = [&](int32_t id) {
      return id < 0 ? std::nullopt : std::optional<int64_t>(x.back());
    };
    DUET_RETURN_IF_ERROR(readWeight(args->weight(), "weight",
                                    expected(args->weight()),
                                    dispatch.weights[0]));
    DUET_RETURN_IF_ERROR(readWeight(
        args->bias(), "bias", expected(args->bias()), dispatch.weights[1]));
    dispatch.family = ShaderFamily::LayerNorm;
    dispatch.lineDim = kMaxRank - 1;
    dispatch.spec[5] = args->weight() >= 0;
    dispatch.spec[6] = args->bias() >= 0;
    dispatch.params.farg[0][0] = args->eps();
    break;
  }
  case sc::OpArgs::Reduce: {
    const sc::Reduce *args = op->args_as_Reduce();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    const std::vector<int64_t> &y = sizes(outputs[0]);
    std::vector<int32_t> dims = toVector(args->dims());
    std::sort(dims.begin(), dims.end());
    if (dims.empty() || dims.size() > 2 || dims.front() < 0 ||
        dims.back() >= static_cast<int32_t>(x.size()) ||
        std::adjacent_find(dims.begin(), dims.end()) != dims.end())
      return opError(
          "reduces dims {} of {}; the kernel reduces one or two "
          "distinct dims",
          formatSizes(std::vector<int64_t>(dims.begin(), dims.end())),
          formatSizes(x));
    if (args->op() > sc::ReduceOp::MAX)
      return opError("unknown reduction {}", static_cast<int>(args->op()));
    std::vector<int64_t> expected;
    for (int32_t p = 0; p < kMaxRank; ++p)
      dispatch.params.iarg[p / 4][p % 4] = -1;
    int32_t kept = 0;
    for (size_t d = 0; d < x.size(); ++d) {
      bool reduced = std::count(dims.begin(), dims.end(), d) > 0;
      int32_t inPos = position(d, x.size());
      if (reduced && !args->keepdim())
        continue;
      expected.push_back(reduced ? 1 : x[d]);
      if (!reduced)
        dispatch.params.iarg[inPos / 4][inPos % 4] =
            position(args->keepdim() ? d : kept, y.size());
      ++kept;
    }
    if (expected != y)
      return opError("reduces {} into {}, expected {}", formatSizes(x),
                     formatSizes(y), formatSizes(expected));
    dispatch.family = ShaderFamily::Reduce;
    dispatch.spec[4] = static_cast<int32_t>(args->op());
    dispatch.params.iarg[2][0] = position(dims[0], x.size());
    dispatch.params.iarg[2][1] =
        dims.size() > 1 ? position(dims[1], x.size()) : -1;
    int64_t count = 1;
    for (int32_t d : dims)
      count *= x[d];
    useReductionKernel(dispatch, count, plan_.tensors[inputs[0]],
                       plan_.tensors[outputs[0]]);
    break;
  }
  case sc::OpArgs::Scan: {
    const sc::Scan *args = op->args_as_Scan();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    DUET_RETURN_IF_ERROR(sameSizes(inputs[0], outputs[0]));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    if (args->op() > sc::ScanOp::MAX)
      return opError("unknown scan {}", static_cast<int>(args->op()));
    if (args->dim() < 0 || args->dim() >= static_cast<int32_t>(x.size()))
      return opError("scans dim {} of {}", args->dim(), formatSizes(x));
    dispatch.family = ShaderFamily::Scan;
    dispatch.spec[4] = static_cast<int32_t>(args->op());
    dispatch.params.iarg[0][0] = position(args->dim(), x.size());
    break;
  }
  case sc::OpArgs::Softmax: {
    const sc::Softmax *args = op->args_as_Softmax();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    DUET_RETURN_IF_ERROR(sameSizes(inputs[0], outputs[0]));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    if (args->dim() < 0 || args->dim() >= static_cast<int32_t>(x.size()))
      return opError("softmax over dim {} of {}", args->dim(), formatSizes(x));
    if (args->log() && args->safe())
      return opError("a safe log_softmax, which no op is");
    dispatch.family = ShaderFamily::Softmax;
    dispatch.spec[5] = args->log();
    dispatch.spec[6] = args->safe();
    dispatch.params.iarg[0][0] = position(args->dim(), x.size());
    dispatch.lineDim = position(args->dim(), x.size());
    softmaxInPlace = softmaxReadInPlace(args, inputs[0], outputs[0]);
    break;
  }
  case sc::OpArgs::Pool: {
    const sc::Pool *args = op->args_as_Pool();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    const std::vector<int64_t> &y = sizes(outputs[0]);
    if ((x.size() != 3 && x.size() != 4) || y.size() != x.size() ||
        !std::equal(x.begin(), x.end() - 2, y.begin()))
      return opError("pools {} into {}", formatSizes(x), formatSizes(y));
    if (args->kind() == sc::PoolKind::AdaptiveAverage && y.end()[-1] == 1 &&
        y.end()[-2] == 1) {
      // A global average pool is a mean over the last two dims: reduce.comp,
      // whose group kernel shares a long window between invocations.
      dispatch.family = ShaderFamily::Reduce;
      dispatch.spec[4] = static_cast<int32_t>(sc::ReduceOp::Mean);
      for (int32_t p = 0; p < kMaxRank; ++p)
        dispatch.params.iarg[p / 4][p % 4] = p < kMaxRank - 2 ? p : -1;
      dispatch.params.iarg[2][0] = kMaxRank - 2;
      dispatch.params.iarg[2][1] = kMaxRank - 1;
      useReductionKernel(dispatch, x.end()[-1] * x.end()[-2],
                         plan_.tensors[inputs[0]], plan_.tensors[outputs[0]]);
      break;
    }
    dispatch.family = ShaderFamily::Pool;
    dispatch.spec[4] = static_cast<int32_t>(args->kind());
    if (args->kind() != sc::PoolKind::AdaptiveAverage) {
      std::vector<int32_t> kernel = toVector(args->kernel());
      std::vector<int32_t> stride = toVector(args->stride());
      std::vector<int32_t> padding = toVector(args->padding());
      std::vector<int32_t> dilation = toVector(args->dilation());
      if (kernel.size() != 2 || stride.size() != 2 || padding.size() != 2 ||
          dilation.size() != 2 || args->kind() > sc::PoolKind::MAX)
        return opError("has a window that is not 2-D");
      for (int i = 0; i < 2; ++i)
        if (kernel[i] < 1 || stride[i] < 1 || dilation[i] < 1 || padding[i] < 0)
          return opError("has a kernel, stride or dilation below 1 or a "
                         "negative padding");
      int32_t(&p)[8][4] = dispatch.params.iarg;
      p[0][0] = kernel[0];
      p[0][1] = kernel[1];
      p[0][2] = stride[0];
      p[0][3] = stride[1];
      p[1][0] = padding[0];
      p[1][1] = padding[1];
      p[1][2] = dilation[0];
      p[1][3] = dilation[1];
      p[2][0] = args->count_include_pad();
      p[2][1] = args->divisor_override();
    }
    break;
  }
  case sc::OpArgs::Upsample: {
    const sc::Upsample *args = op->args_as_Upsample();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    const std::vector<int64_t> &y = sizes(outputs[0]);
    if (x.size() != 4 || y.size() != 4 || x[0] != y[0] || x[1] != y[1])
      return opError("upsamples {} into {}", formatSizes(x), formatSizes(y));
    if (!std::isfinite(args->ratio_h()) || !std::isfinite(args->ratio_w()))
      return opError("has a source ratio that is not finite");
    dispatch.family = ShaderFamily::Upsample;
    dispatch.spec[5] = args->align_corners();
    dispatch.spec[6] = args->bilinear();
    dispatch.params.farg[0][0] = args->ratio_h();
    dispatch.params.farg[0][1] = args->ratio_w();
    break;
  }
  case sc::OpArgs::Gather: {
    const sc::Gather *args = op->args_as_Gather();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    const std::vector<int64_t> &y = sizes(outputs[0]);
    dispatch.family = ShaderFamily::Gather;
    dispatch.spec[4] = static_cast<int32_t>(args->kind());
    // Between width-packed textures, a map under which each output texel's
    // lanes are four consecutive elements of one input texel runs texel by
    // texel (gather.comp's FLAG1 2): one source index and one fetch per
    // texel instead of four.
    const PlannedTensor &from = plan_.tensors[inputs[0]];
    const PlannedTensor &to = plan_.tensors[outputs[0]];
    bool widthPacked = from.texture && to.texture &&
                       from.packing == Layout::widthPacked &&
                       to.packing == Layout::widthPacked && !x.empty() &&
                       !y.empty();
    bool rowsOfTexels = widthPacked && x.back() % 4 == 0 && y.back() % 4 == 0;
    if (args->kind() == sc::GatherKind::Reshape) {
      if (plan_.tensors[inputs[0]].numel != plan_.tensors[outputs[0]].numel)
        return opError("views {} as {}", formatSizes(x), formatSizes(y));
      if (rowsOfTexels)
        dispatch.spec[6] = 2;
      break;
    }
    if (args->kind() == sc::GatherKind::Strided) {
      // The shader reads the input without bounds checks: the last element
      // the view reaches must be inside it.
      std::vector<int32_t> strides = toVector(args->strides());
      if (strides.size() != y.size() || args->base() < 0)
        return opError("a strided view with {} strides and base {} of an "
                       "output of rank {}",
                       strides.size(), args->base(), y.size());
      int64_t last = args->base();
      for (size_t d = 0; d < y.size(); ++d) {
        if (strides[d] < 0)
          return opError("a strided view with the negative stride {}",
                         strides[d]);
        last += int64_t{strides[d]} * (y[d] - 1);
        int32_t p = position(d, y.size());
        dispatch.params.iarg[p / 4][p % 4] = strides[d];
      }
      if (last >= plan_.tensors[inputs[0]].numel)
        return opError("a strided view of {} as {} reaches element {} of {}",
                       formatSizes(x), formatSizes(y), last,
                       plan_.tensors[inputs[0]].numel);
      viewed = operandView(inputs[0], outputs[0], strides, args->base());
      if (!viewed)
        merged = mergedHeadsView(inputs[0], outputs[0], strides, args->base());
      dispatch.params.iarg[2][0] = args->base();
      // Lane 0's source a multiple of four, the lanes consecutive.
      bool texels = rowsOfTexels && strides.back() == 1 && args->base() % 4 == 0;
      for (size_t d = 0; d + 1 < strides.size(); ++d)
        texels = texels && strides[d] % 4 == 0;
      if (texels)
        dispatch.spec[6] = 2;
      break;
    }
    if (args->kind() != sc::GatherKind::Affine &&
        args->kind() != sc::GatherKind::Repeat)
      return opError("unknown gather {}", static_cast<int>(args->kind()));
    std::vector<int32_t> source = toVector(args->source());
    std::vector<int32_t> scale = toVector(args->scale());
    std::vector<int32_t> offset = toVector(args->offset());
    if (source.size() != x.size() || scale.size() != x.size() ||
        offset.size() != x.size())
      return opError("maps {} dims of an input of rank {}", source.size(),
                     x.size());
    dispatch.params.farg[0][0] = args->pad_value();
    for (size_t d = 0; d < x.size(); ++d) {
      if (source[d] < -1 || source[d] >= static_cast<int32_t>(y.size()))
        return opError("maps input dim {} from output dim {} of {}", d,
                       source[d], y.size());
      int32_t p = position(d, x.size());
      dispatch.params.iarg[p / 4][p % 4] =
          source[d] < 0 ? -1 : position(source[d], y.size());
      dispatch.params.iarg[2 + p / 4][p % 4] = scale[d];
      dispatch.params.iarg[4 + p / 4][p % 4] = offset[d];
    }
    for (int32_t p = 0; p < kMaxRank - static_cast<int32_t>(x.size()); ++p)
      dispatch.params.iarg[p / 4][p % 4] = -1;
    // A map that stays inside the input is a strided view of it too, which
    // a product may read in place.
    if (args->kind() == sc::GatherKind::Affine) {
      std::vector<int32_t> strides(y.size(), 0);
      int64_t base = 0, inStride = 1;
      bool inside = true;
      for (size_t d = x.size(); d-- > 0;) {
        int64_t first = offset[d];
        int64_t last =
            first +
            (source[d] < 0 ? 0 : int64_t{scale[d]} * (y[source[d]] - 1));
        inside = inside && std::min(first, last) >= 0 &&
                 std::max(first, last) < x[d] && scale[d] >= 0;
        base += inStride * first;
        if (source[d] >= 0)
          strides[source[d]] += static_cast<int32_t>(inStride * scale[d]);
        inStride *= x[d];
      }
      if (inside) {
        viewed = operandView(inputs[0], outputs[0], strides, base);
        if (!viewed)
          merged = mergedHeadsView(inputs[0], outputs[0], strides, base);
      }
    }
    // The input's last dim follows the output's alone, at scale 1 from a
    // multiple of four (the shader pads the lanes past either end).
    if (widthPacked && args->kind() == sc::GatherKind::Affine) {
      int32_t last = static_cast<int32_t>(y.size()) - 1;
      bool texels = source.back() == last && scale.back() == 1 &&
                    offset.back() % 4 == 0;
      for (size_t d = 0; d + 1 < source.size(); ++d)
        texels = texels && source[d] != last;
      if (texels)
        dispatch.spec[6] = 2;
    }
    break;
  }
  case sc::OpArgs::Cat: {
    const sc::Cat *args = op->args_as_Cat();
    if (outputs.size() != 1 || inputs.empty())
      return opError("concatenates {} inputs into {} outputs", inputs.size(),
                     outputs.size());
    const std::vector<int64_t> &y = sizes(outputs[0]);
    std::vector<int64_t> offsets = toVector(args->offsets());
    int32_t dim = args->dim();
    if (dim < 0 || dim >= static_cast<int32_t>(y.size()) ||
        offsets.size() != inputs.size())
      return opError("concatenates along dim {} of {} with {} offsets", dim,
                     formatSizes(y), offsets.size());
    // Each input writes its part; the rest of the output is left alone.
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (sizes(inputs[i]).size() != y.size() || offsets[i] < 0 ||
          offsets[i] > y[dim])
        return opError("concatenates {} into {} at offset {}",
                       formatSizes(sizes(inputs[i])), formatSizes(y),
                       offsets[i]);
      Dispatch part;
      part.family = ShaderFamily::Gather;
      part.output = Ref::tensor(outputs[0]);
      part.inputs[0] = Ref::tensor(inputs[i]);
      part.spec[4] = kAffineGather;
      part.spec[5] = 1;
      for (int d = 0; d < kMaxRank; ++d) {
        part.params.iarg[d / 4][d % 4] = d;
        part.params.iarg[2 + d / 4][d % 4] = 1;
      }
      int32_t p = position(dim, y.size());
      part.params.iarg[4 + p / 4][p % 4] = -static_cast<int32_t>(offsets[i]);
      DUET_RETURN_IF_ERROR(add(plan_.runDispatches, std::move(part)));
    }
    return Status::ok();
  }
  case sc::OpArgs::IndexGather: {
    const sc::IndexGather *args = op->args_as_IndexGather();
    DUET_RETURN_IF_ERROR(expectArity(1, 1));
    const std::vector<int64_t> &x = sizes(inputs[0]);
    const std::vector<int64_t> &y = sizes(outputs[0]);
    int32_t dim = args->dim();
    if (args->kind() > sc::IndexKind::MAX)
      return opError("unknown index kind {}", static_cast<int>(args->kind()));
    bool select = args->kind() == sc::IndexKind::Select;
    if (y.size() != x.size() || dim < 0 ||
        dim >= static_cast<int32_t>(x.size()))
      return opError("indexes dim {} of {} into {}", dim, formatSizes(x),
                     formatSizes(y));
    // Every other dim is read at the output's own index: index_select keeps
    // it, gather may take less of it.
    for (int32_t d = 0; d < static_cast<int32_t>(x.size()); ++d)
      if (d != dim && (select ? y[d] != x[d] : y[d] > x[d]))
        return opError("cannot pick {} from {} along dim {}", formatSizes(y),
                       formatSizes(x), dim);
    int64_t count = select ? y[dim] : plan_.tensors[outputs[0]].numel;
    DUET_RETURN_IF_ERROR(
        readIndexWeight(args->index(), count, x[dim], dispatch.weights[0]));
    dispatch.family = ShaderFamily::Index;
    dispatch.spec[4] = static_cast<int32_t>(args->kind());
    dispatch.params.iarg[0][0] = position(dim, x.size());
    break;
  }
  default:
    return opError("has arguments of a kind this runtime does not know ({}); "
                   "was the program written by a newer duet?",
                   static_cast<int>(op->args_type()));
  }
  dispatch.output = Ref::tensor(outputs[0]);
  for (size_t i = 0; i < inputs.size(); ++i)
    dispatch.inputs[i] = Ref::tensor(inputs[i]);
  if (softmaxInPlace) {
    // Its statistics: one texel per line, (maximum, sum of exponentials).
    PlannedTensor statistics = plan_.tensors[outputs[0]];
    statistics.role = PlannedTensor::Role::statistics;
    statistics.sizes.back() = 2;
    statistics.extents[0] = 1;
    statistics.numel =
        statistics.numel / plan_.tensors[outputs[0]].sizes.back() * 2;
    plan_.tensors.push_back(std::move(statistics));
    OperandView view;
    view.source = inputs[0];
    view.statistics = static_cast<int32_t>(plan_.tensors.size() - 1);
    view.safe = dispatch.spec[6] != 0;
    view.op = opName_;
    dispatch.op = opName_;
    Dispatch lines = dispatch;
    lines.spec[4] = 1;
    lines.output = Ref::tensor(view.statistics);
    lines.outputViewed = outputs[0];
    // The softmax itself is held for a kernel that cannot read it so.
    view.gathers.push_back(std::move(dispatch));
    views_[outputs[0]] = std::move(view);
    return add(plan_.runDispatches, std::move(lines));
  }
  if (viewed || merged) {
    // Held: the product reading the view adds it, or reads through it.
    OperandView &view = viewed ? *viewed : merged->second;
    view.op = opName_;
    dispatch.op = opName_;
    view.gathers.push_back(dispatch);
    if (viewed)
      views_[outputs[0]] = std::move(viewed);
    else {
      views_[merged->first] = std::move(merged->second);
      mergedInto_[outputs[0]] = merged->first;
    }
    return Status::ok();
  }
  if (int32_t into = mergedInto_[inputs[0]];
      into >= 0 && dispatch.family == ShaderFamily::Gather) {
    // The reshape completing a merged-heads view: held with it. (Its reader
    // comes after it in a blob whose ops are in order, as the checks below
    // the loop in build() make sure.)
    if (!views_[into])
      return opError("writes tensor {}, which an op before it reads", into);
    OperandView &view = *views_[into];
    view.op += " and " + opName_;
    dispatch.op = opName_;
    view.gathers.push_back(dispatch);
    return Status::ok();
  }
  bool softmaxLhs = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::optional<OperandView> view = std::exchange(views_[inputs[i]], {});
    if (!view)
      continue;
    bool tiled = dispatch.family == ShaderFamily::MatMulTexelTiled ||
                 dispatch.family == ShaderFamily::MatMulTexelBig ||
                 dispatch.family == ShaderFamily::MatMulTexelSplit;
    bool matmul = tiled || dispatch.family == ShaderFamily::MatMulTexel;
    bool linear = dispatch.family == ShaderFamily::MatMulLinearTexel ||
                  dispatch.family == ShaderFamily::MatMulLinearTexelTiled ||
                  dispatch.family == ShaderFamily::MatMulLinearTexelBig ||
                  dispatch.family == ShaderFamily::MatMulLinearTexelSplit;
    bool reads = i == 0 ? (view->statistics >= 0 ? matmul : matmul || linear)
                        : i == 1 && matmul && (tiled || !view->byColumn);
    if (!reads) {
      // Its kernel cannot read through the map: the gathers run first.
      for (Dispatch &gather : view->gathers)
        DUET_RETURN_IF_ERROR(add(plan_.runDispatches, std::move(gather)));
      continue;
    }
    dispatch.viewed[i] = inputs[i];
    dispatch.inputs[i] = Ref::tensor(view->source);
    std::copy(view->map.begin(), view->map.end(), dispatch.params.iarg[4 + i]);
    if (view->byColumn)
      dispatch.spec[5] = 1;
    if (view->statistics >= 0) {
      // The statistics in the addend's slot: no epilogue joins it.
      dispatch.params.iarg[6][0] = 1;
      dispatch.params.iarg[6][1] = view->safe;
      dispatch.inputs[2] = Ref::tensor(view->statistics);
      softmaxLhs = true;
    }
    dispatch.op = fmt::format("{} ({} read through {})",
                              dispatch.op.empty() ? opName_ : dispatch.op,
                              i == 0 ? "lhs" : "rhs", view->op);
  }
  if (pending_ && pending_->consumer == opIndex_)
    return foldIntoPending(op, dispatch);
  if (softmaxLhs)
    return productTiles > 0
               ? addProduct(std::move(dispatch), productTiles, productDepth)
               : add(plan_.runDispatches, std::move(dispatch));
  if (texelProduct(dispatch.family)) {
    // No epilogue yet: the addend binding reads the lhs, unread.
    dispatch.inputs[2] = dispatch.inputs[0];
    return addOrHold(std::move(dispatch), productTiles, productDepth);
  }
  return add(plan_.runDispatches, std::move(dispatch));
}

bool PlanBuilder::texelMatMul(int32_t lhs, int32_t rhs, int32_t out) const {
  auto widthPacked = [&](int32_t id) {
    return plan_.tensors[id].texture &&
           plan_.tensors[id].packing == Layout::widthPacked &&
           plan_.tensors[id].sizes.size() >= 2;
  };
  if (!widthPacked(lhs) || !widthPacked(rhs) || !widthPacked(out))
    return false;
  auto batch = [&](int32_t id) {
    std::vector<int64_t> sizes = plan_.tensors[id].sizes;
    sizes.resize(sizes.size() - 2);
    return sizes;
  };
  return batch(lhs) == batch(out) && batch(rhs) == batch(out);
}

std::optional<int> PlanBuilder::viewReader(int32_t tensor) const {
  // An observer reads every tensor and a fault is planted on the tensor it
  // names: both need the view itself, as a delegate output does.
  if (program_.options().observer || program_.options().vulkan.noOperandViews ||
      reads_[tensor] != 1 ||
      std::count(plan_.outputs.begin(), plan_.outputs.end(), tensor) ||
      std::any_of(faults_.begin(), faults_.end(),
                  [&](const TensorFault &fault) {
                    return fault.tensor == plan_.tensors[tensor].programId;
                  }))
    return std::nullopt;
  size_t reader = lastReader_[tensor];
  const sc::Op *op = root_->ops()->Get(reader);
  const sc::MatMul *matmul = op->args_as_MatMul();
  if (reader <= opIndex_ || !matmul ||
      matmul->kind() == sc::MatMulKind::Addmm || !op->inputs())
    return std::nullopt;
  std::vector<int32_t> operands = toVector(op->inputs());
  bool linear = matmul->kind() == sc::MatMulKind::Linear;
  if (operands.size() != (linear ? 1u : 2u))
    return std::nullopt;
  if (linear)
    return 0;
  if ((operands[0] == tensor) == (operands[1] == tensor))
    return std::nullopt;
  return operands[0] == tensor ? 0 : 1;
}

bool PlanBuilder::softmaxReadInPlace(const sc::Softmax *op, int32_t input,
                                     int32_t output) const {
  const PlannedTensor &x = plan_.tensors[input];
  const PlannedTensor &y = plan_.tensors[output];
  // fp16 images would round the statistics.
  if (op->log() || plan_.fp16Images || !x.texture || !y.texture ||
      x.packing != Layout::widthPacked || y.packing != Layout::widthPacked ||
      y.sizes.size() < 2 ||
      op->dim() != static_cast<int32_t>(y.sizes.size()) - 1 ||
      viewReader(output) != 0)
    return false;
  const sc::Op *reader = root_->ops()->Get(lastReader_[output]);
  if (reader->args_as_MatMul()->kind() == sc::MatMulKind::Linear ||
      !reader->outputs() || reader->outputs()->size() != 1)
    return false;
  int32_t rhs = reader->inputs()->Get(1), product = reader->outputs()->Get(0);
  return rhs >= 0 && static_cast<size_t>(rhs) < blobTensors_ && product >= 0 &&
         static_cast<size_t>(product) < blobTensors_ &&
         texelMatMul(output, rhs, product);
}

std::optional<PlanBuilder::OperandView>
PlanBuilder::operandView(int32_t input, int32_t output,
                         const std::vector<int32_t> &strides,
                         int64_t base) const {
  std::optional<int> operand = viewReader(output);
  if (!operand)
    return std::nullopt;
  // The source: rows of W elements (a multiple of four, whole texels) in
  // layers; the view: [Z, A, B] (every dim before those of size 1), element
  // (z, a, b) at base + z * sZ + a * sA + b * sB.
  const PlannedTensor &from = plan_.tensors[input];
  const PlannedTensor &view = plan_.tensors[output];
  const std::vector<int64_t> &y = view.sizes;
  if (!from.texture || from.packing != Layout::widthPacked || !view.texture ||
      view.packing != Layout::widthPacked || from.sizes.size() < 2 ||
      y.size() < 2 || strides.size() != y.size())
    return std::nullopt;
  int64_t width = from.sizes.back(), rows = from.sizes[from.sizes.size() - 2];
  size_t rank = y.size();
  for (size_t d = 0; d + 3 < rank; ++d)
    if (y[d] != 1)
      return std::nullopt;
  int64_t layers = rank >= 3 ? y[rank - 3] : 1;
  int64_t layerStride = rank >= 3 ? strides[rank - 3] : 0;
  int64_t a = y[rank - 2], b = y[rank - 1];
  int64_t strideA = strides[rank - 2], strideB = strides[rank - 1];
  if (width % 4 != 0 || base % 4 != 0)
    return std::nullopt;
  OperandView result;
  result.source = input;
  // By rows: a along the source's rows, b along a row (whole texels). By
  // column (a matmul's rhs): a, the depth, along a row, b along the rows.
  int64_t span = 0;
  if (strideB == 1 && strideA == width && b % 4 == 0 && a <= rows) {
    span = b;
  } else if (*operand == 1 && strideA == 1 && strideB == width && a % 4 == 0 &&
             b <= rows) {
    span = a;
    result.byColumn = true;
  } else {
    return std::nullopt;
  }
  // Layers side by side in the source's rows (a head split), or the
  // source's own layers.
  result.map[1] = static_cast<int32_t>(base / 4);
  if (layers == 1 || (layerStride % 4 == 0 &&
                      base + (layers - 1) * layerStride + span <= width)) {
    if (base + span > width)
      return std::nullopt;
    result.map[0] = static_cast<int32_t>(layers == 1 ? 0 : layerStride / 4);
    result.map[2] = 1;
  } else if (layerStride != rows * width || layers > from.extents[2] ||
             base + span > width) {
    return std::nullopt;
  }
  return result;
}

std::optional<std::pair<int32_t, PlanBuilder::OperandView>>
PlanBuilder::mergedHeadsView(int32_t input, int32_t output,
                             const std::vector<int32_t> &strides,
                             int64_t base) const {
  // `output` is read by one reshape, and that reshape's result by a
  // product as its lhs (one layer: the merged heads are one layer).
  if (program_.options().observer || program_.options().vulkan.noOperandViews ||
      reads_[output] != 1 ||
      std::count(plan_.outputs.begin(), plan_.outputs.end(), output) ||
      std::any_of(faults_.begin(), faults_.end(),
                  [&](const TensorFault &fault) {
                    return fault.tensor == plan_.tensors[output].programId;
                  }))
    return std::nullopt;
  size_t reader = lastReader_[output];
  const sc::Op *reshape = root_->ops()->Get(reader);
  const sc::Gather *gather = reshape->args_as_Gather();
  if (reader <= opIndex_ || !gather ||
      gather->kind() != sc::GatherKind::Reshape || !reshape->outputs() ||
      reshape->outputs()->size() != 1)
    return std::nullopt;
  int32_t merged = reshape->outputs()->Get(0);
  if (merged < 0 || static_cast<size_t>(merged) >= blobTensors_ ||
      viewReader(merged) != 0)
    return std::nullopt;
  // The heads [H, R, D] (every dim before of size 1) permuted to [R, H, D]
  // and reshaped to [R, H * D]: texel x of row r is texel x % (D / 4) of
  // row r of head x / (D / 4).
  const PlannedTensor &heads = plan_.tensors[input];
  const PlannedTensor &result = plan_.tensors[merged];
  const std::vector<int64_t> &x = heads.sizes;
  const std::vector<int64_t> &y = plan_.tensors[output].sizes;
  const std::vector<int64_t> &m = result.sizes;
  auto leadingOnes = [](const std::vector<int64_t> &sizes, size_t kept) {
    for (size_t d = 0; d + kept < sizes.size(); ++d)
      if (sizes[d] != 1)
        return false;
    return sizes.size() >= kept;
  };
  if (!heads.texture || heads.packing != Layout::widthPacked ||
      !result.texture || result.packing != Layout::widthPacked ||
      !leadingOnes(x, 3) || !leadingOnes(y, 3) || !leadingOnes(m, 2) ||
      strides.size() != y.size() || base != 0)
    return std::nullopt;
  size_t rank = y.size();
  int64_t h = x[x.size() - 3], r = x[x.size() - 2], d = x.back();
  if (d % 4 != 0 || y[rank - 3] != r || y[rank - 2] != h || y[rank - 1] != d ||
      m[m.size() - 2] != r || m.back() != h * d || strides[rank - 3] != d ||
      strides[rank - 2] != r * d || strides[rank - 1] != 1 ||
      heads.extents[2] != h)
    return std::nullopt;
  OperandView view;
  view.source = input;
  view.map[3] = static_cast<int32_t>(d / 4);
  return std::pair{merged, std::move(view)};
}

std::optional<size_t>
PlanBuilder::epilogueConsumer(const Dispatch &product) const {
  int32_t tensor = product.output.index;
  bool adds = product.params.iarg[7][0] != 0, activates = product.spec[4] != 0;
  // An observer reads every tensor, and a fault is planted on the tensor it
  // names: both need the product's own result (and noEpilogues asks for it).
  if (program_.options().observer || program_.options().vulkan.noEpilogues ||
      reads_[tensor] != 1 ||
      std::count(plan_.outputs.begin(), plan_.outputs.end(), tensor) ||
      std::any_of(faults_.begin(), faults_.end(),
                  [&](const TensorFault &fault) {
                    return fault.tensor == plan_.tensors[tensor].programId;
                  }))
    return std::nullopt;
  size_t index = lastReader_[tensor];
  const sc::Op *op = root_->ops()->Get(index);
  if (index <= opIndex_ || !op->inputs() || !op->outputs() ||
      op->outputs()->size() != 1)
    return std::nullopt;
  // The tensors it reads and writes must be held as the product's result
  // is: the epilogue reads and writes the texel the product computes.
  const PlannedTensor &result = plan_.tensors[tensor];
  auto sameLayout = [&](int32_t other) {
    if (other < 0 || static_cast<size_t>(other) >= blobTensors_)
      return false;
    const PlannedTensor &t = plan_.tensors[other];
    return t.texture && t.packing == result.packing &&
           t.extents == result.extents && t.sizes == result.sizes;
  };
  int32_t output = op->outputs()->Get(0);
  if (!sameLayout(output) ||
      plan_.tensors[output].role != PlannedTensor::Role::computed)
    return std::nullopt;
  std::vector<int32_t> inputs = toVector(op->inputs());
  if (const sc::Unary *unary = op->args_as_Unary())
    return inputs.size() == 1 && !activates && unary->op() <= sc::UnaryOp::MAX
               ? std::optional<size_t>(index)
               : std::nullopt;
  const sc::Binary *binary = op->args_as_Binary();
  if (!binary || inputs.size() != 2 || adds || activates)
    return std::nullopt;
  // a + alpha b and a - alpha b with the product's result as a; as b only
  // in a + b, which is the same sum.
  bool add = binary->op() == sc::BinaryOp::Add;
  if (!(add || binary->op() == sc::BinaryOp::Sub) ||
      !(inputs[0] == tensor || (add && binary->alpha() == 1.0f)))
    return std::nullopt;
  int32_t addend = inputs[0] == tensor ? inputs[1] : inputs[0];
  return sameLayout(addend) ? std::optional<size_t>(index) : std::nullopt;
}

Status PlanBuilder::addOrHold(Dispatch dispatch, int64_t tiles, int64_t depth) {
  if (dispatch.op.empty())
    dispatch.op = opName_;
  // One product held at a time: another one's reader (the same add, say)
  // waits for the first.
  std::optional<size_t> consumer;
  if (!pending_)
    consumer = epilogueConsumer(dispatch);
  if (consumer) {
    pending_ = Pending{std::move(dispatch), tiles, depth, *consumer};
    return Status::ok();
  }
  if (tiles > 0)
    return addProduct(std::move(dispatch), tiles, depth);
  return add(plan_.runDispatches, std::move(dispatch));
}

Status PlanBuilder::foldIntoPending(const sc::Op *op, const Dispatch &own) {
  Pending pending = std::move(*pending_);
  pending_.reset();
  Dispatch &product = pending.dispatch;
  int32_t result = product.output.index;
  if (op->args_type() == sc::OpArgs::Unary) {
    const sc::Unary *args = op->args_as_Unary();
    product.spec[4] = static_cast<int32_t>(args->op()) + 1;
    product.params.farg[1][0] = args->a();
    product.params.farg[1][1] = args->b();
    product.params.farg[1][2] = args->c();
  } else {
    const sc::Binary *args = op->args_as_Binary();
    bool first = own.inputs[0].index == result;
    product.params.iarg[7][0] = 1;
    product.params.farg[1][3] =
        (args->op() == sc::BinaryOp::Sub ? -1.0f : 1.0f) *
        (first ? args->alpha() : 1.0f);
    product.inputs[2] = first ? own.inputs[1] : own.inputs[0];
  }
  product.output = own.output;
  product.op += " + " + opName_;
  return addOrHold(std::move(product), pending.tiles, pending.depth);
}

} // namespace

Status buildDispatchPlan(const Program &program, uint32_t index, ByteSpan blob,
                         const PhysicalDeviceInfo &device,
                         const DeviceLimits &limits, DispatchPlan &plan) {
  plan = DispatchPlan();
  return PlanBuilder(program, index, device, limits, plan).build(blob);
}

} // namespace duet::rt::vulkan
