//===- ShapeRules.cpp - the result shapes of the aten ops ----------------===//

#include "dialects/aten/ShapeRules.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <optional>
#include <string>

using namespace mlir;

namespace duet::aten {

InFlightDiagnostic ShapeReport::error() const {
  if (op)
    return op->emitOpError();
  if (location)
    return mlir::emitError(*location) << "'" << opName << "' op ";
  return InFlightDiagnostic();
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += std::to_string(d);
  }
  return s + "]";
}

namespace {

LogicalResult checkRank(const ShapeReport &report, StringRef what,
                        ArrayRef<int64_t> shape, int64_t rank) {
  if (static_cast<int64_t>(shape.size()) == rank)
    return success();
  return report.error() << what << " must have rank " << rank << ", got "
                        << shape.size();
}

LogicalResult checkDim(const ShapeReport &report, StringRef name, int64_t dim,
                       int64_t rank) {
  if (dim >= 0 && dim < rank)
    return success();
  return report.error() << name << " " << dim << " is out of range for rank "
                        << rank << " (dims are normalized to [0, " << rank
                        << "))";
}

/// `shape`'s rank is one of `ranks`.
LogicalResult checkRanks(const ShapeReport &report, StringRef what,
                         ArrayRef<int64_t> shape, ArrayRef<int64_t> ranks) {
  if (llvm::is_contained(ranks, static_cast<int64_t>(shape.size())))
    return success();
  auto diag = report.error() << what << " must have rank ";
  llvm::interleave(ranks, diag, " or ");
  return diag << ", got " << shape.size();
}

/// Reports that the shape of `what` does not fit in int64.
LogicalResult overflow(const ShapeReport &report, const Twine &what) {
  return report.error() << "the size of " << what
                        << " overflows int64; the sizes or attributes are "
                           "out of range";
}

/// in + 2 * pad - dilation * (kernel - 1) - 1: what a window can slide over
/// in a padded dim, minus one; nothing on overflow.
std::optional<int64_t> windowSpan(int64_t in, int64_t kernel, int64_t pad,
                                  int64_t dilation) {
  std::optional<int64_t> padded = llvm::checkedMul<int64_t>(pad, 2);
  if (padded)
    padded = llvm::checkedAdd(in, *padded);
  std::optional<int64_t> reach = llvm::checkedSub<int64_t>(kernel, 1);
  if (reach)
    reach = llvm::checkedMul(dilation, *reach);
  if (!padded || !reach)
    return std::nullopt;
  std::optional<int64_t> span = llvm::checkedSub(*padded, *reach);
  return span ? llvm::checkedSub<int64_t>(*span, 1) : std::nullopt;
}

/// Output length of a sliding window, as PyTorch computes it for pooling. The
/// division rounds toward -infinity so that a window larger than the padded
/// input gives a length below 1 instead of 1. Nothing on overflow.
std::optional<int64_t> pooledSize(int64_t in, int64_t kernel, int64_t stride,
                                  int64_t pad, int64_t dilation,
                                  bool ceilMode) {
  std::optional<int64_t> span = windowSpan(in, kernel, pad, dilation);
  if (!span)
    return std::nullopt;
  // Both roundings of span / stride (stride >= 1) lie within [span - 1, span].
  int64_t out = (ceilMode ? llvm::divideCeilSigned(*span, stride)
                          : llvm::divideFloorSigned(*span, stride));
  if (out == std::numeric_limits<int64_t>::max())
    return std::nullopt;
  ++out;
  // With ceil_mode the last window must start inside the input or left padding.
  if (ceilMode) {
    std::optional<int64_t> start = llvm::checkedMul(out - 1, stride);
    std::optional<int64_t> limit = llvm::checkedAdd(in, pad);
    if (!start || !limit)
      return std::nullopt;
    if (*start >= *limit)
      --out;
  }
  return out;
}

LogicalResult checkPoolWindow(const ShapeReport &report,
                              const PoolWindow &window) {
  for (auto [name, arr] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"kernel_size", window.kernel},
        {"stride", window.stride},
        {"padding", window.padding},
        {"dilation", window.dilation}})
    if (arr.size() != 2)
      return report.error() << name << " needs 2 entries, got " << arr.size();
  for (int i = 0; i < 2; ++i) {
    if (window.kernel[i] < 1 || window.stride[i] < 1 ||
        window.dilation[i] < 1 || window.padding[i] < 0)
      return report.error() << "kernel_size, stride and dilation must be "
                               "positive and padding non-negative";
    if (window.padding[i] > window.kernel[i] / 2)
      return report.error()
             << "padding " << window.padding[i]
             << " must be at most half the kernel size " << window.kernel[i];
  }
  return success();
}

