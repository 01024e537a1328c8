//===- Faults.cpp - planted node faults, resolved against a program -------===//

#include "runtime/core/Faults.h"

#include "runtime/core/Escape.h"

#include <cmath>
#include <limits>

namespace duet::rt {
namespace {

const char *kindName(runtime::FaultKind kind) {
  switch (kind) {
  case runtime::FaultKind::add:
    return "add";
  case runtime::FaultKind::zero:
    return "zero";
  case runtime::FaultKind::nan:
    return "nan";
  }
  return "?";
}

/// One op of the program with where it is.
struct OpAt {
  const KernelCall *call = nullptr;
  size_t instruction = 0;
  int64_t delegateOp = -1;
};

/// Every op in execution order: kernel calls, and each delegate's ops in
/// their recorded order.
std::vector<OpAt> opsInOrder(const Program &program) {
  std::vector<OpAt> ops;
  const std::vector<Instruction> &instructions = program.instructions();
  for (size_t i = 0; i < instructions.size(); ++i) {
    if (const auto *call = std::get_if<KernelCall>(&instructions[i])) {
      ops.push_back({call, i, -1});
      continue;
    }
    const auto &call = std::get<DelegateCall>(instructions[i]);
    const DelegateInfo &delegate = program.delegates()[call.delegate];
    for (size_t k = 0; k < delegate.ops.size(); ++k)
      ops.push_back({&delegate.ops[k], i, static_cast<int64_t>(k)});
  }
  return ops;
}

} // namespace

Status resolveFaults(const Program &program, std::vector<TensorFault> &faults) {
  faults.clear();
  const std::vector<runtime::NodeFault> &nodes = program.options().faults.nodes;
  if (nodes.empty())
    return Status::ok();
  std::vector<OpAt> ops = opsInOrder(program);
  for (const runtime::NodeFault &wanted : nodes) {
    const OpAt *last = nullptr;
    for (const OpAt &op : ops)
      if (op.call->node == wanted.node)
        last = &op;
    if (!last)
      return Status::error(
          "fault at node '{}': no op of the program computes a node of that "
          "name; `duet inspect --json` gives each op's \"node\"",
          escaped(wanted.node));
    size_t planted = 0;
    for (int32_t id : last->call->outputs) {
      if (id < 0 || !isFloat(program.tensors()[id].dtype))
        continue;
      TensorFault fault;
      fault.tensor = id;
      fault.kind = wanted.kind;
      fault.value = wanted.value;
      fault.node = wanted.node;
      fault.op = last->call->op;
      fault.instruction = last->instruction;
      fault.delegateOp = last->delegateOp;
      faults.push_back(std::move(fault));
      ++planted;
    }
    if (!planted)
      return Status::error("fault at node '{}' ({}): the op has no "
                           "floating-point result to make wrong; choose "
                           "another node",
                           escaped(wanted.node), escaped(last->call->op));
  }
  return Status::ok();
}

std::vector<TensorFault> delegateFaults(const Program &program,
                                        uint32_t delegate) {
  std::vector<TensorFault> all, mine;
  if (program.referenceMode() || !resolveFaults(program, all).isOk())
    return mine;
  for (TensorFault &fault : all) {
    const auto *call =
        std::get_if<DelegateCall>(&program.instructions()[fault.instruction]);
    if (call && call->delegate == delegate)
      mine.push_back(std::move(fault));
  }
  return mine;
}

float faultedValue(const TensorFault &fault, float x) {
  switch (fault.kind) {
  case runtime::FaultKind::add:
    return static_cast<float>(x + fault.value);
  case runtime::FaultKind::zero:
    return 0.f;
  case runtime::FaultKind::nan:
    return std::numeric_limits<float>::quiet_NaN();
  }
  return x;
}

void applyFault(const TensorFault &fault, const TensorView &view) {
  if (!view.present())
    return;
  int64_t count = view.numel();
  for (int64_t i = 0; i < count; ++i) {
    switch (view.dtype) {
    case DType::f32:
      view.as<float>()[i] = faultedValue(fault, view.as<float>()[i]);
      break;
    case DType::f64: {
      double &x = view.as<double>()[i];
      x = fault.kind == runtime::FaultKind::add ? x + fault.value
                                                : faultedValue(fault, 0.f);
      break;
    }
    case DType::f16: {
      uint16_t &x = view.as<uint16_t>()[i];
      x = floatToHalf(faultedValue(fault, halfToFloat(x)));
      break;
    }
    case DType::bf16: {
      uint16_t &x = view.as<uint16_t>()[i];
      x = floatToBf16(faultedValue(fault, bf16ToFloat(x)));
      break;
    }
    default:
      return;
    }
  }
}

std::string fusedInto(const Program &program, const TensorFault &fault) {
  const auto *call =
      std::get_if<DelegateCall>(&program.instructions()[fault.instruction]);
  if (call && fault.delegateOp >= 0) {
    const std::vector<KernelCall> &ops =
        program.delegates()[call->delegate].ops;
    for (size_t k = static_cast<size_t>(fault.delegateOp) + 1; k < ops.size();
         ++k)
      for (int32_t input : ops[k].inputs)
        if (input == fault.tensor && !ops[k].node.empty())
          return fmt::format("node '{}' ({})", escaped(ops[k].node),
                             escaped(ops[k].op));
  }
  return "the op after it";
}

std::string describeFault(const TensorFault &fault) {
  std::string kind = kindName(fault.kind);
  if (fault.kind == runtime::FaultKind::add)
    kind += fmt::format(" {:g}", fault.value);
  return fmt::format("fault '{}' at node '{}' ({})", kind, escaped(fault.node),
                     escaped(fault.op));
}

} // namespace duet::rt
