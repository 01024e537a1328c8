//===- KernelSupport.cpp - what every portable kernel shares --------------===//

#include "runtime/kernels/KernelSupport.h"

#include "runtime/core/Escape.h"
#include "runtime/kernels/ElementTypes.h"

#include <algorithm>
#include <cstring>

namespace duet::rt::portable {

std::string formatShape(const Shape &shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

Shape contiguousStrides(const Shape &sizes) {
  Shape strides(sizes.size(), 1);
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * sizes[i + 1];
  return strides;
}

int64_t product(const Shape &sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

bool broadcastShapes(const Shape &a, const Shape &b, Shape &result) {
  size_t rank = std::max(a.size(), b.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1)
      return false;
    result[rank - 1 - i] = x == 1 ? y : x;
  }
  return true;
}

bool broadcastsTo(const Shape &sizes, const Shape &target) {
  if (sizes.size() > target.size())
    return false;
  size_t lead = target.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != target[lead + i] && sizes[i] != 1)
      return false;
  return true;
}

Shape broadcastStrides(const Shape &sizes, const Shape &target) {
  Shape own = contiguousStrides(sizes);
  Shape strides(target.size(), 0);
  size_t lead = target.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i)
    strides[lead + i] = sizes[i] == 1 ? 0 : own[i];
  return strides;
}

const TensorView &KernelContext::in(size_t i) const {
  static const TensorView absent;
  return i < inputs.size() ? inputs[i] : absent;
}

bool KernelContext::given(size_t i) const {
  if (i >= inputs.size())
    return false;
  return given_ ? (*given_)[i] : inputs[i].present();
}

Status KernelContext::requireNoOverflow(const CheckedInt &size,
                                        std::string_view what) const {
  if (!size.overflowed())
    return Status::ok();
  return error("{} overflows 64 bits; the attributes or operand sizes are "
               "absurd",
               what);
}

Status KernelContext::requireDType(const TensorView &t, std::string_view what,
                                   std::initializer_list<DType> dtypes) const {
  if (std::find(dtypes.begin(), dtypes.end(), t.dtype) != dtypes.end())
    return Status::ok();
  std::vector<std::string_view> names;
  for (DType d : dtypes)
    names.push_back(dtypeName(d));
  return error("{} has dtype {}, which this kernel does not support "
               "(supported: {})",
               what, dtypeName(t.dtype), fmt::join(names, ", "));
}

Status KernelContext::requireFloat(const TensorView &t,
                                   std::string_view what) const {
  if (t.dtype == DType::f32)
    return Status::ok();
  return error("{} has dtype {}, which this kernel does not support "
               "(supported: float32, float16, bfloat16)",
               what, dtypeName(t.dtype));
}

Status KernelContext::requireSameDType(
    std::initializer_list<const TensorView *> tensors) const {
  const TensorView *first = *tensors.begin();
  for (const TensorView *t : tensors)
    if (t->dtype != first->dtype)
      return error("operands must share one dtype, got {} and {}",
                   dtypeName(first->dtype), dtypeName(t->dtype));
  return Status::ok();
}

Status KernelContext::requireRank(const TensorView &t, std::string_view what,
                                  std::initializer_list<int64_t> ranks) const {
  if (std::find(ranks.begin(), ranks.end(), t.rank()) != ranks.end())
    return Status::ok();
  return error("{} must have rank {}, got shape {}", what,
               fmt::join(ranks, " or "), formatShape(t.sizes));
}

Status KernelContext::requireShape(const TensorView &t, std::string_view what,
                                   const Shape &expected) const {
  if (t.sizes == expected)
    return Status::ok();
  return error("{} has shape {} but the operands and attributes give {}", what,
               formatShape(t.sizes), formatShape(expected));
}

Status KernelContext::requireDim(int64_t dim, int64_t rank,
                                 std::string_view what) const {
  if (dim >= 0 && dim < rank)
    return Status::ok();
  return error("{} {} is out of range for rank {} (dims must be normalized "
               "to [0, {}))",
               what, dim, rank, rank);
}

