//===- XnnpackEmitter.cpp - writes the blob of an XNNPACK partition -------===//

#include "compiler/emit/XnnpackEmitter.h"

#include "dialects/aten/AtenDialect.h"
#include "passes/ConstantUtils.h"
#include "runtime/schema/xnnpack_generated.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

using namespace mlir;

namespace duet {
namespace {

namespace fb = ::duet::xnnpack::schema;

/// A node operand left out (a convolution or fully connected without bias).
constexpr uint32_t kNoValue = 0xFFFFFFFFu;
constexpr float kInfinity = std::numeric_limits<float>::infinity();

/// How a 4-D value is laid out; values of other ranks are always plain.
enum class Layout { plain, nhwc };

/// Output dim i is input dim kToNhwc[i] (and back).
const std::vector<uint8_t> kToNhwc = {0, 2, 3, 1};
const std::vector<uint8_t> kToNchw = {0, 3, 1, 2};

SmallVector<int64_t> shapeOf(Value value) {
  return SmallVector<int64_t>(
      cast<RankedTensorType>(value.getType()).getShape());
}

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

int64_t numel(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// Whether NCHW and NHWC put the elements of a 4-D `shape` in the same
/// order, so that a change of layout is a reshape.
bool sameOrder(ArrayRef<int64_t> shape) {
  return shape.size() == 4 && (shape[1] == 1 || shape[2] * shape[3] == 1);
}

/// The dims of `shape` as XNNPACK sees them in `layout` (a rank-0 tensor is
/// one element of dims [1]).
std::vector<uint64_t> dimsIn(ArrayRef<int64_t> shape, Layout layout) {
  if (shape.empty())
    return {1};
  if (layout == Layout::nhwc && shape.size() == 4)
    return {uint64_t(shape[0]), uint64_t(shape[2]), uint64_t(shape[3]),
            uint64_t(shape[1])};
  return std::vector<uint64_t>(shape.begin(), shape.end());
}

/// `shape` with leading 1s up to rank 4, as broadcasting aligns it.
SmallVector<int64_t> expandTo4(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> expanded(4 - shape.size(), 1);
  llvm::append_range(expanded, shape);
  return expanded;
}

/// The element type XNNPACK computes a value in: bf16 is computed in fp32.
fb::DataType computeType(Value value) {
  return elementTypeOf(value).isF16() ? fb::DataType::Fp16 : fb::DataType::Fp32;
}

/// The element type of a value in the program's memory.
fb::DataType hostType(Value value) {
  Type type = elementTypeOf(value);
  if (type.isBF16())
    return fb::DataType::Bf16;
  return type.isF16() ? fb::DataType::Fp16 : fb::DataType::Fp32;
}

bool isConstantValue(Value value) {
  return value.getDefiningOp<arith::ConstantOp>() != nullptr;
}

/// A readable name for constants the emitter adds.
std::string nameOf(Value value, StringRef suffix) {
  std::string base = "constant";
  if (Operation *op = value.getDefiningOp())
    if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
      base = loc.getName().str();
  return base + suffix.str();
}

/// Output bounds of a clamp-like op.
struct Bounds {
  float lo = -kInfinity;
  float hi = kInfinity;
};

struct WindowRec {
  std::array<uint32_t, 4> padding = {0, 0, 0, 0};
  std::array<uint32_t, 2> kernel = {1, 1};
  std::array<uint32_t, 2> stride = {1, 1};
  std::array<uint32_t, 2> dilation = {1, 1};
  std::array<uint32_t, 2> adjustment = {0, 0};
  uint32_t groups = 1;
  uint64_t groupInputChannels = 0;
  uint64_t groupOutputChannels = 0;
};

struct NodeRec {
  fb::NodeType type = fb::NodeType::Clamp;
  std::vector<uint32_t> inputs;
  uint32_t output = 0;
  Bounds bounds;
  std::optional<WindowRec> window;
  float scalar = 0;
  std::vector<uint64_t> shape;
  bool alignCorners = false;
  /// The subgraph it runs in.
  int stage = 0;
};

struct ValueRec {
  fb::ValueKind kind = fb::ValueKind::Internal;
  int32_t index = -1;
  fb::DataType type = fb::DataType::Fp32;
  std::vector<uint64_t> dims;
  /// The first subgraph whose nodes may read it.
  int ready = 0;
  /// The subgraph after which a host copy may read it (-1: before all).
  int hostAfter = -1;
  /// The node that writes it, or -1.
  int producer = -1;
};

struct CopyRec {
  uint32_t input;
  uint32_t output;
  std::vector<uint8_t> permutation;
  /// It runs after subgraph `slot` (-1: before the first).
  int slot;
};

/// Where a region value is in the blob: per layout, and for a bf16
/// partition input its bf16 original, which only a host copy can read.
struct Reprs {
  std::optional<uint32_t> plain;
  std::optional<uint32_t> nhwc;
  std::optional<uint32_t> source;
  std::optional<uint32_t> &at(Layout layout) {
    return layout == Layout::plain ? plain : nhwc;
  }
};

bool takesBounds(fb::NodeType type) {
  switch (type) {
  case fb::NodeType::Convolution2d:
  case fb::NodeType::DepthwiseConvolution2d:
  case fb::NodeType::Deconvolution2d:
  case fb::NodeType::FullyConnected:
  case fb::NodeType::Add:
  case fb::NodeType::Subtract:
  case fb::NodeType::Multiply:
  case fb::NodeType::Divide:
  case fb::NodeType::Clamp:
  case fb::NodeType::GlobalAveragePooling2d:
  case fb::NodeType::AveragePooling2d:
  case fb::NodeType::MaxPooling2d:
    return true;
  default:
    return false;
  }
}

class BlobWriter {
public:
  BlobWriter(DelegateOp op, DelegateEmitContext &context)
      : op_(op), context_(context) {}

  LogicalResult run(std::vector<uint8_t> &blob);

private:
  /// An error on `op` for an op the rule table let in and this emitter
  /// cannot write.
  LogicalResult bug(Operation *op, const Twine &why) {
    return op->emitError()
           << "the XNNPACK delegate cannot run this op: " << why
           << "; the XNNPACK rule table (partitioners/xnnpack/XnnpackRules.cpp)"
              " let it in, which is a partitioner bug: please report it, and "
              "compile with --backends portable meanwhile";
  }

  uint32_t addValue(ValueRec rec) {
    values_.push_back(std::move(rec));
    return static_cast<uint32_t>(values_.size() - 1);
  }
  /// Value `id` of program tensor `tensor` (a constant) with `dims`.
  uint32_t constantValue(int32_t tensor, std::vector<uint64_t> dims) {
    ValueRec rec;
    rec.kind = fb::ValueKind::Constant;
    rec.index = tensor;
    rec.dims = std::move(dims);
    return addValue(std::move(rec));
  }
  /// A new fp32 program constant holding `data`, as a value of `dims`.
  uint32_t floatConstant(std::string name, std::vector<uint64_t> dims,
                         const std::vector<float> &data) {
    std::vector<uint8_t> bytes(data.size() * sizeof(float));
    std::memcpy(bytes.data(), data.data(), bytes.size());
    std::vector<int64_t> sizes(dims.begin(), dims.end());
    int32_t tensor = context_.addConstant(std::move(name), rt::DType::f32,
                                          std::move(sizes), std::move(bytes));
    return constantValue(tensor, std::move(dims));
  }
  /// The elements of constant `value` as floats.
  FailureOr<std::vector<float>> readConstant(Value value, Operation *user);
  /// Constant `value` as an fp32 value of `dims` (its own elements in their
  /// own order): the program's tensor when it is fp32 already.
  FailureOr<uint32_t> constantAsIs(Value value, std::vector<uint64_t> dims,
                                   Operation *user);
  /// Constant `value` as an operand in `layout`; with `expand`, a tensor of
  /// rank below 4 is first given leading 1s (as broadcasting aligns it).
  FailureOr<uint32_t> constantIn(Value value, Layout layout, bool expand,
                                 Operation *user);

  bool has(Value value, Layout layout) {
    auto found = reprs_.find(value);
    return found != reprs_.end() && found->second.at(layout).has_value();
  }
  /// The layout to read `value` in when the op does not care.
  Layout current(Value value) {
    return shapeOf(value).size() == 4 && has(value, Layout::nhwc)
               ? Layout::nhwc
               : Layout::plain;
  }
  /// `value` in `layout`, converting it when it is not there yet.
  FailureOr<uint32_t> get(Value value, Layout layout, Operation *user);

  /// Adds `node`, whose output has `dims` and `type`; returns the output.
  uint32_t addNode(NodeRec node, std::vector<uint64_t> dims, fb::DataType type);
  /// A reshape node from `input` to `dims`.
  uint32_t reshape(uint32_t input, std::vector<uint64_t> dims) {
    NodeRec node;
    node.type = fb::NodeType::Reshape;
    node.inputs = {input};
    node.shape = dims;
    fb::DataType type = values_[input].type;
    return addNode(std::move(node), std::move(dims), type);
  }
  /// Records that `result` is value `id` in `layout`, and writes it to the
  /// partition's output when the region yields it.
  void bind(Value result, uint32_t id, Layout layout);
  /// Adds `node` computing `result` in `layout` and binds it.
  void emitNode(NodeRec node, Value result, Layout layout) {
    uint32_t id = addNode(std::move(node), dimsIn(shapeOf(result), layout),
                          computeType(result));
    bind(result, id, layout);
  }

  LogicalResult emitOp(Operation *op);
  LogicalResult emitConvolution(aten::ConvolutionOp op);
  LogicalResult emitFullyConnected(Operation *op, Value input, Value weight,
                                   bool transposed, Value bias);
  LogicalResult emitBinary(Operation *op, fb::NodeType type);
  LogicalResult emitUnary(Operation *op, fb::NodeType type, float scalar = 0);
  LogicalResult emitClamp(Operation *op, Bounds bounds);
  LogicalResult emitPooling(Operation *op, fb::NodeType type,
                            std::optional<WindowRec> window);
  LogicalResult emitPad(aten::ConstantPadNdOp op);
  LogicalResult emitView(aten::ViewOp op);

  void serialize(std::vector<uint8_t> &blob);

  DelegateOp op_;
  DelegateEmitContext &context_;
  std::vector<ValueRec> values_;
  std::vector<NodeRec> nodes_;
  std::vector<CopyRec> copies_;
  llvm::DenseMap<Value, Reprs> reprs_;
  /// Constants already written, by value, layout and expansion.
  std::map<std::tuple<void *, Layout, bool>, uint32_t> constants_;
  /// Yielded values by output position.
  llvm::DenseMap<Value, unsigned> yields_;
};

FailureOr<std::vector<float>> BlobWriter::readConstant(Value value,
                                                       Operation *user) {
  auto elements = readFloatConstant(value);
  if (!elements)
    return user->emitError()
           << "the XNNPACK delegate cannot read the constant operand of type "
           << value.getType() << " (is the model's weight data missing?)";
  return std::vector<float>(elements->begin(), elements->end());
}

FailureOr<uint32_t> BlobWriter::constantAsIs(Value value,
                                             std::vector<uint64_t> dims,
                                             Operation *user) {
  if (elementTypeOf(value).isF32() || elementTypeOf(value).isF16()) {
    int32_t tensor = context_.tensorId(value);
    if (tensor < 0)
      return bug(user, "a constant operand is not a program tensor");
    uint32_t id = constantValue(tensor, std::move(dims));
    values_[id].type = computeType(value);
    return id;
  }
  auto data = readConstant(value, user);
  if (failed(data))
    return failure();
  return floatConstant(nameOf(value, ".f32"), std::move(dims), *data);
}

FailureOr<uint32_t> BlobWriter::constantIn(Value value, Layout layout,
                                           bool expand, Operation *user) {
  SmallVector<int64_t> shape = shapeOf(value);
  if (expand && shape.size() < 4)
    shape = expandTo4(shape);
  if (shape.size() != 4)
    layout = Layout::plain;
  auto key = std::make_tuple(value.getAsOpaquePointer(), layout, expand);
  auto found = constants_.find(key);
  if (found != constants_.end())
    return found->second;
  FailureOr<uint32_t> id = failure();
  if (layout == Layout::plain || sameOrder(shape)) {
    id = constantAsIs(value, dimsIn(shape, layout), user);
  } else {
    auto data = readConstant(value, user);
    if (failed(data))
      return failure();
    int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
    std::vector<float> nhwc(data->size());
    for (int64_t in = 0; in < n; ++in)
      for (int64_t ic = 0; ic < c; ++ic)
        for (int64_t ih = 0; ih < h; ++ih)
          for (int64_t iw = 0; iw < w; ++iw)
            nhwc[((in * h + ih) * w + iw) * c + ic] =
                (*data)[((in * c + ic) * h + ih) * w + iw];
    id = floatConstant(nameOf(value, ".nhwc"), dimsIn(shape, layout), nhwc);
  }
  if (succeeded(id))
    constants_[key] = *id;
  return id;
}

FailureOr<uint32_t> BlobWriter::get(Value value, Layout layout,
                                    Operation *user) {
  if (isConstantValue(value))
    return constantIn(value, layout, /*expand=*/false, user);
  SmallVector<int64_t> shape = shapeOf(value);
  if (shape.size() != 4)
    layout = Layout::plain;
  Reprs &reprs = reprs_[value];
  if (auto id = reprs.at(layout))
    return *id;
  Layout other = layout == Layout::plain ? Layout::nhwc : Layout::plain;
  std::optional<uint32_t> from = reprs.source;
  Layout fromLayout = Layout::plain;
  if (!from) {
    from = reprs.at(other);
    fromLayout = other;
  }
  if (!from)
    return user->emitError() << "an operand of this op has no XNNPACK value "
                                "yet (is the partition in program order?)";
  uint32_t id;
  if (!reprs.source && sameOrder(shape)) {
    id = reshape(*from, dimsIn(shape, layout));
  } else {
    ValueRec rec;
    rec.type = computeType(value);
    rec.dims = dimsIn(shape, layout);
    int slot = values_[*from].hostAfter;
    rec.ready = slot + 1;
    rec.hostAfter = slot;
    id = addValue(std::move(rec));
    std::vector<uint8_t> permutation;
    if (shape.size() == 4 && fromLayout != layout)
      permutation = layout == Layout::nhwc ? kToNhwc : kToNchw;
    copies_.push_back({*from, id, std::move(permutation), slot});
  }
  reprs_[value].at(layout) = id;
  return id;
}

uint32_t BlobWriter::addNode(NodeRec node, std::vector<uint64_t> dims,
                             fb::DataType type) {
  int stage = 0;
  for (uint32_t input : node.inputs)
    if (input != kNoValue)
      stage = std::max(stage, values_[input].ready);
  node.stage = stage;
  ValueRec rec;
  rec.type = type;
  rec.dims = std::move(dims);
  rec.ready = stage;
  rec.hostAfter = stage;
  rec.producer = static_cast<int>(nodes_.size());
  node.output = addValue(std::move(rec));
  nodes_.push_back(std::move(node));
  return nodes_.back().output;
}

void BlobWriter::bind(Value result, uint32_t id, Layout layout) {
  reprs_[result].at(layout) = id;
  auto yielded = yields_.find(result);
  if (yielded == yields_.end())
    return;
  SmallVector<int64_t> shape = shapeOf(result);
  ValueRec &rec = values_[id];
  bool inPlace = shape.size() != 4 || layout == Layout::plain;
  if (rec.kind == fb::ValueKind::Internal && inPlace &&
      rec.type == hostType(result)) {
    // Nothing has read the value yet: the node writes the output directly.
    rec.kind = fb::ValueKind::Output;
    rec.index = static_cast<int32_t>(yielded->second);
    return;
  }
  ValueRec out;
  out.kind = fb::ValueKind::Output;
  out.index = static_cast<int32_t>(yielded->second);
  out.type = hostType(result);
  out.dims = dimsIn(shape, Layout::plain);
  int slot = rec.hostAfter;
  out.ready = slot + 1;
  out.hostAfter = slot;
  uint32_t outId = addValue(std::move(out));
  copies_.push_back({id, outId,
                     shape.size() == 4 && layout == Layout::nhwc
                         ? kToNchw
                         : std::vector<uint8_t>{},
                     slot});
}

LogicalResult BlobWriter::emitConvolution(aten::ConvolutionOp op) {
  SmallVector<int64_t> in = shapeOf(op.getInput());
  SmallVector<int64_t> w = shapeOf(op.getWeight());
  if (in.size() != 4 || w.size() != 4)
    return bug(op, "XNNPACK convolves [N,C,H,W] inputs only");
  auto input = get(op.getInput(), Layout::nhwc, op);
  if (failed(input))
    return failure();
  auto weights = readConstant(op.getWeight(), op);
  if (failed(weights))
    return failure();
  const std::vector<float> &src = *weights;
  int64_t groups = op.getGroups();
  int64_t kh = w[2], kw = w[3];
  ArrayRef<int64_t> padding = op.getPadding(), stride = op.getStride(),
                    dilation = op.getDilation();
  WindowRec window;
  window.padding = {uint32_t(padding[0]), uint32_t(padding[1]),
                    uint32_t(padding[0]), uint32_t(padding[1])};
  window.kernel = {uint32_t(kh), uint32_t(kw)};
  window.stride = {uint32_t(stride[0]), uint32_t(stride[1])};
  window.dilation = {uint32_t(dilation[0]), uint32_t(dilation[1])};
  window.groups = uint32_t(groups);

  NodeRec node;
  node.window = window;
  int64_t outChannels;
  uint32_t filter;
  if (op.getTransposed()) {
    // [Cin, Cout/g, KH, KW] -> [Cout, KH, KW, Cin/g], group by group.
    int64_t gic = w[0] / groups, goc = w[1];
    outChannels = goc * groups;
    std::vector<float> packed(src.size());
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t ci = 0; ci < gic; ++ci)
        for (int64_t co = 0; co < goc; ++co)
          for (int64_t y = 0; y < kh; ++y)
            for (int64_t x = 0; x < kw; ++x)
              packed[(((g * goc + co) * kh + y) * kw + x) * gic + ci] =
                  src[(((g * gic + ci) * goc + co) * kh + y) * kw + x];
    filter = floatConstant(
        nameOf(op.getWeight(), ".xnnpack_deconv"),
        {uint64_t(outChannels), uint64_t(kh), uint64_t(kw), uint64_t(gic)},
        packed);
    ArrayRef<int64_t> outputPadding = op.getOutputPadding();
    node.type = fb::NodeType::Deconvolution2d;
    node.window->adjustment = {uint32_t(outputPadding[0]),
                               uint32_t(outputPadding[1])};
    node.window->groupInputChannels = uint64_t(gic);
    node.window->groupOutputChannels = uint64_t(goc);
  } else if (groups > 1 && w[1] == 1) {
    // Depthwise: [Cout, 1, KH, KW] -> [1, KH, KW, Cout].
    outChannels = w[0];
    std::vector<float> packed(src.size());
    for (int64_t c = 0; c < outChannels; ++c)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x)
          packed[(y * kw + x) * outChannels + c] = src[(c * kh + y) * kw + x];
    filter = floatConstant(
        nameOf(op.getWeight(), ".xnnpack_dw"),
        {1, uint64_t(kh), uint64_t(kw), uint64_t(outChannels)}, packed);
    node.type = fb::NodeType::DepthwiseConvolution2d;
    node.window->groupInputChannels = uint64_t(in[1]);
    node.window->groupOutputChannels = uint64_t(outChannels / in[1]);
  } else {
    // [Cout, Cin/g, KH, KW] -> [Cout, KH, KW, Cin/g] (OHWI).
    outChannels = w[0];
    int64_t gic = w[1];
    std::vector<uint64_t> dims = {uint64_t(outChannels), uint64_t(kh),
                                  uint64_t(kw), uint64_t(gic)};
    if (kh * kw == 1) {
      auto same = constantAsIs(op.getWeight(), dims, op);
      if (failed(same))
        return failure();
      filter = *same;
    } else {
      std::vector<float> packed(src.size());
      for (int64_t o = 0; o < outChannels; ++o)
        for (int64_t i = 0; i < gic; ++i)
          for (int64_t y = 0; y < kh; ++y)
            for (int64_t x = 0; x < kw; ++x)
              packed[((o * kh + y) * kw + x) * gic + i] =
                  src[((o * gic + i) * kh + y) * kw + x];
      filter = floatConstant(nameOf(op.getWeight(), ".ohwi"), dims, packed);
    }
    node.type = fb::NodeType::Convolution2d;
    node.window->groupInputChannels = uint64_t(gic);
    node.window->groupOutputChannels = uint64_t(outChannels / groups);
  }
  uint32_t bias = kNoValue;
  if (op.getBias()) {
    auto id = constantAsIs(op.getBias(), {uint64_t(outChannels)}, op);
    if (failed(id))
      return failure();
    bias = *id;
  }
  node.inputs = {*input, filter, bias};
  emitNode(std::move(node), op.getResult(), Layout::nhwc);
  return success();
}

LogicalResult BlobWriter::emitFullyConnected(Operation *op, Value input,
                                             Value weight, bool transposed,
                                             Value bias) {
  auto in = get(input, Layout::plain, op);
  if (failed(in))
    return failure();
  SmallVector<int64_t> w = shapeOf(weight);
  if (w.size() != 2)
    return bug(op, "fully_connected takes a 2-D weight");
  FailureOr<uint32_t> filter = failure();
  if (!transposed) {
    filter = constantAsIs(weight, {uint64_t(w[0]), uint64_t(w[1])}, op);
  } else {
    // [in, out] -> [out, in].
    auto data = readConstant(weight, op);
    if (failed(data))
      return failure();
    std::vector<float> packed(data->size());
    for (int64_t i = 0; i < w[0]; ++i)
      for (int64_t o = 0; o < w[1]; ++o)
        packed[o * w[0] + i] = (*data)[i * w[1] + o];
    filter = floatConstant(nameOf(weight, ".t"),
                           {uint64_t(w[1]), uint64_t(w[0])}, packed);
  }
  if (failed(filter))
    return failure();
  uint64_t outFeatures = transposed ? w[1] : w[0];
  uint32_t biasId = kNoValue;
  if (bias) {
    if (numel(shapeOf(bias)) != int64_t(outFeatures))
      return bug(op, "the bias is not one value per output feature");
    auto id = constantAsIs(bias, {outFeatures}, op);
    if (failed(id))
      return failure();
    biasId = *id;
  }
  NodeRec node;
  node.type = fb::NodeType::FullyConnected;
  node.inputs = {*in, *filter, biasId};
  emitNode(std::move(node), op->getResult(0), Layout::plain);
  return success();
}

LogicalResult BlobWriter::emitBinary(Operation *op, fb::NodeType type) {
  Value operands[2] = {op->getOperand(0), op->getOperand(1)};
  Value result = op->getResult(0);
  Layout layout = Layout::plain;
  if (shapeOf(result).size() == 4) {
    // NHWC when every operand can be read so and it costs no more host
    // transposes than NCHW does; a lower-rank operand that is neither a
    // constant (transposed now) nor a scalar nor in the same order in both
    // layouts would need a transpose of its own, so it keeps NCHW.
    bool nhwcPossible = true, anyNhwc = false;
    int nhwcCost = 0, plainCost = 0;
    for (Value operand : operands) {
      if (isConstantValue(operand))
        continue;
      SmallVector<int64_t> shape = shapeOf(operand);
      if (shape.size() == 4) {
        anyNhwc |= has(operand, Layout::nhwc);
        if (!sameOrder(shape)) {
          nhwcCost += !has(operand, Layout::nhwc);
          plainCost += !has(operand, Layout::plain);
        }
      } else if (numel(shape) > 1 && !sameOrder(expandTo4(shape))) {
        nhwcPossible = false;
      }
    }
    if (nhwcPossible &&
        (nhwcCost < plainCost || (nhwcCost == plainCost && anyNhwc)))
      layout = Layout::nhwc;
  }
  NodeRec node;
  node.type = type;
  for (Value operand : operands) {
    SmallVector<int64_t> shape = shapeOf(operand);
    bool lower = shape.size() < 4 && numel(shape) > 1;
    FailureOr<uint32_t> id = failure();
    if (isConstantValue(operand))
      id = constantIn(operand, layout, lower && layout == Layout::nhwc, op);
    else if (layout == Layout::plain || !lower)
      id = get(operand, layout, op);
    else if (auto plain = get(operand, Layout::plain, op); succeeded(plain))
      id = reshape(*plain, dimsIn(expandTo4(shape), Layout::nhwc));
    if (failed(id))
      return failure();
    node.inputs.push_back(*id);
  }
  emitNode(std::move(node), result, layout);
  return success();
}

LogicalResult BlobWriter::emitUnary(Operation *op, fb::NodeType type,
                                    float scalar) {
  Value input = op->getOperand(0);
  Layout layout = current(input);
  auto id = get(input, layout, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = type;
  node.inputs = {*id};
  node.scalar = scalar;
  if (type == fb::NodeType::Reshape)
    node.shape = dimsIn(shapeOf(input), layout);
  emitNode(std::move(node), op->getResult(0), layout);
  return success();
}

LogicalResult BlobWriter::emitClamp(Operation *op, Bounds bounds) {
  Value input = op->getOperand(0);
  Layout layout = current(input);
  // Folded into the node computing the input when nothing else reads it.
  if (input.hasOneUse() && !isConstantValue(input) && reprs_.count(input)) {
    std::optional<uint32_t> id = reprs_[input].at(layout);
    if (id && values_[*id].producer >= 0 &&
        values_[*id].kind == fb::ValueKind::Internal) {
      NodeRec &producer = nodes_[values_[*id].producer];
      float lo = std::max(producer.bounds.lo, bounds.lo);
      float hi = std::min(producer.bounds.hi, bounds.hi);
      if (takesBounds(producer.type) && lo < hi) {
        producer.bounds = {lo, hi};
        bind(op->getResult(0), *id, layout);
        return success();
      }
    }
  }
  if (!(bounds.lo < bounds.hi))
    return bug(op, "XNNPACK clamps need min < max");
  auto id = get(input, layout, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = fb::NodeType::Clamp;
  node.inputs = {*id};
  node.bounds = bounds;
  emitNode(std::move(node), op->getResult(0), layout);
  return success();
}

LogicalResult BlobWriter::emitPooling(Operation *op, fb::NodeType type,
                                      std::optional<WindowRec> window) {
  if (shapeOf(op->getOperand(0)).size() != 4)
    return bug(op, "XNNPACK pools [N,C,H,W] only");
  auto id = get(op->getOperand(0), Layout::nhwc, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = type;
  node.inputs = {*id};
  node.window = window;
  emitNode(std::move(node), op->getResult(0), Layout::nhwc);
  return success();
}

LogicalResult BlobWriter::emitPad(aten::ConstantPadNdOp op) {
  Value input = op.getSelf();
  SmallVector<int64_t> shape = shapeOf(input);
  ArrayRef<int64_t> pad = op.getPad();
  size_t rank = std::max<size_t>(shape.size(), 1);
  std::vector<uint64_t> before(rank, 0), after(rank, 0);
  for (size_t i = 0; 2 * i + 1 < pad.size(); ++i) {
    if (pad[2 * i] < 0 || pad[2 * i + 1] < 0 || i >= shape.size())
      return bug(op, "static_constant_pad pads, it does not crop");
    before[shape.size() - 1 - i] = uint64_t(pad[2 * i]);
    after[shape.size() - 1 - i] = uint64_t(pad[2 * i + 1]);
  }
  Layout layout = current(input);
  if (layout == Layout::nhwc) {
    before = {before[0], before[2], before[3], before[1]};
    after = {after[0], after[2], after[3], after[1]};
  }
  auto id = get(input, layout, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = fb::NodeType::ConstantPad;
  node.inputs = {*id};
  node.scalar = static_cast<float>(op.getValue().convertToDouble());
  node.shape = before;
  llvm::append_range(node.shape, after);
  emitNode(std::move(node), op.getResult(), layout);
  return success();
}

LogicalResult BlobWriter::emitView(aten::ViewOp op) {
  // A reshape works on NCHW element order; a value whose NHWC order is the
  // same is read as it is.
  Value input = op.getSelf();
  Layout layout = Layout::plain;
  if (sameOrder(shapeOf(input)) && !has(input, Layout::plain))
    layout = current(input);
  auto id = get(input, layout, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = fb::NodeType::Reshape;
  node.inputs = {*id};
  node.shape = dimsIn(shapeOf(op.getResult()), Layout::plain);
  emitNode(std::move(node), op.getResult(), Layout::plain);
  return success();
}

LogicalResult BlobWriter::emitOp(Operation *op) {
  using namespace aten;
  using T = fb::NodeType;
  auto window2d = [](ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                     ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation) {
    WindowRec window;
    if (stride.empty())
      stride = kernel;
    window.kernel = {uint32_t(kernel[0]), uint32_t(kernel[1])};
    window.stride = {uint32_t(stride[0]), uint32_t(stride[1])};
    window.padding = {uint32_t(padding[0]), uint32_t(padding[1]),
                      uint32_t(padding[0]), uint32_t(padding[1])};
    if (!dilation.empty())
      window.dilation = {uint32_t(dilation[0]), uint32_t(dilation[1])};
    return window;
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ConvolutionOp>([&](auto conv) { return emitConvolution(conv); })
      .Case<LinearOp>([&](auto linear) {
        return emitFullyConnected(op, linear.getInput(), linear.getWeight(),
                                  false, linear.getBias());
      })
      .Case<AddmmOp>([&](auto addmm) {
        return emitFullyConnected(op, addmm.getMat1(), addmm.getMat2(), true,
                                  addmm.getSelf());
      })
      .Case<MmOp, MatmulOp>([&](auto mm) {
        return emitFullyConnected(op, mm.getSelf(), mm.getOther(), true,
                                  Value());
      })
      .Case<AddOp>([&](auto) { return emitBinary(op, T::Add); })
      .Case<SubOp>([&](auto) { return emitBinary(op, T::Subtract); })
      .Case<MulOp>([&](auto) { return emitBinary(op, T::Multiply); })
      .Case<DivOp>([&](auto) { return emitBinary(op, T::Divide); })
      .Case<MaximumOp>([&](auto) { return emitBinary(op, T::Maximum); })
      .Case<MinimumOp>([&](auto) { return emitBinary(op, T::Minimum); })
      .Case<ReluOp>([&](auto) {
        return emitClamp(op, {0.0f, kInfinity});
      })
      .Case<HardtanhOp>([&](auto hardtanh) {
        return emitClamp(op, {float(hardtanh.getMinVal().convertToDouble()),
                              float(hardtanh.getMaxVal().convertToDouble())});
      })
      .Case<ClampOp>([&](auto clamp) {
        Bounds bounds;
        if (auto min = clamp.getMin())
          bounds.lo = float(min->convertToDouble());
        if (auto max = clamp.getMax())
          bounds.hi = float(max->convertToDouble());
        return emitClamp(op, bounds);
      })
      .Case<HardswishOp>([&](auto) { return emitUnary(op, T::HardSwish); })
      .Case<SigmoidOp>([&](auto) { return emitUnary(op, T::Sigmoid); })
      .Case<LeakyReluOp>([&](auto leaky) {
        return emitUnary(op, T::LeakyRelu,
                         float(leaky.getNegativeSlope().convertToDouble()));
      })
      .Case<EluOp>([&](auto elu) {
        return emitUnary(op, T::Elu, float(elu.getAlpha().convertToDouble()));
      })
      .Case<AbsOp>([&](auto) { return emitUnary(op, T::Abs); })
      .Case<NegOp>([&](auto) { return emitUnary(op, T::Negate); })
      .Case<SqrtOp>([&](auto) { return emitUnary(op, T::SquareRoot); })
      .Case<PowOp>([&](auto pow) {
        double exponent = pow.getExponent().convertToDouble();
        if (exponent == 2.0)
          return emitUnary(op, T::Square);
        if (exponent == 0.5)
          return emitUnary(op, T::SquareRoot);
        return bug(op, "pow with an exponent other than 2 or 0.5");
      })
      .Case<CastOp>([&](auto) { return emitUnary(op, T::Convert); })
      .Case<CloneOp>([&](auto) { return emitUnary(op, T::Reshape); })
      .Case<SoftmaxOp>([&](auto softmax) {
        if (softmax.getDim() != int64_t(shapeOf(softmax.getSelf()).size()) - 1)
          return bug(op, "softmax over a dim other than the last");
        auto id = get(softmax.getSelf(), Layout::plain, op);
        if (failed(id))
          return failure();
        NodeRec node;
        node.type = T::Softmax;
        node.inputs = {*id};
        emitNode(std::move(node), softmax.getResult(), Layout::plain);
        return success();
      })
      .Case<MeanOp, AdaptiveAvgPool2dOp>([&](auto) {
        return emitPooling(op, T::GlobalAveragePooling2d, std::nullopt);
      })
      .Case<AvgPool2dOp>([&](auto pool) {
        return emitPooling(op, T::AveragePooling2d,
                           window2d(pool.getKernelSize(), pool.getStride(),
                                    pool.getPadding(), {}));
      })
      .Case<MaxPool2dOp>([&](auto pool) {
        return emitPooling(op, T::MaxPooling2d,
                           window2d(pool.getKernelSize(), pool.getStride(),
                                    pool.getPadding(), pool.getDilation()));
      })
      .Case<ConstantPadNdOp>([&](auto pad) { return emitPad(pad); })
      .Case<ViewOp>([&](auto view) { return emitView(view); })
      .Case<UpsampleBilinear2dOp>([&](auto resize) {
        SmallVector<int64_t> out = shapeOf(resize.getResult());
        if (out.size() != 4)
          return bug(op, "XNNPACK resizes [N,C,H,W] only");
        auto id = get(resize.getSelf(), Layout::nhwc, op);
        if (failed(id))
          return failure();
        NodeRec node;
        node.type = T::ResizeBilinear2d;
        node.inputs = {*id};
        node.shape = {uint64_t(out[2]), uint64_t(out[3])};
        node.alignCorners = resize.getAlignCorners();
        emitNode(std::move(node), resize.getResult(), Layout::nhwc);
        return success();
      })
      .Default([&](Operation *other) {
        return bug(other, "no XNNPACK node is written for " +
                              other->getName().getStringRef());
      });
}

void BlobWriter::serialize(std::vector<uint8_t> &blob) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Value>> values;
  for (const ValueRec &rec : values_)
    values.push_back(
        fb::CreateValueDirect(fbb, rec.kind, rec.index, rec.type, &rec.dims));
  int lastStage = -1;
  for (const NodeRec &node : nodes_)
    lastStage = std::max(lastStage, node.stage);
  std::vector<fb::Step> stepTypes;
  std::vector<flatbuffers::Offset<void>> steps;
  for (int slot = -1; slot <= lastStage; ++slot) {
    for (const CopyRec &copy : copies_) {
      if (copy.slot != slot)
        continue;
      stepTypes.push_back(fb::Step::Copy);
      steps.push_back(
          fb::CreateCopyDirect(fbb, copy.input, copy.output, &copy.permutation)
              .Union());
    }
    if (slot + 1 > lastStage)
      continue;
    std::vector<flatbuffers::Offset<fb::Node>> nodes;
    for (const NodeRec &node : nodes_) {
      if (node.stage != slot + 1)
        continue;
      flatbuffers::Offset<fb::Window> window;
      if (node.window) {
        const WindowRec &w = *node.window;
        std::vector<uint32_t> padding(w.padding.begin(), w.padding.end());
        std::vector<uint32_t> kernel(w.kernel.begin(), w.kernel.end());
        std::vector<uint32_t> stride(w.stride.begin(), w.stride.end());
        std::vector<uint32_t> dilation(w.dilation.begin(), w.dilation.end());
        std::vector<uint32_t> adjustment(w.adjustment.begin(),
                                         w.adjustment.end());
        window = fb::CreateWindowDirect(
            fbb, &padding, &kernel, &stride, &dilation, &adjustment, w.groups,
            w.groupInputChannels, w.groupOutputChannels);
      }
      nodes.push_back(fb::CreateNodeDirect(
          fbb, node.type, &node.inputs, node.output, node.bounds.lo,
          node.bounds.hi, window, node.scalar,
          node.shape.empty() ? nullptr : &node.shape, node.alignCorners));
    }
    if (nodes.empty())
      continue;
    stepTypes.push_back(fb::Step::Subgraph);
    steps.push_back(fb::CreateSubgraphDirect(fbb, &nodes).Union());
  }
  auto root = fb::CreateDelegateDirect(fbb, &values, &stepTypes, &steps);
  fbb.Finish(root, fb::DelegateIdentifier());
  blob.assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

LogicalResult BlobWriter::run(std::vector<uint8_t> &blob) {
  Block &body = op_.getBody().front();
  for (auto [index, arg] : llvm::enumerate(body.getArguments())) {
    ValueRec rec;
    rec.kind = fb::ValueKind::Input;
    rec.index = static_cast<int32_t>(index);
    rec.type = hostType(arg);
    rec.dims = dimsIn(shapeOf(arg), Layout::plain);
    uint32_t id = addValue(std::move(rec));
    // A bf16 input is only a source for a host conversion.
    if (hostType(arg) == fb::DataType::Bf16)
      reprs_[arg].source = id;
    else
      reprs_[arg].plain = id;
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [index, value] : llvm::enumerate(yield.getValues()))
    yields_[value] = static_cast<unsigned>(index);
  for (Operation &inner : body.without_terminator()) {
    if (isa<arith::ConstantOp>(inner))
      continue;
    if (failed(emitOp(&inner)))
      return failure();
  }
  serialize(blob);
  return success();
}

class XnnpackEmitter : public DelegateEmitter {
public:
  Backend backend() const override { return Backend::xnnpack; }
  LogicalResult emit(DelegateOp op, DelegateEmitContext &context,
                     std::vector<uint8_t> &blob) override {
    return BlobWriter(op, context).run(blob);
  }
};

} // namespace

DelegateEmitter &xnnpackEmitter() {
  static XnnpackEmitter emitter;
  return emitter;
}

} // namespace duet
