//===- XnnpackDelegate.cpp - one XNNPACK partition, ready to run ----------===//

#include "runtime/backends/xnnpack/XnnpackDelegate.h"

#include "runtime/core/FlatVectors.h"
#include "runtime/core/Limits.h"
#include "runtime/schema/xnnpack_generated.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

namespace duet::rt::xnnpack {

namespace fb = ::duet::xnnpack::schema;

namespace {

/// A node operand that is left out (a convolution without bias).
constexpr uint32_t kNoValue = 0xFFFFFFFFu;

/// Workers go to sleep after a run instead of spinning for the next one:
/// between runs (and between a delegate and the portable kernels around it)
/// a spinning worker takes a core the caller or another process needs, which
/// on a busy machine makes two threads slower than one (docs/xnnpack.md).
#ifdef XNN_FLAG_YIELD_WORKERS
constexpr uint32_t kRuntimeFlags = XNN_FLAG_YIELD_WORKERS;
#else
constexpr uint32_t kRuntimeFlags = 0;
#endif

/// A subgraph of fewer multiply-adds than this runs on the calling thread
/// alone: waking the pool's workers costs about 17 us a run on a 2-core
/// machine (one-node Reshape subgraphs went from under 1 us to 18 us at two
/// threads), more than splitting such a subgraph saves (docs/xnnpack.md).
constexpr double kThreadedWorkMin = 2e6;

/// A piece of a subgraph split around duet's own kernels runs on the pool,
/// as XNNPACK ran every node of the whole subgraph, when the whole one was
/// worth the pool and the piece has at least this many multiply-adds: the
/// workers spin between the pieces, so a piece pays only the hand-out, not
/// the wake. On the 2-core machine int8 MobileNetV2 at two threads took
/// 1.78-1.81 ms so, against 2.1-2.3 with kThreadedWorkMin per piece (which
/// left most of its depthwise convolutions to the calling thread).
constexpr double kPieceWorkMin = 2e5;

const char *statusName(xnn_status status) {
  switch (status) {
  case xnn_status_success:
    return "success";
  case xnn_status_uninitialized:
    return "XNNPACK is not initialized";
  case xnn_status_invalid_parameter:
    return "invalid parameter";
  case xnn_status_invalid_state:
    return "invalid state";
  case xnn_status_unsupported_parameter:
    return "unsupported parameter";
  case xnn_status_unsupported_hardware:
    return "unsupported hardware";
  case xnn_status_out_of_memory:
    return "out of memory";
  }
  return "unknown status";
}

/// The error of an XNNPACK call `what` that returned `status`: "WHAT failed:
/// STATUS NOTE; " and what to do. Out of memory and a broken state are the
/// library failing (ErrorCode::failure); a parameter or CPU it does not
/// support, a program this build cannot run (ErrorCode::unsupported); an
/// invalid parameter, a damaged program (the caller's code).
Status callFailed(const std::string &what, xnn_status status,
                  const std::string &note = {}) {
  std::string advice;
  ErrorCode code = ErrorCode::failure;
  switch (status) {
  case xnn_status_out_of_memory:
    advice = "the host is out of memory: free memory (load fewer programs "
             "at once) and try again";
    break;
  case xnn_status_unsupported_parameter:
  case xnn_status_unsupported_hardware:
    advice = "this XNNPACK cannot run it on this CPU: compile the model "
             "without XNNPACK (--backends vulkan or portable)";
    code = ErrorCode::unsupported;
    break;
  case xnn_status_invalid_parameter:
    advice = "the program's XNNPACK blob is wrong: recompile the model with "
             "this version of duet";
    code = ErrorCode::ok;
    break;
  default:
    advice = "XNNPACK is in a state duet did not expect: load the program "
             "again, and report it if it recurs";
  }
  Status error =
      Status::error("{} failed: {}{}{}; {}", what, statusName(status),
                    note.empty() ? "" : " ", note, advice);
  return code == ErrorCode::ok ? error : error.withCode(code);
}

const char *typeName(HostType type) {
  switch (type) {
  case HostType::f32:
    return "fp32";
  case HostType::f16:
    return "fp16";
  case HostType::bf16:
    return "bf16";
  case HostType::i8:
    return "int8";
  case HostType::i32:
    return "int32";
  }
  return "?";
}

std::string formatDims(const std::vector<size_t> &dims) {
  return fmt::format("[{}]", fmt::join(dims, ","));
}

size_t numel(const std::vector<size_t> &dims) {
  size_t n = 1;
  for (size_t d : dims)
    n *= d;
  return n;
}

/// How many operands a node type takes: {least, most}.
std::pair<size_t, size_t> operandCount(fb::NodeType type) {
  switch (type) {
  case fb::NodeType::Convolution2d:
  case fb::NodeType::DepthwiseConvolution2d:
  case fb::NodeType::Deconvolution2d:
  case fb::NodeType::FullyConnected:
    return {2, 3};
  case fb::NodeType::Add:
  case fb::NodeType::Subtract:
  case fb::NodeType::Multiply:
  case fb::NodeType::Divide:
  case fb::NodeType::Maximum:
  case fb::NodeType::Minimum:
    return {2, 2};
  default:
    return {1, 1};
  }
}

/// A window field of `count` entries, or null when it has another size.
const flatbuffers::Vector<uint32_t> *
windowField(const flatbuffers::Vector<uint32_t> *field, size_t count) {
  return field && field->size() == count ? field : nullptr;
}

/// A window's fields (windowField of each); all null without a window.
struct WindowFields {
  const flatbuffers::Vector<uint32_t> *pad = nullptr, *kernel = nullptr,
                                      *stride = nullptr, *dilation = nullptr,
                                      *adjustment = nullptr;
};
WindowFields windowFields(const fb::Window *window) {
  if (!window)
    return {};
  return {windowField(window->padding(), 4), windowField(window->kernel(), 2),
          windowField(window->stride(), 2), windowField(window->dilation(), 2),
          windowField(window->adjustment(), 2)};
}

/// The XNNPACK ids of one subgraph's values, defined on first use.
class SubgraphBuilder {
public:
  SubgraphBuilder(xnn_subgraph_t subgraph,
                  const std::vector<uint32_t> &external)
      : subgraph_(subgraph), external_(external) {}

  xnn_subgraph_t subgraph() const { return subgraph_; }

