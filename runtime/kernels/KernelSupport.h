//===- KernelSupport.h - what every portable kernel shares ------*- C++ -*-===//
//
// Internal to the portable kernels: the context a kernel runs in (its op name
// for messages, attributes, operands, whether it is only being checked),
// attribute reading, shape checks that return a Status naming the op,
// overflow-checked size arithmetic, and the one strided-index walk that
// broadcasting, permutes, slices, padding and concatenation all use.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_KERNELS_KERNELSUPPORT_H
#define DUET_RUNTIME_KERNELS_KERNELSUPPORT_H

#include "runtime/core/Kernel.h"
#include "runtime/core/Parallel.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>
#include <utility>

namespace duet::rt::portable {

/// The fewest elements of elementwise work (or of rows' work) worth a
/// parallelFor chunk: below it the hand-off costs more than it saves.
inline constexpr int64_t kElementGrain = 16384;

using Shape = std::vector<int64_t>;

/// "[1, 3, 8, 8]".
std::string formatShape(const Shape &shape);

/// a / b rounded toward -infinity and toward +infinity, for b > 0.
inline int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && a < 0 ? 1 : 0);
}
inline int64_t ceilDiv(int64_t a, int64_t b) {
  return a / b + (a % b != 0 && a > 0 ? 1 : 0);
}

/// Row-major element strides of `sizes`.
Shape contiguousStrides(const Shape &sizes);

/// Product of `sizes` (1 for rank 0).
int64_t product(const Shape &sizes);

/// The NumPy broadcast of `a` and `b`, or false when they do not broadcast.
bool broadcastShapes(const Shape &a, const Shape &b, Shape &result);

/// Whether a tensor of `sizes` broadcasts to exactly `target`.
bool broadcastsTo(const Shape &sizes, const Shape &target);

/// Element strides that read a contiguous tensor of `sizes` as if it were
/// broadcast to `target`: 0 on every dimension that is repeated. Requires
/// broadcastsTo(sizes, target).
Shape broadcastStrides(const Shape &sizes, const Shape &target);

/// int64 arithmetic that remembers whether any step overflowed. Shape
/// formulas mix operand sizes with attributes a program file chose (a
/// stride of 2^62, a padding of -2^63), so they are computed with this and
/// checked once, reading as the formula they implement.
class CheckedInt {
public:
  CheckedInt(int64_t value) : value_(value) {}

  int64_t value() const { return value_; }
  bool overflowed() const { return overflowed_; }

  friend CheckedInt operator+(CheckedInt a, CheckedInt b) {
    bool overflow = __builtin_add_overflow(a.value_, b.value_, &a.value_);
    return combine(a, b, overflow);
  }
  friend CheckedInt operator-(CheckedInt a, CheckedInt b) {
    bool overflow = __builtin_sub_overflow(a.value_, b.value_, &a.value_);
    return combine(a, b, overflow);
  }
  friend CheckedInt operator*(CheckedInt a, CheckedInt b) {
    bool overflow = __builtin_mul_overflow(a.value_, b.value_, &a.value_);
    return combine(a, b, overflow);
  }
  CheckedInt &operator+=(CheckedInt other) { return *this = *this + other; }
  CheckedInt &operator*=(CheckedInt other) { return *this = *this * other; }
  /// Rounded toward -infinity and +infinity, for a positive `divisor`.
  friend CheckedInt floorDiv(CheckedInt a, int64_t divisor);
  friend CheckedInt ceilDiv(CheckedInt a, int64_t divisor);

private:
  // `overflow` is computed before the call: the order in which a call's
  // arguments are evaluated is unspecified (gcc and clang differ).
  static CheckedInt combine(CheckedInt result, CheckedInt other,
                            bool overflow) {
    result.overflowed_ = result.overflowed_ || other.overflowed_ || overflow;
    return result;
  }
  int64_t value_;
  bool overflowed_ = false;
};

inline CheckedInt floorDiv(CheckedInt a, int64_t divisor) {
  a.value_ = floorDiv(a.value_, divisor);
  return a;
}
inline CheckedInt ceilDiv(CheckedInt a, int64_t divisor) {
  a.value_ = ceilDiv(a.value_, divisor);
  return a;
}