/// The spatial sizes of a transposed convolution:
/// (in - 1) * stride - 2 * padding + dilation * (kernel - 1) +
/// output_padding + 1, every step checked.
std::optional<int64_t> transposedSize(int64_t in, int64_t kernel,
                                      int64_t stride, int64_t padding,
                                      int64_t dilation, int64_t outputPadding) {
  std::optional<int64_t> size = llvm::checkedMul<int64_t>(in - 1, stride);
  std::optional<int64_t> pad = llvm::checkedMul<int64_t>(padding, 2);
  std::optional<int64_t> reach =
      llvm::checkedMul<int64_t>(dilation, kernel - 1);
  if (size && pad)
    size = llvm::checkedSub(*size, *pad);
  if (size && reach)
    size = llvm::checkedAdd(*size, *reach);
  if (size)
    size = llvm::checkedAdd<int64_t>(*size, outputPadding);
  if (size)
    size = llvm::checkedAdd<int64_t>(*size, 1);
  if (!pad || !reach)
    return std::nullopt;
  return size;
}

} // namespace

FailureOr<ResultShape> convolutionShape(ArrayRef<int64_t> in,
                                        ArrayRef<int64_t> w,
                                        const ConvolutionAttrs &attrs,
                                        const ShapeReport &report) {
  if (failed(checkRanks(report, "input", in, {3, 4, 5})))
    return failure();
  if (attrs.transposed && in.size() == 5)
    return report.error() << "a 3-D transposed convolution is not supported";
  size_t spatial = in.size() - 2;
  if (w.size() != in.size())
    return report.error() << "weight rank " << w.size()
                          << " must equal input rank " << in.size();
  for (auto [name, arr] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"stride", attrs.stride},
        {"padding", attrs.padding},
        {"dilation", attrs.dilation},
        {"output_padding", attrs.outputPadding}})
    if (arr.size() != spatial)
      return report.error()
             << name << " needs " << spatial << " entries, got " << arr.size();
  int64_t groups = attrs.groups;
  if (groups < 1)
    return report.error() << "groups must be positive, got " << groups;
  for (size_t i = 0; i < spatial; ++i)
    if (attrs.stride[i] < 1 || attrs.dilation[i] < 1 || attrs.padding[i] < 0 ||
        attrs.outputPadding[i] < 0)
      return report.error() << "stride and dilation must be positive, padding "
                               "and output_padding non-negative";

  int64_t channels = in[1];
  ResultShape expected = {in[0], 0};
  if (!attrs.transposed) {
    std::optional<int64_t> weightChannels = llvm::checkedMul(w[1], groups);
    if (channels != weightChannels)
      return report.error()
             << "input has " << channels << " channels but weight expects "
             << w[1] << " x " << groups << " groups";
    expected[1] = w[0];
    if (w[0] % groups)
      return report.error() << "output channels " << w[0]
                            << " are not divisible by groups " << groups;
    for (size_t i = 0; i < spatial; ++i) {
      std::optional<int64_t> span =
          windowSpan(in[2 + i], w[2 + i], attrs.padding[i], attrs.dilation[i]);
      if (!span)
        return overflow(report, "output dim " + Twine(2 + i));
      // span / stride + 1 cannot overflow: stride >= 1 and span < INT64_MAX.
      expected.push_back(llvm::divideFloorSigned(*span, attrs.stride[i]) + 1);
    }
  } else {
    if (channels != w[0] || channels % groups)
      return report.error()
             << "transposed convolution: input has " << channels
             << " channels but weight has " << w[0]
             << " (must match and divide by groups " << groups << ")";
    std::optional<int64_t> total = llvm::checkedMul(w[1], groups);
    if (!total)
      return overflow(report, "output dim 1 (" + Twine(w[1]) + " x " +
                                  Twine(groups) + " groups)");
    expected[1] = *total;
    for (size_t i = 0; i < spatial; ++i) {
      if (attrs.outputPadding[i] >=
          std::max(attrs.stride[i], attrs.dilation[i]))
        return report.error()
               << "output_padding must be smaller than stride or dilation";
      std::optional<int64_t> size =
          transposedSize(in[2 + i], w[2 + i], attrs.stride[i], attrs.padding[i],
                         attrs.dilation[i], attrs.outputPadding[i]);
      if (!size)
        return overflow(report, "output dim " + Twine(2 + i));
      expected.push_back(*size);
    }
  }
  if (llvm::any_of(ArrayRef(expected).drop_front(2),
                   [](int64_t d) { return d < 1; }))
    return report.error() << "output size " << formatShape(expected)
                          << " is empty: the dilated kernel " << formatShape(w)
                          << " does not fit the padded input "
                          << formatShape(in);
  return expected;
}