  /// The XNNPACK id of value `id`: its external id when it is external to
  /// this subgraph, else an internal value (with its data if constant).
  xnn_status define(uint32_t id, const XnnpackDelegate::ValueSpec &spec,
                    uint32_t flags, uint32_t &xnnId) {
    const std::vector<size_t> &dims = spec.dims;
    const void *data = spec.constant;
    auto found = ids_.find(id);
    if (found != ids_.end()) {
      xnnId = found->second;
      return xnn_status_success;
    }
    auto external = std::find(external_.begin(), external_.end(), id);
    uint32_t externalId = XNN_INVALID_VALUE_ID;
    if (external != external_.end())
      externalId = static_cast<uint32_t>(external - external_.begin());
    else
      flags = 0;
    xnn_status status;
    switch (spec.datatype) {
    case xnn_datatype_qint8:
      status = xnn_define_quantized_tensor_value(
          subgraph_, spec.datatype, spec.zeroPoint, spec.scale, dims.size(),
          dims.data(), data, externalId, flags, &xnnId);
      break;
    case xnn_datatype_qcint8:
    case xnn_datatype_qcint32:
      status = xnn_define_channelwise_quantized_tensor_value(
          subgraph_, spec.datatype, spec.channelScales.data(), dims.size(),
          spec.channelDim, dims.data(), data, externalId, flags, &xnnId);
      break;
    default:
      status = xnn_define_tensor_value(subgraph_, spec.datatype, dims.size(),
                                       dims.data(), data, externalId, flags,
                                       &xnnId);
    }
    if (status == xnn_status_success)
      ids_.emplace(id, xnnId);
    return status;
  }

private:
  xnn_subgraph_t subgraph_;
  const std::vector<uint32_t> &external_;
  std::map<uint32_t, uint32_t> ids_;
};

/// The nodes whose define call differs only in the function: one operand;
/// two; two with output bounds.
using UnaryDefine = xnn_status (*)(xnn_subgraph_t, uint32_t, uint32_t,
                                   uint32_t);
using BinaryDefine = xnn_status (*)(xnn_subgraph_t, uint32_t, uint32_t,
                                    uint32_t, uint32_t);
using BoundedBinaryDefine = xnn_status (*)(xnn_subgraph_t, float, float,
                                           uint32_t, uint32_t, uint32_t,
                                           uint32_t);
template <typename Define> struct NodeDefine {
  fb::NodeType type;
  const char *name;
  Define define;
};
#define DUET_XNN_NODE(type, fn)                                                \
  { fb::NodeType::type, "xnn_define_" #fn, xnn_define_##fn }
const NodeDefine<UnaryDefine> kUnaryNodes[] = {
    DUET_XNN_NODE(HardSwish, hardswish),
    DUET_XNN_NODE(Sigmoid, sigmoid),
    DUET_XNN_NODE(Abs, abs),
    DUET_XNN_NODE(Negate, negate),
    DUET_XNN_NODE(Square, square),
    DUET_XNN_NODE(SquareRoot, square_root),
    DUET_XNN_NODE(Ceiling, ceiling),
    DUET_XNN_NODE(Floor, floor),
    DUET_XNN_NODE(BankersRounding, bankers_rounding),
    DUET_XNN_NODE(Softmax, softmax),
};
const NodeDefine<BinaryDefine> kBinaryNodes[] = {
    DUET_XNN_NODE(Maximum, maximum2),
    DUET_XNN_NODE(Minimum, minimum2),
};
const NodeDefine<BoundedBinaryDefine> kBoundedBinaryNodes[] = {
    DUET_XNN_NODE(Add, add2),
    DUET_XNN_NODE(Subtract, subtract),
    DUET_XNN_NODE(Multiply, multiply2),
    DUET_XNN_NODE(Divide, divide),
};
#undef DUET_XNN_NODE

/// The entry of `table` for `type`, or nullptr.
template <typename Define, size_t N>
const NodeDefine<Define> *findNode(const NodeDefine<Define> (&table)[N],
                                   fb::NodeType type) {
  for (const NodeDefine<Define> &entry : table)
    if (entry.type == type)
      return &entry;
  return nullptr;
}

/// Defines `node` of a checked blob in `subgraph`, on the XNNPACK ids of its
/// operands (`ids`, XNN_INVALID_VALUE_ID for an absent bias) and of its
/// output; `inputRank` is the rank of its first operand.
Status defineNode(xnn_subgraph_t subgraph, const fb::Node &node,
                  const uint32_t (&ids)[3], uint32_t out, size_t inputRank,
                  const std::string &what) {
  xnn_status status = xnn_status_success;
  float lo = node.output_min(), hi = node.output_max();
  const fb::Window *window = node.window();
  const WindowFields fields = windowFields(window);
  const auto *pad = fields.pad, *kernel = fields.kernel,
             *stride = fields.stride, *dilation = fields.dilation,
             *adjustment = fields.adjustment;
  const char *fn = "";
  if (const auto *unary = findNode(kUnaryNodes, node.type())) {
    fn = unary->name;
    status = unary->define(subgraph, ids[0], out, 0);
  } else if (const auto *binary = findNode(kBinaryNodes, node.type())) {
    fn = binary->name;
    status = binary->define(subgraph, ids[0], ids[1], out, 0);
  } else if (const auto *bounded = findNode(kBoundedBinaryNodes, node.type())) {
    fn = bounded->name;
    status = bounded->define(subgraph, lo, hi, ids[0], ids[1], out, 0);
  }
  switch (node.type()) {
  case fb::NodeType::Convolution2d:
    fn = "xnn_define_convolution_2d";
    status = xnn_define_convolution_2d(
        subgraph, pad->Get(0), pad->Get(1), pad->Get(2), pad->Get(3),
        kernel->Get(0), kernel->Get(1), stride->Get(0), stride->Get(1),
        dilation->Get(0), dilation->Get(1), window->groups(),
        window->group_input_channels(), window->group_output_channels(), lo, hi,
        ids[0], ids[1], ids[2], out, 0);
    break;
  case fb::NodeType::DepthwiseConvolution2d:
    fn = "xnn_define_depthwise_convolution_2d";
    status = xnn_define_depthwise_convolution_2d(
        subgraph, pad->Get(0), pad->Get(1), pad->Get(2), pad->Get(3),
        kernel->Get(0), kernel->Get(1), stride->Get(0), stride->Get(1),
        dilation->Get(0), dilation->Get(1),
        static_cast<uint32_t>(window->group_output_channels()),
        window->group_input_channels(), lo, hi, ids[0], ids[1], ids[2], out, 0);
    break;
  case fb::NodeType::Deconvolution2d:
    fn = "xnn_define_deconvolution_2d";
    status = xnn_define_deconvolution_2d(
        subgraph, pad->Get(0), pad->Get(1), pad->Get(2), pad->Get(3),
        adjustment->Get(0), adjustment->Get(1), kernel->Get(0), kernel->Get(1),
        stride->Get(0), stride->Get(1), dilation->Get(0), dilation->Get(1),
        window->groups(), window->group_input_channels(),
        window->group_output_channels(), lo, hi, ids[0], ids[1], ids[2], out,
        0);
    break;
  case fb::NodeType::FullyConnected:
    fn = "xnn_define_fully_connected";
    status = xnn_define_fully_connected(subgraph, lo, hi, ids[0], ids[1],
                                        ids[2], out, 0);
    break;
  case fb::NodeType::Clamp:
    fn = "xnn_define_clamp";
    status = xnn_define_clamp(subgraph, lo, hi, ids[0], out, 0);
    break;
  case fb::NodeType::LeakyRelu:
    fn = "xnn_define_leaky_relu";
    status = xnn_define_leaky_relu(subgraph, node.scalar(), ids[0], out, 0);
    break;
  case fb::NodeType::Elu:
    fn = "xnn_define_elu";
    status = xnn_define_elu(subgraph, node.scalar(), ids[0], out, 0);
    break;
  case fb::NodeType::GlobalAveragePooling2d:
    fn = "xnn_define_global_average_pooling_2d";
    status =
        xnn_define_global_average_pooling_2d(subgraph, lo, hi, ids[0], out, 0);
    break;
  case fb::NodeType::AveragePooling2d:
    fn = "xnn_define_average_pooling_2d";
    status = xnn_define_average_pooling_2d(
        subgraph, pad->Get(0), pad->Get(1), pad->Get(2), pad->Get(3),
        kernel->Get(0), kernel->Get(1), stride->Get(0), stride->Get(1), lo, hi,
        ids[0], out, 0);
    break;
  case fb::NodeType::MaxPooling2d:
    fn = "xnn_define_max_pooling_2d";
    status = xnn_define_max_pooling_2d(
        subgraph, pad->Get(0), pad->Get(1), pad->Get(2), pad->Get(3),
        kernel->Get(0), kernel->Get(1), stride->Get(0), stride->Get(1),
        dilation->Get(0), dilation->Get(1), lo, hi, ids[0], out, 0);
    break;
  case fb::NodeType::ConstantPad: {
    fn = "xnn_define_static_constant_pad";
    size_t rank = inputRank;
    if (!node.shape() || node.shape()->size() != 2 * rank)
      return Status::error("{}: the padding has {} entries, expected {} "
                           "(before and after each of {} dims)",
                           what, node.shape() ? node.shape()->size() : 0,
                           2 * rank, rank);
    std::vector<size_t> pre(node.shape()->begin(),
                            node.shape()->begin() + rank);
    std::vector<size_t> post(node.shape()->begin() + rank, node.shape()->end());
    status = xnn_define_static_constant_pad(subgraph, pre.data(), post.data(),
                                            node.scalar(), ids[0], out, 0);
    break;
  }
  case fb::NodeType::Reshape: {
    fn = "xnn_define_static_reshape";
    if (!node.shape() || node.shape()->size() == 0 ||
        node.shape()->size() > XNN_MAX_TENSOR_DIMS)
      return Status::error("{}: the new shape has {} dims; XNNPACK takes "
                           "1 to {}",
                           what, node.shape() ? node.shape()->size() : 0,
                           XNN_MAX_TENSOR_DIMS);
    std::vector<size_t> shape(node.shape()->begin(), node.shape()->end());
    status = xnn_define_static_reshape(subgraph, shape.size(), shape.data(),
                                       ids[0], out, 0);
    break;
  }
  case fb::NodeType::ResizeBilinear2d:
    fn = "xnn_define_static_resize_bilinear_2d";
    if (!node.shape() || node.shape()->size() != 2)
      return Status::error("{}: expected the new height and width", what);
    status = xnn_define_static_resize_bilinear_2d(
        subgraph, node.shape()->Get(0), node.shape()->Get(1), ids[0], out,
        node.align_corners() ? XNN_FLAG_ALIGN_CORNERS : 0);
    break;
  case fb::NodeType::Convert:
    fn = "xnn_define_convert";
    status = xnn_define_convert(subgraph, ids[0], out, 0);
    break;
  default: // one of the tables above
    break;
  }
  if (status != xnn_status_success)
    return Status::error("{}: {} failed: {}", what, fn, statusName(status));
  return Status::ok();
}

} // namespace

XnnpackDelegate::~XnnpackDelegate() {
  for (auto &step : steps_)
    if (auto *run = std::get_if<SubgraphRun>(&step); run && run->runtime)
      xnn_delete_runtime(run->runtime);
  for (void *buffer : buffers_)
    std::free(buffer);
}

Status XnnpackDelegate::create(const Program &program, uint32_t index,
                               ByteSpan blob,
                               std::shared_ptr<pthreadpool> poolOwner,
                               std::unique_ptr<PreparedDelegate> &prepared) {
  std::unique_ptr<XnnpackDelegate> delegate(
      new XnnpackDelegate(program.options().faults));
  delegate->pool_ = std::move(poolOwner);
  DUET_RETURN_IF_ERROR(delegate->load(program, index, blob));
  prepared = std::move(delegate);
  return Status::ok();
}

Status XnnpackDelegate::load(const Program &program, uint32_t index,
                             ByteSpan blob) {
  flatbuffers::Verifier verifier(blob.data, blob.size);
  // The identifier sits at bytes [4, 8): a shorter blob has none to read.
  if (!blob.data || blob.size < 8 ||
      !fb::DelegateBufferHasIdentifier(blob.data) ||
      !fb::VerifyDelegateBuffer(verifier))
    return Status::error("the blob is not an XNNPACK delegate (identifier "
                         "DXNN, runtime/schema/xnnpack.fbs) or is damaged; "
                         "recompile the model with this version of duet");
  const fb::Delegate *root = fb::GetDelegate(blob.data);

  // The DelegateCall gives the tensors the partition's inputs and outputs
  // are bound to; the loader has checked that exactly one calls it.
  const DelegateCall *call = nullptr;
  for (const Instruction &instruction : program.instructions())
    if (const auto *c = std::get_if<DelegateCall>(&instruction);
        c && c->delegate == index)
      call = c;
  if (!call)
    return Status::error("no instruction calls delegate {}", index);
  inputCount_ = call->inputs.size();
  outputCount_ = call->outputs.size();

  DUET_RETURN_IF_ERROR(loadValues(program, *call, *root));
  std::vector<bool> hostMemory;
  DUET_RETURN_IF_ERROR(checkSteps(*root, hostMemory));
  DUET_RETURN_IF_ERROR(planDebugging(program, index, *root, hostMemory));
  std::vector<std::pair<int64_t, int64_t>> lives;
  std::vector<PlannedStep> plan;
  planSteps(*root, program.options().xnnpackOnly, hostMemory, lives, plan);
  // Under an observer the values are read after the run: none shares.
  DUET_RETURN_IF_ERROR(allocateHostBuffers(
      hostMemory, program.options().observer ? nullptr : &lives));
  DUET_RETURN_IF_ERROR(createRuntimes(plan));
  if (program.options().profile.enabled)
    for (size_t s = 0; s < steps_.size(); ++s)
      stepTimes_.push_back({stepName(s), 0});
  return Status::ok();
}

std::string XnnpackDelegate::stepName(size_t s) const {
  if (const auto *copy = std::get_if<CopyRun>(&steps_[s])) {
    const ValueSpec &in = values_[copy->input];
    const ValueSpec &out = values_[copy->output];
    std::string what;
    if (!copy->permutation.empty())
      what = fmt::format("permute {}", fmt::join(copy->permutation, ","));
    if (in.type != out.type)
      what += fmt::format("{}{} to {}", what.empty() ? "" : ", ",
                          typeName(in.type), typeName(out.type));
    return fmt::format("step {}: host copy {} {} ({})", s, typeName(in.type),
                       formatDims(in.dims), what.empty() ? "plain" : what);
  }
  if (const auto *convolution = std::get_if<ConvolutionRun>(&steps_[s])) {
    const ValueSpec &in = values_[convolution->input];
    const ValueSpec &out = values_[convolution->output];
    const Qs8ConvolutionParams &p = convolution->kernel->params();
    std::string window = fmt::format("{}x{}", p.kernelHeight, p.kernelWidth);
    if (p.strideHeight != 1 || p.strideWidth != 1)
      window += fmt::format(" stride {}x{}", p.strideHeight, p.strideWidth);
    if (p.dilationHeight != 1 || p.dilationWidth != 1)
      window +=
          fmt::format(" dilation {}x{}", p.dilationHeight, p.dilationWidth);
    return fmt::format(
        "step {}: duet qint8 {} convolution {} to {} "
        "(AVX-512 VNNI){}",
        s, window, formatDims(in.dims), formatDims(out.dims),
        convolution->threaded || !pool_ ? "" : ", on the calling thread");
  }
  // The node types by how many of them the subgraph has, most first.
  const auto &run = std::get<SubgraphRun>(steps_[s]);
  std::map<std::string, size_t> counts;
  for (const fb::Node *node : run.nodes)
    ++counts[fb::EnumNameNodeType(node->type())];
  std::vector<std::pair<std::string, size_t>> byCount(counts.begin(),
                                                      counts.end());
  std::stable_sort(
      byCount.begin(), byCount.end(),
      [](const auto &a, const auto &b) { return a.second > b.second; });
  std::vector<std::string> listed;
  for (const auto &[type, count] : byCount)
    listed.push_back(fmt::format("{} x{}", type, count));
  return fmt::format("step {}: subgraph of {} node{} ({}){}", s,
                     run.nodes.size(), run.nodes.size() == 1 ? "" : "s",
                     fmt::join(listed, ", "),
                     run.threaded || !pool_ ? "" : ", on the calling thread");
}

Status XnnpackDelegate::loadValues(const Program &program,
                                   const DelegateCall &call,
                                   const fb::Delegate &root) {
  // Values: kinds, dims, and agreement with the program's tensors.
  const auto *values = root.values();
  size_t valueCount = values ? values->size() : 0;
  values_.resize(valueCount);
  std::vector<bool> outputBound(outputCount_, false);
  for (size_t v = 0; v < valueCount; ++v) {
    const fb::Value *value = values->Get(v);
    ValueSpec &spec = values_[v];
    std::string name = fmt::format("value {}", v);
    switch (value->datatype()) {
    case fb::DataType::Fp32:
      spec.type = HostType::f32;
      spec.datatype = xnn_datatype_fp32;
      break;
    case fb::DataType::Fp16:
      spec.type = HostType::f16;
      spec.datatype = xnn_datatype_fp16;
      break;
    case fb::DataType::Bf16:
      // Only host copies read it; what XNNPACK sees is the fp32 copy.
      spec.type = HostType::bf16;
      spec.datatype = xnn_datatype_fp32;
      break;
    case fb::DataType::Qint8:
      spec.type = HostType::i8;
      spec.datatype = xnn_datatype_qint8;
      spec.zeroPoint = value->zero_point();
      spec.scale = value->scale();
      if (spec.zeroPoint < -128 || spec.zeroPoint > 127 ||
          !(spec.scale > 0) || !std::isfinite(spec.scale))
        return Status::error("{} is qint8 with zero point {} and scale {}; "
                             "XNNPACK needs a zero point in [-128, 127] and "
                             "a positive finite scale",
                             name, spec.zeroPoint, spec.scale);
      break;
    case fb::DataType::Qcint8:
    case fb::DataType::Qcint32:
      spec.type = value->datatype() == fb::DataType::Qcint8 ? HostType::i8
                                                             : HostType::i32;
      spec.datatype = value->datatype() == fb::DataType::Qcint8
                          ? xnn_datatype_qcint8
                          : xnn_datatype_qcint32;
      break;
    default:
      return Status::error("{} has datatype {}, which this runtime does not "
                           "know",
                           name, static_cast<int>(value->datatype()));
    }
    std::vector<uint64_t> dims = copyVector(value->dims());
    spec.dims.assign(dims.begin(), dims.end());
    if (spec.dims.empty() || spec.dims.size() > XNN_MAX_TENSOR_DIMS)
      return Status::error("{} has rank {}; XNNPACK takes ranks 1 to {}", name,
                           spec.dims.size(), XNN_MAX_TENSOR_DIMS);
    if (spec.datatype == xnn_datatype_qcint8 ||
        spec.datatype == xnn_datatype_qcint32) {
      // One positive finite scale per index of the channel dim, and only a
      // constant can be channelwise.
      spec.channelDim = value->channel_dim();
      std::vector<float> scales = copyVector(value->channel_scales());
      bool valid = value->kind() == fb::ValueKind::Constant &&
                   spec.channelDim < spec.dims.size() &&
                   scales.size() == spec.dims[spec.channelDim];
      for (float scale : scales)
        valid = valid && scale > 0 && std::isfinite(scale);
      if (!valid)
        return Status::error("{} is a channelwise quantized constant without "
                             "one positive scale per index of its channel "
                             "dim {} (dims {}, {} scales)",
                             name, spec.channelDim, formatDims(spec.dims),
                             scales.size());
      spec.channelScales = std::move(scales);
    }
    // Every later product of dims (shape checks, host buffers) stays below
    // this bound.
    std::optional<uint64_t> elements = 1;
    for (size_t d : spec.dims) {
      elements = checkedMul(*elements, d);
      if (d == 0 || !elements ||
          *elements * hostTypeSize(spec.type) > kMaxTensorBytes)
        return Status::error("{} has dims {}, which XNNPACK cannot hold (no "
                             "empty dim, at most {} bytes)",
                             name, formatDims(spec.dims), kMaxTensorBytes);
    }
    int32_t at = value->index();
    auto checkTensor = [&](int32_t tensor, const char *role) -> Status {
      const TensorInfo &info = program.tensors()[tensor];
      HostType type;
      if (!fromDType(info.dtype, type) || type != spec.type)
        return Status::error("{} ({} of the delegate) is {}, but {} is {}",
                             name, role, typeName(spec.type),
                             program.describeTensor(tensor),
                             dtypeName(info.dtype));
      uint64_t count = info.nbytes / dtypeSize(info.dtype);
      if (count != *elements)
        return Status::error("{} ({}) has dims {} ({} elements), but {} has "
                             "{}",
                             name, role, formatDims(spec.dims), *elements,
                             program.describeTensor(tensor), count);
      return Status::ok();
    };
    switch (value->kind()) {
    case fb::ValueKind::Internal:
      spec.kind = Kind::internal;
      break;
    case fb::ValueKind::Input:
      if (at < 0 || static_cast<size_t>(at) >= inputCount_)
        return Status::error("{} is input {}, but the delegate has {} "
                             "inputs",
                             name, at, inputCount_);
      spec.kind = Kind::input;
      spec.index = static_cast<size_t>(at);
      DUET_RETURN_IF_ERROR(checkTensor(call.inputs[spec.index], "input"));
      break;
    case fb::ValueKind::Output:
      if (at < 0 || static_cast<size_t>(at) >= outputCount_)
        return Status::error("{} is output {}, but the delegate has {} "
                             "outputs",
                             name, at, outputCount_);
      if (outputBound[at])
        return Status::error("{} is output {}, which another value already "
                             "is",
                             name, at);
      outputBound[at] = true;
      spec.kind = Kind::output;
      spec.index = static_cast<size_t>(at);
      DUET_RETURN_IF_ERROR(checkTensor(call.outputs[spec.index], "output"));
      break;
    case fb::ValueKind::Constant: {
      if (at < 0 || static_cast<size_t>(at) >= program.tensors().size() ||
          program.tensors()[at].kind != TensorKind::constant)
        return Status::error("{} names tensor {} as its constant, which is "
                             "not a constant of the program",
                             name, at);
      DUET_RETURN_IF_ERROR(checkTensor(at, "constant"));
      spec.kind = Kind::constant;
      spec.constant = program.constantView(at).data;
      break;
    }
    default:
      return Status::error("{} has kind {}, which this runtime does not know",
                           name, static_cast<int>(value->kind()));
    }
  }
  for (size_t k = 0; k < outputCount_; ++k)
    if (!outputBound[k])
      return Status::error("no value of the blob is output {}", k);
  return Status::ok();
}

Status XnnpackDelegate::checkSteps(const fb::Delegate &root,
                                   std::vector<bool> &hostMemory) {
  size_t valueCount = values_.size();
  // Steps: every value is written once, before it is read; remember which
  // steps touch each computed value to find the ones that need host memory.
  const auto *steps = root.steps_type();
  size_t stepCount = steps ? steps->size() : 0;
  if (stepCount == 0)
    return Status::error("the blob has no steps");
  std::vector<bool> written(valueCount, false), read(valueCount, false);
  std::vector<int64_t> firstStep(valueCount, -1);
  hostMemory.assign(valueCount, false);
  auto touch = [&](uint32_t id, size_t step, bool host) {
    if (firstStep[id] < 0)
      firstStep[id] = static_cast<int64_t>(step);
    else if (firstStep[id] != static_cast<int64_t>(step))
      hostMemory[id] = true;
    if (host)
      hostMemory[id] = true;
  };
  auto readable = [&](uint32_t id, const std::string &what) -> Status {
    if (id >= valueCount)
      return Status::error("{} reads value {}, but the blob has {} values",
                           what, id, valueCount);
    Kind kind = values_[id].kind;
    if (kind == Kind::internal || kind == Kind::output)
      if (!written[id])
        return Status::error("{} reads value {} before any step writes it",
                             what, id);
    return Status::ok();
  };
  auto computable = [&](uint32_t id, const std::string &what) -> Status {
    if (values_[id].type != HostType::bf16)
      return Status::ok();
    return Status::error("{}: value {} is bf16, which XNNPACK cannot compute; "
                         "the compiler converts it on the host first",
                         what, id);
  };
  auto writable = [&](uint32_t id, const std::string &what) -> Status {
    if (id >= valueCount)
      return Status::error("{} writes value {}, but the blob has {} values",
                           what, id, valueCount);
    Kind kind = values_[id].kind;
    if (kind == Kind::input || kind == Kind::constant)
      return Status::error("{} writes value {}, a delegate input or a "
                           "constant",
                           what, id);
    if (written[id])
      return Status::error("{} writes value {} a second time", what, id);
    written[id] = true;
    return Status::ok();
  };
  for (size_t s = 0; s < stepCount; ++s) {
    std::string where = fmt::format("step {}", s);
    if (steps->Get(s) == fb::Step::Copy) {
      const auto *copy = root.steps()->GetAs<fb::Copy>(s);
      DUET_RETURN_IF_ERROR(readable(copy->input(), where));
      DUET_RETURN_IF_ERROR(writable(copy->output(), where));
      read[copy->input()] = true;
      const ValueSpec &in = values_[copy->input()];
      const ValueSpec &out = values_[copy->output()];
      std::vector<uint8_t> permutation;
      if (copy->permutation())
        permutation.assign(copy->permutation()->begin(),
                           copy->permutation()->end());
      bool valid = permutation.empty()
                       ? numel(in.dims) == numel(out.dims)
                       : permutation.size() == in.dims.size() &&
                             permutation.size() == out.dims.size();
      std::vector<bool> seen(in.dims.size(), false);
      // Floats convert into each other; qint8 integers copy only as they
      // are, and only between values of one quantization.
      bool integers = in.type == HostType::i8 || out.type == HostType::i8;
      if (integers && (in.type != out.type || in.datatype != out.datatype ||
                       in.zeroPoint != out.zeroPoint || in.scale != out.scale))
        return Status::error("{}: copy of value {} ({}) into value {} ({}) "
                             "would change its integers or their "
                             "quantization; a host copy only moves them",
                             where, copy->input(), typeName(in.type),
                             copy->output(), typeName(out.type));
      if (in.type == HostType::i32 || out.type == HostType::i32)
        return Status::error("{}: a host copy does not move int32 values",
                             where);
      for (size_t i = 0; valid && i < permutation.size(); ++i) {
        valid = permutation[i] < in.dims.size() && !seen[permutation[i]] &&
                out.dims[i] == in.dims[permutation[i]];
        if (valid)
          seen[permutation[i]] = true;
      }
      if (!valid)
        return Status::error("{}: copy of value {} {} into value {} {} with "
                             "permutation [{}] does not fit",
                             where, copy->input(), formatDims(in.dims),
                             copy->output(), formatDims(out.dims),
                             fmt::join(permutation, ","));
      touch(copy->input(), s, true);
      touch(copy->output(), s, true);
      continue;
    }
    if (steps->Get(s) != fb::Step::Subgraph)
      return Status::error("{} has a kind this runtime does not know", where);
    const auto *subgraph = root.steps()->GetAs<fb::Subgraph>(s);
    if (!subgraph->nodes() || subgraph->nodes()->size() == 0)
      return Status::error("{} is a subgraph without nodes", where);
    for (size_t n = 0; n < subgraph->nodes()->size(); ++n) {
      const fb::Node *node = subgraph->nodes()->Get(n);
      std::string what = fmt::format("{} node {} ({})", where, n,
                                     fb::EnumNameNodeType(node->type()));
      if (node->type() > fb::NodeType::MAX)
        return Status::error("{} node {} has a type this runtime does not "
                             "know",
                             where, n);
      // Node shapes are read in place below and when the subgraph is defined.
      if (!isAligned(node->shape()))
        return Status::error("{} has a shape vector off its 8-byte alignment; "
                             "the file is corrupt",
                             what);
      auto [least, most] = operandCount(node->type());
      size_t count = node->inputs() ? node->inputs()->size() : 0;
      if (count < least || count > most)
        return Status::error("{} has {} operands, expected {}{}", what, count,
                             least,
                             most > least ? fmt::format(" to {}", most) : "");
      for (size_t i = 0; i < count; ++i) {
        uint32_t id = node->inputs()->Get(i);
        if (id == kNoValue && i == 2)
          continue;
        DUET_RETURN_IF_ERROR(readable(id, what));
        DUET_RETURN_IF_ERROR(computable(id, what));
        touch(id, s, false);
        read[id] = true;
      }
      DUET_RETURN_IF_ERROR(writable(node->output(), what));
      DUET_RETURN_IF_ERROR(computable(node->output(), what));
      touch(node->output(), s, false);
      DUET_RETURN_IF_ERROR(checkShapes(*node, what));
    }
  }
  for (size_t v = 0; v < valueCount; ++v) {
    if (values_[v].kind == Kind::output && !written[v])
      return Status::error("no step writes value {} (output {})", v,
                           values_[v].index);
    // XNNPACK gives a computed value that nothing reads no memory, and its
    // node would then write through a null pointer.
    if (values_[v].kind == Kind::internal && written[v] && !read[v])
      return Status::error("value {} is computed but never read; a blob "
                           "keeps only values that reach an output",
                           v);
  }

  return Status::ok();
}

Status XnnpackDelegate::allocateHostBuffers(
    const std::vector<bool> &hostMemory,
    const std::vector<std::pair<int64_t, int64_t>> *lives) {
  // Host buffers, XNN_EXTRA_BYTES longer than the value (XNNPACK may read
  // that far past an input), 64-byte aligned, in one block. Two values share
  // bytes only when no step touches both (`lives`: the first and last step
  // of each); without `lives` none shares.
  struct Placed {
    uint32_t value;
    size_t bytes, offset;
  };
  std::vector<Placed> placed;
  for (size_t v = 0; v < values_.size(); ++v)
    if (values_[v].kind == Kind::internal && hostMemory[v])
      placed.push_back(
          {static_cast<uint32_t>(v),
           (numel(values_[v].dims) * hostTypeSize(values_[v].type) +
            XNN_EXTRA_BYTES + 63) /
               64 * 64,
           0});
  if (placed.empty())
    return Status::ok();
  // Largest first, each at the lowest offset clear of every placed value
  // that lives at the same time.
  std::stable_sort(
      placed.begin(), placed.end(),
      [](const Placed &a, const Placed &b) { return a.bytes > b.bytes; });
  auto together = [&](uint32_t a, uint32_t b) {
    if (!lives)
      return true;
    const auto &x = (*lives)[a], &y = (*lives)[b];
    return x.first <= y.second && y.first <= x.second;
  };
  size_t total = 0;
  for (size_t i = 0; i < placed.size(); ++i) {
    size_t offset = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t j = 0; j < i; ++j)
        if (together(placed[i].value, placed[j].value) &&
            offset < placed[j].offset + placed[j].bytes &&
            placed[j].offset < offset + placed[i].bytes) {
          offset = placed[j].offset + placed[j].bytes;
          moved = true;
        }
    }
    placed[i].offset = offset;
    total = std::max(total, offset + placed[i].bytes);
  }
  void *block = nullptr;
  if (posix_memalign(&block, 64, total) != 0)
    return Status::error("cannot allocate {} bytes for the values between "
                         "steps",
                         total);
  std::memset(block, 0, total);
  buffers_.push_back(block);
  for (const Placed &p : placed)
    values_[p.value].buffer = static_cast<uint8_t *>(block) + p.offset;
  return Status::ok();
}

