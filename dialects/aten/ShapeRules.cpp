//===- ShapeRules.cpp - the result shapes of the aten ops ----------------===//

#include "dialects/aten/ShapeRules.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallSet.h"

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

} // namespace

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
