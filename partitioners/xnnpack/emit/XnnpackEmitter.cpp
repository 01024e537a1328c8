//===- XnnpackEmitter.cpp - writes the blob of an XNNPACK partition -------===//
//
// A serializer of what the lowering recorded: each op becomes the node its
// kind maps to, in the layout and subgraph duet-xnnpack-layout gave it and
// with the output bounds duet-fuse-activations folded into it; each
// `xnn.layout_change` becomes the reshape node, host copy or repacked
// constant it names. Each node is checked to read its operands in the
// layouts it takes, so that IR edited after the lowering is an error, never
// a wrong blob.
//
//===----------------------------------------------------------------------===//

#include "partitioners/xnnpack/emit/XnnpackEmitter.h"

#include "dialects/aten/AtenDialect.h"
#include "dialects/aten/Constants.h"
#include "partitioners/common/FusionDialect.h"
#include "partitioners/common/Rules.h"
#include "partitioners/xnnpack/dialect/XnnDialect.h"
#include "partitioners/xnnpack/emit/XnnpackBlob.h"
#include "partitioners/xnnpack/emit/XnnpackWeights.h"
#include "partitioners/xnnpack/rules/XnnpackQuantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace duet {
namespace {

using namespace xnnpack;
using xnn::Layout;

/// Output dim i is input dim kToNhwc[i] (and back).
const std::vector<uint8_t> kToNhwc = {0, 2, 3, 1};
const std::vector<uint8_t> kToNchw = {0, 3, 1, 2};

using partition::shapeOf;

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// The dims of `shape` as XNNPACK sees them in `layout` (a rank-0 tensor is
/// one element of dims [1]; NHWC of a lower rank is of its rank-4 broadcast).
std::vector<uint64_t> dimsIn(ArrayRef<int64_t> shape, Layout layout) {
  if (layout == Layout::nhwc) {
    SmallVector<int64_t> e = xnn::expandTo4(shape);
    return {uint64_t(e[0]), uint64_t(e[2]), uint64_t(e[3]), uint64_t(e[1])};
  }
  if (shape.empty())
    return {1};
  return std::vector<uint64_t>(shape.begin(), shape.end());
}

/// The layout a node of `value`'s rank works in when it works in `layout`:
/// a tensor of rank other than 4 is plain.
Layout forRank(Value value, Layout layout) {
  return shapeOf(value).size() == 4 ? layout : Layout::plain;
}

/// Whether `value` holds the int8 of a quantized tensor (qint8 in XNNPACK).
bool isInt8(Value value) { return elementTypeOf(value).isSignlessInteger(8); }

/// The element type XNNPACK computes a value in: bf16 is computed in fp32.
fb::DataType computeType(Value value) {
  if (isInt8(value))
    return fb::DataType::Qint8;
  return elementTypeOf(value).isF16() ? fb::DataType::Fp16 : fb::DataType::Fp32;
}

/// The element type of a value in the program's memory.
fb::DataType hostType(Value value) {
  Type type = elementTypeOf(value);
  if (type.isBF16())
    return fb::DataType::Bf16;
  return computeType(value);
}

/// The qparams of a quantize or dequantize per tensor.
template <typename OpT> QuantRec qparamsOf(OpT op) {
  QuantRec quant;
  quant.zeroPoint = static_cast<int32_t>(int64_t(op.getZeroPoint()));
  quant.scale = static_cast<float>(op.getScale().convertToDouble());
  return quant;
}

/// The quantize after the qint8 op `op` (through the activations folded
/// into its node), which XnnpackQuantization found.
aten::QuantizePerTensorOp quantizeAfter(Operation *op) {
  Value value = op->getResult(0);
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (auto q = dyn_cast<aten::QuantizePerTensorOp>(user))
      return q;
    if (user->getNumResults() != 1)
      break;
    value = user->getResult(0);
  }
  return {};
}

/// The elements of a quantized weight (a dequantize of int8 constants) as
/// int8, row-major, with the scale of each index of dim 0 (the one scale of
/// a per-tensor weight repeated); nothing when it is not one.
struct QuantizedFilter {
  std::vector<int8_t> data;
  std::vector<float> scales;
};
std::optional<QuantizedFilter> readQuantizedFilter(Value weight) {
  Operation *def = weight.getDefiningOp();
  if (!partition::isQuantizedWeightOp(def))
    return std::nullopt;
  auto ints = readIntegerElements(getConstantElements(def->getOperand(0)));
  if (!ints)
    return std::nullopt;
  int64_t channels = shapeOf(weight).empty() ? 1 : shapeOf(weight)[0];
  QuantizedFilter filter;
  filter.data.assign(ints->begin(), ints->end());
  if (auto pc = dyn_cast<aten::DequantizePerChannelOp>(def)) {
    auto scales = readFloatConstant(pc.getScales());
    if (!scales || int64_t(scales->size()) != channels)
      return std::nullopt;
    filter.scales.assign(scales->begin(), scales->end());
  } else {
    auto pt = cast<aten::DequantizePerTensorOp>(def);
    filter.scales.assign(channels, float(pt.getScale().convertToDouble()));
  }
  return filter;
}