struct XnnpackDelegate::PlannedStep {
  size_t step = 0;
  const fb::Copy *copy = nullptr;
  /// A node on duet's own kernel and its parameters, or a run of nodes for
  /// one XNNPACK subgraph (blob step `step`'s nodes `indices`).
  const fb::Node *own = nullptr;
  Qs8ConvolutionParams params;
  std::vector<const fb::Node *> nodes;
  std::vector<size_t> indices;
  bool threaded = false;
};

Status XnnpackDelegate::createRuntimes(const std::vector<PlannedStep> &plan) {
  // Workers sleep after the last step that uses them, and spin between the
  // others: waking them costs about 17 us on the 2-core machine, more than
  // many steps take (docs/xnnpack.md).
  size_t lastThreaded = plan.size();
  for (size_t i = 0; i < plan.size(); ++i)
    if (plan[i].threaded)
      lastThreaded = i;
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedStep &step = plan[i];
    if (step.copy) {
      CopyRun run;
      run.input = step.copy->input();
      run.output = step.copy->output();
      if (step.copy->permutation())
        run.permutation.assign(step.copy->permutation()->begin(),
                               step.copy->permutation()->end());
      steps_.emplace_back(std::move(run));
      continue;
    }
    if (!step.own) {
      DUET_RETURN_IF_ERROR(createSubgraph(step.step, step.nodes, step.indices,
                                          step.threaded, i == lastThreaded));
      continue;
    }
    const auto &inputs = *step.own->inputs();
    uint32_t bias = inputs.size() > 2 ? inputs.Get(2) : kNoValue;
    ConvolutionRun convolution;
    convolution.kernel = std::make_unique<Qs8Convolution>(
        step.params,
        static_cast<const int8_t *>(values_[inputs.Get(1)].constant),
        values_[inputs.Get(1)].channelScales.data(),
        bias == kNoValue
            ? nullptr
            : static_cast<const int32_t *>(values_[bias].constant));
    convolution.input = inputs.Get(0);
    convolution.output = step.own->output();
    convolution.batch = values_[convolution.input].dims[0];
    convolution.threaded = step.threaded;
    convolution.yield = i == lastThreaded;
    steps_.emplace_back(std::move(convolution));
  }
  return Status::ok();
}

