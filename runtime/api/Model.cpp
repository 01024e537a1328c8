//===- Model.cpp - duet's library API for running programs ----------------===//
//
// A facade over rt::Runtime (runtime/core/Runtime.h) that exposes only
// standard-library types, so the installed header stays stable while the
// runtime's internals change.
//
//===----------------------------------------------------------------------===//

#include "duet/runtime.h"

#include "runtime/core/Backend.h"
#include "runtime/core/Npy.h"
#include "runtime/core/Runtime.h"

#include <atomic>

namespace duet::runtime {
namespace {

constexpr struct {
  DType dtype;
  rt::DType internal;
} kDTypes[] = {
    {DType::float32, rt::DType::f32},   {DType::float16, rt::DType::f16},
    {DType::bfloat16, rt::DType::bf16}, {DType::float64, rt::DType::f64},
    {DType::int64, rt::DType::i64},     {DType::int32, rt::DType::i32},
    {DType::int16, rt::DType::i16},     {DType::int8, rt::DType::i8},
    {DType::uint8, rt::DType::u8},      {DType::boolean, rt::DType::boolean},
};

rt::DType toInternal(DType dtype) {
  for (const auto &entry : kDTypes)
    if (entry.dtype == dtype)
      return entry.internal;
  return rt::DType::f32;
}

DType fromInternal(rt::DType dtype) {
  for (const auto &entry : kDTypes)
    if (entry.internal == dtype)
      return entry.dtype;
  return DType::float32;
}

bool isKnown(DType dtype) {
  for (const auto &entry : kDTypes)
    if (entry.dtype == dtype)
      return true;
  return false;
}

/// Runtime errors are about the program or the values given to it, unless
/// the error says what it is (a device out of memory or lost: failure; an
/// unsupported CPU: unsupported), as the tools' exit codes do.
Status fromInternal(const rt::Status &status,
                    ErrorCode code = ErrorCode::badInput) {
  if (status.isOk())
    return Status::ok();
  return Status(status.codeOr(code), status.message());
}

rt::LoadOptions toInternal(const LoadOptions &options) {
  rt::LoadOptions internal;
  internal.reference = options.reference;
  internal.vulkan = options.vulkan;
  internal.faults = options.faults;
  internal.maxWork = options.maxWork;
  return internal;
}

TensorInfo describe(const rt::TensorInfo &info) {
  TensorInfo out;
  out.name = info.name;
  out.dtype = fromInternal(info.dtype);
  out.shape = info.sizes;
  out.bytes = static_cast<size_t>(info.nbytes);
  return out;
}

} // namespace

const char *dtypeName(DType dtype) {
  if (!isKnown(dtype))
    return "unknown";
  return rt::dtypeName(toInternal(dtype)).data();
}

size_t dtypeSize(DType dtype) {
  return isKnown(dtype) ? rt::dtypeSize(toInternal(dtype)) : 0;
}

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  return n;
}

struct Model::Impl {
  std::unique_ptr<rt::Runtime> runtime;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  /// Set while a call that reads or writes the model's memory is under way.
  /// A Model serves one thread at a time (runtime.h); a call that overlaps
  /// another thread's is refused instead of corrupting the memory both use.
  mutable std::atomic<bool> busy{false};

  /// `call()`, or the error of an overlapping call; `what` names the call.
  template <typename Call>
  Status exclusive(const char *what, Call &&call) const {
    bool idle = false;
    if (!busy.compare_exchange_strong(idle, true, std::memory_order_acquire))
      return Status(ErrorCode::failure,
                    runtime->program().name() + ": " + what +
                        ": this Model is already running on another thread; "
                        "load one Model per thread, or serialize calls");
    // Released however the call ends, an exception (bad_alloc) included.
    struct Release {
      std::atomic<bool> &flag;
      ~Release() { flag.store(false, std::memory_order_release); }
    } release{busy};
    return call();
  }

  /// Hands a loaded runtime to a new Model, or passes the load error on.
  static Status finish(const rt::Status &status,
                       std::unique_ptr<rt::Runtime> runtime,
                       std::unique_ptr<Model> &model) {
    if (!status.isOk())
      return fromInternal(status);
    auto impl = std::make_unique<Impl>();
    for (size_t i = 0; i < runtime->inputCount(); ++i)
      impl->inputs.push_back(describe(runtime->inputInfo(i)));
    for (size_t i = 0; i < runtime->outputCount(); ++i)
      impl->outputs.push_back(describe(runtime->outputInfo(i)));
    impl->runtime = std::move(runtime);
    model.reset(new Model(std::move(impl)));
    return Status::ok();
  }
};

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

Status Model::load(const std::string &path, std::unique_ptr<Model> &model,
                   const LoadOptions &options) {
  std::unique_ptr<rt::Runtime> runtime;
  rt::Status status = rt::Runtime::load(path, toInternal(options), runtime);
  return Impl::finish(status, std::move(runtime), model);
}

Status Model::loadFromBytes(const void *data, size_t size,
                            std::unique_ptr<Model> &model,
                            const LoadOptions &options,
                            const std::string &name) {
  if (!data && size)
    return Status(ErrorCode::badInput,
                  name + ": no bytes given for a program of " +
                      std::to_string(size) + " bytes");
  std::unique_ptr<rt::Runtime> runtime;
  rt::Status status = rt::Runtime::loadFromBytes(data, size, name,
                                                 toInternal(options), runtime);
  return Impl::finish(status, std::move(runtime), model);
}