/// A quantized weight's real values, computed exactly as its dequantize
/// kernel computes them (runtime/kernels/Quantize.cpp): the weight of an op
/// that computes in fp32.
std::optional<std::vector<float>> dequantizeWeight(Value weight) {
  Operation *def = weight.getDefiningOp();
  auto ints = readIntegerElements(getConstantElements(def->getOperand(0)));
  if (!ints)
    return std::nullopt;
  std::vector<float> values(ints->size());
  if (auto pt = dyn_cast<aten::DequantizePerTensorOp>(def)) {
    float scale = float(pt.getScale().convertToDouble());
    float zeroPoint = float(int64_t(pt.getZeroPoint()));
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = (float((*ints)[i]) - zeroPoint) * scale;
    return values;
  }
  auto pc = cast<aten::DequantizePerChannelOp>(def);
  auto scales = readFloatConstant(pc.getScales());
  std::optional<SmallVector<int64_t>> zeroPoints;
  if (pc.getZeroPoints())
    zeroPoints = readIntegerElements(getConstantElements(pc.getZeroPoints()));
  ArrayRef<int64_t> shape = shapeOf(weight);
  int64_t axis = pc.getAxis(), outer = 1, inner = 1;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    if (d != axis)
      (d < axis ? outer : inner) *= shape[d];
  int64_t channels = shape[axis];
  if (!scales || int64_t(scales->size()) != channels ||
      (pc.getZeroPoints() &&
       (!zeroPoints || int64_t(zeroPoints->size()) != channels)))
    return std::nullopt;
  bool doubleScales =
      cast<RankedTensorType>(pc.getScales().getType()).getElementType().isF64();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      int64_t zeroPoint = zeroPoints ? (*zeroPoints)[c] : 0;
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = (o * channels + c) * inner + i;
        int64_t q = (*ints)[at] - zeroPoint;
        values[at] = doubleScales ? float(double(q) * (*scales)[c])
                                  : float(q) * float((*scales)[c]);
      }
    }
  return values;
}

bool isConstantValue(Value value) {
  return value.getDefiningOp<arith::ConstantOp>() != nullptr;
}

/// A bf16 partition input, which only a host copy reads.
bool isBf16Input(Value value) {
  return isa<BlockArgument>(value) && elementTypeOf(value).isBF16();
}

/// A readable name for constants the emitter adds.
std::string nameOf(Value value, StringRef suffix) {
  std::string base = "constant";
  if (Operation *op = value.getDefiningOp())
    if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
      base = loc.getName().str();
  return base + suffix.str();
}

/// The window of a 2-D convolution in XNNPACK's terms (padding top, right,
/// bottom, left), without the channel counts, which depend on its kind.
WindowRec convolutionWindow(aten::ConvolutionOp op) {
  ArrayRef<int64_t> w = shapeOf(op.getWeight());
  ArrayRef<int64_t> padding = op.getPadding(), stride = op.getStride(),
                    dilation = op.getDilation();
  WindowRec window;
  window.padding = {uint32_t(padding[0]), uint32_t(padding[1]),
                    uint32_t(padding[0]), uint32_t(padding[1])};
  window.kernel = {uint32_t(w[2]), uint32_t(w[3])};
  window.stride = {uint32_t(stride[0]), uint32_t(stride[1])};
  window.dilation = {uint32_t(dilation[0]), uint32_t(dilation[1])};
  window.groups = uint32_t(op.getGroups());
  return window;
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
           << "; the XNNPACK rule table "
              "(partitioners/xnnpack/rules/XnnpackRules.cpp)"
              " let it in, which is a partitioner bug: please report it, and "
              "compile with --backends portable meanwhile";
  }
  /// An error on `op` for IR that the lowering did not leave so.
  LogicalResult notAsPlanned(Operation *op, const Twine &what) {
    return op->emitError()
           << what
           << " (the layouts and subgraphs of an XNNPACK partition come from "
              "duet-xnnpack-layout, which the pipeline runs before emission; "
              "was the IR edited after it?)";
  }

  /// The qparams of the int8 value `value`: its quantize's, or for a
  /// partition input those of the dequantizes that read it.
  QuantRec quantOf(Value value) {
    if (auto q = value.getDefiningOp<aten::QuantizePerTensorOp>())
      return qparamsOf(q);
    for (Operation *user : value.getUsers())
      if (auto dq = dyn_cast<aten::DequantizePerTensorOp>(user))
        return qparamsOf(dq);
    return {};
  }
  /// A new program constant of `dtype` holding `data`, as a value of `type`
  /// and `dims` with `quant`.
  template <typename T>
  uint32_t quantizedConstant(std::string name, rt::DType dtype,
                             fb::DataType type, std::vector<uint64_t> dims,
                             const std::vector<T> &data, QuantRec quant) {
    std::vector<uint8_t> bytes(data.size() * sizeof(T));
    std::memcpy(bytes.data(), data.data(), bytes.size());
    std::vector<int64_t> sizes(dims.begin(), dims.end());
    int32_t tensor = context_.addConstant(std::move(name), dtype,
                                          std::move(sizes), std::move(bytes));
    uint32_t id = constantValue(tensor, std::move(dims));
    blob_.value(id).type = type;
    blob_.value(id).quant = std::move(quant);
    return id;
  }
  /// The qcint8 filter (of `dims`, scales along `channelDim`) and qcint32
  /// bias of a qint8 node reading an input of scale `inputScale`; `pack`
  /// rearranges the weight's int8, or is null when the node reads them in
  /// their own order (a 1x1 filter, a linear), which then are the
  /// program's tensor itself.
  struct QuantizedWeights {
    uint32_t filter, bias;
  };
  FailureOr<QuantizedWeights> quantizedWeights(
      Operation *op, Value weight, Value bias, float inputScale,
      std::vector<uint64_t> dims, uint32_t channelDim,
      llvm::function_ref<std::vector<int8_t>(ArrayRef<int8_t>)> pack);

  /// Value `id` of program tensor `tensor` (a constant) with `dims`.
  uint32_t constantValue(int32_t tensor, std::vector<uint64_t> dims) {
    ValueRec rec;
    rec.kind = fb::ValueKind::Constant;
    rec.index = tensor;
    rec.dims = std::move(dims);
    return blob_.addValue(std::move(rec));
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

  /// The value `user` reads for `value`, which its node takes in `layout`.
  FailureOr<uint32_t> operand(Value value, Layout layout, Operation *user);

  /// Adds `node`, which writes `op`'s result in `writes`, in the subgraph
  /// and with the output bounds recorded on `op`.
  LogicalResult emitNode(NodeRec node, Operation *op, Layout writes);
  /// Records that `result` is value `id`; a value the region yields
  /// directly is the partition's output, which its node writes in place.
  LogicalResult bind(Value result, uint32_t id, Operation *op);

  LogicalResult emitLayoutChange(xnn::LayoutChangeOp op);
  LogicalResult emitOp(Operation *op);
  LogicalResult emitConvolution(aten::ConvolutionOp op);
  LogicalResult emitQint8Convolution(aten::ConvolutionOp op, uint32_t input);
  LogicalResult emitQint8Linear(aten::LinearOp op);
  LogicalResult emitQuantization(Operation *op);
  LogicalResult emitFullyConnected(Operation *op, Value input, Value weight,
                                   bool transposed, Value bias);
  LogicalResult emitBinary(Operation *op, fb::NodeType type);
  LogicalResult emitUnary(Operation *op, fb::NodeType type, float scalar = 0);
  LogicalResult emitClamp(Operation *op);
  LogicalResult emitPooling(Operation *op, fb::NodeType type,
                            std::optional<WindowRec> window);
  LogicalResult emitPad(aten::ConstantPadNdOp op);
  LogicalResult emitView(aten::ViewOp op);

  DelegateOp op_;
  DelegateEmitContext &context_;
  BlobRecords blob_;
  /// The value each region value is.
  llvm::DenseMap<Value, uint32_t> ids_;
  /// Constants nodes read as they are, by constant.
  llvm::DenseMap<Value, uint32_t> constants_;
  /// Yielded values by output position.
  llvm::DenseMap<Value, unsigned> yields_;
};