bool XnnpackDelegate::convolutionParams(const fb::Node &node,
                                        Qs8ConvolutionParams &params) const {
  if (node.type() != fb::NodeType::Convolution2d)
    return false;
  const fb::Window *window = node.window();
  const WindowFields fields = windowFields(window);
  if (!fields.pad || !fields.kernel || !fields.stride || !fields.dilation ||
      window->groups() != 1)
    return false;
  const auto &inputs = *node.inputs();
  const ValueSpec &input = values_[inputs.Get(0)];
  const ValueSpec &filter = values_[inputs.Get(1)];
  const ValueSpec &output = values_[node.output()];
  uint32_t bias = inputs.size() > 2 ? inputs.Get(2) : kNoValue;
  if (input.datatype != xnn_datatype_qint8 ||
      output.datatype != xnn_datatype_qint8 || input.dims.size() != 4 ||
      output.dims.size() != 4 || filter.datatype != xnn_datatype_qcint8 ||
      filter.kind != Kind::constant || filter.channelDim != 0 ||
      filter.dims.size() != 4)
    return false;
  if (bias != kNoValue && (values_[bias].datatype != xnn_datatype_qcint32 ||
                           values_[bias].kind != Kind::constant))
    return false;
  // checkShapes has held the filter to [output channels, kernel height,
  // kernel width, input channels] and the output to what the window makes.
  params.inputChannels = input.dims[3];
  params.outputChannels = output.dims[3];
  params.inputHeight = input.dims[1];
  params.inputWidth = input.dims[2];
  params.outputHeight = output.dims[1];
  params.outputWidth = output.dims[2];
  params.kernelHeight = fields.kernel->Get(0);
  params.kernelWidth = fields.kernel->Get(1);
  params.strideHeight = fields.stride->Get(0);
  params.strideWidth = fields.stride->Get(1);
  params.dilationHeight = fields.dilation->Get(0);
  params.dilationWidth = fields.dilation->Get(1);
  params.padTop = fields.pad->Get(0);
  params.padRight = fields.pad->Get(1);
  params.padBottom = fields.pad->Get(2);
  params.padLeft = fields.pad->Get(3);
  params.inputZeroPoint = input.zeroPoint;
  params.inputScale = input.scale;
  params.outputZeroPoint = output.zeroPoint;
  params.outputScale = output.scale;
  params.outputMin = node.output_min();
  params.outputMax = node.output_max();
  return Qs8Convolution::supported(params, filter.channelScales.data());
}