FailureOr<ResultShape> poolShape(ArrayRef<int64_t> in, const PoolWindow &window,
                                 const ShapeReport &report) {
  if (failed(checkRanks(report, "input", in, {3, 4})) ||
      failed(checkPoolWindow(report, window)))
    return failure();
  ResultShape expected(in.begin(), in.end());
  size_t h = in.size() - 2;
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> out =
        pooledSize(in[h + i], window.kernel[i], window.stride[i],
                   window.padding[i], window.dilation[i], window.ceilMode);
    if (!out)
      return overflow(report, "the pooled dim " + Twine(h + i));
    if (*out < 1)
      return report.error()
             << "window does not fit the input " << formatShape(in);
    expected[h + i] = *out;
  }
  return expected;
}

FailureOr<ResultShape> repeatShape(ArrayRef<int64_t> in,
                                   ArrayRef<int64_t> repeats,
                                   const ShapeReport &report) {
  if (repeats.size() < in.size())
    return report.error() << "repeats " << formatShape(repeats)
                          << " has fewer entries than self " << formatShape(in)
                          << " has dims";
  size_t lead = repeats.size() - in.size();
  ResultShape expected;
  for (auto [d, times] : llvm::enumerate(repeats)) {
    if (times < 0)
      return report.error()
             << "repeats " << formatShape(repeats) << " has a negative entry";
    std::optional<int64_t> size =
        llvm::checkedMul(times, d < lead ? 1 : in[d - lead]);
    if (!size)
      return overflow(report, "dim " + Twine(d) + " of the result");
    expected.push_back(*size);
  }
  return expected;
}

FailureOr<ResultShape> sliceShape(ArrayRef<int64_t> in, int64_t dim,
                                  int64_t start, int64_t end, int64_t step,
                                  const ShapeReport &report) {
  if (failed(checkDim(report, "dim", dim, in.size())))
    return failure();
  if (step < 1)
    return report.error() << "step must be positive, got " << step;
  if (start < 0 || end < start || end > in[dim])
    return report.error() << "needs 0 <= start <= end <= " << in[dim]
                          << ", got start " << start << " and end " << end;
  ResultShape expected(in);
  // ceil((end - start) / step), without the sum that overflows for a huge
  // step.
  int64_t length = end - start;
  expected[dim] = length == 0 ? 0 : (length - 1) / step + 1;
  return expected;
}

FailureOr<ResultShape> selectShape(ArrayRef<int64_t> in, int64_t dim,
                                   int64_t index, const ShapeReport &report) {
  if (failed(checkDim(report, "dim", dim, in.size())))
    return failure();
  if (index < 0 || index >= in[dim])
    return report.error() << "index " << index << " is out of range for size "
                          << in[dim];
  ResultShape expected(in);
  expected.erase(expected.begin() + dim);
  return expected;
}

FailureOr<ResultShape> padShape(ArrayRef<int64_t> in, ArrayRef<int64_t> pad,
                                const ShapeReport &report) {
  if (pad.size() % 2 || pad.size() / 2 > in.size())
    return report.error() << "pad needs an even number of entries, at most "
                          << 2 * in.size() << ", got " << pad.size();
  ResultShape expected(in);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t &d = expected[in.size() - 1 - i];
    std::optional<int64_t> padded = llvm::checkedAdd(d, pad[2 * i]);
    if (padded)
      padded = llvm::checkedAdd(*padded, pad[2 * i + 1]);
    if (!padded)
      return overflow(report, "the padded dim " + Twine(in.size() - 1 - i));
    d = *padded;
    if (d < 0)
      return report.error()
             << "padding makes dim " << in.size() - 1 - i << " negative";
  }
  return expected;
}

