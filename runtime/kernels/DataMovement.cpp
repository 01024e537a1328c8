//===- DataMovement.cpp - shape ops on tensors of any dtype ---------------===//
//
// Each op describes where its output elements come from as sizes and strides
// and hands that to copyStrided, which moves elements of any size; none of
// them looks at values, so every dtype works.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Ops.h"

#include <cstring>

namespace duet::rt::portable {
namespace {

Status requireSameDTypeAsInput(const KernelContext &ctx, const TensorView &y) {
  return ctx.requireSameDType({&ctx.in(0), &y});
}

} // namespace

Status view(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, y));
  if (x.numel() != y.numel())
    return ctx.error("cannot view {} ({} elements) as {} ({} elements)",
                     formatShape(x.sizes), x.numel(), formatShape(y.sizes),
                     y.numel());
  if (ctx.checking())
    return Status::ok();
  if (x.bytes() > 0 && x.data != y.data)
    std::memmove(y.data, x.data, x.bytes());
  return Status::ok();
}

Status clone(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, y));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", x.sizes));
  if (ctx.checking())
    return Status::ok();
  if (x.bytes() > 0 && x.data != y.data)
    std::memmove(y.data, x.data, x.bytes());
  return Status::ok();
}

Status permute(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  AttrReader attrs(ctx);
  Shape dims = attrs.getInts("dims");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, y));
  const int64_t rank = x.rank();
  std::vector<bool> seen(rank, false);
  bool isPermutation = static_cast<int64_t>(dims.size()) == rank;
  for (int64_t d : dims) {
    if (!isPermutation || d < 0 || d >= rank || seen[d]) {
      isPermutation = false;
      break;
    }
    seen[d] = true;
  }
  if (!isPermutation)
    return ctx.error("dims [{}] is not a permutation of the {} dims of {}",
                     fmt::join(dims, ", "), rank, formatShape(x.sizes));
  Shape sizes, strides, own = contiguousStrides(x.sizes);
  for (int64_t d : dims) {
    sizes.push_back(x.sizes[d]);
    strides.push_back(own[d]);
  }
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", sizes));
  if (ctx.checking())
    return Status::ok();
  copyStrided(y.data, contiguousStrides(sizes), x.data, strides, sizes,
              dtypeSize(x.dtype));
  return Status::ok();
}

Status expand(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, y));
  if (!broadcastsTo(x.sizes, y.sizes))
    return ctx.error("cannot expand {} to {}", formatShape(x.sizes),
                     formatShape(y.sizes));
  if (ctx.checking())
    return Status::ok();
  copyStrided(y.data, contiguousStrides(y.sizes), x.data,
              broadcastStrides(x.sizes, y.sizes), y.sizes, dtypeSize(x.dtype));
  return Status::ok();
}

Status repeat(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  AttrReader attrs(ctx);
  Shape repeats = attrs.getInts("repeats");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, y));
  if (repeats.size() < static_cast<size_t>(x.rank()))
    return ctx.error("repeats [{}] has fewer entries than {} has dims",
                     fmt::join(repeats, ", "), formatShape(x.sizes));
  // Result dim d is `times` copies of input dim d (1 for a new leading dim):
  // as the pair of dims (copy, element) the output is row-major, and the
  // input reads element regardless of copy.
  const size_t lead = repeats.size() - static_cast<size_t>(x.rank());
  Shape sizes, pairSizes, inPairStrides, inStrides = contiguousStrides(x.sizes);
  for (size_t d = 0; d < repeats.size(); ++d) {
    int64_t times = repeats[d];
    int64_t size = d < lead ? 1 : x.sizes[d - lead];
    CheckedInt total = CheckedInt(times) * size;
    if (times < 0 || total.overflowed())
      return ctx.error("repeats [{}] of {} has a negative entry or overflows",
                       fmt::join(repeats, ", "), formatShape(x.sizes));
    sizes.push_back(total.value());
    pairSizes.insert(pairSizes.end(), {times, size});
    inPairStrides.insert(inPairStrides.end(),
                         {0, d < lead ? 0 : inStrides[d - lead]});
  }
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", sizes));
  if (ctx.checking())
    return Status::ok();
  copyStrided(y.data, contiguousStrides(pairSizes), x.data, inPairStrides,
              pairSizes, dtypeSize(x.dtype));
  return Status::ok();
}

