//===- VulkanEmitter.cpp - writes the blob of a Vulkan partition ----------===//
//
// Every op the Vulkan rule table lets in has a case here; reaching the default
// means the table and this file disagree, which is reported on the op.
//
//===----------------------------------------------------------------------===//

#include "partitioners/vulkan/emit/VulkanEmitter.h"

#include "dialects/aten/AtenDialect.h"
#include "dialects/duet/DuetDialect.h"
#include "partitioners/common/FusionDialect.h"
#include "partitioners/common/Rules.h"
#include "passes/BatchNormAffine.h"
#include "runtime/schema/vulkan_generated.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace duet {
namespace {

namespace vk = vulkan::schema;
namespace fb = flatbuffers;

int64_t normalizeDim(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + rank : dim;
}

using partition::shapeOf;

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

std::vector<int32_t> toInts(ArrayRef<int64_t> values) {
  return std::vector<int32_t>(values.begin(), values.end());
}

/// Input dim d of a gather reads the output's index along dim `source[d]`
/// (none for -1) times `scale[d]` plus `offset[d]`.
struct AffineMap {
  std::vector<int32_t> source, scale, offset;

  /// Input dim d is output dim d.
  static AffineMap identity(int64_t rank) {
    AffineMap map;
    for (int64_t d = 0; d < rank; ++d) {
      map.source.push_back(static_cast<int32_t>(d));
      map.scale.push_back(1);
      map.offset.push_back(0);
    }
    return map;
  }
};

/// The source-per-destination ratio of upsampling without aligned corners,
/// computed as PyTorch (and the portable kernel) computes it.
float sourceRatio(int64_t in, int64_t out, std::optional<APFloat> scale) {
  if (scale && scale->convertToDouble() > 0)
    return static_cast<float>(1.0 / scale->convertToDouble());
  return static_cast<float>(in) / static_cast<float>(out);
}

/// The unary op of an aten op name, when it is one of the unary shaders.
std::optional<vk::UnaryOp> unaryOpOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<vk::UnaryOp>>(op)
// Each unary op of the dialect has the shader function of its name.
#define DUET_ATEN_UNARY(Class, Fn, mnemonic)                                   \
  .Case<aten::Class>([](auto) { return vk::UnaryOp::Fn; })
#include "dialects/aten/AtenUnaryOps.inc"
#undef DUET_ATEN_UNARY
      .Case<aten::HardtanhOp, aten::ClampOp>(
          [](auto) { return vk::UnaryOp::Clamp; })
      .Case<aten::HardshrinkOp>([](auto) { return vk::UnaryOp::Hardshrink; })
      .Case<aten::GeluOp>([](aten::GeluOp gelu) {
        return gelu.getApproximate() == aten::GeluApproximate::tanh
                   ? vk::UnaryOp::GeluTanh
                   : vk::UnaryOp::GeluErf;
      })
      .Case<aten::LeakyReluOp>([](auto) { return vk::UnaryOp::LeakyRelu; })
      .Case<aten::EluOp>([](auto) { return vk::UnaryOp::Elu; })
      .Case<aten::PowOp>([](auto) { return vk::UnaryOp::Pow; })
      .Default([](Operation *) { return std::nullopt; });
}

/// A tensor as a strided view of another, `root`, as PyTorch's views are:
/// its element idx is the root's at row-major offset base + sum(strides[k] *
/// idx[k]).
struct StridedView {
  Value root;
  SmallVector<int64_t> sizes, strides;
  int64_t base = 0;

  /// `root` itself, contiguous.
  static StridedView of(Value root) {
    StridedView view;
    view.root = root;
    view.sizes.assign(shapeOf(root).begin(), shapeOf(root).end());
    view.strides.resize(view.sizes.size());
    int64_t stride = 1;
    for (size_t d = view.sizes.size(); d-- > 0;) {
      view.strides[d] = stride;
      stride *= view.sizes[d];
    }
    return view;
  }
};

/// The ops that move data as a strided view of their one input: each of
/// their results is one (a split has several).
bool isStridedMovement(Operation *op) {
  return isa<aten::ViewOp, aten::CloneOp, aten::PermuteOp, aten::ExpandOp,
             aten::SliceOp, aten::SelectOp, aten::SplitWithSizesOp,
             LayoutConvertOp>(op) &&
         !fusion::isFolded(op);
}