FailureOr<ResultShape> catShape(ArrayRef<ArrayRef<int64_t>> shapes, int64_t dim,
                                const ShapeReport &report) {
  if (shapes.empty())
    return report.error() << "needs at least one tensor";
  ArrayRef<int64_t> first = shapes.front();
  if (failed(checkDim(report, "dim", dim, first.size())))
    return failure();
  ResultShape expected(first);
  expected[dim] = 0;
  for (ArrayRef<int64_t> shape : shapes) {
    for (size_t i = 0; i < first.size(); ++i)
      if (shape.size() != first.size() ||
          (i != static_cast<size_t>(dim) && shape[i] != first[i]))
        return report.error()
               << "cannot concatenate " << formatShape(first) << " and "
               << formatShape(shape) << " along dim " << dim;
    std::optional<int64_t> total = llvm::checkedAdd(expected[dim], shape[dim]);
    if (!total)
      return overflow(report, "the concatenated dim " + Twine(dim));
    expected[dim] = *total;
  }
  return expected;
}

FailureOr<ResultShape> topkShape(ArrayRef<int64_t> in, int64_t k, int64_t dim,
                                 const ShapeReport &report) {
  if (in.empty())
    return report.error() << "needs a tensor of rank 1 or more";
  if (failed(checkDim(report, "dim", dim, in.size())))
    return failure();
  if (k < 0 || k > in[dim])
    return report.error() << "k " << k << " is outside [0, " << in[dim]
                          << "], the size of dim " << dim;
  ResultShape shape(in);
  shape[dim] = k;
  return shape;
}

FailureOr<ResultShape> embeddingShape(ArrayRef<int64_t> weight,
                                      ArrayRef<int64_t> indices,
                                      const ShapeReport &report) {
  if (failed(checkRanks(report, "weight", weight, {2})))
    return failure();
  ResultShape expected(indices);
  expected.push_back(weight[1]);
  return expected;
}

FailureOr<ResultShape> gatherShape(ArrayRef<int64_t> in,
                                   ArrayRef<int64_t> index, int64_t dim,
                                   const ShapeReport &report) {
  if (failed(checkDim(report, "dim", dim, in.size())))
    return failure();
  if (index.size() != in.size())
    return report.error() << "index " << formatShape(index)
                          << " must have the rank of self " << formatShape(in);
  for (size_t d = 0; d < in.size(); ++d)
    if (static_cast<int64_t>(d) != dim && index[d] > in[d])
      return report.error() << "index " << formatShape(index)
                            << " is larger than self " << formatShape(in)
                            << " in dim " << d << ", which is not dim " << dim;
  return ResultShape(index);
}

FailureOr<ResultShape> indexSelectShape(ArrayRef<int64_t> in,
                                        ArrayRef<int64_t> index, int64_t dim,
                                        const ShapeReport &report) {
  if (failed(checkRanks(report, "index", index, {0, 1})) ||
      failed(checkDim(report, "dim", dim, in.size())))
    return failure();
  ResultShape expected(in);
  expected[dim] = index.empty() ? 1 : index[0];
  return expected;
}

FailureOr<ResultShape> batchNormShape(ArrayRef<int64_t> in,
                                      ArrayRef<NamedShape> perChannel,
                                      const ShapeReport &report) {
  if (in.size() < 2)
    return report.error() << "input must have rank 2 or more (N, C, ...), got "
                          << in.size();
  int64_t channels = in[1];
  for (const NamedShape &param : perChannel)
    if (param.shape &&
        (param.shape->size() != 1 || (*param.shape)[0] != channels))
      return report.error() << param.name << " must have shape [" << channels
                            << "], got " << formatShape(*param.shape);
  return ResultShape(in);
}

FailureOr<ResultShape> layerNormShape(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> normalized,
                                      ArrayRef<NamedShape> affine,
                                      const ShapeReport &report) {
  if (normalized.empty() || normalized.size() > in.size() ||
      in.take_back(normalized.size()) != normalized)
    return report.error() << "normalized_shape " << formatShape(normalized)
                          << " must be the trailing dims of the input "
                          << formatShape(in);
  for (const NamedShape &param : affine)
    if (param.shape && *param.shape != normalized)
      return report.error()
             << "weight and bias must have shape " << formatShape(normalized);
  return ResultShape(in);
}

