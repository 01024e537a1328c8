//===- ProgramMutation.cpp - semantic mutations of programs ---------------===//

#include "ProgramMutation.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

namespace duet::rt::test {

ProgramSpec ProgramSpec::of(const Program &program) {
  ProgramSpec spec;
  spec.tensors = program.tensors();
  for (size_t id = 0; id < spec.tensors.size(); ++id) {
    if (spec.tensors[id].kind != TensorKind::constant)
      continue;
    const auto *data = static_cast<const uint8_t *>(
        program.constantView(static_cast<int32_t>(id)).data);
    spec.constants[static_cast<int32_t>(id)].assign(
        data, data + spec.tensors[id].nbytes);
  }
  spec.inputs = program.inputs();
  spec.outputs = program.outputs();
  spec.instructions = program.instructions();
  for (const DelegateInfo &delegate : program.delegates())
    spec.delegates.push_back(
        {delegate.backend,
         std::vector<uint8_t>(delegate.blob.data,
                              delegate.blob.data + delegate.blob.size),
         delegate.ops});
  spec.plan = program.memoryPlan();
  return spec;
}

bool ProgramSpec::serialize(std::vector<uint8_t> &bytes) const {
  ProgramBuilder builder;
  for (size_t id = 0; id < tensors.size(); ++id) {
    if (tensors[id].kind == TensorKind::constant)
      builder.addConstant(tensors[id], constants.at(static_cast<int32_t>(id)));
    else
      builder.addTensor(tensors[id]);
  }
  builder.setInputs(inputs);
  builder.setOutputs(outputs);
  for (const DelegateSpec &delegate : delegates)
    builder.addDelegate(delegate);
  for (const Instruction &instruction : instructions) {
    if (const auto *call = std::get_if<KernelCall>(&instruction))
      builder.addKernelCall(*call);
    else
      builder.addDelegateCall(std::get<DelegateCall>(instruction));
  }
  builder.setMemoryPlan(plan);
  return builder.serialize(bytes).isOk();
}

namespace {

/// The operand lists and attributes of one instruction or recorded op.
struct Site {
  std::string where;
  std::vector<int32_t> *inputs;
  std::vector<int32_t> *outputs;
  /// Null for a DelegateCall.
  std::vector<Attribute> *attributes;
};

std::vector<Site> sitesOf(ProgramSpec &spec) {
  std::vector<Site> sites;
  for (size_t i = 0; i < spec.instructions.size(); ++i) {
    std::string where = fmt::format("instruction {}", i);
    if (auto *call = std::get_if<KernelCall>(&spec.instructions[i])) {
      sites.push_back({where + " (" + call->op + ")", &call->inputs,
                       &call->outputs, &call->attributes});
      continue;
    }
    auto &call = std::get<DelegateCall>(spec.instructions[i]);
    sites.push_back(
        {where + " (delegate call)", &call.inputs, &call.outputs, nullptr});
  }
  for (size_t d = 0; d < spec.delegates.size(); ++d)
    for (size_t k = 0; k < spec.delegates[d].ops.size(); ++k) {
      KernelCall &op = spec.delegates[d].ops[k];
      sites.push_back({fmt::format("delegate {} op {} ({})", d, k, op.op),
                       &op.inputs, &op.outputs, &op.attributes});
    }
  return sites;
}

/// Integers a file may hold where a small size, dim or count belongs.
const int64_t kAbsurdInts[] = {-1,
                               0,
                               2,
                               int64_t{1} << 40,
                               std::numeric_limits<int64_t>::max(),
                               std::numeric_limits<int64_t>::min()};

class Mutator {
public:
  Mutator(ProgramSpec &spec, std::mt19937 &random)
      : spec_(spec), random_(random), sites_(sitesOf(spec)) {}