void XnnpackDelegate::planSteps(const fb::Delegate &root, bool xnnpackOnly,
                                std::vector<bool> &hostMemory,
                                std::vector<std::pair<int64_t, int64_t>> &lives,
                                std::vector<PlannedStep> &plan) const {
  const bool own = !xnnpackOnly && cpuHasAvx512Vnni();
  const auto *steps = root.steps_type();
  for (size_t s = 0; s < steps->size(); ++s) {
    if (steps->Get(s) == fb::Step::Copy) {
      plan.push_back({s, root.steps()->GetAs<fb::Copy>(s)});
      continue;
    }
    const auto *nodes = root.steps()->GetAs<fb::Subgraph>(s)->nodes();
    const size_t first = plan.size();
    bool open = false;
    for (size_t n = 0; n < nodes->size(); ++n) {
      const fb::Node *node = nodes->Get(n);
      PlannedStep mine{s, nullptr, node};
      if (own && convolutionParams(*node, mine.params) &&
          !plantedAt(node->output())) {
        plan.push_back(std::move(mine));
        hostMemory[node->inputs()->Get(0)] = true;
        hostMemory[node->output()] = true;
        open = false;
        continue;
      }
      if (!open)
        plan.push_back({s});
      open = true;
      plan.back().nodes.push_back(node);
      plan.back().indices.push_back(n);
    }
    if (!pool_)
      continue;
    // A piece of a split subgraph runs on the pool as XNNPACK ran every
    // node of the whole one (kPieceWorkMin); a whole one as before.
    bool split = plan.size() - first > 1;
    bool whole = subgraphWork(std::vector<const fb::Node *>(
                     nodes->begin(), nodes->end())) >= kThreadedWorkMin;
    for (size_t i = first; i < plan.size(); ++i) {
      PlannedStep &step = plan[i];
      double work = subgraphWork(
          step.own ? std::vector<const fb::Node *>{step.own} : step.nodes);
      step.threaded = whole && (!split || work >= kPieceWorkMin);
    }
  }
  // A value that two planned steps touch crosses through a host buffer.
  lives.assign(values_.size(), {-1, -1});
  for (size_t i = 0; i < plan.size(); ++i) {
    int64_t at = static_cast<int64_t>(i);
    auto touch = [&](uint32_t id) {
      if (id == kNoValue)
        return;
      auto &[first, last] = lives[id];
      if (first < 0)
        first = at;
      else if (first != at)
        hostMemory[id] = true;
      last = at;
    };
    const PlannedStep &step = plan[i];
    if (step.copy) {
      touch(step.copy->input());
      touch(step.copy->output());
      continue;
    }
    for (const fb::Node *node :
         step.own ? std::vector<const fb::Node *>{step.own} : step.nodes) {
      for (uint32_t id : *node->inputs())
        touch(id);
      touch(node->output());
      if (const PlantedFault *fault = plantedAt(node->output()))
        touch(fault->redirect);
    }
  }
}