FailureOr<SmallVector<ResultShape>>
splitShapes(ArrayRef<int64_t> in, int64_t dim, ArrayRef<int64_t> sizes,
            size_t results, const ShapeReport &report) {
  if (failed(checkDim(report, "dim", dim, in.size())))
    return failure();
  if (sizes.size() != results)
    return report.error() << "has " << results << " results for "
                          << sizes.size() << " split sizes";
  SmallVector<ResultShape> shapes;
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0)
      return report.error() << "split sizes must be non-negative";
    std::optional<int64_t> sum = llvm::checkedAdd(total, size);
    if (!sum)
      return overflow(report, "the split sizes' sum");
    total = *sum;
    shapes.emplace_back(in);
    shapes.back()[dim] = size;
  }
  if (total != in[dim])
    return report.error() << "split sizes add up to " << total << " but dim "
                          << dim << " has size " << in[dim];
  return shapes;
}

FailureOr<ResultShape> gridSamplerShape(ArrayRef<int64_t> in,
                                        ArrayRef<int64_t> grid,
                                        const ShapeReport &report) {
  if (failed(checkRank(report, "input", in, 4)) ||
      failed(checkRank(report, "grid", grid, 4)))
    return failure();
  if (grid[0] != in[0] || grid[3] != 2)
    return report.error() << "grid " << formatShape(grid)
                          << " must be [N, Ho, Wo, 2] for the input "
                          << formatShape(in);
  return ResultShape{in[0], in[1], grid[1], grid[2]};
}

FailureOr<ResultShape> scatterShape(ArrayRef<int64_t> self,
                                    ArrayRef<int64_t> index,
                                    ArrayRef<int64_t> src, int64_t dim,
                                    const ShapeReport &report) {
  if (self.empty())
    return report.error() << "needs a tensor of rank 1 or more";
  if (failed(checkDim(report, "dim", dim, self.size())))
    return failure();
  if (index.size() != self.size() || src.size() != self.size())
    return report.error() << "index " << formatShape(index) << " and src "
                          << formatShape(src) << " must have the rank of self "
                          << formatShape(self);
  for (size_t d = 0; d < self.size(); ++d)
    if (index[d] > src[d] ||
        (static_cast<int64_t>(d) != dim && index[d] > self[d]))
      return report.error()
             << "index " << formatShape(index) << " is larger than src "
             << formatShape(src) << " or, outside dim " << dim << ", than self "
             << formatShape(self);
  return ResultShape(self);
}

FailureOr<ResultShape> attentionShape(ArrayRef<int64_t> q, ArrayRef<int64_t> k,
                                      ArrayRef<int64_t> v,
                                      std::optional<ArrayRef<int64_t>> mask,
                                      int64_t maxScores,
                                      const ShapeReport &report) {
  if (q.size() < 2 || k.size() != q.size() || v.size() != q.size())
    return report.error() << "query, key and value must share one rank of 2 "
                             "or more";
  if (q.drop_back(2) != k.drop_back(2) || q.drop_back(2) != v.drop_back(2))
    return report.error() << "query, key and value must share batch dims";
  if (q.back() != k.back() || k[k.size() - 2] != v[v.size() - 2])
    return report.error() << "query " << formatShape(q) << ", key "
                          << formatShape(k) << " and value " << formatShape(v)
                          << " do not match";
  if (mask) {
    SmallVector<int64_t> scores(q.drop_back()), shape;
    scores.push_back(k[k.size() - 2]);
    if (!OpTrait::util::getBroadcastedShape(*mask, scores, shape) ||
        shape != scores)
      return report.error()
             << "attn_mask " << formatShape(*mask)
             << " must broadcast to the scores " << formatShape(scores);
  }
  // One batch entry's scores [L, S] exist whatever E is (the portable
  // kernel's scratch, a causal mask's constant where attention is
  // decomposed): they must fit one tensor.
  int64_t length = q[q.size() - 2], keys = k[k.size() - 2];
  std::optional<int64_t> count = llvm::checkedMul(length, keys);
  if (!count || *count > maxScores)
    return report.error() << "its [" << length << ", " << keys
                          << "] scores would take over " << maxScores * 4
                          << " bytes, the most one tensor may hold "
                             "(kMaxTensorBytes, 4 GiB); export the model "
                             "with shorter sequences";
  ResultShape out(q.drop_back());
  out.push_back(v.back());
  return out;
}