bool AttrReader::present(std::string_view name) const {
  const OpAttrs &a = ctx_.attrs;
  return a.getInt(name) || a.getFloat(name) || a.getBool(name) ||
         a.getInts(name) || a.getString(name);
}

template <typename T>
std::optional<T> AttrReader::typed(std::optional<T> value,
                                   std::string_view name,
                                   std::string_view kind) {
  if (!value && present(name))
    fail(ctx_.error("attribute '{}' is not {}", name, kind));
  return value;
}

template <typename T>
T AttrReader::required(std::optional<T> value, std::string_view name,
                       std::string_view kind) {
  if (auto v = typed(std::move(value), name, kind))
    return *v;
  fail(ctx_.error("missing attribute '{}' ({})", name, kind));
  return T();
}

Status requireBroadcastResult(const KernelContext &ctx, const TensorView &a,
                              const TensorView &b, const TensorView &y) {
  Shape shape;
  if (!broadcastShapes(a.sizes, b.sizes, shape))
    return ctx.error("operand shapes {} and {} do not broadcast",
                     formatShape(a.sizes), formatShape(b.sizes));
  return ctx.requireShape(y, "output", shape);
}

int64_t AttrReader::getInt(std::string_view name) {
  return required(ctx_.attrs.getInt(name), name, "an integer");
}

std::optional<int64_t> AttrReader::getOptionalInt(std::string_view name) {
  return typed(ctx_.attrs.getInt(name), name, "an integer");
}

double AttrReader::getFloat(std::string_view name) {
  return required(ctx_.attrs.getFloat(name), name, "a float");
}

std::optional<double> AttrReader::getOptionalFloat(std::string_view name) {
  return typed(ctx_.attrs.getFloat(name), name, "a float");
}

bool AttrReader::getBool(std::string_view name) {
  return required(ctx_.attrs.getBool(name), name, "a bool");
}

std::optional<bool> AttrReader::getOptionalBool(std::string_view name) {
  return typed(ctx_.attrs.getBool(name), name, "a bool");
}

Shape AttrReader::getInts(std::string_view name) {
  return required(ctx_.attrs.getInts(name), name, "an integer list");
}

Shape AttrReader::getIntsOfSize(std::string_view name, size_t count) {
  Shape v = getInts(name);
  if (v.size() != count) {
    // A missing attribute was reported by getInts; fail keeps the first error.
    fail(ctx_.error("attribute '{}' needs {} entries, got {}", name, count,
                    v.size()));
    // Callers index the result before checking status().
    v.assign(count, 0);
  }
  return v;
}

std::string
AttrReader::getEnum(std::string_view name,
                    std::initializer_list<std::string_view> allowed) {
  std::string value(required(ctx_.attrs.getString(name), name, "a string"));
  if (status_.isOk() &&
      std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    fail(ctx_.error("attribute '{}' is \"{}\", expected one of \"{}\"", name,
                    escaped(value), fmt::join(allowed, "\", \"")));
  return value;
}

namespace {

/// The index space of a copy with fewer, longer dims: dims of size 1
/// dropped, and a dim merged into the next inner one wherever both operands
/// step over it as over one longer dim. Visits the same (dst, src) pairs.
void coalesce(Shape &sizes, Shape &dstStrides, Shape &srcStrides) {
  size_t kept = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1)
      continue;
    if (kept > 0 && dstStrides[kept - 1] == dstStrides[i] * sizes[i] &&
        srcStrides[kept - 1] == srcStrides[i] * sizes[i]) {
      sizes[kept - 1] *= sizes[i];
    } else {
      sizes[kept] = sizes[i];
      ++kept;
    }
    dstStrides[kept - 1] = dstStrides[i];
    srcStrides[kept - 1] = srcStrides[i];
  }
  for (Shape *v : {&sizes, &dstStrides, &srcStrides})
    v->resize(kept);
}