  /// One mutation, or an empty string when the one drawn does not apply.
  std::string attempt() {
    switch (below(12)) {
    case 0:
      return dropOperand(/*input=*/true);
    case 1:
      return dropOperand(/*input=*/false);
    case 2:
      return addOperand(/*input=*/true);
    case 3:
      return addOperand(/*input=*/false);
    case 4:
      return retargetOperand();
    case 5:
      return deleteAttribute();
    case 6:
      return retypeAttribute();
    case 7:
      return absurdAttribute();
    case 8:
      return reshapeTensor();
    case 9:
      return retypeTensor();
    case 10:
      return moveTensor();
    default:
      return resizeArena();
    }
  }

private:
  size_t below(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(random_);
  }
  template <typename T, size_t N> T oneOf(const T (&values)[N]) {
    return values[below(N)];
  }
  int32_t anyTensor() {
    return static_cast<int32_t>(below(spec_.tensors.size()));
  }

  std::string dropOperand(bool input) {
    Site &site = sites_[below(sites_.size())];
    std::vector<int32_t> &ids = input ? *site.inputs : *site.outputs;
    if (ids.empty())
      return "";
    size_t at = below(ids.size());
    ids.erase(ids.begin() + static_cast<ptrdiff_t>(at));
    return fmt::format("{}: dropped {} {}", site.where,
                       input ? "input" : "output", at);
  }

  std::string addOperand(bool input) {
    Site &site = sites_[below(sites_.size())];
    std::vector<int32_t> &ids = input ? *site.inputs : *site.outputs;
    int32_t id = input && below(4) == 0 ? -1 : anyTensor();
    size_t at = below(ids.size() + 1);
    ids.insert(ids.begin() + static_cast<ptrdiff_t>(at), id);
    return fmt::format("{}: added {} {} = tensor {}", site.where,
                       input ? "input" : "output", at, id);
  }

  std::string retargetOperand() {
    Site &site = sites_[below(sites_.size())];
    bool input = below(2) == 0;
    std::vector<int32_t> &ids = input ? *site.inputs : *site.outputs;
    if (ids.empty())
      return "";
    size_t at = below(ids.size());
    ids[at] = anyTensor();
    return fmt::format("{}: {} {} now tensor {}", site.where,
                       input ? "input" : "output", at, ids[at]);
  }

  Attribute *anyAttribute(std::string &where) {
    std::vector<std::pair<Site *, Attribute *>> all;
    for (Site &site : sites_)
      if (site.attributes)
        for (Attribute &attr : *site.attributes)
          all.push_back({&site, &attr});
    if (all.empty())
      return nullptr;
    auto [site, attr] = all[below(all.size())];
    where = fmt::format("{}: attribute '{}'", site->where, attr->name);
    return attr;
  }

  std::string deleteAttribute() {
    std::vector<Site *> withAttributes;
    for (Site &site : sites_)
      if (site.attributes && !site.attributes->empty())
        withAttributes.push_back(&site);
    if (withAttributes.empty())
      return "";
    Site &site = *withAttributes[below(withAttributes.size())];
    size_t at = below(site.attributes->size());
    std::string name = (*site.attributes)[at].name;
    site.attributes->erase(site.attributes->begin() +
                           static_cast<ptrdiff_t>(at));
    return fmt::format("{}: deleted attribute '{}'", site.where, name);
  }

  std::string retypeAttribute() {
    std::string where;
    Attribute *attr = anyAttribute(where);
    if (!attr)
      return "";
    const AttrValue values[] = {
        AttrValue(int64_t{1}), AttrValue(1.5), AttrValue(true),
        AttrValue(std::vector<int64_t>{1, 1}), AttrValue(std::string("none"))};
    AttrValue value = oneOf(values);
    if (value.index() == attr->value.index())
      return "";
    attr->value = std::move(value);
    return where + " retyped";
  }

  std::string absurdAttribute() {
    std::string where;
    Attribute *attr = anyAttribute(where);
    if (!attr)
      return "";
    int64_t absurd = oneOf(kAbsurdInts);
    if (auto *i = std::get_if<int64_t>(&attr->value)) {
      *i = absurd;
    } else if (auto *d = std::get_if<double>(&attr->value)) {
      const double floats[] = {-1.0, 0.0, 1e300,
                               std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity()};
      *d = oneOf(floats);
    } else if (auto *b = std::get_if<bool>(&attr->value)) {
      *b = !*b;
    } else if (auto *list = std::get_if<std::vector<int64_t>>(&attr->value)) {
      if (list->empty() || below(3) == 0)
        list->push_back(absurd);
      else
        (*list)[below(list->size())] = absurd;
    } else {
      attr->value = std::string("bogus");
    }
    return where + " made absurd";
  }

