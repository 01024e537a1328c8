//===- HostCopy.cpp - transposes and conversions between subgraphs --------===//

#include "runtime/backends/xnnpack/HostCopy.h"

#include "runtime/core/DType.h"

#include <pthreadpool.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace duet::rt::xnnpack {

size_t hostTypeSize(HostType type) {
  switch (type) {
  case HostType::f32:
  case HostType::i32:
    return 4;
  case HostType::f16:
  case HostType::bf16:
    return 2;
  case HostType::i8:
    return 1;
  }
  return 4;
}

bool fromDType(DType dtype, HostType &type) {
  switch (dtype) {
  case DType::f32:
    type = HostType::f32;
    return true;
  case DType::f16:
    type = HostType::f16;
    return true;
  case DType::bf16:
    type = HostType::bf16;
    return true;
  case DType::i8:
    type = HostType::i8;
    return true;
  case DType::i32:
    type = HostType::i32;
    return true;
  default:
    return false;
  }
}

namespace {

template <HostType T> struct Element;
template <> struct Element<HostType::f32> {
  using Storage = float;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
};
template <> struct Element<HostType::f16> {
  using Storage = uint16_t;
  static float load(uint16_t v) { return halfToFloat(v); }
  static uint16_t store(float v) { return floatToHalf(v); }
};
template <> struct Element<HostType::bf16> {
  using Storage = uint16_t;
  static float load(uint16_t v) { return bf16ToFloat(v); }
  static uint16_t store(float v) { return floatToBf16(v); }
};
/// The integers of a qint8 value, copied unchanged.
template <> struct Element<HostType::i8> {
  using Storage = int8_t;
  static int8_t load(int8_t v) { return v; }
  static int8_t store(int8_t v) { return v; }
};

/// Tiles of the two innermost output dims when neither side is contiguous.
constexpr size_t kTile = 16;

/// A copy after merging the dims that stay neighbours and dropping those of
/// size 1: output dim i has `dims[i]` elements and steps `inputStrides[i]`
/// elements in the input. There are always at least two dims (the outer
/// ones of size 1 when the copy has fewer).
struct Plan {
  std::vector<size_t> dims;
  std::vector<size_t> inputStrides;
  size_t rows() const { return dims[dims.size() - 2]; }
  size_t cols() const { return dims.back(); }
  /// Output blocks of rows x cols elements.
  size_t blocks() const {
    size_t n = 1;
    for (size_t i = 0; i + 2 < dims.size(); ++i)
      n *= dims[i];
    return n;
  }
};

Plan plan(const std::vector<size_t> &inputDims,
          const std::vector<uint8_t> &permutation) {
  size_t rank = inputDims.size();
  std::vector<size_t> order(rank);
  if (permutation.empty())
    std::iota(order.begin(), order.end(), 0);
  else
    order.assign(permutation.begin(), permutation.end());
  std::vector<size_t> strides(rank, 1);
  for (size_t i = rank; i-- > 1;)
    strides[i - 1] = strides[i] * inputDims[i];
  Plan p;
  for (size_t i = 0; i < rank; ++i) {
    size_t dim = order[i];
    if (inputDims[dim] == 1)
      continue;
    // Output dim i follows the previous kept one in the input too: one dim.
    if (!p.dims.empty() &&
        p.inputStrides.back() == strides[dim] * inputDims[dim]) {
      p.dims.back() *= inputDims[dim];
      p.inputStrides.back() = strides[dim];
      continue;
    }
    p.dims.push_back(inputDims[dim]);
    p.inputStrides.push_back(strides[dim]);
  }
  while (p.dims.size() < 2) {
    p.dims.insert(p.dims.begin(), 1);
    p.inputStrides.insert(p.inputStrides.begin(), 0);
  }
  return p;
}

/// Rows [r0, r1) of `Cols` output columns that are contiguous input rows
/// `colStride` apart (the pixels of a 3-channel image, NCHW to NHWC): each
/// output row gathers one element from each.
template <size_t Cols, typename InT, typename OutT, typename Convert>
void interleave(const InT *in, size_t colStride, OutT *out, size_t r0,
                size_t r1, Convert convert) {
  const InT *rows[Cols];
  for (size_t c = 0; c < Cols; ++c)
    rows[c] = in + c * colStride;
  for (size_t r = r0; r < r1; ++r)
    for (size_t c = 0; c < Cols; ++c)
      out[r * Cols + c] = convert(rows[c][r]);
}

/// Copies rows [r0, r1) of output block `block`.
template <HostType In, HostType Out>
void copyRows(const void *input, void *output, const Plan &p, size_t block,
              size_t r0, size_t r1) {
  using InT = typename Element<In>::Storage;
  using OutT = typename Element<Out>::Storage;
  auto convert = [](InT v) {
    return Element<Out>::store(Element<In>::load(v));
  };
  size_t rank = p.dims.size();
  size_t rows = p.rows(), cols = p.cols();
  size_t rowStride = p.inputStrides[rank - 2];
  size_t colStride = p.inputStrides[rank - 1];
  const InT *in = static_cast<const InT *>(input);
  for (size_t i = rank - 2, rest = block; i-- > 0;) {
    in += (rest % p.dims[i]) * p.inputStrides[i];
    rest /= p.dims[i];
  }
  OutT *out = static_cast<OutT *>(output) + block * rows * cols;
  if (colStride == 1) {
    for (size_t r = r0; r < r1; ++r)
      for (size_t c = 0; c < cols; ++c)
        out[r * cols + c] = convert(in[r * rowStride + c]);
  } else if (rowStride == 1 && cols == 3) {
    interleave<3>(in, colStride, out, r0, r1, convert);
  } else if (rowStride == 1 && cols == 4) {
    interleave<4>(in, colStride, out, r0, r1, convert);
  } else if (rowStride == 1 && cols < kTile) {
    // Few output columns (an NCHW image to NHWC): each reads a stretch of an
    // input row, and the scattered writes stay in a few cache lines.
    for (size_t c = 0; c < cols; ++c) {
      const InT *source = in + c * colStride;
      for (size_t r = r0; r < r1; ++r)
        out[r * cols + c] = convert(source[r]);
    }
  } else {
    for (size_t t0 = r0; t0 < r1; t0 += kTile)
      for (size_t c0 = 0; c0 < cols; c0 += kTile) {
        size_t t1 = std::min(r1, t0 + kTile);
        size_t c1 = std::min(cols, c0 + kTile);
        for (size_t r = t0; r < t1; ++r)
          for (size_t c = c0; c < c1; ++c)
            out[r * cols + c] = convert(in[r * rowStride + c * colStride]);
      }
  }
}

using CopyRowsFn = void (*)(const void *, void *, const Plan &, size_t, size_t,
                            size_t);

template <HostType In> CopyRowsFn copyRowsTo(HostType outputType) {
  if constexpr (In == HostType::i8)
    return outputType == HostType::i8 ? copyRows<In, HostType::i8> : nullptr;
  switch (outputType) {
  case HostType::f32:
    return copyRows<In, HostType::f32>;
  case HostType::f16:
    return copyRows<In, HostType::f16>;
  case HostType::bf16:
    return copyRows<In, HostType::bf16>;
  default:
    return nullptr;
  }
}

CopyRowsFn copyRowsFor(HostType inputType, HostType outputType) {
  switch (inputType) {
  case HostType::f32:
    return copyRowsTo<HostType::f32>(outputType);
  case HostType::f16:
    return copyRowsTo<HostType::f16>(outputType);
  case HostType::bf16:
    return copyRowsTo<HostType::bf16>(outputType);
  case HostType::i8:
    return copyRowsTo<HostType::i8>(outputType);
  case HostType::i32:
    return nullptr;
  }
  return nullptr;
}

/// One parallel copy: tasks are stretches of `rowsPerTask` rows of a block.
struct Task {
  CopyRowsFn fn;
  const void *input;
  void *output;
  const Plan *plan;
  size_t rowsPerTask;
  size_t tasksPerBlock;
};

void runTask(void *context, size_t index) {
  const Task &task = *static_cast<const Task *>(context);
  size_t block = index / task.tasksPerBlock;
  size_t r0 = (index % task.tasksPerBlock) * task.rowsPerTask;
  size_t r1 = std::min(task.plan->rows(), r0 + task.rowsPerTask);
  task.fn(task.input, task.output, *task.plan, block, r0, r1);
}

} // namespace