/// Side of the square tiles of a transposing copy: a tile's rows of both
/// operands stay in L1 while it is copied, and a tensor that fits L1 is one
/// or a few tiles.
constexpr int64_t kTile = 64;

/// Rows shorter than this are copied in place: a memcpy call costs more.
constexpr int64_t kShortRow = 16;

/// dst[i * dstRow + j] = src[i + j * srcCol] for a rows x cols block, tile
/// by tile: dst's rows are contiguous, src's columns.
template <typename T>
void transposeBlock(T *dst, int64_t dstRow, const T *src, int64_t srcCol,
                    int64_t rows, int64_t cols) {
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j)
          dst[i * dstRow + j] = src[i + j * srcCol];
    }
}

template <typename T>
void copyStridedAs(void *dst, Shape dstStrides, const void *src,
                   Shape srcStrides, Shape sizes) {
  for (int64_t s : sizes)
    if (s <= 0)
      return;
  coalesce(sizes, dstStrides, srcStrides);
  T *d = static_cast<T *>(dst);
  const T *s = static_cast<const T *>(src);
  const int64_t rank = static_cast<int64_t>(sizes.size());
  // A transpose: dst's innermost dim is strided in src, and another dim t
  // is src's contiguous one. Copied as [rest..., t, inner] blocks in tiles,
  // where element by element each step would touch a new cache line of src.
  int64_t t = rank - 2;
  while (t >= 0 && srcStrides[t] != 1)
    --t;
  if (rank >= 2 && t >= 0 && dstStrides[rank - 1] == 1 &&
      srcStrides[rank - 1] != 1) {
    const int64_t rows = sizes[t], dstRow = dstStrides[t];
    const int64_t cols = sizes[rank - 1], srcCol = srcStrides[rank - 1];
    for (Shape *v : {&sizes, &dstStrides, &srcStrides}) {
      v->erase(v->begin() + (rank - 1));
      v->erase(v->begin() + t);
    }
    forEachRow<2>(sizes, {dstStrides, srcStrides},
                  [&](const std::array<int64_t, 2> &off, int64_t count,
                      const std::array<int64_t, 2> &inner) {
                    for (int64_t i = 0; i < count; ++i)
                      transposeBlock(d + off[0] + i * inner[0], dstRow,
                                     s + off[1] + i * inner[1], srcCol, rows,
                                     cols);
                  });
    return;
  }
  forEachRow<2>(sizes, {dstStrides, srcStrides},
                [&](const std::array<int64_t, 2> &off, int64_t count,
                    const std::array<int64_t, 2> &inner) {
                  T *dr = d + off[0];
                  const T *sr = s + off[1];
                  if (inner[0] == 1 && inner[1] == 1 && count >= kShortRow) {
                    std::memcpy(dr, sr, count * sizeof(T));
                    return;
                  }
                  for (int64_t i = 0; i < count; ++i)
                    dr[i * inner[0]] = sr[i * inner[1]];
                });
}

} // namespace

void copyStrided(void *dst, const Shape &dstStrides, const void *src,
                 const Shape &srcStrides, const Shape &sizes,
                 size_t elementSize) {
  switch (elementSize) {
  case 1:
    return copyStridedAs<uint8_t>(dst, dstStrides, src, srcStrides, sizes);
  case 2:
    return copyStridedAs<uint16_t>(dst, dstStrides, src, srcStrides, sizes);
  case 4:
    return copyStridedAs<uint32_t>(dst, dstStrides, src, srcStrides, sizes);
  default:
    return copyStridedAs<uint64_t>(dst, dstStrides, src, srcStrides, sizes);
  }
}

void fillValue(void *dst, DType dtype, int64_t count, double value) {
  visitDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = convertElement<T>(value);
    T *d = static_cast<T *>(dst);
    std::fill(d, d + count, v);
  });
}

} // namespace duet::rt::portable
