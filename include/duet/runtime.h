//===- runtime.h - run duet programs ----------------------------*- C++ -*-===//
//
// Part of duet's installed, stable C++ API (include/duet/), CMake target
// `duet::runtime`. Loads a .duet program, takes inputs, runs, gives outputs:
//
//   std::unique_ptr<duet::runtime::Model> model;
//   duet::Status status = duet::runtime::Model::load("model.duet", model);
//   if (!status) { log(status.message()); return 1; }
//   status = model->setInputFromNpy(0, "image.npy");    // or setInput()
//   if (status) status = model->run();
//   std::vector<float> logits;
//   if (status) status = model->outputAsFloat32(0, logits);
//
// The header needs only the C++17 standard library, and the library links
// no LLVM or MLIR: an application embeds the runtime without the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_H
#define DUET_RUNTIME_H

#include "duet/runtime_options.h"
#include "duet/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace duet::runtime {

/// Element types of program inputs and outputs.
enum class DType : uint8_t {
  float32,
  float16,
  bfloat16,
  float64,
  int64,
  int32,
  int16,
  int8,
  uint8,
  /// One byte per element, 0 or 1.
  boolean,
};

/// "float32", "bfloat16", "bool", ….
const char *dtypeName(DType dtype);
/// Bytes per element.
size_t dtypeSize(DType dtype);

/// The elements of a tensor of `shape` (1 for a scalar).
int64_t numel(const std::vector<int64_t> &shape);

/// A model input or output as the program declares it.
struct TensorInfo {
  std::string name;
  DType dtype = DType::float32;
  std::vector<int64_t> shape;
  /// numel(shape) * dtypeSize(dtype).
  size_t bytes = 0;
};

/// Dense row-major (C order) data the view does not own.
struct TensorView {
  DType dtype = DType::float32;
  std::vector<int64_t> shape;
  const void *data = nullptr;
};

/// A dense row-major tensor that owns its bytes (read from a .npy file).
struct Tensor {
  DType dtype = DType::float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  TensorView view() const { return {dtype, shape, data.data()}; }
};

struct LoadOptions {
  /// Run every op on the portable kernels, delegated ones too (from the
  /// aten ops each delegate records): the numeric reference.
  bool reference = false;
  /// The Vulkan delegate's device and test hooks (runtime_options.h).
  VulkanOptions vulkan;
  /// Faults planted on purpose, off by default (runtime_options.h).
  FaultOptions faults;
  /// The most work one run may take (multiply-adds or elements visited, as
  /// docs/reliability.md counts them); 0: the default, 10^15. A program
  /// over it is refused at load, naming the op that takes the most.
  double maxWork = 0;
};

/// A loaded program, ready to run.
///
/// Threads (docs/api.md, "Threads"): a Model serves one thread at a time.
/// run(), setInput(), setInputFromNpy(), outputAsFloat32() and
/// writeOutputNpy() called while another thread is inside one of them on the
/// same Model do nothing and return ErrorCode::failure, "this Model is
/// already running on another thread; load one Model per thread, or
/// serialize calls". Only overlapping calls are seen: two threads that
/// interleave whole setInput / run / output sequences on one Model read each
/// other's results, so hold a mutex around each sequence or load one Model
/// per thread. name(), inputs(), outputs() and the counts never change after
/// loading and may be read from any thread; a view from output() must not be
/// read while another thread runs the Model. Separate Models run at the same
/// time.
class Model {
public:
  /// Loads, verifies and prepares the program file at `path`. A damaged or
  /// foreign file is an error naming what is wrong, never a crash.
  static Status load(const std::string &path, std::unique_ptr<Model> &model,
                     const LoadOptions &options = {});
  /// The same for a program in memory (the bytes are copied); `name` stands
  /// for the file in messages.
  static Status loadFromBytes(const void *data, size_t size,
                              std::unique_ptr<Model> &model,
                              const LoadOptions &options = {},
                              const std::string &name = "<memory>");

  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  /// The path or name the program was loaded from.
  const std::string &name() const;

  /// The model's inputs and outputs in the model's order.
  size_t inputCount() const;
  size_t outputCount() const;
  const std::vector<TensorInfo> &inputs() const;
  const std::vector<TensorInfo> &outputs() const;

  /// Copies `value` into input `index`; its dtype and shape must match
  /// inputs()[index].
  Status setInput(size_t index, const TensorView &value);
  /// Copies `bytes` bytes at `data`, in the input's dtype and shape, into
  /// input `index`; `bytes` must be inputs()[index].bytes.
  Status setInput(size_t index, const void *data, size_t bytes);
  /// Reads input `index` from a .npy file. A float32 file given for a
  /// float16 or bfloat16 input is rounded; `notice` (when given) then says
  /// so, and is cleared otherwise.
  Status setInputFromNpy(size_t index, const std::string &path,
                         std::string *notice = nullptr);

  /// Runs the program once on the inputs last set (LoadOptions::faults
  /// apply here).
  Status run();

  /// A view of output `index` in the model's memory, valid until the next
  /// run() or until the model goes away; a view without data when `index` is
  /// out of range.
  TensorView output(size_t index) const;
  /// Output `index` converted to float32 values.
  Status outputAsFloat32(size_t index, std::vector<float> &values) const;
  /// Writes output `index` to a .npy file (bfloat16 as float32) whole or not
  /// at all: under a temporary name in `path`'s folder, flushed to the disk,
  /// renamed over `path`, the folder flushed. On a failure (a full disk, the
  /// file size limit) `path` keeps its old bytes and the error,
  /// ErrorCode::ioError, names `path` and the reason.
  Status writeOutputNpy(size_t index, const std::string &path) const;

private:
  struct Impl;
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Reads a .npy file (NumPy format 1.0-3.0, little-endian, C order; dtypes
/// <f4 <f2 <f8 <i8 <i4 <i2 |i1 |u1 |b1).
Status readNpy(const std::string &path, Tensor &tensor);

/// The elements of `tensor` converted to float32.
Status toFloat32(const TensorView &tensor, std::vector<float> &values);

/// The delegate backends this runtime can run (runtime/backends/, as the
/// build configured them); a program using another loads only with
/// LoadOptions::reference.
std::vector<std::string> availableBackends();

} // namespace duet::runtime

#endif // DUET_RUNTIME_H
