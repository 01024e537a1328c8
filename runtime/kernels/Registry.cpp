//===- Registry.cpp - the table of portable kernels -----------------------===//
//
// One table names every kernel with its operand counts and whether it
// computes in float. Everything kernels have in common happens here, once:
// operand counts, sane sizes, present buffers, and the float16/bfloat16
// handling: such operands are widened to float32 before the body runs and
// its outputs rounded back after, so each body is written for float32 only
// and still serves all three float types.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Ops.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <new>
#include <stdexcept>
#include <utility>

namespace duet::rt {
namespace {

using namespace portable;

constexpr int kVariadic = -1;

struct KernelSpec {
  std::string_view name;
  KernelBody body;
  /// Operands the op always has, then how many it may have in all (trailing
  /// optional ones may be left out or passed without data); kVariadic: any.
  int requiredInputs;
  int maxInputs;
  /// Results; kVariadic: one or more.
  int outputs;
  /// float16/bfloat16 operands are computed in float32.
  bool computesInFloat;
};

constexpr bool kFloat = true;  // computes in float32
constexpr bool kBytes = false; // moves, compares or converts any dtype

constexpr KernelSpec kKernels[] = {
    {"aten.abs", portable::abs, 1, 1, 1, kFloat},
    {"aten.adaptive_avg_pool2d", adaptiveAvgPool2d, 1, 1, 1, kFloat},
    {"aten.add", add, 2, 2, 1, kFloat},
    {"aten.addmm", addmm, 3, 3, 1, kFloat},
    {"aten.amax", amax, 1, 1, 1, kFloat},
    {"aten.any", portable::any, 1, 1, 1, kBytes},
    {"aten.avg_pool2d", avgPool2d, 1, 1, 1, kFloat},
    {"aten.batch_norm", batchNorm, 3, 5, 1, kFloat},
    {"aten.bmm", bmm, 2, 2, 1, kFloat},
    {"aten.cast", cast, 1, 1, 1, kBytes},
    {"aten.cat", cat, 1, kVariadic, 1, kBytes},
    {"aten.clamp", clamp, 1, 1, 1, kFloat},
    {"aten.clone", clone, 1, 1, 1, kBytes},
    {"aten.constant_pad_nd", constantPadNd, 1, 1, 1, kBytes},
    {"aten.convolution", convolution, 2, 3, 1, kFloat},
    {"aten.div", div, 2, 2, 1, kFloat},
    {"aten.elu", elu, 1, 1, 1, kFloat},
    {"aten.embedding", embedding, 2, 2, 1, kFloat},
    {"aten.eq", eq, 2, 2, 1, kBytes},
    {"aten.exp", portable::exp, 1, 1, 1, kFloat},
    {"aten.expand", expand, 1, 1, 1, kBytes},
    {"aten.ge", ge, 2, 2, 1, kBytes},
    {"aten.gelu", gelu, 1, 1, 1, kFloat},
    {"aten.gt", gt, 2, 2, 1, kBytes},
    {"aten.hardshrink", hardshrink, 1, 1, 1, kFloat},
    {"aten.hardsigmoid", hardsigmoid, 1, 1, 1, kFloat},
    {"aten.hardswish", hardswish, 1, 1, 1, kFloat},
    {"aten.hardtanh", hardtanh, 1, 1, 1, kFloat},
    {"aten.layer_norm", layerNorm, 1, 3, 1, kFloat},
    {"aten.le", le, 2, 2, 1, kBytes},
    {"aten.leaky_relu", leakyRelu, 1, 1, 1, kFloat},
    {"aten.linear", linear, 2, 3, 1, kFloat},
    {"aten.log", portable::log, 1, 1, 1, kFloat},
    {"aten.log_softmax", logSoftmax, 1, 1, 1, kFloat},
    {"aten.logical_and", logicalAnd, 2, 2, 1, kBytes},
    {"aten.logical_not", logicalNot, 1, 1, 1, kBytes},
    {"aten.logical_or", logicalOr, 2, 2, 1, kBytes},
    {"aten.lt", lt, 2, 2, 1, kBytes},
    {"aten.matmul", matmul, 2, 2, 1, kFloat},
    {"aten.max_pool2d", maxPool2d, 1, 1, 1, kFloat},
    {"aten.maximum", maximum, 2, 2, 1, kFloat},
    {"aten.mean", mean, 1, 1, 1, kFloat},
    {"aten.minimum", minimum, 2, 2, 1, kFloat},
    {"aten.mm", mm, 2, 2, 1, kFloat},
    {"aten.mul", mul, 2, 2, 1, kFloat},
    {"aten.ne", ne, 2, 2, 1, kBytes},
    {"aten.neg", neg, 1, 1, 1, kFloat},
    {"aten.permute", permute, 1, 1, 1, kBytes},
    {"aten.pow", portable::pow, 1, 1, 1, kFloat},
    {"aten.relu", relu, 1, 1, 1, kFloat},
    {"aten.rsqrt", rsqrt, 1, 1, 1, kFloat},
    {"aten.scaled_dot_product_attention", scaledDotProductAttention, 3, 4, 1,
     kFloat},
    {"aten.select", select, 1, 1, 1, kBytes},
    {"aten.sigmoid", sigmoid, 1, 1, 1, kFloat},
    {"aten.silu", silu, 1, 1, 1, kFloat},
    {"aten.slice", slice, 1, 1, 1, kBytes},
    {"aten.softmax", softmax, 1, 1, 1, kFloat},
    {"aten.split_with_sizes", splitWithSizes, 1, 1, kVariadic, kBytes},
    {"aten.sqrt", portable::sqrt, 1, 1, 1, kFloat},
    {"aten.sub", sub, 2, 2, 1, kFloat},
    {"aten.sum", sum, 1, 1, 1, kFloat},
    {"aten.tanh", portable::tanh, 1, 1, 1, kFloat},
    {"aten.upsample_bilinear2d", upsampleBilinear2d, 1, 1, 1, kFloat},
    {"aten.upsample_nearest2d", upsampleNearest2d, 1, 1, 1, kFloat},
    {"aten.view", view, 1, 1, 1, kBytes},
    {"aten.where", where, 3, 3, 1, kBytes},
};
constexpr size_t kKernelCount = std::size(kKernels);

/// Sizes must be non-negative and the byte count must fit comfortably in
/// int64, so that no kernel's index arithmetic can overflow.
Status checkSizes(std::string_view op, std::string_view what, size_t index,
                  const TensorView &t) {
  int64_t n = static_cast<int64_t>(dtypeSize(t.dtype));
  for (int64_t s : t.sizes) {
    if (s < 0)
      return Status::error("{}: {} {} has a negative size in {}", op, what,
                           index, formatShape(t.sizes));
    if (__builtin_mul_overflow(n, s, &n) || n > (int64_t{1} << 56))
      return Status::error("{}: {} {} of shape {} is too large", op, what,
                           index, formatShape(t.sizes));
  }
  return Status::ok();
}

Status checkOperands(const KernelSpec &spec,
                     const std::vector<TensorView> &inputs,
                     const std::vector<TensorView> &outputs) {
  int in = static_cast<int>(inputs.size());
  int out = static_cast<int>(outputs.size());
  if (in < spec.requiredInputs ||
      (spec.maxInputs != kVariadic && in > spec.maxInputs)) {
    if (spec.maxInputs == kVariadic)
      return Status::error("{}: expects at least {} inputs, got {}", spec.name,
                           spec.requiredInputs, in);
    if (spec.requiredInputs == spec.maxInputs)
      return Status::error("{}: expects {} inputs, got {}", spec.name,
                           spec.requiredInputs, in);
    return Status::error("{}: expects {} to {} inputs, got {}", spec.name,
                         spec.requiredInputs, spec.maxInputs, in);
  }
  if (spec.outputs == kVariadic ? out < 1 : out != spec.outputs)
    return Status::error("{}: expects {} outputs, got {}", spec.name,
                         spec.outputs == kVariadic
                             ? "one or more"
                             : std::to_string(spec.outputs),
                         out);
  for (int i = 0; i < in; ++i) {
    const TensorView &t = inputs[i];
    DUET_RETURN_IF_ERROR(checkSizes(spec.name, "input", i, t));
    // Variadic operands (cat) are all required.
    bool required = i < spec.requiredInputs || spec.maxInputs == kVariadic;
    if (required && !t.present() && t.numel() > 0)
      return Status::error("{}: input {} has no data", spec.name, i);
  }
  for (int i = 0; i < out; ++i) {
    DUET_RETURN_IF_ERROR(checkSizes(spec.name, "output", i, outputs[i]));
    if (!outputs[i].present() && outputs[i].numel() > 0)
      return Status::error("{}: output {} has no buffer", spec.name, i);
  }
  return Status::ok();
}

/// float32 stand-ins for the 16-bit float operands of a kernel that computes
/// in float. float64 is refused: computing it in float32 would make the
/// reference less exact than the model.
class Float32Operands {
public:
  Status widen(const KernelSpec &spec, const std::vector<TensorView> &inputs,
               const std::vector<TensorView> &outputs) {
    storage_.reserve(inputs.size() + outputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      DUET_RETURN_IF_ERROR(checkFloatType(spec, "input", i, inputs[i]));
      inputs_.push_back(standIn(inputs[i], /*copyValues=*/true));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      DUET_RETURN_IF_ERROR(checkFloatType(spec, "output", i, outputs[i]));
      outputs_.push_back(standIn(outputs[i], /*copyValues=*/false));
    }
    return Status::ok();
  }