FailureOr<std::vector<float>> BlobWriter::readConstant(Value value,
                                                       Operation *user) {
  if (partition::isQuantizedWeight(value)) {
    if (auto weight = dequantizeWeight(value))
      return std::move(*weight);
    return user->emitError() << "the XNNPACK delegate cannot read the "
                                "quantized weight of this op (its int8 "
                                "constants, scales or zero points)";
  }
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
  if (isConstantValue(value) &&
      (elementTypeOf(value).isF32() || elementTypeOf(value).isF16())) {
    int32_t tensor = context_.tensorId(value);
    if (tensor < 0)
      return bug(user, "a constant operand is not a program tensor");
    uint32_t id = constantValue(tensor, std::move(dims));
    blob_.value(id).type = computeType(value);
    return id;
  }
  auto data = readConstant(value, user);
  if (failed(data))
    return failure();
  return floatConstant(nameOf(value, ".f32"), std::move(dims), *data);
}

FailureOr<uint32_t> BlobWriter::operand(Value value, Layout layout,
                                        Operation *user) {
  std::optional<Layout> has = xnn::layoutOf(value);
  if (!has)
    return notAsPlanned(user, "an operand of this op has no xnn.layout");
  if (*has != layout)
    return notAsPlanned(user, "this op's XNNPACK node reads an operand in " +
                                  xnn::stringifyLayout(layout) +
                                  ", which the IR holds in " +
                                  xnn::stringifyLayout(*has));
  if (isConstantValue(value)) {
    auto found = constants_.find(value);
    if (found != constants_.end())
      return found->second;
    FailureOr<uint32_t> id =
        constantAsIs(value, dimsIn(shapeOf(value), Layout::plain), user);
    if (succeeded(id))
      constants_[value] = *id;
    return id;
  }
  if (isBf16Input(value))
    return notAsPlanned(user, "this op reads a bf16 partition input, which "
                              "only a host copy to fp32 can read");
  auto found = ids_.find(value);
  if (found == ids_.end())
    return user->emitError() << "an operand of this op has no XNNPACK value "
                                "yet (is the partition in program order?)";
  return found->second;
}

