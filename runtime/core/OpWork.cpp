//===- OpWork.cpp - how much work an aten op is, from its shapes ----------===//

#include "runtime/core/OpWork.h"

#include "runtime/core/Escape.h"
#include "runtime/core/Limits.h"

#include <fmt/core.h>

#include <algorithm>

namespace duet::rt {

namespace {

double elements(const std::vector<int64_t> &sizes) {
  double count = 1;
  for (int64_t size : sizes)
    count *= static_cast<double>(std::max<int64_t>(size, 0));
  return count;
}

/// Dim `dim` of `sizes`, from the back when negative; 1 when absent.
double dimOf(const std::vector<int64_t> &sizes, int64_t dim) {
  int64_t rank = static_cast<int64_t>(sizes.size());
  if (dim < 0)
    dim += rank;
  return dim < 0 || dim >= rank ? 1 : static_cast<double>(sizes[dim]);
}

const std::vector<int64_t> &nth(const std::vector<std::vector<int64_t>> &all,
                                size_t index) {
  static const std::vector<int64_t> kNone;
  return index < all.size() ? all[index] : kNone;
}

double largest(const std::vector<std::vector<int64_t>> &inputs,
               const std::vector<std::vector<int64_t>> &outputs) {
  double most = 0;
  for (const auto &sizes : inputs)
    most = std::max(most, elements(sizes));
  for (const auto &sizes : outputs)
    most = std::max(most, elements(sizes));
  return most;
}

bool isIn(const std::vector<std::string_view> &ops, std::string_view op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

} // namespace

std::string_view workRateKey(WorkClass cls) {
  switch (cls) {
  case WorkClass::gemm:
    return "gemm_macs_per_us";
  case WorkClass::elementwise:
    return "elementwise_per_us";
  case WorkClass::reduce:
    return "reduce_per_us";
  case WorkClass::data:
    return "data_per_us";
  }
  return "elementwise_per_us";
}

const std::array<std::vector<std::string_view>, kWorkClasses> &
opsByWorkClass() {
  static const std::array<std::vector<std::string_view>, kWorkClasses> kOps = {{
      {"aten.convolution", "aten.linear", "aten.addmm", "aten.mm", "aten.bmm",
       "aten.matmul", "aten.scaled_dot_product_attention"},
      {},
      {"aten.mean", "aten.sum", "aten.amax", "aten.any", "aten.softmax",
       "aten.log_softmax", "aten.layer_norm", "aten.cumsum",
       "aten.adaptive_avg_pool2d", "aten.avg_pool2d", "aten.max_pool2d"},
      {"aten.view", "aten.permute", "aten.expand", "aten.repeat", "aten.slice",
       "aten.select", "aten.constant_pad_nd", "aten.clone", "aten.cat",
       "aten.split_with_sizes", "aten.upsample_nearest2d",
       "aten.upsample_bilinear2d", "aten.embedding", "aten.gather",
       "aten.index_select"},
  }};
  return kOps;
}

OpWork estimateWork(std::string_view op,
                    const std::vector<std::vector<int64_t>> &inputs,
                    const std::vector<std::vector<int64_t>> &outputs,
                    bool transposed) {
  const auto &classes = opsByWorkClass();
  const std::vector<int64_t> &out = nth(outputs, 0);
  if (op == "aten.convolution") {
    // Each output element sums Cin/groups times the window (the weight's
    // dims from 1); a transposed one scatters each input element over
    // Cout/groups times the window instead.
    const std::vector<int64_t> &weight = nth(inputs, 1);
    double perElement = 1;
    for (size_t dim = 1; dim < weight.size(); ++dim)
      perElement *= static_cast<double>(weight[dim]);
    return {WorkClass::gemm,
            (transposed ? elements(nth(inputs, 0)) : elements(out)) *
                perElement};
  }
  // Output elements times the reduced dim: the last of the matrix operand
  // (addmm's mat1, the first operand of the others).
  if (op == "aten.addmm")
    return {WorkClass::gemm, elements(out) * dimOf(nth(inputs, 1), -1)};
  // Scores (L x S per batch and head, each a D-long dot product) and the
  // weighted sum of the values (L x D, each S long): 2 * |query| * S.
  if (op == "aten.scaled_dot_product_attention")
    return {WorkClass::gemm,
            2 * elements(nth(inputs, 0)) * dimOf(nth(inputs, 1), -2)};
  if (isIn(classes[size_t(WorkClass::gemm)], op))
    return {WorkClass::gemm, elements(out) * dimOf(nth(inputs, 0), -1)};
  for (WorkClass cls : {WorkClass::reduce, WorkClass::data})
    if (isIn(classes[size_t(cls)], op))
      return {cls, largest(inputs, outputs)};
  return {WorkClass::elementwise, largest(inputs, outputs)};
}

double workBound(std::string_view op,
                 const std::vector<std::vector<int64_t>> &inputs,
                 const std::vector<std::vector<int64_t>> &outputs,
                 bool transposed, double window) {
  double units = estimateWork(op, inputs, outputs, transposed).units;
  units = std::max(units, elements(nth(outputs, 0)) * std::max(window, 1.0));
  if (op == "aten.scaled_dot_product_attention") {
    // The query's leading dims times S: the scores, however short E is.
    std::vector<int64_t> q = nth(inputs, 0);
    if (!q.empty())
      q.back() = 1;
    units = std::max(units, elements(q) * dimOf(nth(inputs, 1), -2));
  }
  return units;
}

ProgramWork programWork(const std::vector<TensorInfo> &tensors,
                        const std::vector<const KernelCall *> &calls) {
  ProgramWork work;
  auto sizesOf = [&](int32_t id) {
    return id >= 0 && static_cast<size_t>(id) < tensors.size()
               ? tensors[id].sizes
               : std::vector<int64_t>{};
  };
  for (const KernelCall *call : calls) {
    std::vector<std::vector<int64_t>> inputs, outputs;
    for (int32_t id : call->inputs)
      inputs.push_back(sizesOf(id));
    for (int32_t id : call->outputs)
      outputs.push_back(sizesOf(id));
    AttrMap attrs = attributeMap(*call);
    double window = 1;
    if (std::optional<std::vector<int64_t>> kernel = attrs.getInts("kernel_size"))
      for (int64_t size : *kernel)
        window *= static_cast<double>(std::max<int64_t>(size, 1));
    double units = workBound(call->op, inputs, outputs,
                             attrs.getBool("transposed").value_or(false), window);
    work.total += units;
    if (!work.largestCall || units > work.largest) {
      work.largest = units;
      work.largestCall = call;
    }
  }
  return work;
}

Status checkWork(const ProgramWork &work, double limit) {
  if (limit <= 0)
    limit = kDefaultMaxWork;
  if (work.total <= limit)
    return Status::ok();
  const KernelCall &call = *work.largestCall;
  std::string node =
      call.node.empty() ? "" : fmt::format("node '{}' ", escaped(call.node));
  return Status::error(
             "one run's work estimate is {:.3g} steps, over the limit of "
             "{:.3g} (kDefaultMaxWork; raise it with --max-work or "
             "LoadOptions::maxWork); {}({}) alone takes {:.3g}: its shapes or "
             "attributes are absurd, or the model is larger than the limit "
             "allows",
             work.total, limit, node, escaped(call.op), work.largest)
      .withCode(ErrorCode::unsupported);
}

double estimateOpUs(const BackendCosts &costs, const OpWork &work) {
  return costs.opUs + work.units / costs.unitsPerUs[size_t(work.cls)];
}

double estimateTransferUs(const BackendCosts &costs, uint64_t bytes) {
  double perByte = costs.transferBytesPerUs > 0
                       ? static_cast<double>(bytes) / costs.transferBytesPerUs
                       : 0;
  return costs.transferUs + perByte;
}

} // namespace duet::rt