/// The strides of `from` viewed as `sizes`, as torch.Tensor.view finds them
/// (its computeStride): each run of dims of `from` that lie one after
/// another in memory splits into dims of the new shape; nothing when a new
/// dim would span two such runs.
std::optional<SmallVector<int64_t>> viewStrides(const StridedView &from,
                                                ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> strides(sizes.size(), 0);
  if (from.sizes.empty())
    return strides;
  int64_t viewDim = static_cast<int64_t>(sizes.size()) - 1;
  int64_t chunkStride = from.strides.back(), chunk = 1, viewed = 1;
  for (int64_t d = static_cast<int64_t>(from.sizes.size()) - 1; d >= 0; --d) {
    chunk *= from.sizes[d];
    if (d == 0 || (from.sizes[d - 1] != 1 &&
                   from.strides[d - 1] != chunk * chunkStride)) {
      while (viewDim >= 0 && (viewed < chunk || sizes[viewDim] == 1)) {
        strides[viewDim] = viewed * chunkStride;
        viewed *= sizes[viewDim];
        --viewDim;
      }
      if (viewed != chunk)
        return std::nullopt;
      if (d > 0) {
        chunkStride = from.strides[d - 1];
        chunk = viewed = 1;
      }
    }
  }
  if (viewDim != -1)
    return std::nullopt;
  return strides;
}

/// Result `result` of the movement `op` as a strided view, given its input
/// as `in`; nothing when it is not one of `in` (a view across runs).
std::optional<StridedView> stridedResult(Operation *op, Value result,
                                         const StridedView &in) {
  StridedView out = in;
  ArrayRef<int64_t> shape = shapeOf(result);
  int64_t rank = static_cast<int64_t>(in.sizes.size());
  bool ok =
      llvm::TypeSwitch<Operation *, bool>(op)
          .Case<aten::CloneOp, LayoutConvertOp>([](auto) { return true; })
          .Case<aten::ViewOp>([&](auto) {
            std::optional<SmallVector<int64_t>> strides =
                viewStrides(in, shape);
            if (strides)
              out.strides = *strides;
            return strides.has_value();
          })
          .Case<aten::PermuteOp>([&](aten::PermuteOp permute) {
            for (auto [k, dim] : llvm::enumerate(permute.getDims()))
              out.strides[k] = in.strides[normalizeDim(dim, rank)];
            return true;
          })
          .Case<aten::ExpandOp>([&](auto) {
            int64_t lead = static_cast<int64_t>(shape.size()) - rank;
            out.strides.assign(shape.size(), 0);
            for (int64_t d = 0; d < rank; ++d)
              out.strides[d + lead] =
                  in.sizes[d] == shape[d + lead] ? in.strides[d] : 0;
            return true;
          })
          .Case<aten::SliceOp>([&](aten::SliceOp slice) {
            int64_t dim = normalizeDim(slice.getDim(), rank);
            out.base += slice.getStart() * in.strides[dim];
            out.strides[dim] *= slice.getStep();
            return true;
          })
          .Case<aten::SelectOp>([&](aten::SelectOp select) {
            int64_t dim = normalizeDim(select.getDim(), rank);
            int64_t index = select.getIndex() < 0
                                ? select.getIndex() + in.sizes[dim]
                                : select.getIndex();
            out.base += index * in.strides[dim];
            out.strides.erase(out.strides.begin() + dim);
            return true;
          })
          .Case<aten::SplitWithSizesOp>([&](aten::SplitWithSizesOp split) {
            int64_t dim = normalizeDim(split.getDim(), rank);
            for (Value piece : split.getResults()) {
              if (piece == result)
                break;
              out.base += shapeOf(piece)[dim] * in.strides[dim];
            }
            return true;
          })
          .Default([](Operation *) { return false; });
  if (!ok)
    return std::nullopt;
  out.sizes.assign(shape.begin(), shape.end());
  return out;
}

class BlobWriter {
public:
  BlobWriter(DelegateOp delegate, DelegateEmitContext &context)
      : delegate_(delegate), context_(context) {}

  LogicalResult run(std::vector<uint8_t> &blob);

private:
  /// The layout the planner gave `value`.
  FailureOr<VkLayoutAttr> layoutOf(Value value, Operation *at);
  /// The index of `value` in the blob's tensors, added on first use.
  FailureOr<int32_t> tensor(Value value, Operation *at);
  /// Records where the device keeps program tensor `id`.
  void recordPlacement(int32_t id, rt::Storage storage, rt::Layout layout,
                       ArrayRef<uint32_t> extents);
  /// The program tensor id of a weight operand, or -1 for an absent one.
  int32_t weight(Value value) const {
    return value ? context_.tensorId(value) : -1;
  }
  /// A per-channel constant the compiler prepared, as a program tensor.
  int32_t addFloatConstant(std::string name, ArrayRef<double> values);

  LogicalResult emitOp(Operation *op);
  /// Composes each chain of movements whose tensors between have one
  /// reader into one strided view of the chain's first input.
  void findStridedChains();
  /// Whether `op`, a movement, writes through strided views: skipped when
  /// the chains hold all its results, else a strided gather for each of
  /// its results that a chain ends in.
  std::optional<LogicalResult> emitStrided(Operation *op);
  LogicalResult addOp(Operation *op, ValueRange inputs, ValueRange outputs,
                      vk::OpArgs type, fb::Offset<void> args);
  LogicalResult addGather(Operation *op, Value input, Value output,
                          vk::GatherKind kind, const AffineMap &map,
                          float padValue = 0.f);