LogicalResult BlobWriter::emitNode(NodeRec node, Operation *op, Layout writes) {
  Value result = op->getResult(0);
  writes = forRank(result, writes);
  std::optional<Layout> recorded = xnn::layoutOf(result);
  std::optional<int64_t> subgraph = xnn::subgraphOf(op);
  if (!recorded || !subgraph)
    return notAsPlanned(op, "this op has no xnn.layout or xnn.subgraph");
  if (*recorded != writes)
    return notAsPlanned(op, "this op is recorded in " +
                                xnn::stringifyLayout(*recorded) +
                                ", but its XNNPACK node writes " +
                                xnn::stringifyLayout(writes));
  if (std::optional<fusion::Bounds> bounds = fusion::nodeBounds(op)) {
    node.outputMin = bounds->lo;
    node.outputMax = bounds->hi;
  }
  node.subgraph = *subgraph;
  // The node writes the value of the last activation folded after it, or
  // for a qint8 node the integers of the quantize after that.
  node.tensor = context_.tensorId(fusion::foldedResult(result));
  node.tensorNhwc = writes == Layout::nhwc;
  fb::DataType type = computeType(result);
  QuantRec quant;
  if (partition::isQint8(op)) {
    aten::QuantizePerTensorOp q = quantizeAfter(op);
    if (!q)
      return notAsPlanned(op, "this qint8 op has no quantize after it");
    type = fb::DataType::Qint8;
    quant = qparamsOf(q);
    node.tensor = context_.tensorId(q.getResult());
  } else if (type == fb::DataType::Qint8) {
    quant = quantOf(result);
  }
  uint32_t id = blob_.addNode(std::move(node), type,
                              dimsIn(shapeOf(result), writes), quant);
  return bind(result, id, op);
}

LogicalResult BlobWriter::bind(Value result, uint32_t id, Operation *op) {
  ids_[result] = id;
  auto yielded = yields_.find(result);
  if (yielded == yields_.end())
    return success();
  ValueRec &rec = blob_.value(id);
  if (rec.kind != fb::ValueKind::Internal ||
      xnn::layoutOf(result) != Layout::plain || rec.type != hostType(result))
    return notAsPlanned(op, "a partition output is plain in its own element "
                            "type, and this one is yielded without the host "
                            "copy that makes it so");
  rec.kind = fb::ValueKind::Output;
  rec.index = static_cast<int32_t>(yielded->second);
  return success();
}

LogicalResult BlobWriter::emitLayoutChange(xnn::LayoutChangeOp op) {
  Value input = op.getInput(), result = op.getResult();
  ArrayRef<int64_t> shape = shapeOf(input);
  Layout from = op.getFrom(), to = op.getTo();
  std::optional<int64_t> subgraph = xnn::subgraphOf(op);
  if (op.getBy() != xnn::Transfer::repack && !subgraph)
    return notAsPlanned(op, "this layout change has no xnn.subgraph");

  switch (op.getBy()) {
  case xnn::Transfer::repack: {
    // Stored as it is when both orders agree, else transposed now.
    SmallVector<int64_t> nchw = xnn::expandTo4(shape);
    FailureOr<uint32_t> id = failure();
    if (xnn::sameOrder(nchw)) {
      id = constantAsIs(input, dimsIn(shape, to), op);
    } else {
      auto data = readConstant(input, op);
      if (failed(data))
        return failure();
      id = floatConstant(nameOf(input, ".nhwc"), dimsIn(shape, to),
                         toNhwc(*data, nchw));
    }
    if (failed(id))
      return failure();
    ids_[result] = *id;
    return success();
  }
  case xnn::Transfer::reshape: {
    FailureOr<uint32_t> in = operand(input, from, op);
    if (failed(in))
      return failure();
    NodeRec node;
    node.type = fb::NodeType::Reshape;
    node.inputs = {*in};
    node.shape = dimsIn(shape, to);
    node.subgraph = *subgraph;
    fb::DataType type = blob_.value(*in).type;
    QuantRec quant = blob_.value(*in).quant;
    ids_[result] =
        blob_.addNode(std::move(node), type, dimsIn(shape, to), quant);
    return success();
  }
  case xnn::Transfer::host_copy: {
    FailureOr<uint32_t> in = isBf16Input(input)
                                 ? FailureOr<uint32_t>(ids_.lookup(input))
                                 : operand(input, from, op);
    if (failed(in))
      return failure();
    ValueRec rec;
    // A qint8 value (a folded dequantize's result stands for one) is copied
    // as its integers.
    bool integers = blob_.value(*in).type == fb::DataType::Qint8;
    rec.quant = blob_.value(*in).quant;
    auto yielded = yields_.find(result);
    if (yielded != yields_.end()) {
      if (to != Layout::plain)
        return notAsPlanned(op, "a partition output is plain");
      rec.kind = fb::ValueKind::Output;
      rec.index = static_cast<int32_t>(yielded->second);
      rec.type = hostType(result);
    } else {
      rec.type = integers ? fb::DataType::Qint8 : computeType(result);
    }
    rec.dims = dimsIn(shape, to);
    uint32_t id = blob_.addValue(std::move(rec));
    std::vector<uint8_t> permutation;
    if (shape.size() == 4 && from != to)
      permutation = to == Layout::nhwc ? kToNhwc : kToNchw;
    blob_.addCopy({*in, id, std::move(permutation), *subgraph});
    ids_[result] = id;
    return success();
  }
  }
  return failure();
}

