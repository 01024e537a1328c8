//===- Registry.cpp - the table of portable kernels -----------------------===//
//
// One table names every kernel with what a call of it must look like: its
// operand counts, the attributes it reads and their kinds, and whether it
// computes in float. Everything kernels have in common happens here, once:
// those checks, sane sizes, present buffers, and the float16/bfloat16
// handling: such operands are widened to float32 before the body runs and
// its outputs rounded back after, so each body is written for float32 only
// and still serves all three float types. The dtype, rank and shape rules
// of each op are the checks at the top of its body, which checkKernelCall
// runs at load without data (KernelContext::checking).
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Escape.h"
#include "runtime/kernels/Ops.h"

#include "runtime/core/ProgramTypes.h"

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

/// What an attribute holds, as OpAttrs reads it.
enum class AttrKind : uint8_t {
  none, // an unused slot of KernelSpec::attrs
  integer,
  /// A float, or an integer read as one.
  number,
  boolean,
  integers,
  /// Enum attributes (gelu `approximate`, div `rounding_mode`).
  string,
};

/// An attribute an op reads. The compiler writes every attribute, defaults
/// included; only those the dialect declares optional may be absent.
struct AttrSpec {
  std::string_view name;
  AttrKind kind = AttrKind::none;
  bool optional = false;
};

/// `attr`, which a call may leave out (an OptionalAttr of the dialect).
constexpr AttrSpec optional(AttrSpec attr) {
  attr.optional = true;
  return attr;
}

/// The most attributes one op has (convolution, avg_pool2d).
constexpr size_t kMaxAttrs = 6;

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
  /// The attributes the body reads, under their aten-dialect names.
  AttrSpec attrs[kMaxAttrs] = {};
};

constexpr bool kFloat = true;  // computes in float32
constexpr bool kBytes = false; // moves, compares or converts any dtype

/// One row per aten op, derived from AtenOps.td: its operands, results and
/// attributes are the op's own, so the table cannot disagree with the
/// dialect (dialects/aten/gen_op_tables.py). Sorted by name.
constexpr KernelSpec kKernels[] = {
#include "dialects/aten/AtenKernels.inc"
};
constexpr size_t kKernelCount = std::size(kKernels);

/// Sizes must be non-negative, and their product with every empty dim
/// counted as 1 must fit comfortably in int64: kernels derive strides and
/// element counts from the sizes of a tensor (and of parts of it), and an
/// empty tensor of shape [0, 2^40, 2^40] holds no bytes but still has them.
Status checkSizes(std::string_view op, std::string_view what, size_t index,
                  const TensorView &t) {
  int64_t n = static_cast<int64_t>(dtypeSize(t.dtype));
  for (int64_t s : t.sizes) {
    if (s < 0)
      return Status::error("{}: {} {} has a negative size in {}", op, what,
                           index, formatShape(t.sizes));
    if (__builtin_mul_overflow(n, std::max<int64_t>(s, 1), &n) ||
        n > (int64_t{1} << 56))
      return Status::error("{}: {} {} of shape {} is too large", op, what,
                           index, formatShape(t.sizes));
  }
  return Status::ok();
}

Status checkArity(const KernelSpec &spec, size_t inputs, size_t outputs) {
  int in = static_cast<int>(inputs);
  int out = static_cast<int>(outputs);
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
  return Status::ok();
}

std::string_view kindName(AttrKind kind) {
  switch (kind) {
  case AttrKind::integer:
    return "an integer";
  case AttrKind::number:
    return "a float";
  case AttrKind::boolean:
    return "a bool";
  case AttrKind::integers:
    return "an integer list";
  case AttrKind::string:
    return "a string";
  case AttrKind::none:
    break;
  }
  return "nothing";
}

/// Whether `attrs` holds `name` as `kind`.
bool holds(const OpAttrs &attrs, std::string_view name, AttrKind kind) {
  switch (kind) {
  case AttrKind::integer:
    return attrs.getInt(name).has_value();
  case AttrKind::number:
    return attrs.getFloat(name).has_value();
  case AttrKind::boolean:
    return attrs.getBool(name).has_value();
  case AttrKind::integers:
    return attrs.getInts(name).has_value();
  case AttrKind::string:
    return attrs.getString(name).has_value();
  case AttrKind::none:
    break;
  }
  return false;
}

/// Every declared attribute is there with its kind, or optional and absent.
Status checkAttributes(const KernelSpec &spec, const OpAttrs &attrs) {
  for (const AttrSpec &attr : spec.attrs) {
    if (attr.kind == AttrKind::none)
      break;
    if (holds(attrs, attr.name, attr.kind))
      continue;
    bool present = false;
    for (AttrKind other :
         {AttrKind::integer, AttrKind::number, AttrKind::boolean,
          AttrKind::integers, AttrKind::string})
      present = present || holds(attrs, attr.name, other);
    if (present)
      return Status::error("{}: attribute '{}' is not {}", spec.name, attr.name,
                           kindName(attr.kind));
    if (!attr.optional)
      return Status::error("{}: missing attribute '{}' ({})", spec.name,
                           attr.name, kindName(attr.kind));
  }
  return Status::ok();
}