  LogicalResult emitConvolution(aten::ConvolutionOp conv);
  LogicalResult emitBatchNorm(aten::BatchNormOp norm);
  LogicalResult emitUnary(Operation *op, vk::UnaryOp kind);
  LogicalResult emitUpsample(Operation *op, bool bilinear, bool alignCorners,
                             std::optional<APFloat> scaleH,
                             std::optional<APFloat> scaleW);

  DelegateOp delegate_;
  DelegateEmitContext &context_;
  fb::FlatBufferBuilder fbb_;
  llvm::DenseMap<Value, int32_t> index_;
  std::vector<fb::Offset<vk::Tensor>> tensors_;
  std::vector<fb::Offset<vk::Op>> ops_;
  /// The placements recorded, by program tensor id.
  llvm::DenseMap<int32_t, rt::Placement> placements_;
  /// Every movement's result as a strided view, and the results no kernel
  /// writes: the inside of a chain, read only by the next movement.
  llvm::DenseMap<Value, StridedView> views_;
  llvm::DenseSet<Value> inChain_;
};

FailureOr<VkLayoutAttr> BlobWriter::layoutOf(Value value, Operation *at) {
  Attribute layout;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto layouts =
        delegate_->getAttrOfType<ArrayAttr>(DuetDialect::kVkArgLayoutsAttrName);
    if (layouts && arg.getArgNumber() < layouts.size())
      layout = layouts[arg.getArgNumber()];
  } else if (auto convert = value.getDefiningOp<LayoutConvertOp>()) {
    layout = convert.getTo();
  } else {
    Operation *producer = value.getDefiningOp();
    auto layouts =
        producer->getAttrOfType<ArrayAttr>(DuetDialect::kVkLayoutsAttrName);
    unsigned result = cast<OpResult>(value).getResultNumber();
    if (layouts && result < layouts.size())
      layout = layouts[result];
  }
  if (auto vkLayout = dyn_cast_or_null<VkLayoutAttr>(layout))
    return vkLayout;
  return at->emitError() << "a tensor of this Vulkan partition has no planned "
                            "#duet.vk_layout (the layout planner runs as part "
                            "of partitioning; was the IR edited after it?)";
}

void BlobWriter::recordPlacement(int32_t id, rt::Storage storage,
                                 rt::Layout layout,
                                 ArrayRef<uint32_t> extents) {
  rt::Placement placement;
  placement.backend = "vulkan";
  placement.storage = storage;
  placement.layout = layout;
  for (size_t axis = 0; axis < extents.size() && axis < 3; ++axis)
    placement.extents[axis] = extents[axis];
  placements_[id] = placement;
  context_.setPlacement(id, std::move(placement));
}

FailureOr<int32_t> BlobWriter::tensor(Value value, Operation *at) {
  auto found = index_.find(value);
  if (found != index_.end())
    return found->second;
  FailureOr<VkLayoutAttr> layout = layoutOf(value, at);
  if (failed(layout))
    return failure();
  auto type = cast<RankedTensorType>(value.getType());
  rt::DType dtype;
  if (type.getElementType().isF32())
    dtype = rt::DType::f32;
  else if (type.getElementType().isF16())
    dtype = rt::DType::f16;
  else
    return at->emitError() << "the Vulkan delegate holds f32 and f16 tensors, "
                              "got "
                           << type
                           << " (the Vulkan rule table should have rejected "
                              "this op)";
  int32_t id = context_.tensorId(value);
  if (id < 0)
    return at->emitError() << "internal error: a Vulkan tensor has no "
                              "program tensor";

  bool texture = layout->getStorage() == Storage::texture3d;
  std::vector<uint32_t> extents;
  if (texture) {
    SmallVector<int64_t, 3> computed;
    ArrayRef<int64_t> recorded = layout->getExtents();
    if (recorded.empty()) {
      computed = textureExtents(type.getShape(), layout->getPacking());
      recorded = computed;
    }
    for (int64_t extent : recorded) {
      if (extent < 1 || extent > std::numeric_limits<uint32_t>::max())
        return at->emitError() << "texture extent " << extent
                               << " is outside what Vulkan can address";
      extents.push_back(static_cast<uint32_t>(extent));
    }
  }
  rt::Storage storage = toRuntime(layout->getStorage());
  rt::Layout packing = toRuntime(layout->getPacking());
  if (texture == (packing == rt::Layout::contiguous))
    return at->emitError() << "layout " << *layout
                           << " pairs a storage with a packing it cannot have";

  vk::TensorRole role = vk::TensorRole::Computed;
  if (isa<BlockArgument>(value))
    role = vk::TensorRole::Input;
  else if (value.getDefiningOp<arith::ConstantOp>())
    role = vk::TensorRole::Constant;

  std::vector<int64_t> sizes(type.getShape().begin(), type.getShape().end());
  tensors_.push_back(
      vk::CreateTensorDirect(fbb_, id, dtype, &sizes, storage, packing,
                             texture ? &extents : nullptr, role));

  recordPlacement(id, storage, packing, extents);
  int32_t index = static_cast<int32_t>(tensors_.size() - 1);
  index_[value] = index;
  return index;
}