FailureOr<BlobWriter::QuantizedWeights> BlobWriter::quantizedWeights(
    Operation *op, Value weight, Value bias, float inputScale,
    std::vector<uint64_t> dims, uint32_t channelDim,
    llvm::function_ref<std::vector<int8_t>(ArrayRef<int8_t>)> pack) {
  std::optional<QuantizedFilter> filter = readQuantizedFilter(weight);
  if (!filter)
    return notAsPlanned(op, "the weight of this qint8 op is not a quantized "
                            "weight duet can read");
  size_t channels = filter->scales.size();
  QuantRec filterQuant;
  filterQuant.channelScales = filter->scales;
  filterQuant.channelDim = channelDim;
  uint32_t filterId;
  int32_t stored =
      pack ? -1 : context_.tensorId(weight.getDefiningOp()->getOperand(0));
  if (stored >= 0) {
    filterId = constantValue(stored, std::move(dims));
    blob_.value(filterId).type = fb::DataType::Qcint8;
    blob_.value(filterId).quant = std::move(filterQuant);
  } else {
    std::vector<int8_t> data =
        pack ? pack(filter->data) : std::move(filter->data);
    filterId = quantizedConstant(nameOf(weight, ".qcint8"), rt::DType::i8,
                                 fb::DataType::Qcint8, dims, data,
                                 std::move(filterQuant));
  }
  // The bias in the accumulator's units, input scale times filter scale,
  // rounded to nearest (XNNPACK adds it to the int32 sums).
  std::vector<float> biasValues(channels, 0.0f);
  if (bias) {
    auto data = readConstant(bias, op);
    if (failed(data))
      return failure();
    if (data->size() != channels)
      return bug(op, "the bias is not one value per output channel");
    biasValues = *data;
  }
  std::vector<int32_t> biasInts(channels);
  QuantRec biasQuant;
  for (size_t c = 0; c < channels; ++c) {
    float scale = inputScale * filter->scales[c];
    double q = std::nearbyint(double(biasValues[c]) / double(scale));
    q = std::min<double>(std::max<double>(q, -2147483648.0), 2147483647.0);
    biasInts[c] = static_cast<int32_t>(q);
    biasQuant.channelScales.push_back(scale);
  }
  uint32_t biasId = quantizedConstant(
      bias ? nameOf(bias, ".qcint32") : nameOf(weight, ".bias_qcint32"),
      rt::DType::i32, fb::DataType::Qcint32, {uint64_t(channels)}, biasInts,
      std::move(biasQuant));
  return QuantizedWeights{filterId, biasId};
}