bool hostCopyable(HostType from, HostType to) {
  return copyRowsFor(from, to) != nullptr;
}

void hostCopy(const void *input, HostType inputType,
              const std::vector<size_t> &inputDims, void *output,
              HostType outputType, const std::vector<uint8_t> &permutation,
              pthreadpool *threadpool) {
  Plan p = plan(inputDims, permutation);
  if (inputType == outputType && p.blocks() == 1 && p.rows() == 1 &&
      p.inputStrides.back() == 1) {
    std::memcpy(output, input, p.cols() * hostTypeSize(inputType));
    return;
  }
  CopyRowsFn fn = copyRowsFor(inputType, outputType);
  // The loader refuses every copy between types without a function
  // (XnnpackDelegate::checkSteps, planDebugging).
  if (!fn)
    std::abort();
  size_t threads = threadpool ? pthreadpool_get_threads_count(threadpool) : 1;
  size_t elements = p.blocks() * p.rows() * p.cols();
  // Below some 16K elements a copy takes a few microseconds: splitting it
  // would cost more than it saves.
  if (threads <= 1 || elements < 16384) {
    for (size_t block = 0; block < p.blocks(); ++block)
      fn(input, output, p, block, 0, p.rows());
    return;
  }
  size_t perBlock =
      std::max<size_t>(1, (4 * threads + p.blocks() - 1) / p.blocks());
  size_t rowsPerTask = std::max(kTile, (p.rows() + perBlock - 1) / perBlock);
  Task task{fn, input,       output,
            &p, rowsPerTask, (p.rows() + rowsPerTask - 1) / rowsPerTask};
  pthreadpool_parallelize_1d(threadpool, runTask, &task,
                             p.blocks() * task.tasksPerBlock, 0);
}

} // namespace duet::rt::xnnpack