/// The environment a kernel runs in. Float operands of a float-computing
/// kernel have already been converted to float32 (see Registry.cpp), so a
/// kernel body only ever handles float32 among the float types.
///
/// The loader runs every body once per call before the program runs, in
/// checking mode (checkKernelCall): operands then carry dtypes and sizes but
/// no data, and a body returns as soon as checking() is true after its last
/// check, so everything it checks is refused at load rather than at run.
class KernelContext {
public:
  /// `given`, when not null, puts the context in checking mode and says
  /// which inputs the call passes.
  KernelContext(std::string_view op, const OpAttrs &attrs,
                const std::vector<TensorView> &inputs,
                const std::vector<TensorView> &outputs,
                const std::vector<bool> *given = nullptr)
      : op(op), attrs(attrs), inputs(inputs), outputs(outputs), given_(given) {}

  std::string_view op;
  const OpAttrs &attrs;
  const std::vector<TensorView> &inputs;
  const std::vector<TensorView> &outputs;

  /// Input `i`; an absent view when the caller left out a trailing optional.
  const TensorView &in(size_t i) const;
  const TensorView &out(size_t i) const { return outputs[i]; }

  /// Whether the body is being checked at load, without data: it must
  /// return before it reads or writes any operand.
  bool checking() const { return given_ != nullptr; }
  /// Whether optional input `i` is passed. Bodies ask this rather than
  /// in(i).present(), which is false for every operand while checking.
  bool given(size_t i) const;

  /// An error whose message starts with the op name.
  template <typename... Args>
  Status error(fmt::format_string<Args...> format, Args &&...args) const {
    return Status::error("{}: {}", op,
                         fmt::format(format, std::forward<Args>(args)...));
  }

  /// Fails unless `t` holds one of `dtypes`; `what` names the operand.
  Status requireDType(const TensorView &t, std::string_view what,
                      std::initializer_list<DType> dtypes) const;
  /// Fails unless `t` is float32 (the only float type a kernel body sees).
  Status requireFloat(const TensorView &t, std::string_view what) const;
  /// Fails unless every listed tensor has the dtype of the first.
  Status
  requireSameDType(std::initializer_list<const TensorView *> tensors) const;
  Status requireRank(const TensorView &t, std::string_view what,
                     std::initializer_list<int64_t> ranks) const;
  /// Fails unless `t` has exactly the shape `expected`; the message says what
  /// the operands imply.
  Status requireShape(const TensorView &t, std::string_view what,
                      const Shape &expected) const;
  /// Fails unless `dim` is in [0, rank).
  Status requireDim(int64_t dim, int64_t rank, std::string_view what) const;
  /// Fails when `size`, a size a shape formula derived from attributes or
  /// operands, overflowed; `what` names it.
  Status requireNoOverflow(const CheckedInt &size, std::string_view what) const;

private:
  const std::vector<bool> *given_;
};

/// Reads attributes; a missing attribute or one of the wrong kind or length
/// is remembered and reported by status(), so a kernel reads everything
/// first and checks once. The attributes a kernel reads are those its row in
/// Registry.cpp declares, which the table checks before the body runs; the
/// body applies no defaults of its own (the compiler writes every
/// attribute), and only attributes the op declares optional may be absent.
class AttrReader {
public:
  explicit AttrReader(const KernelContext &ctx) : ctx_(ctx) {}

  int64_t getInt(std::string_view name);
  double getFloat(std::string_view name);
  bool getBool(std::string_view name);
  Shape getInts(std::string_view name);
  std::optional<double> getOptionalFloat(std::string_view name);
  std::optional<int64_t> getOptionalInt(std::string_view name);
  std::optional<bool> getOptionalBool(std::string_view name);
  /// An integer list that must have `count` entries.
  Shape getIntsOfSize(std::string_view name, size_t count);
  /// An enum attribute: one of `allowed`.
  std::string getEnum(std::string_view name,
                      std::initializer_list<std::string_view> allowed);

  const Status &status() const { return status_; }

private:
  /// Whether the attribute is recorded with any type.
  bool present(std::string_view name) const;
  /// `value`, failing when it is absent only because the recorded attribute
  /// has another type than `kind`.
  template <typename T>
  std::optional<T> typed(std::optional<T> value, std::string_view name,
                         std::string_view kind);
  template <typename T>
  T required(std::optional<T> value, std::string_view name,
             std::string_view kind);
  void fail(Status s) {
    if (status_.isOk())
      status_ = std::move(s);
  }
  const KernelContext &ctx_;
  Status status_;
};