FailureOr<ResultShape> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                      const ShapeReport &report) {
  SmallVector<int64_t> out;
  if (!OpTrait::util::getBroadcastedShape(a, b, out))
    return report.error() << "operand shapes " << formatShape(a) << " and "
                          << formatShape(b) << " do not broadcast";
  return ResultShape(out);
}

FailureOr<ResultShape> reductionShape(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> dims, bool keepdim,
                                      const ShapeReport &report) {
  int64_t rank = in.size();
  llvm::SmallSet<int64_t, 8> reduced;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return report.error()
             << "dim " << d << " is out of range for rank " << rank
             << " (dims are normalized to [0, " << rank << "))";
    if (!reduced.insert(d).second)
      return report.error() << "dim " << d << " appears twice";
  }
  ResultShape out;
  for (int64_t i = 0; i < rank; ++i) {
    bool isReduced = dims.empty() || reduced.contains(i);
    if (!isReduced)
      out.push_back(in[i]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

FailureOr<ResultShape> permuteShape(ArrayRef<int64_t> in,
                                    ArrayRef<int64_t> dims,
                                    const ShapeReport &report) {
  SmallVector<int64_t> sorted(dims);
  llvm::sort(sorted);
  if (sorted.size() != in.size() ||
      !llvm::equal(sorted, llvm::seq<int64_t>(0, in.size())))
    return report.error() << "dims " << formatShape(dims)
                          << " is not a permutation of 0.." << in.size() - 1;
  ResultShape out;
  for (int64_t d : dims)
    out.push_back(in[d]);
  return out;
}

FailureOr<ResultShape> mmShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                               const ShapeReport &report,
                               const ProductNames &names) {
  if (failed(checkRank(report, names.lhs, a, 2)) ||
      failed(checkRank(report, names.rhs, b, 2)))
    return failure();
  if (a[1] != b[0])
    return report.error() << names.lhsPrefix << formatShape(a) << " and "
                          << names.rhsPrefix << formatShape(b)
                          << " do not multiply";
  return ResultShape{a[0], b[1]};
}

FailureOr<ResultShape> bmmShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                const ShapeReport &report) {
  if (failed(checkRank(report, "self", a, 3)) ||
      failed(checkRank(report, "other", b, 3)))
    return failure();
  if (a[0] != b[0] || a[2] != b[1])
    return report.error() << "operands " << formatShape(a) << " and "
                          << formatShape(b) << " do not multiply";
  return ResultShape{a[0], a[1], b[2]};
}

FailureOr<ResultShape> matmulShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                   const ShapeReport &report) {
  if (a.empty() || b.empty())
    return report.error() << "operands must have rank 1 or more";
  // 1-D operands are promoted to matrices and the added dim removed after.
  SmallVector<int64_t> lhs(a), rhs(b);
  if (a.size() == 1)
    lhs.insert(lhs.begin(), 1);
  if (b.size() == 1)
    rhs.push_back(1);
  if (lhs.back() != rhs[rhs.size() - 2])
    return report.error() << "operands " << formatShape(a) << " and "
                          << formatShape(b) << " do not multiply";
  FailureOr<ResultShape> batch = broadcastShape(
      ArrayRef(lhs).drop_back(2), ArrayRef(rhs).drop_back(2), report);
  if (failed(batch))
    return failure();
  if (a.size() > 1)
    batch->push_back(lhs[lhs.size() - 2]);
  if (b.size() > 1)
    batch->push_back(rhs.back());
  return batch;
}

FailureOr<ResultShape> linearShape(ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> weight,
                                   const ShapeReport &report) {
  if (failed(checkRank(report, "weight", weight, 2)))
    return failure();
  if (input.empty() || input.back() != weight[1])
    return report.error() << "input " << formatShape(input)
                          << " does not end in the weight's in_features "
                          << weight[1];
  ResultShape out(input.drop_back());
  out.push_back(weight[0]);
  return out;
}

} // namespace duet::aten