int32_t BlobWriter::addFloatConstant(std::string name,
                                     ArrayRef<double> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  for (size_t i = 0; i < values.size(); ++i) {
    float value = static_cast<float>(values[i]);
    std::memcpy(bytes.data() + i * sizeof(float), &value, sizeof(float));
  }
  return context_.addConstant(std::move(name), rt::DType::f32,
                              {static_cast<int64_t>(values.size())},
                              std::move(bytes));
}

LogicalResult BlobWriter::addOp(Operation *op, ValueRange inputs,
                                ValueRange outputs, vk::OpArgs type,
                                fb::Offset<void> args) {
  std::vector<int32_t> in, out;
  for (Value value : inputs) {
    FailureOr<int32_t> index = tensor(value, op);
    if (failed(index))
      return failure();
    in.push_back(*index);
  }
  for (Value value : outputs) {
    FailureOr<int32_t> index = tensor(value, op);
    if (failed(index))
      return failure();
    out.push_back(*index);
  }
  std::string name = op->getName().getStringRef().str();
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    name += " '" + loc.getName().str() + "'";
  ops_.push_back(vk::CreateOpDirect(fbb_, name.c_str(), &in, &out, type, args));
  return success();
}

LogicalResult BlobWriter::addGather(Operation *op, Value input, Value output,
                                    vk::GatherKind kind, const AffineMap &map,
                                    float padValue) {
  auto args = vk::CreateGatherDirect(fbb_, kind, &map.source, &map.scale,
                                     &map.offset, padValue);
  return addOp(op, input, output, vk::OpArgs::Gather, args.Union());
}

LogicalResult BlobWriter::emitConvolution(aten::ConvolutionOp conv) {
  // An activation folded into the convolution (duet-fuse-activations) is
  // its clamp, and the convolution writes the activation's tensor.
  fusion::Bounds bounds = fusion::outputBounds(conv).value_or(fusion::Bounds());
  Value output = fusion::foldedResult(conv.getResult());
  auto stride = toInts(conv.getStride());
  auto padding = toInts(conv.getPadding());
  auto dilation = toInts(conv.getDilation());
  auto args = vk::CreateConvolutionDirect(
      fbb_, &stride, &padding, &dilation,
      static_cast<int32_t>(conv.getGroups()), conv.getTransposed(),
      weight(conv.getWeight()), weight(conv.getBias()), bounds.lo, bounds.hi);
  if (failed(addOp(conv, conv.getInput(), output, vk::OpArgs::Convolution,
                   args.Union())))
    return failure();
  // A fused convolution's own result is the tensor its activation writes.
  if (output != conv.getResult())
    context_.setPlacement(context_.tensorId(conv.getResult()),
                          placements_.lookup(context_.tensorId(output)));
  return success();
}

LogicalResult BlobWriter::emitBatchNorm(aten::BatchNormOp norm) {
  BatchNormAffine affine;
  switch (computeBatchNormAffine(norm, affine)) {
  case BatchNormAffineFailure::None:
    break;
  case BatchNormAffineFailure::NotConstant:
    return norm.emitError() << "the Vulkan batch norm needs constant "
                               "statistics, weight and bias";
  case BatchNormAffineFailure::NonPositiveVariance:
    return norm.emitError() << "running_var + eps is not positive in some "
                               "channel: the normalization divides by zero";
  }
  std::string base = "batch_norm";
  if (auto loc = dyn_cast<NameLoc>(norm.getLoc()))
    base = loc.getName().str();
  int32_t scale = addFloatConstant(base + ".vulkan_scale", affine.scale);
  int32_t shift = addFloatConstant(base + ".vulkan_shift", affine.shift);
  auto args = vk::CreateBatchNorm(fbb_, scale, shift);
  return addOp(norm, norm.getInput(), norm.getResult(), vk::OpArgs::BatchNorm,
               args.Union());
}

LogicalResult BlobWriter::emitUnary(Operation *op, vk::UnaryOp kind) {
  float a = 0, b = 0, c = 0;
  auto f = [](const APFloat &value) {
    return static_cast<float>(value.convertToDouble());
  };
  if (auto bounds = fusion::activationBounds(op);
      bounds && kind == vk::UnaryOp::Clamp) {
    a = bounds->lo;
    b = bounds->hi;
  } else if (auto shrink = dyn_cast<aten::HardshrinkOp>(op)) {
    a = f(shrink.getLambd());
  } else if (auto leaky = dyn_cast<aten::LeakyReluOp>(op)) {
    a = f(leaky.getNegativeSlope());
  } else if (auto elu = dyn_cast<aten::EluOp>(op)) {
    a = f(elu.getAlpha());
    b = f(elu.getScale());
    c = f(elu.getInputScale());
  } else if (auto pow = dyn_cast<aten::PowOp>(op)) {
    a = f(pow.getExponent());
  }
  auto args = vk::CreateUnary(fbb_, kind, a, b, c);
  return addOp(op, op->getOperand(0), op->getResult(0), vk::OpArgs::Unary,
               args.Union());
}