/// Visits rows [first, last) of the index space `sizes` in row-major order,
/// one innermost row at a time: `row(offsets, count, innerStrides)`, where
/// `offsets[k]` is operand k's element offset for the first element of the
/// row under `strides[k]`, and operand k advances by `innerStrides[k]` along
/// the row. Row r is the one whose outer index, read row-major, is r; rank 0
/// is one row of one element.
template <size_t N, typename Row>
void forEachRowIn(const Shape &sizes, const std::array<Shape, N> &strides,
                  int64_t first, int64_t last, Row &&row) {
  for (int64_t s : sizes)
    if (s <= 0)
      return;
  std::array<int64_t, N> offsets{}, inner{};
  if (sizes.empty()) {
    if (first < last)
      row(offsets, int64_t{1}, inner);
    return;
  }
  const int64_t rank = static_cast<int64_t>(sizes.size());
  for (size_t k = 0; k < N; ++k)
    inner[k] = strides[k][rank - 1];
  // The outer index of row `first`, and its offsets.
  Shape index(rank, 0);
  for (int64_t d = rank - 2, rest = first; d >= 0; --d) {
    index[d] = rest % sizes[d];
    rest /= sizes[d];
    for (size_t k = 0; k < N; ++k)
      offsets[k] += index[d] * strides[k][d];
  }
  for (int64_t r = first; r < last; ++r) {
    row(offsets, sizes[rank - 1], inner);
    for (int64_t d = rank - 2; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k)
        offsets[k] += strides[k][d];
      if (++index[d] < sizes[d])
        break;
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= strides[k][d] * sizes[d];
      index[d] = 0;
    }
  }
}

/// The number of innermost rows of the index space `sizes` (1 for rank 0).
inline int64_t rowCount(const Shape &sizes) {
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < sizes.size(); ++d)
    rows *= sizes[d];
  return rows;
}

/// forEachRowIn over every row.
template <size_t N, typename Row>
void forEachRow(const Shape &sizes, const std::array<Shape, N> &strides,
                Row &&row) {
  forEachRowIn<N>(sizes, strides, 0, rowCount(sizes), row);
}

/// y = fn(a, b) elementwise, `a` and `b` read broadcast to y's shape with
/// element types A and B, y written as Y. Callers check the shapes first
/// (requireBroadcastResult).
template <typename Y, typename A, typename B, typename Fn>
void broadcastBinary(const TensorView &y, const TensorView &a,
                     const TensorView &b, Fn fn) {
  const A *pa = a.as<const A>();
  const B *pb = b.as<const B>();
  Y *py = y.as<Y>();
  const std::array<Shape, 3> strides = {contiguousStrides(y.sizes),
                                        broadcastStrides(a.sizes, y.sizes),
                                        broadcastStrides(b.sizes, y.sizes)};
  const int64_t rowLength = y.sizes.empty() ? 1 : y.sizes.back();
  // Rows on the program's threads (Parallel.h).
  parallelFor(
      rowCount(y.sizes),
      std::max<int64_t>(1, kElementGrain / std::max<int64_t>(rowLength, 1)),
      [&](int64_t first, int64_t last) {
        forEachRowIn<3>(y.sizes, strides, first, last,
                        [&](const std::array<int64_t, 3> &off, int64_t count,
                            const std::array<int64_t, 3> &inner) {
                          Y *out = py + off[0];
                          const A *ra = pa + off[1];
                          const B *rb = pb + off[2];
                          for (int64_t i = 0; i < count; ++i)
                            out[i] = fn(ra[i * inner[1]], rb[i * inner[2]]);
                        });
      });
}

/// Fails unless `a` and `b` broadcast and `y` has their broadcast shape.
Status requireBroadcastResult(const KernelContext &ctx, const TensorView &a,
                              const TensorView &b, const TensorView &y);

/// Copies the elements of the index space `sizes` from `src` (read with
/// `srcStrides`) to `dst` (written with `dstStrides`); elements have
/// `elementSize` bytes. Serves every data-movement op of any dtype.
void copyStrided(void *dst, const Shape &dstStrides, const void *src,
                 const Shape &srcStrides, const Shape &sizes,
                 size_t elementSize);

/// `base` advanced by `elements` elements of `elementSize` bytes.
inline void *advance(void *base, int64_t elements, size_t elementSize) {
  return static_cast<char *>(base) +
         elements * static_cast<int64_t>(elementSize);
}
inline const void *advance(const void *base, int64_t elements,
                           size_t elementSize) {
  return static_cast<const char *>(base) +
         elements * static_cast<int64_t>(elementSize);
}

/// Fills `count` elements of a tensor of `dtype` at `dst` with `value`
/// converted as a cast would (float to integer truncates, bool is != 0).
void fillValue(void *dst, DType dtype, int64_t count, double value);

} // namespace duet::rt::portable

#endif // DUET_RUNTIME_KERNELS_KERNELSUPPORT_H