LogicalResult BlobWriter::emitConvolution(aten::ConvolutionOp op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> w = shapeOf(op.getWeight());
  if (in.size() != 4 || w.size() != 4)
    return bug(op, "XNNPACK convolves [N,C,H,W] inputs only");
  auto input = operand(op.getInput(), Layout::nhwc, op);
  if (failed(input))
    return failure();
  if (partition::isQint8(op))
    return emitQint8Convolution(op, *input);
  auto weights = readConstant(op.getWeight(), op);
  if (failed(weights))
    return failure();
  int64_t groups = op.getGroups();
  int64_t kh = w[2], kw = w[3];
  NodeRec node;
  node.window = convolutionWindow(op);
  int64_t outChannels;
  uint32_t filter;
  if (op.getTransposed()) {
    int64_t gic = w[0] / groups, goc = w[1];
    outChannels = goc * groups;
    filter = floatConstant(
        nameOf(op.getWeight(), ".xnnpack_deconv"),
        {uint64_t(outChannels), uint64_t(kh), uint64_t(kw), uint64_t(gic)},
        packDeconvolutionFilter(*weights, w, groups));
    ArrayRef<int64_t> outputPadding = op.getOutputPadding();
    node.type = fb::NodeType::Deconvolution2d;
    node.window->adjustment = {uint32_t(outputPadding[0]),
                               uint32_t(outputPadding[1])};
    node.window->groupInputChannels = uint64_t(gic);
    node.window->groupOutputChannels = uint64_t(goc);
  } else if (groups > 1 && w[1] == 1) {
    outChannels = w[0];
    filter =
        floatConstant(nameOf(op.getWeight(), ".xnnpack_dw"),
                      {1, uint64_t(kh), uint64_t(kw), uint64_t(outChannels)},
                      packDepthwiseFilter<float>(*weights, w));
    node.type = fb::NodeType::DepthwiseConvolution2d;
    node.window->groupInputChannels = uint64_t(in[1]);
    node.window->groupOutputChannels = uint64_t(outChannels / in[1]);
  } else {
    outChannels = w[0];
    int64_t gic = w[1];
    std::vector<uint64_t> dims = {uint64_t(outChannels), uint64_t(kh),
                                  uint64_t(kw), uint64_t(gic)};
    if (kh * kw == 1) {
      // A 1x1 filter is OHWI already.
      auto same = constantAsIs(op.getWeight(), dims, op);
      if (failed(same))
        return failure();
      filter = *same;
    } else {
      filter = floatConstant(nameOf(op.getWeight(), ".ohwi"), dims,
                             packConvolutionFilter<float>(*weights, w));
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
  return emitNode(std::move(node), op, Layout::nhwc);
}

LogicalResult BlobWriter::emitQint8Convolution(aten::ConvolutionOp op,
                                               uint32_t input) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> w = shapeOf(op.getWeight());
  int64_t groups = op.getGroups();
  int64_t outChannels = w[0], kh = w[2], kw = w[3];
  NodeRec node;
  WindowRec window = convolutionWindow(op);
  bool depthwise = groups > 1 && w[1] == 1;
  float inputScale = blob_.value(input).quant.scale;
  FailureOr<QuantizedWeights> weights = failure();
  if (depthwise) {
    node.type = fb::NodeType::DepthwiseConvolution2d;
    window.groupInputChannels = uint64_t(in[1]);
    window.groupOutputChannels = uint64_t(outChannels / in[1]);
    weights = quantizedWeights(
        op, op.getWeight(), op.getBias(), inputScale,
        {1, uint64_t(kh), uint64_t(kw), uint64_t(outChannels)}, 3,
        [&](ArrayRef<int8_t> data) { return packDepthwiseFilter(data, w); });
  } else {
    node.type = fb::NodeType::Convolution2d;
    window.groupInputChannels = uint64_t(w[1]);
    window.groupOutputChannels = uint64_t(outChannels / groups);
    // A 1x1 filter is OHWI already.
    llvm::function_ref<std::vector<int8_t>(ArrayRef<int8_t>)> pack = nullptr;
    auto ohwi = [&](ArrayRef<int8_t> data) {
      return packConvolutionFilter(data, w);
    };
    if (kh * kw != 1)
      pack = ohwi;
    weights = quantizedWeights(
        op, op.getWeight(), op.getBias(), inputScale,
        {uint64_t(outChannels), uint64_t(kh), uint64_t(kw), uint64_t(w[1])}, 0,
        pack);
  }
  if (failed(weights))
    return failure();
  node.window = window;
  node.inputs = {input, weights->filter, weights->bias};
  return emitNode(std::move(node), op, Layout::nhwc);
}

LogicalResult BlobWriter::emitQint8Linear(aten::LinearOp op) {
  // This XNNPACK's fully_connected takes no qcint8 filter, so the rows
  // [M, K] are a 1x1 convolution over an image [1, 1, M, K]: a reshape in,
  // the convolution (which takes the fused bounds), a reshape out.
  Value inputValue = op.getInput();
  auto in = operand(inputValue, Layout::plain, op);
  if (failed(in))
    return failure();
  ArrayRef<int64_t> w = shapeOf(op.getWeight());
  if (w.size() != 2)
    return bug(op, "a linear weight is 2-D");
  uint64_t outFeatures = uint64_t(w[0]), inFeatures = uint64_t(w[1]);
  uint64_t rows =
      uint64_t(ShapedType::getNumElements(shapeOf(inputValue))) / inFeatures;
  std::optional<int64_t> subgraph = xnn::subgraphOf(op);
  if (!subgraph)
    return notAsPlanned(op, "this op has no xnn.subgraph");
  QuantRec inQuant = blob_.value(*in).quant;
  NodeRec toImage;
  toImage.type = fb::NodeType::Reshape;
  toImage.inputs = {*in};
  toImage.shape = {1, 1, rows, inFeatures};
  toImage.subgraph = *subgraph;
  uint32_t image = blob_.addNode(std::move(toImage), fb::DataType::Qint8,
                                 {1, 1, rows, inFeatures}, inQuant);
  auto weights =
      quantizedWeights(op, op.getWeight(), op.getBias(), inQuant.scale,
                       {outFeatures, 1, 1, inFeatures}, 0, /*pack=*/nullptr);
  if (failed(weights))
    return failure();
  aten::QuantizePerTensorOp q = quantizeAfter(op);
  if (!q)
    return notAsPlanned(op, "this qint8 op has no quantize after it");
  NodeRec conv;
  conv.type = fb::NodeType::Convolution2d;
  WindowRec window;
  window.groupInputChannels = inFeatures;
  window.groupOutputChannels = outFeatures;
  conv.window = window;
  conv.inputs = {image, weights->filter, weights->bias};
  if (std::optional<fusion::Bounds> bounds = fusion::nodeBounds(op)) {
    conv.outputMin = bounds->lo;
    conv.outputMax = bounds->hi;
  }
  conv.subgraph = *subgraph;
  uint32_t product = blob_.addNode(std::move(conv), fb::DataType::Qint8,
                                   {1, 1, rows, outFeatures}, qparamsOf(q));
  NodeRec fromImage;
  fromImage.type = fb::NodeType::Reshape;
  fromImage.inputs = {product};
  fromImage.shape = dimsIn(shapeOf(op.getResult()), Layout::plain);
  return emitNode(std::move(fromImage), op, Layout::plain);
}

LogicalResult BlobWriter::emitQuantization(Operation *op) {
  Value input = op->getOperand(0);
  if (!partition::isFoldedQuantization(op))
    return emitUnary(op, fb::NodeType::Convert);
  // Folded: a dequantize's result stands for its integers, which the qint8
  // nodes reading it read; a quantize's is the integers its qint8 node
  // wrote.
  Layout layout = forRank(input, xnn::layoutOf(input).value_or(Layout::plain));
  auto id = operand(input, layout, op);
  if (failed(id))
    return failure();
  if (isa<aten::DequantizePerTensorOp>(op)) {
    ids_[op->getResult(0)] = *id;
    return success();
  }
  if (blob_.value(*id).type != fb::DataType::Qint8)
    return notAsPlanned(op, "this folded quantize follows no qint8 node");
  return bind(op->getResult(0), *id, op);
}

LogicalResult BlobWriter::emitFullyConnected(Operation *op, Value input,
                                             Value weight, bool transposed,
                                             Value bias) {
  auto in = operand(input, forRank(input, Layout::plain), op);
  if (failed(in))
    return failure();
  ArrayRef<int64_t> w = shapeOf(weight);
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
    filter =
        floatConstant(nameOf(weight, ".t"), {uint64_t(w[1]), uint64_t(w[0])},
                      transpose2d(*data, w[0], w[1]));
  }
  if (failed(filter))
    return failure();
  uint64_t outFeatures = transposed ? w[1] : w[0];
  uint32_t biasId = kNoValue;
  if (bias) {
    if (ShapedType::getNumElements(shapeOf(bias)) != int64_t(outFeatures))
      return bug(op, "the bias is not one value per output feature");
    auto id = constantAsIs(bias, {outFeatures}, op);
    if (failed(id))
      return failure();
    biasId = *id;
  }
  NodeRec node;
  node.type = fb::NodeType::FullyConnected;
  node.inputs = {*in, *filter, biasId};
  return emitNode(std::move(node), op, Layout::plain);
}

