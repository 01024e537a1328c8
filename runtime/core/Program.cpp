//===- Program.cpp - maps, verifies and decodes a program file ------------===//

#include "runtime/core/Program.h"

#include "runtime/core/Escape.h"
#include "runtime/core/FlatVectors.h"

#include "runtime/schema/program_generated.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace duet::rt {

namespace fb = ::flatbuffers;
namespace sc = ::duet::schema;

namespace {

/// The size prefix, the root offset and the file identifier.
constexpr size_t kHeaderBytes = 12;

template <typename T> std::vector<T> toVector(const fb::Vector<T> *vector) {
  return copyVector(vector);
}

std::string toString(const fb::String *string) {
  return string ? string->str() : std::string();
}

Status decodeKernelCall(const sc::KernelCall &call, const std::string &where,
                        KernelCall &out) {
  out.op = call.op()->str();
  out.inputs = toVector(call.inputs());
  out.outputs = toVector(call.outputs());
  out.node = toString(call.node());
  if (!call.attributes())
    return Status::ok();
  for (const sc::Attribute *attr : *call.attributes()) {
    Attribute decoded;
    decoded.name = toString(attr->name());
    // A union's kind without its table verifies, but has nothing to read.
    if (attr->value_type() != sc::AttrValue::NONE && !attr->value())
      return Status::error("{} ({}): attribute '{}' has a kind but no value; "
                           "the file is corrupt",
                           where, escaped(out.op), escaped(decoded.name));
    switch (attr->value_type()) {
    case sc::AttrValue::IntValue:
      decoded.value = attr->value_as_IntValue()->value();
      break;
    case sc::AttrValue::FloatValue:
      decoded.value = attr->value_as_FloatValue()->value();
      break;
    case sc::AttrValue::BoolValue:
      decoded.value = attr->value_as_BoolValue()->value();
      break;
    case sc::AttrValue::IntListValue:
      decoded.value = toVector(attr->value_as_IntListValue()->values());
      break;
    case sc::AttrValue::StringValue:
      decoded.value = toString(attr->value_as_StringValue()->value());
      break;
    case sc::AttrValue::NONE:
      return Status::error("{} ({}): attribute '{}' has no value", where,
                           escaped(out.op), escaped(decoded.name));
    default:
      return Status::error("{} ({}): attribute '{}' has a value of unknown "
                           "kind {}; the file is corrupt or from a newer duet",
                           where, escaped(out.op), escaped(decoded.name),
                           static_cast<int>(attr->value_type()));
    }
    out.attributes.push_back(std::move(decoded));
  }
  return Status::ok();
}

} // namespace

Program::~Program() {
  if (mapping_)
    munmap(mapping_, mappingBytes_);
  std::free(heap_);
}

Status Program::load(const std::string &path, const LoadOptions &options,
                     std::unique_ptr<Program> &program) {
  std::unique_ptr<Program> loaded(new Program());
  loaded->name_ = path;
  loaded->options_ = options;

  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error("{}: cannot open the program: {}", path,
                         std::strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return Status::error("{}: not a regular file", path);
  }
  loaded->size_ = static_cast<uint64_t>(info.st_size);
  if (loaded->size_ > 0) {
    // Populated up front: a load reads every constant, and mapping the
    // pages in one call is several times faster than a fault per page
    // (Linux; elsewhere the flag is absent and pages fault in as read).
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    if (!options.inspectOnly)
      flags |= MAP_POPULATE;
#endif
    void *mapping = mmap(nullptr, loaded->size_, PROT_READ, flags, fd, 0);
    if (mapping == MAP_FAILED) {
      int error = errno;
      close(fd);
      return Status::error("{}: cannot map the program: {}", path,
                           std::strerror(error));
    }
    loaded->mapping_ = mapping;
    loaded->mappingBytes_ = loaded->size_;
    loaded->data_ = static_cast<const uint8_t *>(mapping);
  }
  close(fd);

  DUET_RETURN_IF_ERROR(loaded->parse());
  program = std::move(loaded);
  return Status::ok();
}

Status Program::loadFromBytes(const void *data, size_t size, std::string name,
                              const LoadOptions &options,
                              std::unique_ptr<Program> &program) {
  std::unique_ptr<Program> loaded(new Program());
  loaded->name_ = std::move(name);
  loaded->options_ = options;
  loaded->size_ = size;
  if (size > 0) {
    // A private copy, aligned like a mapping, so constants keep their
    // alignment and the caller's buffer may go away.
    loaded->heap_ = std::aligned_alloc(kConstantAlignment,
                                       alignUp(size, kConstantAlignment));
    if (!loaded->heap_)
      return Status::error("{}: cannot allocate {} bytes for the program",
                           loaded->name_, size);
    std::memcpy(loaded->heap_, data, size);
    loaded->data_ = static_cast<const uint8_t *>(loaded->heap_);
  }
  DUET_RETURN_IF_ERROR(loaded->parse());
  program = std::move(loaded);
  return Status::ok();
}

