//===- XnnpackDebug.cpp - observing and faulting an XNNPACK partition -----===//
//
// The two things a debugging run asks of an XNNPACK delegate, both keyed by
// the program tensor a node computes (Node.tensor in xnnpack.fbs):
//  - under LoadOptions::observer, each delegate-internal tensor a node
//    computes gets a host buffer, so that XNNPACK writes it where it can be
//    read after the run (an external value instead of one of its own);
//  - a fault of LoadOptions::faults (Faults.h) at such a node becomes one
//    more node: the faulted node writes a fresh value, and an add of a
//    constant (add VALUE) or a multiply by 0 (zero) writes the node's value
//    from it, so every later node reads the wrong value. NaN takes two
//    nodes: this XNNPACK's add clamps its result to its output bounds even
//    when they are infinite, and the clamp turns a NaN into +inf, so the
//    fault adds -inf and takes the square root (which has no bounds).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/xnnpack/XnnpackDelegate.h"

#include "runtime/schema/xnnpack_generated.h"

#include <xnnpack.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace duet::rt::xnnpack {

namespace fb = ::duet::xnnpack::schema;

namespace {

/// The value of a [N, H, W, C] NHWC value, read as [N, C, H, W].
const std::vector<uint8_t> kToNchw = {0, 3, 1, 2};

} // namespace

Status XnnpackDelegate::planDebugging(const Program &program, uint32_t index,
                                      const fb::Delegate &root,
                                      std::vector<bool> &hostMemory) {
  const std::vector<TensorInfo> &tensors = program.tensors();
  const auto *steps = root.steps_type();
  for (size_t s = 0; s < steps->size(); ++s) {
    if (steps->Get(s) != fb::Step::Subgraph)
      continue;
    const auto *nodes = root.steps()->GetAs<fb::Subgraph>(s)->nodes();
    for (size_t n = 0; n < nodes->size(); ++n) {
      const fb::Node *node = nodes->Get(n);
      int32_t tensor = node->tensor();
      if (tensor < 0)
        continue;
      const ValueSpec &spec = values_[node->output()];
      size_t elements = 1;
      for (size_t d : spec.dims)
        elements *= d;
      HostType tensorType;
      if (static_cast<size_t>(tensor) >= tensors.size() ||
          tensors[tensor].nbytes / dtypeSize(tensors[tensor].dtype) !=
              elements ||
          !fromDType(tensors[tensor].dtype, tensorType) ||
          !hostCopyable(spec.type, tensorType) ||
          (node->tensor_nhwc() && spec.dims.size() != 4))
        return Status::error("step {} node {} says it computes tensor {}, "
                             "which is not a tensor of its {} elements and "
                             "element type; the file is corrupt",
                             s, n, tensor, elements);
      nodeTensors_.push_back({tensor, node->output(), node->tensor_nhwc()});
    }
  }

  if (program.options().observer)
    for (const NodeTensor &node : nodeTensors_) {
      const ValueSpec &spec = values_[node.value];
      if (spec.kind != Kind::internal ||
          tensors[node.tensor].kind != TensorKind::delegateInternal)
        continue;
      hostMemory[node.value] = true;
      observable_.push_back(node.tensor);
    }

  for (TensorFault &fault : delegateFaults(program, index)) {
    const NodeTensor *at = nullptr;
    for (const NodeTensor &node : nodeTensors_)
      if (node.tensor == fault.tensor)
        at = &node;
    if (!at)
      return Status::error(
          "{}: the xnnpack delegate {} computes no value of its own for it "
          "(its op is fused into a later op's node, as an activation folded "
          "into a convolution is); plant the fault at {}, which computes the "
          "fused result",
          describeFault(fault), index, fusedInto(program, fault));
    // A copy: the redirect value below is appended to values_.
    const ValueSpec spec = values_[at->value];
    if (spec.type != HostType::f32 && spec.type != HostType::f16)
      return Status::error("{}: the xnnpack delegate {} computes it as {}, "
                           "where no fault can be planted",
                           describeFault(fault), index,
                           spec.type == HostType::bf16 ? "bf16" : "qint8");
    PlantedFault planted;
    planted.value = at->value;
    ValueSpec redirect = spec;
    redirect.kind = Kind::internal;
    redirect.buffer = nullptr;
    redirect.constant = nullptr;
    values_.push_back(std::move(redirect));
    planted.redirect = static_cast<uint32_t>(values_.size() - 1);
    hostMemory.push_back(false);
    if (spec.type == HostType::f16 && fault.kind == runtime::FaultKind::nan)
      return Status::error("{}: the xnnpack delegate {} computes it in fp16, "
                           "where this XNNPACK has no square root to make a "
                           "NaN with; plant an add or zero fault there",
                           describeFault(fault), index);
    float constant = fault.kind == runtime::FaultKind::add
                         ? static_cast<float>(fault.value)
                     : fault.kind == runtime::FaultKind::nan
                         ? -std::numeric_limits<float>::infinity()
                         : 0.f;
    planted.constant.assign(sizeof(float) + XNN_EXTRA_BYTES, 0);
    if (spec.type == HostType::f16) {
      uint16_t half = floatToHalf(constant);
      std::memcpy(planted.constant.data(), &half, sizeof(half));
    } else {
      std::memcpy(planted.constant.data(), &constant, sizeof(float));
    }
    planted.fault = std::move(fault);
    planted_.push_back(std::move(planted));
  }
  return Status::ok();
}