/// The table's checks of a call. `given` is null when the call runs (then
/// operands must have data) and says which inputs are passed when it is
/// only checked.
Status checkOperands(const KernelSpec &spec, const OpAttrs &attrs,
                     const std::vector<TensorView> &inputs,
                     const std::vector<TensorView> &outputs,
                     const std::vector<bool> *given) {
  DUET_RETURN_IF_ERROR(checkArity(spec, inputs.size(), outputs.size()));
  DUET_RETURN_IF_ERROR(checkAttributes(spec, attrs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorView &t = inputs[i];
    DUET_RETURN_IF_ERROR(checkSizes(spec.name, "input", i, t));
    // Variadic operands (cat) are all required.
    bool required = static_cast<int>(i) < spec.requiredInputs ||
                    spec.maxInputs == kVariadic;
    if (!required)
      continue;
    if (given && !(*given)[i])
      return Status::error("{}: input {} is required but the call leaves it "
                           "out",
                           spec.name, i);
    if (!given && !t.present() && t.numel() > 0)
      return Status::error("{}: input {} has no data", spec.name, i);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    DUET_RETURN_IF_ERROR(checkSizes(spec.name, "output", i, outputs[i]));
    if (!given && !outputs[i].present() && outputs[i].numel() > 0)
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
    if (t.dtype != DType::f16 && t.dtype != DType::bf16)
      return t;
    TensorView wide = t;
    wide.dtype = DType::f32;
    // While a call is only checked there is no data to convert.
    if (!t.present())
      return wide;
    int64_t n = t.numel();
    std::vector<float> &values = storage_.emplace_back(n);
    if (copyValues) {
      const uint16_t *bits = t.as<const uint16_t>();
      for (int64_t j = 0; j < n; ++j)
        values[j] =
            t.dtype == DType::f16 ? halfToFloat(bits[j]) : bf16ToFloat(bits[j]);
    }
    wide.data = values.data();
    return wide;
  }

  std::vector<TensorView> inputs_, outputs_;
  std::vector<std::vector<float>> storage_;
};

/// Checks a call and runs its body: on data when `given` is null, and in
/// checking mode (no data, `given` saying which inputs are passed) at load.
Status runChecked(const KernelSpec &spec, const OpAttrs &attrs,
                  const std::vector<TensorView> &inputs,
                  const std::vector<TensorView> &outputs,
                  const std::vector<bool> *given) {
  DUET_RETURN_IF_ERROR(checkOperands(spec, attrs, inputs, outputs, given));
  if (!spec.computesInFloat)
    return spec.body(KernelContext(spec.name, attrs, inputs, outputs, given));
  Float32Operands wide;
  DUET_RETURN_IF_ERROR(wide.widen(spec, inputs, outputs));
  DUET_RETURN_IF_ERROR(spec.body(
      KernelContext(spec.name, attrs, wide.inputs(), wide.outputs(), given)));
  if (!given)
    wide.narrow(outputs);
  return Status::ok();
}

/// Scratch buffers (im2col, float32 stand-ins) are the kernels' only
/// allocations; running out of memory for them is an error, not an abort.
Status runKernel(const KernelSpec &spec, const OpAttrs &attrs,
                 const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs) {
  try {
    return runChecked(spec, attrs, inputs, outputs, nullptr);
  } catch (const std::bad_alloc &) {
    return Status::error("{}: out of memory for scratch buffers", spec.name);
  } catch (const std::length_error &) {
    return Status::error("{}: scratch buffer too large", spec.name);
  }
}

const KernelSpec *findSpec(std::string_view opName) {
  for (const KernelSpec &spec : kKernels)
    if (spec.name == opName)
      return &spec;
  return nullptr;
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

Status checkKernelCall(std::string_view opName, const OpAttrs &attrs,
                       const std::vector<TensorView> &inputs,
                       const std::vector<bool> &given,
                       const std::vector<TensorView> &outputs) {
  const KernelSpec *spec = findSpec(opName);
  if (!spec)
    return Status::error("no portable kernel implements {}", escaped(opName));
  if (given.size() != inputs.size())
    return Status::error("{}: {} inputs but {} presence flags", spec->name,
                         inputs.size(), given.size());
  return runChecked(*spec, attrs, inputs, outputs, &given);
}

std::vector<std::string_view> kernelOpNames() {
  std::vector<std::string_view> names;
  for (const KernelSpec &spec : kKernels)
    names.push_back(spec.name);
  std::sort(names.begin(), names.end());
  return names;
}

Status checkKernelCall(const KernelCall &call,
                       const std::vector<TensorInfo> &tensors) {
  auto shapeOf = [&](int32_t id) {
    TensorView view;
    if (id >= 0) {
      view.dtype = tensors[id].dtype;
      view.sizes = tensors[id].sizes;
    }
    return view;
  };
  std::vector<TensorView> inputs, outputs;
  std::vector<bool> given;
  for (int32_t id : call.inputs) {
    inputs.push_back(shapeOf(id));
    given.push_back(id >= 0);
  }
  for (int32_t id : call.outputs)
    outputs.push_back(shapeOf(id));
  return checkKernelCall(call.op, attributeMap(call), inputs, given, outputs);
}

} // namespace duet::rt