Status XnnpackDelegate::createSubgraph(
    size_t s, const std::vector<const fb::Node *> &nodes,
    const std::vector<size_t> &indices, bool threaded, bool yield) {
  std::string where = fmt::format("step {}", s);
  size_t valueCount = values_.size();
  // External values: what the delegate's memory holds (inputs, outputs,
  // host buffers); the rest stays inside XNNPACK.
  SubgraphRun run;
  run.nodes = nodes;
  std::vector<bool> listed(valueCount, false);
  auto listExternal = [&](uint32_t id) {
    if (id == kNoValue || listed[id])
      return;
    const ValueSpec &spec = values_[id];
    if (spec.kind == Kind::input || spec.kind == Kind::output || spec.buffer) {
      run.externals.push_back(id);
      listed[id] = true;
    }
  };
  for (const fb::Node *node : nodes) {
    for (uint32_t id : *node->inputs())
      listExternal(id);
    listExternal(node->output());
  }
  xnn_subgraph_t subgraph = nullptr;
  xnn_status status = xnn_create_subgraph(
      static_cast<uint32_t>(run.externals.size()), 0, &subgraph);
  if (status != xnn_status_success)
    return callFailed(where + ": xnn_create_subgraph", status);
  std::unique_ptr<xnn_subgraph, xnn_status (*)(xnn_subgraph_t)> owner(
      subgraph, xnn_delete_subgraph);
  SubgraphBuilder builder(subgraph, run.externals);
  std::vector<bool> producedHere(valueCount, false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const fb::Node *node = nodes[i];
    std::string what = fmt::format("{} node {} ({})", where, indices[i],
                                   fb::EnumNameNodeType(node->type()));
    auto valueId = [&](uint32_t id, bool output, uint32_t &xnnId) {
      if (id == kNoValue) {
        xnnId = XNN_INVALID_VALUE_ID;
        return xnn_status_success;
      }
      uint32_t flags = output || producedHere[id]
                           ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT
                           : XNN_VALUE_FLAG_EXTERNAL_INPUT;
      return builder.define(id, values_[id], flags, xnnId);
    };
    uint32_t ids[3] = {XNN_INVALID_VALUE_ID, XNN_INVALID_VALUE_ID,
                       XNN_INVALID_VALUE_ID};
    uint32_t out = XNN_INVALID_VALUE_ID;
    for (size_t k = 0; k < node->inputs()->size(); ++k) {
      uint32_t id = node->inputs()->Get(k);
      if ((status = valueId(id, false, ids[k])) != xnn_status_success)
        return Status::error("{}: defining value {} {} {}: {}", what, id,
                             typeName(values_[id].type),
                             formatDims(values_[id].dims), statusName(status));
    }
    // A fault planted at the node: the node writes a value of its own,
    // and the fault's node writes the node's value from it.
    const PlantedFault *fault = plantedAt(node->output());
    uint32_t outId = fault ? fault->redirect : node->output();
    if ((status = valueId(outId, true, out)) != xnn_status_success)
      return Status::error("{}: defining value {} {} {}: {}", what, outId,
                           typeName(values_[outId].type),
                           formatDims(values_[outId].dims), statusName(status));
    producedHere[outId] = true;

    DUET_RETURN_IF_ERROR(defineNode(subgraph, *node, ids, out,
                                    values_[node->inputs()->Get(0)].dims.size(),
                                    what));
    if (fault) {
      uint32_t faulted = XNN_INVALID_VALUE_ID;
      if ((status = valueId(node->output(), true, faulted)) !=
          xnn_status_success)
        return Status::error("{}: defining value {} for the planted fault: "
                             "{}",
                             what, node->output(), statusName(status));
      producedHere[node->output()] = true;
      DUET_RETURN_IF_ERROR(defineFault(subgraph, *fault, out, faulted));
    }
  }
  xnn_runtime_t runtime = nullptr;
  pthreadpool *pool = threaded ? pool_.get() : nullptr;
  run.threaded = threaded;
  std::string note;
  if (faults_.fails(runtime::BackendCall::xnnpackCreate)) {
    status = xnn_status_out_of_memory;
    note = faults_.injected(runtime::BackendCall::xnnpackCreate);
  } else {
    status = xnn_create_runtime_v2(subgraph, pool, yield ? kRuntimeFlags : 0,
                                   &runtime);
  }
  if (status != xnn_status_success)
    return callFailed(where + ": xnn_create_runtime_v2", status, note);
  run.runtime = runtime;
  run.bound.assign(run.externals.size(), nullptr);
  steps_.emplace_back(std::move(run));
  return Status::ok();
}