Status slice(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  AttrReader attrs(ctx);
  int64_t dim = attrs.getInt("dim");
  int64_t start = attrs.getInt("start");
  int64_t end = attrs.getInt("end");
  int64_t step = attrs.getInt("step");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, y));
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, x.rank(), "dim"));
  if (step < 1)
    return ctx.error("step must be positive, got {}", step);
  if (start < 0 || end < start || end > x.sizes[dim])
    return ctx.error("needs 0 <= start <= end <= {}, got start {} and end {}",
                     x.sizes[dim], start, end);
  Shape sizes = x.sizes, strides = contiguousStrides(x.sizes);
  // 0 <= start <= end, so neither the difference nor this overflows.
  sizes[dim] = end == start ? 0 : (end - start - 1) / step + 1;
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", sizes));
  if (ctx.checking())
    return Status::ok();
  size_t element = dtypeSize(x.dtype);
  const void *first = advance(x.data, start * strides[dim], element);
  // With two or more elements taken, step < end - start <= sizes[dim], so
  // the product stays inside the tensor; with one, the stride is never used
  // (and a step from the file can be as large as int64 allows).
  if (sizes[dim] > 1)
    strides[dim] *= step;
  copyStrided(y.data, contiguousStrides(sizes), first, strides, sizes, element);
  return Status::ok();
}

Status select(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  AttrReader attrs(ctx);
  int64_t dim = attrs.getInt("dim");
  int64_t index = attrs.getInt("index");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, y));
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, x.rank(), "dim"));
  if (index < 0 || index >= x.sizes[dim])
    return ctx.error("index {} is out of range for size {} of dim {}", index,
                     x.sizes[dim], dim);
  Shape sizes = x.sizes, strides = contiguousStrides(x.sizes);
  size_t element = dtypeSize(x.dtype);
  int64_t offset = index * strides[dim];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", sizes));
  if (ctx.checking())
    return Status::ok();
  const void *first = advance(x.data, offset, element);
  copyStrided(y.data, contiguousStrides(sizes), first, strides, sizes, element);
  return Status::ok();
}

Status constantPadNd(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0), &y = ctx.out(0);
  AttrReader attrs(ctx);
  Shape pad = attrs.getInts("pad");
  double value = attrs.getFloat("value");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, y));
  const int64_t rank = x.rank();
  if (pad.size() % 2 || static_cast<int64_t>(pad.size() / 2) > rank)
    return ctx.error("pad needs an even number of entries, at most {}, got {}",
                     2 * rank, pad.size());
  // Output position = input position + before[d]; the input positions
  // [first, last) land inside the output and are copied, the rest of the
  // output is `value`.
  Shape before(rank, 0), sizes = x.sizes, first(rank), copied(rank);
  for (int64_t d = 0; d < rank; ++d) {
    size_t i = static_cast<size_t>(rank - 1 - d);
    CheckedInt size = x.sizes[d];
    if (i < pad.size() / 2) {
      before[d] = pad[2 * i];
      size = size + pad[2 * i] + pad[2 * i + 1];
    }
    CheckedInt start = CheckedInt(0) - before[d];
    CheckedInt last = size - before[d];
    if (size.overflowed() || start.overflowed() || last.overflowed())
      return ctx.error("the padding of dim {} of {} overflows 64 bits; pad "
                       "[{}] is absurd",
                       d, formatShape(x.sizes), fmt::join(pad, ", "));
    if (size.value() < 0)
      return ctx.error("padding makes dim {} of {} negative", d,
                       formatShape(x.sizes));
    sizes[d] = size.value();
    first[d] = std::max<int64_t>(0, start.value());
    copied[d] =
        std::max<int64_t>(0, std::min(x.sizes[d], last.value()) - first[d]);
  }
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", sizes));
  if (ctx.checking())
    return Status::ok();
  fillValue(y.data, y.dtype, y.numel(), value);
  if (product(copied) == 0)
    return Status::ok();
  // Something is copied, so first[d] < x.sizes[d] and first[d] + before[d]
  // < sizes[d]: the offsets stay inside the operands.
  Shape inStrides = contiguousStrides(x.sizes);
  Shape outStrides = contiguousStrides(sizes);
  int64_t inOffset = 0, outOffset = 0;
  for (int64_t d = 0; d < rank; ++d) {
    inOffset += first[d] * inStrides[d];
    outOffset += (first[d] + before[d]) * outStrides[d];
  }
  size_t element = dtypeSize(x.dtype);
  copyStrided(advance(y.data, outOffset, element), outStrides,
              advance(x.data, inOffset, element), inStrides, copied, element);
  return Status::ok();
}