LogicalResult BlobWriter::emitUpsample(Operation *op, bool bilinear,
                                       bool alignCorners,
                                       std::optional<APFloat> scaleH,
                                       std::optional<APFloat> scaleW) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> out = shapeOf(op->getResult(0));
  auto ratio = [&](int64_t inSize, int64_t outSize,
                   std::optional<APFloat> scale) {
    if (bilinear && alignCorners)
      return outSize > 1 ? static_cast<float>(inSize - 1) /
                               static_cast<float>(outSize - 1)
                         : 0.f;
    return sourceRatio(inSize, outSize, scale);
  };
  auto args = vk::CreateUpsample(fbb_, bilinear, alignCorners,
                                 ratio(in[2], out[2], scaleH),
                                 ratio(in[3], out[3], scaleW));
  return addOp(op, op->getOperand(0), op->getResult(0), vk::OpArgs::Upsample,
               args.Union());
}

void BlobWriter::findStridedChains() {
  for (Operation &op : delegate_.getBody().front().without_terminator()) {
    if (!isStridedMovement(&op))
      continue;
    auto viewsFrom =
        [&](const StridedView &in) -> std::optional<SmallVector<StridedView>> {
      SmallVector<StridedView> results;
      for (Value result : op.getResults()) {
        std::optional<StridedView> view = stridedResult(&op, result, in);
        if (!view)
          return std::nullopt;
        results.push_back(std::move(*view));
      }
      return results;
    };
    // An input that is itself a view of another tensor, read only here,
    // need not be written when every result is a view of that tensor too;
    // else the results are views of the input.
    Value input = op.getOperand(0);
    auto found = views_.find(input);
    std::optional<SmallVector<StridedView>> results;
    if (found != views_.end() && found->second.root != input &&
        input.hasOneUse())
      results = viewsFrom(found->second);
    if (results)
      inChain_.insert(input);
    else
      results = viewsFrom(StridedView::of(input));
    if (results)
      for (auto [result, view] : llvm::zip(op.getResults(), *results))
        views_[result] = view;
  }
}

std::optional<LogicalResult> BlobWriter::emitStrided(Operation *op) {
  if (!isStridedMovement(op))
    return std::nullopt;
  // The results a kernel writes, each with its view (findStridedChains
  // gives every movement's results one).
  SmallVector<std::pair<Value, const StridedView *>> written;
  bool chained = false;
  for (Value result : op->getResults()) {
    if (inChain_.contains(result))
      continue;
    auto found = views_.find(result);
    if (found == views_.end())
      return std::nullopt;
    written.push_back({result, &found->second});
    chained |= found->second.root != op->getOperand(0);
  }
  if (written.empty())
    return success();
  if (!chained)
    return std::nullopt;
  for (auto [result, view] : written) {
    std::vector<int32_t> strides;
    for (int64_t stride : view->strides) {
      if (stride > std::numeric_limits<int32_t>::max())
        return op->emitError()
               << "a strided view of this chain of movements has the stride "
               << stride << ", beyond what the Vulkan gather addresses";
      strides.push_back(static_cast<int32_t>(stride));
    }
    if (view->base > std::numeric_limits<int32_t>::max())
      return op->emitError()
             << "a strided view of this chain of movements "
                "starts at element "
             << view->base << ", beyond what the Vulkan gather addresses";
    auto args = vk::CreateGatherDirect(fbb_, vk::GatherKind::Strided, nullptr,
                                       nullptr, nullptr, 0.f, &strides,
                                       static_cast<int32_t>(view->base));
    if (failed(addOp(op, view->root, result, vk::OpArgs::Gather, args.Union())))
      return failure();
  }
  return success();
}