double XnnpackDelegate::subgraphWork(
    const std::vector<const fb::Node *> &nodes) const {
  double work = 0;
  for (const fb::Node *node : nodes) {
    double out = static_cast<double>(numel(values_[node->output()].dims));
    switch (node->type()) {
    case fb::NodeType::Convolution2d:
    case fb::NodeType::DepthwiseConvolution2d:
    case fb::NodeType::Deconvolution2d:
    case fb::NodeType::FullyConnected: {
      // Each output element sums over one output channel's filter.
      const std::vector<size_t> &filter = values_[node->inputs()->Get(1)].dims;
      double all = static_cast<double>(numel(filter));
      double perOutput = filter.empty() ? 1 : all / filter.front();
      if (node->type() == fb::NodeType::DepthwiseConvolution2d &&
          !filter.empty())
        perOutput = all / filter.back();
      work += out * perOutput;
      break;
    }
    default:
      work += out;
    }
  }
  return work;
}

namespace {

/// A node's dims and the words of its shape errors, for checkShapes.
struct NodeDims {
  using Dims = std::vector<size_t>;
  const fb::Node &node;
  std::function<const Dims &(size_t)> operand;
  const Dims &in, &out;
  const std::string &what;

  Status bad(const std::string &why) const {
    return Status::error("{}: {}", what, why);
  }
  Status mismatch(const Dims &expected) const {
    return Status::error("{}: the output is {}, but the operands make it {}",
                         what, formatDims(out), formatDims(expected));
  }
  Status expect(const Dims &expected) const {
    return out == expected ? Status::ok() : mismatch(expected);
  }
};

/// A convolution, deconvolution or pooling node: its window's fields, its
/// filter and bias against its input, and the output its window makes.
Status checkWindowNode(const NodeDims &n) {
  using Dims = NodeDims::Dims;
  const fb::Node &node = n.node;
  const Dims &in = n.in;
  const fb::Window *window = node.window();
  const WindowFields fields = windowFields(window);
  const auto *pad = fields.pad, *kernel = fields.kernel,
             *stride = fields.stride, *dilation = fields.dilation,
             *adjustment = fields.adjustment;
  // The output size of a window along `axis` (0: height, 1: width) over
  // `size` input elements; false when the window does not fit.
  auto windowed = [&](size_t axis, size_t size, bool withDilation,
                      size_t &result) {
    size_t k = kernel->Get(axis), st = stride->Get(axis);
    size_t d = withDilation ? dilation->Get(axis) : 1;
    size_t padded =
        size + pad->Get(axis == 0 ? 0 : 3) + pad->Get(axis == 0 ? 2 : 1);
    if (k == 0 || st == 0 || d == 0 || padded < d * (k - 1) + 1)
      return false;
    result = (padded - d * (k - 1) - 1) / st + 1;
    return true;
  };
  bool withDilation = node.type() != fb::NodeType::AveragePooling2d;
  bool deconvolution = node.type() == fb::NodeType::Deconvolution2d;
  if (!pad || !kernel || !stride || (withDilation && !dilation) ||
      (deconvolution && !adjustment))
    return n.bad("the node has no window, or its window lacks a field or "
                 "has one of the wrong length");
  if (in.size() != 4)
    return n.bad(fmt::format("the input is {}, not [N,H,W,C]", formatDims(in)));
  size_t channels = in[3];
  if (node.type() == fb::NodeType::Convolution2d || deconvolution ||
      node.type() == fb::NodeType::DepthwiseConvolution2d) {
    uint64_t groups = window->groups(), gic = window->group_input_channels(),
             goc = window->group_output_channels();
    // Products that wrap could match the dims by accident, and XNNPACK
    // would then index with the huge factors.
    std::optional<uint64_t> outChannels = checkedMul(groups, goc);
    std::optional<uint64_t> inChannels = checkedMul(groups, gic);
    std::optional<uint64_t> depthwise = checkedMul(gic, goc);
    if (!outChannels || !inChannels || !depthwise)
      return n.bad(fmt::format("groups {}, group input channels {} and group "
                               "output channels {} overflow",
                               groups, gic, goc));
    Dims filter = {*outChannels, kernel->Get(0), kernel->Get(1), gic};
    if (node.type() == fb::NodeType::DepthwiseConvolution2d) {
      // Input channels and depth multiplier.
      filter = {1, kernel->Get(0), kernel->Get(1), *depthwise};
      channels = *depthwise;
      if (in[3] != gic)
        return n.bad(fmt::format("the input has {} channels, the window "
                                 "says {}",
                                 in[3], gic));
    } else {
      if (in[3] != *inChannels)
        return n.bad(fmt::format("the input has {} channels, the window "
                                 "says {} groups of {}",
                                 in[3], groups, gic));
      channels = *outChannels;
    }
    if (n.operand(1) != filter)
      return n.bad(fmt::format("the filter is {}, the window makes it {}",
                               formatDims(n.operand(1)), formatDims(filter)));
    if (node.inputs()->size() == 3 && node.inputs()->Get(2) != kNoValue &&
        numel(n.operand(2)) != channels)
      return n.bad(fmt::format("the bias is {}, not one per output channel "
                               "({})",
                               formatDims(n.operand(2)), channels));
  }
  Dims expected = {in[0], 0, 0, channels};
  for (size_t axis = 0; axis < 2; ++axis) {
    if (deconvolution) {
      // Window fields are 32-bit and a dim is below 2^32, so each product
      // fits in 64 bits; their sum may not.
      if (kernel->Get(axis) == 0 || stride->Get(axis) == 0)
        return n.bad("the window leaves no output");
      std::optional<uint64_t> grown =
          checkedAdd(uint64_t(stride->Get(axis)) * (in[1 + axis] - 1),
                     uint64_t(dilation->Get(axis)) * (kernel->Get(axis) - 1));
      if (grown)
        grown = checkedAdd(*grown, uint64_t(adjustment->Get(axis)) + 1);
      uint64_t cut =
          uint64_t(pad->Get(axis == 0 ? 0 : 3)) + pad->Get(axis == 0 ? 2 : 1);
      if (!grown)
        return n.bad("the output size overflows");
      if (*grown <= cut)
        return n.bad("the window leaves no output");
      expected[1 + axis] = *grown - cut;
    } else if (!windowed(axis, in[1 + axis], withDilation,
                         expected[1 + axis])) {
      return n.bad("the window does not fit in the padded input");
    }
  }
  return n.expect(expected);
}

} // namespace