const XnnpackDelegate::PlantedFault *
XnnpackDelegate::plantedAt(uint32_t value) const {
  for (const PlantedFault &fault : planted_)
    if (fault.value == value)
      return &fault;
  return nullptr;
}

Status XnnpackDelegate::defineFault(xnn_subgraph *subgraph,
                                    const PlantedFault &fault, uint32_t from,
                                    uint32_t to) {
  const ValueSpec &spec = values_[fault.value];
  std::vector<size_t> ones(spec.dims.size(), 1);
  xnn_datatype datatype = spec.datatype;
  uint32_t constant = XNN_INVALID_VALUE_ID;
  xnn_status status = xnn_define_tensor_value(
      subgraph, datatype, ones.size(), ones.data(), fault.constant.data(),
      XNN_INVALID_VALUE_ID, 0, &constant);
  const float inf = std::numeric_limits<float>::infinity();
  if (status == xnn_status_success) {
    switch (fault.fault.kind) {
    case runtime::FaultKind::add:
      status = xnn_define_add2(subgraph, -inf, inf, from, constant, to, 0);
      break;
    case runtime::FaultKind::zero:
      status = xnn_define_multiply2(subgraph, -inf, inf, from, constant, to, 0);
      break;
    case runtime::FaultKind::nan: {
      uint32_t minusInf = XNN_INVALID_VALUE_ID;
      status = xnn_define_tensor_value(subgraph, datatype, spec.dims.size(),
                                       spec.dims.data(), nullptr,
                                       XNN_INVALID_VALUE_ID, 0, &minusInf);
      if (status == xnn_status_success)
        status =
            xnn_define_add2(subgraph, -inf, inf, from, constant, minusInf, 0);
      if (status == xnn_status_success)
        status = xnn_define_square_root(subgraph, minusInf, to, 0);
      break;
    }
    }
  }
  if (status != xnn_status_success)
    return Status::error("{}: defining its XNNPACK node failed (status {})",
                         describeFault(fault.fault), static_cast<int>(status));
  return Status::ok();
}

Status XnnpackDelegate::readObserved(int32_t id, const TensorView &out) const {
  for (const NodeTensor &node : nodeTensors_) {
    if (node.tensor != id)
      continue;
    const ValueSpec &spec = values_[node.value];
    HostType type;
    if (!spec.buffer || !fromDType(out.dtype, type))
      break;
    hostCopy(spec.buffer, spec.type, spec.dims, out.data, type,
             node.nhwc ? kToNchw : std::vector<uint8_t>(), pool_.get());
    return Status::ok();
  }
  return Status::error("the xnnpack delegate keeps no value of tensor {}", id);
}

} // namespace duet::rt::xnnpack