  const std::vector<TensorView> &inputs() const { return inputs_; }
  const std::vector<TensorView> &outputs() const { return outputs_; }

  /// Rounds the float32 results into the 16-bit outputs.
  void narrow(const std::vector<TensorView> &outputs) const {
    for (size_t i = 0; i < outputs.size(); ++i) {
      const TensorView &dst = outputs[i];
      if (!needsStandIn(dst))
        continue;
      const float *src = outputs_[i].as<float>();
      uint16_t *bits = dst.as<uint16_t>();
      int64_t n = dst.numel();
      for (int64_t j = 0; j < n; ++j)
        bits[j] =
            dst.dtype == DType::f16 ? floatToHalf(src[j]) : floatToBf16(src[j]);
    }
  }

private:
  static bool needsStandIn(const TensorView &t) {
    return t.present() && (t.dtype == DType::f16 || t.dtype == DType::bf16);
  }

  static Status checkFloatType(const KernelSpec &spec, std::string_view what,
                               size_t index, const TensorView &t) {
    if (t.dtype != DType::f64)
      return Status::ok();
    return Status::error("{}: {} {} is float64, which the portable kernels "
                         "do not compute (float32, float16 and bfloat16 "
                         "only); cast it to float32 first",
                         spec.name, what, index);
  }