  /// New zero bytes for a constant whose size changed; false when the new
  /// size is too large to bother.
  bool refill(int32_t id) {
    TensorInfo &tensor = spec_.tensors[id];
    uint64_t bytes = 0;
    if (!tensorBytes(tensor.dtype, tensor.sizes, bytes) || bytes > (1u << 20))
      return false;
    if (tensor.kind == TensorKind::constant)
      spec_.constants[id].assign(bytes, 0);
    return true;
  }

  std::string reshapeTensor() {
    int32_t id = anyTensor();
    std::vector<int64_t> &sizes = spec_.tensors[id].sizes;
    const int64_t dims[] = {0, 1, 2, 3, 5, 8};
    std::string what;
    switch (sizes.empty() ? 0 : below(3)) {
    case 0:
      sizes.insert(sizes.begin() +
                       static_cast<ptrdiff_t>(below(sizes.size() + 1)),
                   oneOf(dims));
      what = "a dim added";
      break;
    case 1:
      sizes.erase(sizes.begin() + static_cast<ptrdiff_t>(below(sizes.size())));
      what = "a dim removed";
      break;
    default:
      sizes[below(sizes.size())] = oneOf(dims);
      what = "a dim changed";
      break;
    }
    if (!refill(id))
      return "";
    return fmt::format("tensor {}: {}, now [{}]", id, what,
                       fmt::join(sizes, ", "));
  }

  std::string retypeTensor() {
    int32_t id = anyTensor();
    spec_.tensors[id].dtype = static_cast<DType>(below(kDTypeCount));
    if (!refill(id))
      return "";
    return fmt::format("tensor {}: dtype now {}", id,
                       dtypeName(spec_.tensors[id].dtype));
  }

  std::string moveTensor() {
    int32_t id = anyTensor();
    TensorInfo &tensor = spec_.tensors[id];
    if (tensor.kind == TensorKind::constant)
      return "";
    int64_t limit = static_cast<int64_t>(spec_.plan.arenaBytes) + 64;
    tensor.arenaOffset =
        below(8) == 0 ? -1 : static_cast<int64_t>(below(limit / 4 + 1)) * 4;
    return fmt::format("tensor {}: arena offset now {}", id,
                       tensor.arenaOffset);
  }

  std::string resizeArena() {
    uint64_t &arena = spec_.plan.arenaBytes;
    const uint64_t sizes[] = {0, arena / 2, arena - 1, arena + 64,
                              spec_.plan.peakBytes};
    arena = oneOf(sizes);
    return fmt::format("arena now {} bytes", arena);
  }

  ProgramSpec &spec_;
  std::mt19937 &random_;
  std::vector<Site> sites_;
};

} // namespace

std::string mutate(ProgramSpec &spec, std::mt19937 &random) {
  while (true) {
    // Each attempt works on a copy, so one that does not apply leaves the
    // spec as it was.
    ProgramSpec copy = spec;
    std::string what = Mutator(copy, random).attempt();
    if (!what.empty()) {
      spec = std::move(copy);
      return what;
    }
  }
}

Outcome loadAndRun(const std::vector<uint8_t> &bytes,
                   const LoadOptions &options, const std::string &what) {
  INFO(what);
  std::unique_ptr<Runtime> runtime;
  Status status = Runtime::loadFromBytes(bytes.data(), bytes.size(),
                                         "mutant.duet", options, runtime);
  if (!status.isOk()) {
    INFO(status.message());
    CHECK(status.message().rfind("mutant.duet: ", 0) == 0);
    CHECK(status.message().find('\n') == std::string::npos);
    return Outcome::refused;
  }
  for (size_t i = 0; i < runtime->inputCount(); ++i) {
    const TensorInfo &info = runtime->inputInfo(i);
    std::vector<uint8_t> zeros(info.nbytes, 0);
    REQUIRE(runtime
                ->setInput(i, {info.dtype, info.sizes,
                               zeros.empty() ? nullptr : zeros.data()})
                .isOk());
  }
  status = runtime->run();
  INFO(status.message());
  CHECK(status.isOk());
  return Outcome::ran;
}

} // namespace duet::rt::test
