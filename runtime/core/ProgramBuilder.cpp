//===- ProgramBuilder.cpp - writes a .duet program file -------------------===//

#include "runtime/core/ProgramBuilder.h"

#include "runtime/core/AtomicFile.h"
#include "runtime/schema/program_generated.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace duet::rt {

namespace fb = ::flatbuffers;
namespace sc = ::duet::schema;

namespace {

fb::Offset<sc::Attribute> writeAttribute(fb::FlatBufferBuilder &fbb,
                                         const Attribute &attr) {
  auto name = fbb.CreateString(attr.name);
  sc::AttrValue type = sc::AttrValue::NONE;
  fb::Offset<void> value;
  if (auto *i = std::get_if<int64_t>(&attr.value)) {
    type = sc::AttrValue::IntValue;
    value = sc::CreateIntValue(fbb, *i).Union();
  } else if (auto *f = std::get_if<double>(&attr.value)) {
    type = sc::AttrValue::FloatValue;
    value = sc::CreateFloatValue(fbb, *f).Union();
  } else if (auto *b = std::get_if<bool>(&attr.value)) {
    type = sc::AttrValue::BoolValue;
    value = sc::CreateBoolValue(fbb, *b).Union();
  } else if (auto *list = std::get_if<std::vector<int64_t>>(&attr.value)) {
    type = sc::AttrValue::IntListValue;
    value = sc::CreateIntListValue(fbb, fbb.CreateVector(*list)).Union();
  } else {
    type = sc::AttrValue::StringValue;
    value = sc::CreateStringValue(
                fbb, fbb.CreateString(std::get<std::string>(attr.value)))
                .Union();
  }
  return sc::CreateAttribute(fbb, name, type, value);
}

fb::Offset<sc::KernelCall> writeKernelCall(fb::FlatBufferBuilder &fbb,
                                           const KernelCall &call) {
  auto op = fbb.CreateString(call.op);
  std::vector<fb::Offset<sc::Attribute>> attrs;
  attrs.reserve(call.attributes.size());
  for (const Attribute &attr : call.attributes)
    attrs.push_back(writeAttribute(fbb, attr));
  auto attrVector = fbb.CreateVector(attrs);
  auto inputs = fbb.CreateVector(call.inputs);
  auto outputs = fbb.CreateVector(call.outputs);
  fb::Offset<fb::String> node;
  if (!call.node.empty())
    node = fbb.CreateString(call.node);
  return sc::CreateKernelCall(fbb, op, attrVector, inputs, outputs, node);
}

fb::Offset<sc::Tensor> writeTensor(fb::FlatBufferBuilder &fbb,
                                   const TensorInfo &tensor) {
  auto name = fbb.CreateString(tensor.name);
  auto sizes = fbb.CreateVector(tensor.sizes);
  fb::Offset<sc::Placement> placement;
  if (tensor.placement) {
    const Placement &p = *tensor.placement;
    auto backend = fbb.CreateString(p.backend);
    sc::Extents extents(p.extents[0], p.extents[1], p.extents[2]);
    placement =
        sc::CreatePlacement(fbb, backend, p.storage, p.layout, &extents);
  }
  return sc::CreateTensor(fbb, name, tensor.dtype, sizes, tensor.kind,
                          tensor.nbytes, tensor.constantOffset,
                          tensor.arenaOffset, placement);
}

} // namespace

void ProgramBuilder::noteError(Status status) {
  if (firstError_.isOk())
    firstError_ = std::move(status);
}

int32_t ProgramBuilder::addTensor(TensorInfo tensor) {
  int32_t id = static_cast<int32_t>(tensors_.size());
  if (tensor.kind == TensorKind::constant)
    noteError(Status::error("tensor {} ({}) is a constant: add it with "
                            "addConstant so that its bytes are written",
                            id, tensor.name));
  if (!tensorBytes(tensor.dtype, tensor.sizes, tensor.nbytes))
    noteError(Status::error("tensor {} ({}): a size is negative or the byte "
                            "count overflows",
                            id, tensor.name));
  tensor.constantOffset = 0;
  tensors_.push_back(std::move(tensor));
  return id;
}

int32_t ProgramBuilder::addConstantTensor(TensorInfo tensor, const void *data,
                                          size_t ownedIndex) {
  int32_t id = static_cast<int32_t>(tensors_.size());
  tensor.kind = TensorKind::constant;
  tensor.arenaOffset = -1;
  if (!tensorBytes(tensor.dtype, tensor.sizes, tensor.nbytes)) {
    noteError(Status::error("constant {} ({}): a size is negative or the byte "
                            "count overflows",
                            id, tensor.name));
    tensor.nbytes = 0;
  }
  tensor.constantOffset = alignUp(constantsEnd_, kConstantAlignment);
  constantsEnd_ = tensor.constantOffset + tensor.nbytes;
  constants_.push_back({id, data, ownedIndex});
  tensors_.push_back(std::move(tensor));
  return id;
}

int32_t ProgramBuilder::addConstant(TensorInfo tensor, const void *data) {
  int32_t id = addConstantTensor(std::move(tensor), data, 0);
  if (!data && tensors_.back().nbytes)
    noteError(Status::error("constant {} ({}) was given no bytes", id,
                            tensors_.back().name));
  return id;
}

int32_t ProgramBuilder::addConstant(TensorInfo tensor,
                                    std::vector<uint8_t> bytes) {
  owned_.push_back(std::move(bytes));
  int32_t id = addConstantTensor(std::move(tensor), nullptr, owned_.size() - 1);
  const TensorInfo &added = tensors_.back();
  if (owned_.back().size() != added.nbytes)
    noteError(Status::error("constant {} ({}) was given {} bytes; its dtype "
                            "and sizes need {}",
                            id, added.name, owned_.back().size(),
                            added.nbytes));
  return id;
}