  TensorView standIn(const TensorView &t, bool copyValues) {
    if (!needsStandIn(t))
      return t;
    int64_t n = t.numel();
    std::vector<float> &values = storage_.emplace_back(n);
    if (copyValues) {
      const uint16_t *bits = t.as<const uint16_t>();
      for (int64_t j = 0; j < n; ++j)
        values[j] =
            t.dtype == DType::f16 ? halfToFloat(bits[j]) : bf16ToFloat(bits[j]);
    }
    TensorView wide = t;
    wide.dtype = DType::f32;
    wide.data = values.data();
    return wide;
  }

  std::vector<TensorView> inputs_, outputs_;
  std::vector<std::vector<float>> storage_;
};

Status runChecked(const KernelSpec &spec, const OpAttrs &attrs,
                  const std::vector<TensorView> &inputs,
                  const std::vector<TensorView> &outputs) {
  DUET_RETURN_IF_ERROR(checkOperands(spec, inputs, outputs));
  if (!spec.computesInFloat)
    return spec.body(KernelContext(spec.name, attrs, inputs, outputs));
  Float32Operands wide;
  DUET_RETURN_IF_ERROR(wide.widen(spec, inputs, outputs));
  DUET_RETURN_IF_ERROR(spec.body(
      KernelContext(spec.name, attrs, wide.inputs(), wide.outputs())));
  wide.narrow(outputs);
  return Status::ok();
}

/// Scratch buffers (im2col, float32 stand-ins) are the kernels' only
/// allocations; running out of memory for them is an error, not an abort.
Status runKernel(const KernelSpec &spec, const OpAttrs &attrs,
                 const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs) {
  try {
    return runChecked(spec, attrs, inputs, outputs);
  } catch (const std::bad_alloc &) {
    return Status::error("{}: out of memory for scratch buffers", spec.name);
  } catch (const std::length_error &) {
    return Status::error("{}: scratch buffer too large", spec.name);
  }
}

/// A KernelFn is a plain function pointer, so each table row gets its own
/// instantiation that knows its row.
template <size_t I>
Status entryPoint(const OpAttrs &attrs, const std::vector<TensorView> &inputs,
                  const std::vector<TensorView> &outputs) {
  return runKernel(kKernels[I], attrs, inputs, outputs);
}

template <size_t... I>
constexpr std::array<KernelFn, sizeof...(I)>
makeEntryPoints(std::index_sequence<I...>) {
  return {&entryPoint<I>...};
}
constexpr auto kEntryPoints =
    makeEntryPoints(std::make_index_sequence<kKernelCount>{});

} // namespace

KernelFn findKernel(std::string_view opName) {
  for (size_t i = 0; i < kKernelCount; ++i)
    if (kKernels[i].name == opName)
      return kEntryPoints[i];
  return nullptr;
}

std::vector<std::string_view> kernelOpNames() {
  std::vector<std::string_view> names;
  for (const KernelSpec &spec : kKernels)
    names.push_back(spec.name);
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace duet::rt