Status XnnpackDelegate::checkShapes(const fb::Node &node,
                                    const std::string &what) const {
  using Dims = NodeDims::Dims;
  auto operand = [&](size_t i) -> const Dims & {
    return values_[node.inputs()->Get(i)].dims;
  };
  const NodeDims n{node, operand, operand(0), values_[node.output()].dims,
                   what};
  const Dims &in = n.in, &out = n.out;
  switch (node.type()) {
  case fb::NodeType::Convolution2d:
  case fb::NodeType::DepthwiseConvolution2d:
  case fb::NodeType::Deconvolution2d:
  case fb::NodeType::AveragePooling2d:
  case fb::NodeType::MaxPooling2d:
    return checkWindowNode(n);
  case fb::NodeType::FullyConnected: {
    const Dims &filter = n.operand(1);
    if (filter.size() != 2 || in.back() != filter[1])
      return n.bad(fmt::format("the filter {} does not take rows of {}",
                               formatDims(filter), in.back()));
    if (node.inputs()->size() == 3 && node.inputs()->Get(2) != kNoValue &&
        numel(n.operand(2)) != filter[0])
      return n.bad(fmt::format("the bias is {}, not one per output ({})",
                               formatDims(n.operand(2)), filter[0]));
    Dims expected = in;
    expected.back() = filter[0];
    return n.expect(expected);
  }
  case fb::NodeType::Add:
  case fb::NodeType::Subtract:
  case fb::NodeType::Multiply:
  case fb::NodeType::Divide:
  case fb::NodeType::Maximum:
  case fb::NodeType::Minimum: {
    const Dims &a = n.operand(0), &b = n.operand(1);
    Dims expected(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < expected.size(); ++i) {
      size_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
      size_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
      if (da != db && da != 1 && db != 1)
        return n.bad(fmt::format("{} and {} do not broadcast", formatDims(a),
                                 formatDims(b)));
      expected[expected.size() - 1 - i] = std::max(da, db);
    }
    return n.expect(expected);
  }
  case fb::NodeType::GlobalAveragePooling2d: {
    if (in.size() != 4)
      return n.bad(
          fmt::format("the input is {}, not [N,H,W,C]", formatDims(in)));
    Dims expected = {in[0], 1, 1, in[3]};
    return n.expect(expected);
  }
  case fb::NodeType::ConstantPad: {
    if (!node.shape() || node.shape()->size() != 2 * in.size())
      return n.bad(fmt::format(
          "the padding has {} entries, expected {} (before "
          "and after each of {} dims)",
          node.shape() ? node.shape()->size() : 0, 2 * in.size(), in.size()));
    Dims expected = in;
    for (size_t i = 0; i < in.size(); ++i) {
      std::optional<uint64_t> padded = checkedAdd(in[i], node.shape()->Get(i));
      if (padded)
        padded = checkedAdd(*padded, node.shape()->Get(in.size() + i));
      if (!padded)
        return n.bad(fmt::format("the padding of dim {} overflows", i));
      expected[i] = *padded;
    }
    return n.expect(expected);
  }
  case fb::NodeType::Reshape: {
    Dims shape;
    if (node.shape())
      shape.assign(node.shape()->begin(), node.shape()->end());
    if (shape != out || numel(in) != numel(out))
      return n.bad(fmt::format("a reshape of {} into {} (the new shape {})",
                               formatDims(in), formatDims(out),
                               formatDims(shape)));
    return Status::ok();
  }
  case fb::NodeType::ResizeBilinear2d: {
    if (in.size() != 4 || !node.shape() || node.shape()->size() != 2)
      return n.bad("expected an [N,H,W,C] input and the new height and width");
    Dims expected = {in[0], node.shape()->Get(0), node.shape()->Get(1), in[3]};
    return n.expect(expected);
  }
  default:
    // Elementwise: the output has the input's dims.
    return n.expect(in);
  }
}

void *XnnpackDelegate::address(uint32_t id,
                               const std::vector<TensorView> &inputs,
                               const std::vector<TensorView> &outputs) const {
  const ValueSpec &spec = values_[id];
  switch (spec.kind) {
  case Kind::input:
    return inputs[spec.index].data;
  case Kind::output:
    return outputs[spec.index].data;
  case Kind::constant:
    return const_cast<void *>(spec.constant);
  case Kind::internal:
    return spec.buffer;
  }
  return nullptr;
}

Status XnnpackDelegate::runStep(size_t s, const std::vector<TensorView> &inputs,
                                const std::vector<TensorView> &outputs) {
  if (auto *copy = std::get_if<CopyRun>(&steps_[s])) {
    const ValueSpec &in = values_[copy->input];
    const ValueSpec &out = values_[copy->output];
    hostCopy(address(copy->input, inputs, outputs), in.type, in.dims,
             address(copy->output, inputs, outputs), out.type,
             copy->permutation, pool_.get());
    return Status::ok();
  }
  if (const auto *convolution = std::get_if<ConvolutionRun>(&steps_[s])) {
    const void *in = address(convolution->input, inputs, outputs);
    void *out = address(convolution->output, inputs, outputs);
    if (!in || !out)
      return Status::error("step {}: value {} has no memory", s,
                           in ? convolution->output : convolution->input);
    convolution->kernel->run(static_cast<const int8_t *>(in),
                             static_cast<int8_t *>(out), convolution->batch,
                             convolution->threaded ? pool_.get() : nullptr,
                             convolution->yield);
    return Status::ok();
  }
  auto &run = std::get<SubgraphRun>(steps_[s]);
  bool changed = false;
  for (size_t e = 0; e < run.externals.size(); ++e) {
    void *data = address(run.externals[e], inputs, outputs);
    if (!data)
      return Status::error("step {}: value {} has no memory", s,
                           run.externals[e]);
    changed |= data != run.bound[e];
    run.bound[e] = data;
  }
  if (changed) {
    std::vector<xnn_external_value> external(run.externals.size());
    for (size_t e = 0; e < external.size(); ++e)
      external[e] = {static_cast<uint32_t>(e), run.bound[e]};
    std::string note;
    xnn_status status = xnn_status_out_of_memory;
    if (faults_.fails(runtime::BackendCall::xnnpackSetup))
      note = faults_.injected(runtime::BackendCall::xnnpackSetup);
    else
      status = xnn_setup_runtime(run.runtime, external.size(), external.data());
    if (status != xnn_status_success) {
      // The next run sets it up again.
      std::fill(run.bound.begin(), run.bound.end(), nullptr);
      return callFailed(fmt::format("step {}: xnn_setup_runtime", s), status,
                        note);
    }
  }
  xnn_status status = xnn_invoke_runtime(run.runtime);
  if (status != xnn_status_success)
    return callFailed(fmt::format("step {}: xnn_invoke_runtime", s), status);
  return Status::ok();
}

void XnnpackDelegate::profileParts(std::vector<ProfilePart> &parts) const {
  parts = stepTimes_;
}

Status XnnpackDelegate::run(const std::vector<TensorView> &inputs,
                            const std::vector<TensorView> &outputs) {
  if (inputs.size() != inputCount_ || outputs.size() != outputCount_)
    return Status::error("the XNNPACK delegate takes {} inputs and {} "
                         "outputs, given {} and {}",
                         inputCount_, outputCount_, inputs.size(),
                         outputs.size());
  if (stepTimes_.empty()) {
    for (size_t s = 0; s < steps_.size(); ++s)
      DUET_RETURN_IF_ERROR(runStep(s, inputs, outputs));
    return Status::ok();
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    auto start = std::chrono::steady_clock::now();
    DUET_RETURN_IF_ERROR(runStep(s, inputs, outputs));
    stepTimes_[s].ms = msSince(start);
  }
  return Status::ok();
}

} // namespace duet::rt::xnnpack