LogicalResult BlobWriter::emitBinary(Operation *op, fb::NodeType type) {
  std::optional<Layout> layout = xnn::layoutOf(op->getResult(0));
  if (!layout)
    return notAsPlanned(op, "this op has no xnn.layout");
  NodeRec node;
  node.type = type;
  for (Value value : op->getOperands()) {
    // In NHWC every operand but a scalar is read in NHWC (broadcast to rank
    // 4 first when of lower rank).
    ArrayRef<int64_t> shape = shapeOf(value);
    Layout reads =
        *layout == Layout::nhwc &&
                (shape.size() == 4 || ShapedType::getNumElements(shape) > 1)
            ? Layout::nhwc
            : Layout::plain;
    auto id = operand(value, reads, op);
    if (failed(id))
      return failure();
    node.inputs.push_back(*id);
  }
  return emitNode(std::move(node), op, *layout);
}

LogicalResult BlobWriter::emitUnary(Operation *op, fb::NodeType type,
                                    float scalar) {
  Value input = op->getOperand(0);
  Layout layout = forRank(input, xnn::layoutOf(input).value_or(Layout::plain));
  auto id = operand(input, layout, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = type;
  node.inputs = {*id};
  node.scalar = scalar;
  if (type == fb::NodeType::Reshape)
    node.shape = dimsIn(shapeOf(input), layout);
  return emitNode(std::move(node), op, layout);
}

LogicalResult BlobWriter::emitClamp(Operation *op) {
  Value input = op->getOperand(0);
  Layout layout = forRank(input, xnn::layoutOf(input).value_or(Layout::plain));
  auto id = operand(input, layout, op);
  if (failed(id))
    return failure();
  // Folded: the node computing the input clamps it already.
  if (fusion::isFolded(op))
    return bind(op->getResult(0), *id, op);
  fusion::Bounds bounds = *fusion::nodeBounds(op);
  if (!(bounds.lo < bounds.hi))
    return bug(op, "XNNPACK clamps need min < max");
  NodeRec node;
  node.type = fb::NodeType::Clamp;
  node.inputs = {*id};
  return emitNode(std::move(node), op, layout);
}

LogicalResult BlobWriter::emitPooling(Operation *op, fb::NodeType type,
                                      std::optional<WindowRec> window) {
  if (shapeOf(op->getOperand(0)).size() != 4)
    return bug(op, "XNNPACK pools [N,C,H,W] only");
  auto id = operand(op->getOperand(0), Layout::nhwc, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = type;
  node.inputs = {*id};
  node.window = window;
  return emitNode(std::move(node), op, Layout::nhwc);
}

LogicalResult BlobWriter::emitPad(aten::ConstantPadNdOp op) {
  Value input = op.getSelf();
  ArrayRef<int64_t> shape = shapeOf(input);
  ArrayRef<int64_t> pad = op.getPad();
  size_t rank = std::max<size_t>(shape.size(), 1);
  std::vector<uint64_t> before(rank, 0), after(rank, 0);
  for (size_t i = 0; 2 * i + 1 < pad.size(); ++i) {
    if (pad[2 * i] < 0 || pad[2 * i + 1] < 0 || i >= shape.size())
      return bug(op, "static_constant_pad pads, it does not crop");
    before[shape.size() - 1 - i] = uint64_t(pad[2 * i]);
    after[shape.size() - 1 - i] = uint64_t(pad[2 * i + 1]);
  }
  Layout layout = forRank(input, xnn::layoutOf(input).value_or(Layout::plain));
  if (layout == Layout::nhwc) {
    before = {before[0], before[2], before[3], before[1]};
    after = {after[0], after[2], after[3], after[1]};
  }
  auto id = operand(input, layout, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = fb::NodeType::ConstantPad;
  node.inputs = {*id};
  node.scalar = static_cast<float>(op.getValue().convertToDouble());
  node.shape = before;
  llvm::append_range(node.shape, after);
  return emitNode(std::move(node), op, layout);
}

LogicalResult BlobWriter::emitView(aten::ViewOp op) {
  // A reshape works on NCHW element order; a value whose NHWC order is the
  // same can be read as it is.
  Value input = op.getSelf();
  Layout layout = forRank(input, xnn::layoutOf(input).value_or(Layout::plain));
  if (layout == Layout::nhwc && !xnn::sameOrder(shapeOf(input)))
    return notAsPlanned(op, "this view reads an NHWC value whose elements "
                            "are not in NCHW order");
  auto id = operand(input, layout, op);
  if (failed(id))
    return failure();
  NodeRec node;
  node.type = fb::NodeType::Reshape;
  node.inputs = {*id};
  node.shape = dimsIn(shapeOf(op.getResult()), Layout::plain);
  return emitNode(std::move(node), op, Layout::plain);
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
        if (partition::isQint8(op))
          return emitQint8Linear(linear);
        return emitFullyConnected(op, linear.getInput(), linear.getWeight(),
                                  false, linear.getBias());
      })
      .Case<QuantizePerTensorOp, DequantizePerTensorOp>(
          [&](auto) { return emitQuantization(op); })
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
      .Case<DivOp>([&](auto) { return emitBinary(op, T::Divide); })
  // The ops XNNPACK runs as one node of their own (XnnpackNode in the ODS).
#define DUET_XNNPACK_NODE(Class, arity, Node, define)                          \
  .Case<Class>([&](auto) {                                                     \
    return arity == 2 ? emitBinary(op, T::Node) : emitUnary(op, T::Node);      \
  })
#include "dialects/aten/AtenXnnpackNodes.inc"
#undef DUET_XNNPACK_NODE
      .Case<ReluOp, HardtanhOp, ClampOp>([&](auto) { return emitClamp(op); })
      .Case<LeakyReluOp>([&](auto leaky) {
        return emitUnary(op, T::LeakyRelu,
                         float(leaky.getNegativeSlope().convertToDouble()));
      })
      .Case<EluOp>([&](auto elu) {
        return emitUnary(op, T::Elu, float(elu.getAlpha().convertToDouble()));
      })
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
        auto id = operand(softmax.getSelf(),
                          forRank(softmax.getSelf(), Layout::plain), op);
        if (failed(id))
          return failure();
        NodeRec node;
        node.type = T::Softmax;
        node.inputs = {*id};
        return emitNode(std::move(node), op, Layout::plain);
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
        WindowRec window = window2d(pool.getKernelSize(), pool.getStride(),
                                    pool.getPadding(), pool.getDilation());
        // ceil_mode's last window, past the bottom or right edge: padding
        // there makes XNNPACK's rounding down give it (its max pooling
        // never takes a padding element). XNNPACK's order is top, right,
        // bottom, left.
        ArrayRef<int64_t> in = shapeOf(pool.getSelf());
        ArrayRef<int64_t> out = shapeOf(pool.getResult());
        for (int axis = 0; axis < 2; ++axis) {
          int64_t span = int64_t(window.dilation[axis]) *
                             (int64_t(window.kernel[axis]) - 1) +
                         1;
          int64_t needed = (out[2 + axis] - 1) * window.stride[axis] + span;
          int64_t have = in[2 + axis] + 2 * int64_t(window.padding[axis]);
          if (needed > have)
            window.padding[axis == 0 ? 2 : 1] += uint32_t(needed - have);
        }
        return emitPooling(op, T::MaxPooling2d, window);
      })
      .Case<ConstantPadNdOp>([&](auto pad) { return emitPad(pad); })
      .Case<ViewOp>([&](auto view) { return emitView(view); })
      .Case<UpsampleBilinear2dOp>([&](auto resize) {
        ArrayRef<int64_t> out = shapeOf(resize.getResult());
        if (out.size() != 4)
          return bug(op, "XNNPACK resizes [N,C,H,W] only");
        auto id = operand(resize.getSelf(), Layout::nhwc, op);
        if (failed(id))
          return failure();
        NodeRec node;
        node.type = T::ResizeBilinear2d;
        node.inputs = {*id};
        node.shape = {uint64_t(out[2]), uint64_t(out[3])};
        node.alignCorners = resize.getAlignCorners();
        return emitNode(std::move(node), op, Layout::nhwc);
      })
      .Default([&](Operation *other) {
        return bug(other, "no XNNPACK node is written for " +
                              other->getName().getStringRef());
      });
}

