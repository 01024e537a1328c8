//===- Npy.h - NumPy .npy arrays in and out ---------------------*- C++ -*-===//
//
// Inputs and outputs of `duet run` are .npy files: NumPy format versions 1.0,
// 2.0 and 3.0, little-endian, C order (Fortran-order files are reordered on
// reading), of the dtypes <f4 <f2 <f8 <i8 <i4 <i2
// |i1 |u1 |b1. NumPy has no bfloat16: a bfloat16 tensor is read from and
// written to float32 files, with a notice for the caller to show.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_NPY_H
#define DUET_RUNTIME_CORE_NPY_H

#include "runtime/core/DType.h"
#include "runtime/core/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace duet::rt {

/// An array read from a .npy file.
struct NpyArray {
  DType dtype = DType::f32;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> data;
};

/// Reads the .npy file at `path`.
Status readNpy(const std::string &path, NpyArray &array);
/// Parses .npy bytes; `name` stands for the file in messages.
Status parseNpy(const uint8_t *data, size_t size, const std::string &name,
                NpyArray &array);

/// Copies `array` (read from file `name`) into `dst`, a tensor of `dtype`
/// and `sizes` that messages call `what` ("input 0 (x)"). The shape must
/// match exactly and so must the dtype, except that float32 values are
/// rounded into a float16 or bfloat16 tensor; `notice` then says so (it is
/// left empty otherwise).
Status copyNpyInto(const NpyArray &array, const std::string &name,
                   std::string_view what, DType dtype,
                   const std::vector<int64_t> &sizes, void *dst,
                   std::string &notice);

/// The .npy bytes of `tensor` (format 1.0, or 2.0 when the header needs
/// it). A bfloat16 tensor is written as float32 and `notice` says so.
Status encodeNpy(const TensorView &tensor, std::vector<uint8_t> &bytes,
                 std::string &notice);
/// Writes `tensor` to `path` as encodeNpy() does.
Status writeNpy(const std::string &path, const TensorView &tensor,
                std::string &notice);

/// "(1, 3, 224, 224)", "(5,)", "()": a shape as NumPy prints it.
std::string formatNpyShape(const std::vector<int64_t> &sizes);

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_NPY_H