uint64_t ProgramBuilder::constantSegmentBytes() const {
  if (constants_.empty())
    return 0;
  return alignUp(constantsEnd_ + kConstantTailBytes, kConstantAlignment);
}

uint32_t ProgramBuilder::addDelegate(DelegateSpec delegate) {
  delegates_.push_back(std::move(delegate));
  return static_cast<uint32_t>(delegates_.size() - 1);
}

Status ProgramBuilder::emit(
    const std::function<bool(const void *, size_t)> &sink) const {
  DUET_RETURN_IF_ERROR(firstError_);

  fb::FlatBufferBuilder fbb(4096);
  // Every field is stored, defaults included, so that a tool can patch a
  // value in place (tests do, to make bad files).
  fbb.ForceDefaults(true);

  std::vector<fb::Offset<sc::Tensor>> tensors;
  tensors.reserve(tensors_.size());
  for (const TensorInfo &tensor : tensors_)
    tensors.push_back(writeTensor(fbb, tensor));
  auto tensorVector = fbb.CreateVector(tensors);
  auto inputs = fbb.CreateVector(inputs_);
  auto outputs = fbb.CreateVector(outputs_);

  std::vector<sc::Instruction> types;
  std::vector<fb::Offset<void>> instructions;
  for (const Instruction &instruction : instructions_) {
    if (auto *call = std::get_if<KernelCall>(&instruction)) {
      types.push_back(sc::Instruction::KernelCall);
      instructions.push_back(writeKernelCall(fbb, *call).Union());
      continue;
    }
    const auto &call = std::get<DelegateCall>(instruction);
    types.push_back(sc::Instruction::DelegateCall);
    auto callInputs = fbb.CreateVector(call.inputs);
    auto callOutputs = fbb.CreateVector(call.outputs);
    instructions.push_back(
        sc::CreateDelegateCall(fbb, call.delegate, callInputs, callOutputs)
            .Union());
  }
  auto typeVector = fbb.CreateVector(types);
  auto instructionVector = fbb.CreateVector(instructions);

  std::vector<fb::Offset<sc::Delegate>> delegates;
  for (const DelegateSpec &delegate : delegates_) {
    auto backend = fbb.CreateString(delegate.backend);
    // The blob is another FlatBuffer, read in place: align it for its scalars.
    fbb.ForceVectorAlignment(delegate.blob.size(), 1, kBlobAlignment);
    auto blob = fbb.CreateVector(delegate.blob);
    std::vector<fb::Offset<sc::KernelCall>> ops;
    for (const KernelCall &op : delegate.ops)
      ops.push_back(writeKernelCall(fbb, op));
    auto opVector = fbb.CreateVector(ops);
    delegates.push_back(sc::CreateDelegate(fbb, backend, blob, opVector));
  }
  auto delegateVector = fbb.CreateVector(delegates);
  auto plan = sc::CreateMemoryPlan(fbb, plan_.arenaBytes, plan_.peakBytes);
  auto targetCosts =
      targetCosts_.empty() ? 0 : fbb.CreateString(targetCosts_);

  auto root = sc::CreateProgram(fbb, kProgramFormatVersion, tensorVector,
                                inputs, outputs, typeVector, instructionVector,
                                delegateVector, plan, constantSegmentBytes(),
                                targetCosts);
  sc::FinishSizePrefixedProgramBuffer(fbb, root);

  static const uint8_t zeros[kConstantAlignment] = {};
  uint64_t written = fbb.GetSize();
  if (!sink(fbb.GetBufferPointer(), fbb.GetSize()))
    return Status::error("cannot write the program's FlatBuffer");
  // Padding can be longer than `zeros` (a constant segment's tail, or the
  // gap after a FlatBuffer): write it in pieces.
  auto padTo = [&](uint64_t offset) {
    while (written < offset) {
      uint64_t piece = std::min<uint64_t>(offset - written, sizeof(zeros));
      if (!sink(zeros, piece))
        return false;
      written += piece;
    }
    return true;
  };
  uint64_t segmentStart = alignUp(written, kConstantAlignment);
  if (!padTo(segmentStart))
    return Status::error("cannot write the padding after the FlatBuffer");
  for (const ConstantBytes &constant : constants_) {
    const TensorInfo &tensor = tensors_[constant.tensor];
    if (!padTo(segmentStart + tensor.constantOffset))
      return Status::error("cannot write the padding before constant {} ({})",
                           constant.tensor, tensor.name);
    const void *data =
        constant.data ? constant.data : owned_[constant.ownedIndex].data();
    if (tensor.nbytes && !sink(data, tensor.nbytes))
      return Status::error("cannot write constant {} ({})", constant.tensor,
                           tensor.name);
    written += tensor.nbytes;
  }
  if (!padTo(segmentStart + constantSegmentBytes()))
    return Status::error("cannot write the end of the constant segment");
  return Status::ok();
}

Status ProgramBuilder::serialize(std::vector<uint8_t> &bytes) const {
  bytes.clear();
  return emit([&](const void *data, size_t size) {
    const auto *begin = static_cast<const uint8_t *>(data);
    bytes.insert(bytes.end(), begin, begin + size);
    return true;
  });
}

Status ProgramBuilder::writeFile(const std::string &path) const {
  std::unique_ptr<AtomicFile> file;
  DUET_RETURN_IF_ERROR(AtomicFile::create(path, file));
  Status written;
  Status status = emit([&](const void *data, size_t size) {
    written = file->write(data, size);
    return written.isOk();
  });
  if (!written)
    return written;
  if (!status)
    return status.withContext(path);
  return file->commit();
}

} // namespace duet::rt