Status Program::parse() {
  if (size_ < kHeaderBytes)
    return Status::error("{}: the file is {} bytes long, too short for a "
                         "duet program; it is truncated or not a program",
                         name_, size_);
  // The identifier comes first so that a wrong file says so, rather than
  // failing some later check.
  if (std::memcmp(data_ + 8, sc::ProgramIdentifier(), 4) != 0)
    return Status::error("{}: not a duet program (file identifier '{}', "
                         "expected 'DUET')",
                         name_,
                         escaped(std::string_view(
                             reinterpret_cast<const char *>(data_ + 8), 4)));
  flatBufferBytes_ = fb::ReadScalar<uint32_t>(data_);
  if (flatBufferBytes_ > size_ - sizeof(uint32_t))
    return Status::error("{}: the program's FlatBuffer is {} bytes but only "
                         "{} follow its size prefix; the file is truncated",
                         name_, flatBufferBytes_, size_ - sizeof(uint32_t));
  uint64_t bufferBytes = flatBufferBytes_ + sizeof(uint32_t);
  if (bufferBytes >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return Status::error("{}: the program's FlatBuffer declares {} bytes, "
                         "more than a FlatBuffer can hold; the file is corrupt",
                         name_, flatBufferBytes_);

  fb::Verifier::Options verifierOptions;
  // Every table takes at least four bytes, so this bound only stops a
  // buffer whose offsets make the verifier revisit tables without end.
  verifierOptions.max_tables =
      static_cast<fb::uoffset_t>(std::max<uint64_t>(1000000, bufferBytes / 4));
  fb::Verifier verifier(data_, bufferBytes, verifierOptions);
  if (!sc::VerifySizePrefixedProgramBuffer(verifier))
    return Status::error("{}: the program's FlatBuffer does not verify (an "
                         "offset or a size points outside it); the file is "
                         "corrupt",
                         name_);
  const sc::Program *root = sc::GetSizePrefixedProgram(data_);

  formatVersion_ = root->format_version();
  if (formatVersion_ == 0)
    return Status::error("{}: format version 0 does not exist; the file is "
                         "corrupt",
                         name_);
  if (formatVersion_ > kProgramFormatVersion)
    return Status::error("{}: format version {} is newer than this runtime "
                         "reads (up to {}); run it with a runtime as new as "
                         "the compiler that wrote it",
                         name_, formatVersion_, kProgramFormatVersion);

  segmentOffset_ = alignUp(bufferBytes, kConstantAlignment);
  segmentBytes_ = root->constant_segment_bytes();
  if (const fb::String *costs = root->target_costs())
    targetCosts_ = costs->str();
  if (segmentOffset_ > size_ || segmentBytes_ > size_ - segmentOffset_)
    return Status::error("{}: the {}-byte constant segment starting at byte "
                         "{} runs past the end of the {}-byte file; the file "
                         "is truncated",
                         name_, segmentBytes_, segmentOffset_, size_);
  if (segmentOffset_ + segmentBytes_ != size_)
    return Status::error("{}: {} unexpected bytes follow the constant segment "
                         "(which ends at byte {}); the file is corrupt",
                         name_, size_ - segmentOffset_ - segmentBytes_,
                         segmentOffset_ + segmentBytes_);

  DUET_RETURN_IF_ERROR(decode(root).withContext(name_));
  return check().withContext(name_);
}

Status Program::decode(const void *rootPointer) {
  const auto &root = *static_cast<const sc::Program *>(rootPointer);

  if (const auto *tensors = root.tensors()) {
    tensors_.reserve(tensors->size());
    for (const sc::Tensor *t : *tensors) {
      size_t id = tensors_.size();
      TensorInfo info;
      info.name = toString(t->name());
      if (t->dtype() > DType::MAX)
        return Status::error("tensor {} ({}): dtype number {} is unknown to "
                             "this runtime; the file is corrupt or from a "
                             "newer duet",
                             id, escaped(info.name),
                             static_cast<int>(t->dtype()));
      info.dtype = t->dtype();
      info.sizes = toVector(t->sizes());
      if (t->kind() > TensorKind::MAX)
        return Status::error("tensor {} ({}): kind number {} is unknown; the "
                             "file is corrupt or from a newer duet",
                             id, escaped(info.name),
                             static_cast<int>(t->kind()));
      info.kind = t->kind();
      info.nbytes = t->nbytes();
      info.constantOffset = t->constant_offset();
      info.arenaOffset = t->arena_offset();
      if (const sc::Placement *p = t->placement()) {
        if (formatVersion_ < kOldestPlacementFormatVersion)
          return Status::error("tensor {} ({}): its placement is numbered as "
                               "in format version {}, which this runtime "
                               "reads otherwise; recompile the model",
                               id, escaped(info.name), formatVersion_);
        if (p->storage() > Storage::MAX || p->layout() > Layout::MAX)
          return Status::error("tensor {} ({}): placement storage {} or "
                               "layout {} is unknown; the file is corrupt or "
                               "from a newer duet",
                               id, escaped(info.name),
                               static_cast<int>(p->storage()),
                               static_cast<int>(p->layout()));
        Placement placement;
        placement.backend = toString(p->backend());
        placement.storage = p->storage();
        placement.layout = p->layout();
        if (const sc::Extents *e = p->extents())
          placement.extents = {e->x(), e->y(), e->z()};
        info.placement = std::move(placement);
      }
      tensors_.push_back(std::move(info));
    }
  }
  inputs_ = toVector(root.inputs());
  outputs_ = toVector(root.outputs());

  if (const auto *instructions = root.instructions()) {
    const auto *types = root.instructions_type();
    for (fb::uoffset_t i = 0; i < instructions->size(); ++i) {
      std::string where = fmt::format("instruction {}", i);
      switch (types->GetEnum<sc::Instruction>(i)) {
      case sc::Instruction::KernelCall: {
        KernelCall call;
        DUET_RETURN_IF_ERROR(decodeKernelCall(
            *static_cast<const sc::KernelCall *>(instructions->Get(i)), where,
            call));
        instructions_.push_back(std::move(call));
        break;
      }
      case sc::Instruction::DelegateCall: {
        const auto *fbCall =
            static_cast<const sc::DelegateCall *>(instructions->Get(i));
        DelegateCall call;
        call.delegate = fbCall->delegate();
        call.inputs = toVector(fbCall->inputs());
        call.outputs = toVector(fbCall->outputs());
        instructions_.push_back(std::move(call));
        break;
      }
      default:
        return Status::error("{} is of unknown kind {}; the file is corrupt "
                             "or from a newer duet",
                             where, static_cast<int>(types->Get(i)));
      }
    }
  }

  if (const auto *delegates = root.delegates()) {
    for (const sc::Delegate *d : *delegates) {
      DelegateInfo info;
      info.backend = d->backend()->str();
      if (const auto *blob = d->blob())
        info.blob = {blob->data(), blob->size()};
      if (const auto *ops = d->ops()) {
        for (fb::uoffset_t i = 0; i < ops->size(); ++i) {
          KernelCall call;
          DUET_RETURN_IF_ERROR(decodeKernelCall(
              *ops->Get(i),
              fmt::format("delegate {} op {}", delegates_.size(), i), call));
          info.ops.push_back(std::move(call));
        }
      }
      delegates_.push_back(std::move(info));
    }
  }

  if (const sc::MemoryPlan *plan = root.memory_plan())
    plan_ = {plan->arena_bytes(), plan->peak_bytes()};
  return Status::ok();
}

TensorView Program::constantView(int32_t id) const {
  TensorView view;
  if (id < 0 || static_cast<size_t>(id) >= tensors_.size() ||
      tensors_[id].kind != TensorKind::constant)
    return view;
  const TensorInfo &tensor = tensors_[id];
  view.dtype = tensor.dtype;
  view.sizes = tensor.sizes;
  // Kernels take mutable views; the loader guarantees no instruction writes
  // a constant, and the read-only mapping would stop one that tried.
  view.data =
      const_cast<uint8_t *>(data_ + segmentOffset_ + tensor.constantOffset);
  return view;
}

std::string Program::describeTensor(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= tensors_.size())
    return fmt::format("tensor {}", id);
  if (tensors_[id].name.empty())
    return fmt::format("tensor {}", id);
  return fmt::format("tensor {} ({})", id, escaped(tensors_[id].name));
}

unsigned Program::threads() const {
  return options_.threads ? options_.threads : usableCpuCount();
}

const BackendRegistry &Program::backends() const {
  return options_.backends ? *options_.backends : defaultBackends();
}

KernelFn Program::findOpKernel(std::string_view op) const {
  return options_.kernels ? options_.kernels(op) : findKernel(op);
}

} // namespace duet::rt