LogicalResult BlobWriter::run(std::vector<uint8_t> &blob) {
  Block &body = op_.getBody().front();
  for (auto [index, arg] : llvm::enumerate(body.getArguments())) {
    ValueRec rec;
    rec.kind = fb::ValueKind::Input;
    rec.index = static_cast<int32_t>(index);
    rec.type = hostType(arg);
    rec.dims = dimsIn(shapeOf(arg), Layout::plain);
    if (rec.type == fb::DataType::Qint8)
      rec.quant = quantOf(arg);
    ids_[arg] = blob_.addValue(std::move(rec));
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [index, value] : llvm::enumerate(yield.getValues()))
    yields_[value] = static_cast<unsigned>(index);
  for (Operation &inner : body.without_terminator()) {
    // Constants and quantized weights are read by the nodes that take them.
    if (isa<arith::ConstantOp>(inner) || partition::isQuantizedWeightOp(&inner))
      continue;
    LogicalResult result = failure();
    if (auto change = dyn_cast<xnn::LayoutChangeOp>(inner))
      result = emitLayoutChange(change);
    else
      result = emitOp(&inner);
    if (failed(result))
      return failure();
  }
  blob = blob_.serialize();
  return success();
}

class XnnpackEmitter : public DelegateEmitter {
public:
  LogicalResult emit(DelegateOp op, DelegateEmitContext &context,
                     std::vector<uint8_t> &blob) override {
    return BlobWriter(op, context).run(blob);
  }
  // The blob numbers its own values, so the value a layout change holds in
  // another layout needs no program tensor of its own.
  Value heldValue(Operation *op) const override {
    if (auto change = dyn_cast<xnn::LayoutChangeOp>(op))
      return change.getInput();
    return {};
  }
};

} // namespace

DelegateEmitter &xnnpackEmitter() {
  static XnnpackEmitter emitter;
  return emitter;
}

} // namespace duet