Status cat(const KernelContext &ctx) {
  const TensorView &y = ctx.out(0);
  AttrReader attrs(ctx);
  int64_t dim = attrs.getInt("dim");
  DUET_RETURN_IF_ERROR(attrs.status());
  const TensorView &first = ctx.in(0);
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, first.rank(), "dim"));
  Shape sizes = first.sizes;
  CheckedInt catSize = 0;
  for (const TensorView &t : ctx.inputs) {
    DUET_RETURN_IF_ERROR(ctx.requireSameDType({&first, &t}));
    bool fits = t.rank() == first.rank();
    for (int64_t d = 0; fits && d < t.rank(); ++d)
      fits = d == dim || t.sizes[d] == first.sizes[d];
    if (!fits)
      return ctx.error("cannot concatenate {} and {} along dim {}",
                       formatShape(first.sizes), formatShape(t.sizes), dim);
    catSize += t.sizes[dim];
  }
  DUET_RETURN_IF_ERROR(ctx.requireNoOverflow(catSize, "the concatenated size"));
  sizes[dim] = catSize.value();
  DUET_RETURN_IF_ERROR(ctx.requireSameDType({&first, &y}));
  DUET_RETURN_IF_ERROR(ctx.requireShape(y, "output", sizes));
  if (ctx.checking())
    return Status::ok();
  Shape outStrides = contiguousStrides(sizes);
  size_t element = dtypeSize(y.dtype);
  int64_t offset = 0;
  for (const TensorView &t : ctx.inputs) {
    if (t.numel() > 0)
      copyStrided(advance(y.data, offset * outStrides[dim], element),
                  outStrides, t.data, contiguousStrides(t.sizes), t.sizes,
                  element);
    offset += t.sizes[dim];
  }
  return Status::ok();
}

Status splitWithSizes(const KernelContext &ctx) {
  const TensorView &x = ctx.in(0);
  AttrReader attrs(ctx);
  Shape splitSizes = attrs.getInts("split_sizes");
  int64_t dim = attrs.getInt("dim");
  DUET_RETURN_IF_ERROR(attrs.status());
  DUET_RETURN_IF_ERROR(ctx.requireDim(dim, x.rank(), "dim"));
  if (splitSizes.size() != ctx.outputs.size())
    return ctx.error("has {} outputs for {} split sizes", ctx.outputs.size(),
                     splitSizes.size());
  CheckedInt total = 0;
  for (int64_t s : splitSizes) {
    if (s < 0)
      return ctx.error("split sizes must be non-negative, got [{}]",
                       fmt::join(splitSizes, ", "));
    total += s;
  }
  if (total.overflowed() || total.value() != x.sizes[dim])
    return ctx.error("split sizes [{}] do not add up to {}, dim {} of {}",
                     fmt::join(splitSizes, ", "), x.sizes[dim], dim,
                     formatShape(x.sizes));
  for (size_t i = 0; i < splitSizes.size(); ++i) {
    Shape expected = x.sizes;
    expected[dim] = splitSizes[i];
    DUET_RETURN_IF_ERROR(requireSameDTypeAsInput(ctx, ctx.out(i)));
    DUET_RETURN_IF_ERROR(
        ctx.requireShape(ctx.out(i), fmt::format("output {}", i), expected));
  }
  if (ctx.checking())
    return Status::ok();
  Shape inStrides = contiguousStrides(x.sizes);
  size_t element = dtypeSize(x.dtype);
  int64_t offset = 0;
  for (size_t i = 0; i < splitSizes.size(); ++i) {
    const TensorView &y = ctx.out(i);
    if (y.numel() > 0)
      copyStrided(y.data, contiguousStrides(y.sizes),
                  advance(x.data, offset * inStrides[dim], element), inStrides,
                  y.sizes, element);
    offset += splitSizes[i];
  }
  return Status::ok();
}

} // namespace duet::rt::portable