LogicalResult BlobWriter::emitOp(Operation *op) {
  if (auto kind = unaryOpOf(op))
    return emitUnary(op, *kind);
  auto binary = [&](vk::BinaryOp kind, float alpha) {
    auto args = vk::CreateBinary(fbb_, kind, alpha);
    return addOp(op, op->getOperands(), op->getResults(), vk::OpArgs::Binary,
                 args.Union());
  };
  auto matmul = [&](vk::MatMulKind kind, ValueRange inputs, int32_t w,
                    int32_t bias, float alpha, float beta) {
    auto args = vk::CreateMatMul(fbb_, kind, w, bias, alpha, beta);
    return addOp(op, inputs, op->getResult(0), vk::OpArgs::MatMul,
                 args.Union());
  };
  auto reduce = [&](vk::ReduceOp kind, ArrayRef<int64_t> dims, bool keepdim) {
    std::vector<int32_t> normalized;
    for (int64_t dim : dims)
      normalized.push_back(
          static_cast<int32_t>(normalizeDim(dim, rankOf(op->getOperand(0)))));
    auto args = vk::CreateReduceDirect(fbb_, kind, &normalized, keepdim);
    return addOp(op, op->getOperand(0), op->getResult(0), vk::OpArgs::Reduce,
                 args.Union());
  };
  auto softmax = [&](int64_t dim, bool log, bool safe) {
    auto args = vk::CreateSoftmax(
        fbb_,
        static_cast<int32_t>(normalizeDim(dim, rankOf(op->getOperand(0)))), log,
        safe);
    return addOp(op, op->getOperand(0), op->getResult(0), vk::OpArgs::Softmax,
                 args.Union());
  };
  auto f = [](const APFloat &value) {
    return static_cast<float>(value.convertToDouble());
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<aten::ConvolutionOp>(
          [&](aten::ConvolutionOp conv) { return emitConvolution(conv); })
      .Case<aten::LinearOp>([&](aten::LinearOp linear) {
        return matmul(vk::MatMulKind::Linear, linear.getInput(),
                      weight(linear.getWeight()), weight(linear.getBias()), 1,
                      1);
      })
      .Case<aten::AddmmOp>([&](aten::AddmmOp addmm) {
        return matmul(
            vk::MatMulKind::Addmm,
            ValueRange{addmm.getMat1(), addmm.getMat2(), addmm.getSelf()}, -1,
            -1, f(addmm.getAlpha()), f(addmm.getBeta()));
      })
      .Case<aten::MmOp>([&](auto) {
        return matmul(vk::MatMulKind::Mm, op->getOperands(), -1, -1, 1, 1);
      })
      .Case<aten::BmmOp>([&](auto) {
        return matmul(vk::MatMulKind::Bmm, op->getOperands(), -1, -1, 1, 1);
      })
      .Case<aten::MatmulOp>([&](auto) {
        return matmul(vk::MatMulKind::Matmul, op->getOperands(), -1, -1, 1, 1);
      })
      .Case<aten::BatchNormOp>(
          [&](aten::BatchNormOp norm) { return emitBatchNorm(norm); })
      .Case<aten::LayerNormOp>([&](aten::LayerNormOp norm) {
        auto args =
            vk::CreateLayerNorm(fbb_, weight(norm.getWeight()),
                                weight(norm.getBias()), f(norm.getEps()));
        return addOp(op, norm.getInput(), norm.getResult(),
                     vk::OpArgs::LayerNorm, args.Union());
      })
      .Case<aten::AddOp>([&](aten::AddOp add) {
        return binary(vk::BinaryOp::Add, f(add.getAlpha()));
      })
      .Case<aten::SubOp>([&](aten::SubOp sub) {
        return binary(vk::BinaryOp::Sub, f(sub.getAlpha()));
      })
      .Case<aten::MulOp>([&](auto) { return binary(vk::BinaryOp::Mul, 1); })
      .Case<aten::DivOp>([&](aten::DivOp div) {
        switch (div.getRoundingMode()) {
        case aten::DivRounding::trunc:
          return binary(vk::BinaryOp::DivTrunc, 1);
        case aten::DivRounding::floor:
          return binary(vk::BinaryOp::DivFloor, 1);
        case aten::DivRounding::none:
          break;
        }
        return binary(vk::BinaryOp::Div, 1);
      })
      .Case<aten::MaximumOp>(
          [&](auto) { return binary(vk::BinaryOp::Maximum, 1); })
      .Case<aten::MinimumOp>(
          [&](auto) { return binary(vk::BinaryOp::Minimum, 1); })
      .Case<aten::RemainderOp>(
          [&](auto) { return binary(vk::BinaryOp::Remainder, 1); })
      .Case<aten::MeanOp>([&](aten::MeanOp r) {
        return reduce(vk::ReduceOp::Mean, r.getDim(), r.getKeepdim());
      })
      .Case<aten::SumOp>([&](aten::SumOp r) {
        return reduce(vk::ReduceOp::Sum, r.getDim(), r.getKeepdim());
      })
      .Case<aten::AmaxOp>([&](aten::AmaxOp r) {
        return reduce(vk::ReduceOp::Amax, r.getDim(), r.getKeepdim());
      })
      .Case<aten::SoftmaxOp>([&](aten::SoftmaxOp s) {
        return softmax(s.getDim(), false, s.getSafe().value_or(false));
      })
      .Case<aten::LogSoftmaxOp>([&](aten::LogSoftmaxOp s) {
        return softmax(s.getDim(), true, false);
      })
      .Case<aten::CumsumOp>([&](aten::CumsumOp cumsum) {
        auto args = vk::CreateScan(fbb_, vk::ScanOp::Sum,
                                   static_cast<int32_t>(cumsum.getDim()));
        return addOp(op, cumsum.getSelf(), cumsum.getResult(), vk::OpArgs::Scan,
                     args.Union());
      })
      .Case<aten::AdaptiveAvgPool2dOp>([&](auto) {
        auto args = vk::CreatePool(fbb_, vk::PoolKind::AdaptiveAverage);
        return addOp(op, op->getOperand(0), op->getResult(0), vk::OpArgs::Pool,
                     args.Union());
      })
      .Case<aten::AvgPool2dOp>([&](aten::AvgPool2dOp pool) {
        auto kernel = toInts(pool.getKernelSize());
        auto stride = toInts(pool.getStride());
        auto padding = toInts(pool.getPadding());
        std::vector<int32_t> dilation = {1, 1};
        auto args = vk::CreatePoolDirect(
            fbb_, vk::PoolKind::Average, &kernel, &stride, &padding, &dilation,
            pool.getCountIncludePad(),
            static_cast<int32_t>(pool.getDivisorOverride().value_or(0)));
        return addOp(op, pool.getSelf(), pool.getResult(), vk::OpArgs::Pool,
                     args.Union());
      })
      .Case<aten::MaxPool2dOp>([&](aten::MaxPool2dOp pool) {
        auto kernel = toInts(pool.getKernelSize());
        auto stride = toInts(pool.getStride());
        auto padding = toInts(pool.getPadding());
        auto dilation = toInts(pool.getDilation());
        auto args = vk::CreatePoolDirect(fbb_, vk::PoolKind::Max, &kernel,
                                         &stride, &padding, &dilation);
        return addOp(op, pool.getSelf(), pool.getResult(), vk::OpArgs::Pool,
                     args.Union());
      })
      .Case<aten::UpsampleNearest2dOp>([&](aten::UpsampleNearest2dOp up) {
        return emitUpsample(op, false, false, up.getScalesH(), up.getScalesW());
      })
      .Case<aten::UpsampleBilinear2dOp>([&](aten::UpsampleBilinear2dOp up) {
        return emitUpsample(op, true, up.getAlignCorners(), up.getScalesH(),
                            up.getScalesW());
      })
      .Case<aten::ViewOp>([&](aten::ViewOp view) {
        return addGather(op, view.getSelf(), view.getResult(),
                         vk::GatherKind::Reshape, AffineMap());
      })
      .Case<aten::CloneOp>([&](aten::CloneOp clone) {
        return addGather(op, clone.getSelf(), clone.getResult(),
                         vk::GatherKind::Affine,
                         AffineMap::identity(rankOf(clone.getSelf())));
      })
      .Case<aten::PermuteOp>([&](aten::PermuteOp permute) {
        int64_t rank = rankOf(permute.getSelf());
        AffineMap map = AffineMap::identity(rank);
        // Output dim k is input dim dims[k].
        for (auto [k, dim] : llvm::enumerate(permute.getDims()))
          map.source[normalizeDim(dim, rank)] = static_cast<int32_t>(k);
        return addGather(op, permute.getSelf(), permute.getResult(),
                         vk::GatherKind::Affine, map);
      })
      .Case<aten::ExpandOp>([&](aten::ExpandOp expand) {
        ArrayRef<int64_t> in = shapeOf(expand.getSelf());
        ArrayRef<int64_t> out = shapeOf(expand.getResult());
        int64_t lead = static_cast<int64_t>(out.size() - in.size());
        AffineMap map = AffineMap::identity(in.size());
        for (size_t d = 0; d < in.size(); ++d) {
          map.source[d] = static_cast<int32_t>(d + lead);
          map.scale[d] = in[d] == out[d + lead] ? 1 : 0;
        }
        return addGather(op, expand.getSelf(), expand.getResult(),
                         vk::GatherKind::Affine, map);
      })
      .Case<aten::RepeatOp>([&](aten::RepeatOp repeat) {
        // Input dim d follows the output dim it is tiled along; the shader
        // wraps the index around the input's size.
        int64_t rank = rankOf(repeat.getSelf());
        int64_t lead = rankOf(repeat.getResult()) - rank;
        AffineMap map = AffineMap::identity(rank);
        for (int64_t d = 0; d < rank; ++d)
          map.source[d] = static_cast<int32_t>(d + lead);
        return addGather(op, repeat.getSelf(), repeat.getResult(),
                         vk::GatherKind::Repeat, map);
      })
      .Case<aten::SliceOp>([&](aten::SliceOp slice) {
        int64_t rank = rankOf(slice.getSelf());
        int64_t dim = normalizeDim(slice.getDim(), rank);
        AffineMap map = AffineMap::identity(rank);
        map.scale[dim] = static_cast<int32_t>(slice.getStep());
        map.offset[dim] = static_cast<int32_t>(slice.getStart());
        return addGather(op, slice.getSelf(), slice.getResult(),
                         vk::GatherKind::Affine, map);
      })
      .Case<aten::SelectOp>([&](aten::SelectOp select) {
        ArrayRef<int64_t> in = shapeOf(select.getSelf());
        int64_t rank = static_cast<int64_t>(in.size());
        int64_t dim = normalizeDim(select.getDim(), rank);
        int64_t index = select.getIndex() < 0 ? select.getIndex() + in[dim]
                                              : select.getIndex();
        AffineMap map = AffineMap::identity(rank);
        for (int64_t d = dim + 1; d < rank; ++d)
          map.source[d] = static_cast<int32_t>(d - 1);
        map.source[dim] = -1;
        map.offset[dim] = static_cast<int32_t>(index);
        return addGather(op, select.getSelf(), select.getResult(),
                         vk::GatherKind::Affine, map);
      })
      .Case<aten::ConstantPadNdOp>([&](aten::ConstantPadNdOp pad) {
        int64_t rank = rankOf(pad.getSelf());
        AffineMap map = AffineMap::identity(rank);
        ArrayRef<int64_t> amounts = pad.getPad();
        // Pairs (before, after) from the last dim backwards.
        for (size_t pair = 0; 2 * pair < amounts.size(); ++pair)
          map.offset[rank - 1 - pair] =
              -static_cast<int32_t>(amounts[2 * pair]);
        return addGather(op, pad.getSelf(), pad.getResult(),
                         vk::GatherKind::Affine, map, f(pad.getValue()));
      })
      .Case<aten::SplitWithSizesOp>([&](aten::SplitWithSizesOp split) {
        int64_t rank = rankOf(split.getSelf());
        int64_t dim = normalizeDim(split.getDim(), rank);
        int64_t start = 0;
        for (Value piece : split.getResults()) {
          AffineMap map = AffineMap::identity(rank);
          map.offset[dim] = static_cast<int32_t>(start);
          start += shapeOf(piece)[dim];
          if (failed(addGather(op, split.getSelf(), piece,
                               vk::GatherKind::Affine, map)))
            return failure();
        }
        return success();
      })
      .Case<aten::GatherOp, aten::IndexSelectOp>([&](auto indexed) {
        vk::IndexKind kind = isa<aten::GatherOp>(op) ? vk::IndexKind::Gather
                                                     : vk::IndexKind::Select;
        auto args = vk::CreateIndexGather(
            fbb_, kind, static_cast<int32_t>(indexed.getDim()),
            weight(indexed.getIndex()));
        return addOp(op, indexed.getSelf(), indexed.getResult(),
                     vk::OpArgs::IndexGather, args.Union());
      })
      .Case<aten::CatOp>([&](aten::CatOp cat) {
        int64_t dim = normalizeDim(cat.getDim(), rankOf(cat.getResult()));
        std::vector<int64_t> offsets;
        int64_t start = 0;
        for (Value piece : cat.getTensors()) {
          offsets.push_back(start);
          start += shapeOf(piece)[dim];
        }
        auto args =
            vk::CreateCatDirect(fbb_, static_cast<int32_t>(dim), &offsets);
        return addOp(op, cat.getTensors(), cat.getResult(), vk::OpArgs::Cat,
                     args.Union());
      })
      .Default([&](Operation *) {
        return op->emitOpError()
               << "has no Vulkan kernel, yet the Vulkan rule table "
                  "(partitioners/vulkan/rules/VulkanRules.cpp) let it into a "
                  "Vulkan partition";
      });
}

LogicalResult BlobWriter::run(std::vector<uint8_t> &blob) {
  Block &body = delegate_.getBody().front();
  std::vector<int32_t> inputs, outputs;
  for (BlockArgument arg : body.getArguments()) {
    FailureOr<int32_t> index = tensor(arg, delegate_);
    if (failed(index))
      return failure();
    inputs.push_back(*index);
  }
  findStridedChains();
  for (Operation &op : body.without_terminator()) {
    // A folded activation is written by the convolution before it.
    if (isa<arith::ConstantOp>(op) || fusion::isFolded(&op))
      continue;
    if (std::optional<LogicalResult> strided = emitStrided(&op)) {
      if (failed(*strided))
        return failure();
      continue;
    }
    if (auto convert = dyn_cast<LayoutConvertOp>(op)) {
      if (failed(addGather(&op, convert.getInput(), convert.getResult(),
                           vk::GatherKind::Affine,
                           AffineMap::identity(rankOf(convert.getInput())))))
        return failure();
      continue;
    }
    if (failed(emitOp(&op)))
      return failure();
  }
  for (Value value : body.getTerminator()->getOperands()) {
    FailureOr<int32_t> index = tensor(value, delegate_);
    if (failed(index))
      return failure();
    outputs.push_back(*index);
  }
  auto root =
      vk::CreateDelegateDirect(fbb_, &tensors_, &inputs, &outputs, &ops_,
                               context_.options().flag(kForceFp16Option));
  vk::FinishDelegateBuffer(fbb_, root);
  blob.assign(fbb_.GetBufferPointer(),
              fbb_.GetBufferPointer() + fbb_.GetSize());
  return success();
}

class VulkanEmitter : public DelegateEmitter {
public:
  LogicalResult emit(DelegateOp op, DelegateEmitContext &context,
                     std::vector<uint8_t> &blob) override {
    return BlobWriter(op, context).run(blob);
  }
};

} // namespace

DelegateEmitter &vulkanEmitter() {
  static VulkanEmitter emitter;
  return emitter;
}

} // namespace duet