const std::string &Model::name() const {
  return impl_->runtime->program().name();
}

size_t Model::inputCount() const { return impl_->inputs.size(); }
size_t Model::outputCount() const { return impl_->outputs.size(); }
const std::vector<TensorInfo> &Model::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo> &Model::outputs() const { return impl_->outputs; }

Status Model::setInput(size_t index, const TensorView &value) {
  if (!isKnown(value.dtype))
    return Status(ErrorCode::badInput, name() + ": the value given for input " +
                                           std::to_string(index) +
                                           " has an unknown dtype");
  rt::TensorView view;
  view.dtype = toInternal(value.dtype);
  view.sizes = value.shape;
  view.data = const_cast<void *>(value.data);
  return impl_->exclusive("setInput", [&] {
    return fromInternal(impl_->runtime->setInput(index, view));
  });
}

Status Model::setInput(size_t index, const void *data, size_t bytes) {
  if (index >= inputCount())
    return Status(ErrorCode::badInput,
                  name() + ": there is no input " + std::to_string(index) +
                      "; the program has " + std::to_string(inputCount()));
  const TensorInfo &info = impl_->inputs[index];
  if (bytes != info.bytes)
    return Status(ErrorCode::badInput,
                  name() + ": input " + std::to_string(index) + " (" +
                      info.name + ") takes " + std::to_string(info.bytes) +
                      " bytes, " + std::to_string(bytes) + " given");
  return setInput(index, TensorView{info.dtype, info.shape, data});
}

Status Model::setInputFromNpy(size_t index, const std::string &path,
                              std::string *notice) {
  return impl_->exclusive("setInputFromNpy", [&] {
    std::string text;
    rt::Status status = impl_->runtime->setInputFromNpy(index, path, text);
    if (notice)
      *notice = text;
    return fromInternal(status);
  });
}

Status Model::run() {
  return impl_->exclusive("run", [&] {
    return fromInternal(impl_->runtime->run(), ErrorCode::failure);
  });
}

TensorView Model::output(size_t index) const {
  if (index >= outputCount())
    return TensorView();
  rt::TensorView view = impl_->runtime->output(index);
  return {fromInternal(view.dtype), view.sizes, view.data};
}

Status Model::outputAsFloat32(size_t index, std::vector<float> &values) const {
  if (index >= outputCount())
    return Status(ErrorCode::badInput,
                  name() + ": there is no output " + std::to_string(index) +
                      "; the program has " + std::to_string(outputCount()));
  return impl_->exclusive("outputAsFloat32",
                          [&] { return toFloat32(output(index), values); });
}

Status Model::writeOutputNpy(size_t index, const std::string &path) const {
  return impl_->exclusive("writeOutputNpy", [&] {
    std::string notice;
    rt::Status status = impl_->runtime->writeOutputNpy(index, path, notice);
    if (!status.isOk() && index < outputCount())
      return Status(ErrorCode::ioError, status.message());
    return fromInternal(status);
  });
}

Status readNpy(const std::string &path, Tensor &tensor) {
  rt::NpyArray array;
  rt::Status status = rt::readNpy(path, array);
  if (!status.isOk())
    return fromInternal(status);
  tensor.dtype = fromInternal(array.dtype);
  tensor.shape = std::move(array.sizes);
  tensor.data = std::move(array.data);
  return Status::ok();
}

Status toFloat32(const TensorView &tensor, std::vector<float> &values) {
  values.clear();
  if (!isKnown(tensor.dtype))
    return Status(ErrorCode::badInput, "toFloat32: unknown dtype");
  int64_t n = numel(tensor.shape);
  if (n < 0)
    return Status(ErrorCode::badInput, "toFloat32: negative size in shape");
  if (n && !tensor.data)
    return Status(ErrorCode::badInput, "toFloat32: the tensor has no data");
  values.resize(static_cast<size_t>(n));
  const void *data = tensor.data;
  for (int64_t i = 0; i < n; ++i) {
    float value = 0;
    switch (tensor.dtype) {
    case DType::float32:
      value = static_cast<const float *>(data)[i];
      break;
    case DType::float16:
      value = rt::halfToFloat(static_cast<const uint16_t *>(data)[i]);
      break;
    case DType::bfloat16:
      value = rt::bf16ToFloat(static_cast<const uint16_t *>(data)[i]);
      break;
    case DType::float64:
      value = static_cast<float>(static_cast<const double *>(data)[i]);
      break;
    case DType::int64:
      value = static_cast<float>(static_cast<const int64_t *>(data)[i]);
      break;
    case DType::int32:
      value = static_cast<float>(static_cast<const int32_t *>(data)[i]);
      break;
    case DType::int16:
      value = static_cast<const int16_t *>(data)[i];
      break;
    case DType::int8:
      value = static_cast<const int8_t *>(data)[i];
      break;
    case DType::uint8:
    case DType::boolean:
      value = static_cast<const uint8_t *>(data)[i];
      break;
    }
    values[static_cast<size_t>(i)] = value;
  }
  return Status::ok();
}

std::vector<std::string> availableBackends() {
  return rt::defaultBackends().names();
}

} // namespace duet::runtime
