//===- FoldBatchNorm.cpp - batch_norm folded into conv and linear ---------===//
//
// FoldBatchNormPass (see Passes.td and DESIGN.md, "BatchNorm folding"). Each
// batch norm is either folded or left with one reason, which the statistics
// count.
//
//===----------------------------------------------------------------------===//

#include "dialects/aten/Constants.h"
#include "passes/BatchNormAffine.h"
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace duet {
#define GEN_PASS_DEF_FOLDBATCHNORMPASS
#include "passes/Passes.h.inc"
} // namespace duet

using namespace mlir;
using namespace duet;
using namespace duet::aten;

namespace {

/// What happened to one batch norm.
enum class Outcome {
  Folded,
  NoProducer,
  OtherUsers,
  NotConstant,
  LinearNot2D,
  BadVariance,
};

/// For each element of the weight, the output channel it feeds. Convolution
/// and linear weights hold output channels on axis 0. A transposed
/// convolution's weight is `[Cin, Cout/g, k…]`: row `i` belongs to group
/// `i / (Cin/g)`, and column `j` of that group is channel `g·(Cout/g) + j`.
SmallVector<int64_t> channelOfWeightElement(RankedTensorType weightType,
                                            bool transposed, int64_t groups) {
  ArrayRef<int64_t> shape = weightType.getShape();
  int64_t count = weightType.getNumElements();
  int64_t kernel = 1;
  for (int64_t d : shape.drop_front(2))
    kernel *= d;
  SmallVector<int64_t> channel(count);
  if (!transposed) {
    int64_t perChannel = count / shape[0];
    for (int64_t i = 0; i < count; ++i)
      channel[i] = i / perChannel;
    return channel;
  }
  int64_t inPerGroup = shape[0] / groups, outPerGroup = shape[1];
  for (int64_t i = 0; i < count; ++i) {
    int64_t row = i / (outPerGroup * kernel);
    int64_t column = (i / kernel) % outPerGroup;
    channel[i] = (row / inPerGroup) * outPerGroup + column;
  }
  return channel;
}

/// Why `outcome` left a batch norm in place, for the `explain` remarks.
StringRef describe(Outcome outcome) {
  switch (outcome) {
  case Outcome::Folded:
    break;
  case Outcome::NoProducer:
    return "its input is not the result of aten.convolution or aten.linear";
  case Outcome::OtherUsers:
    return "the convolution or linear result has other users, which need it "
           "unnormalized";
  case Outcome::NotConstant:
    return "a weight, bias or statistic is not a constant";
  case Outcome::LinearNot2D:
    return "the linear output is not 2-D, so axis 1 is not its out-features "
           "axis";
  case Outcome::BadVariance:
    return "running_var + eps is not positive in some channel";
  }
  return "";
}

/// Folds `norm` into the convolution or linear that produces its input, or
/// says why not.
Outcome tryFold(RewriterBase &rewriter, BatchNormOp norm) {
  Operation *producer = norm.getInput().getDefiningOp();
  auto conv = dyn_cast_or_null<ConvolutionOp>(producer);
  auto linear = dyn_cast_or_null<LinearOp>(producer);
  if (!conv && !linear)
    return Outcome::NoProducer;
  if (!norm.getInput().hasOneUse())
    return Outcome::OtherUsers;
  if (linear && linear.getType().getRank() != 2)
    return Outcome::LinearNot2D;

  Value weight = conv ? conv.getWeight() : linear.getWeight();
  Value bias = conv ? conv.getBias() : linear.getBias();
  int64_t channels = norm.getType().getDimSize(1);
  std::optional<SmallVector<double>> w = readFloatConstant(weight);
  std::optional<SmallVector<double>> oldBias =
      SmallVector<double>(channels, 0.0);
  if (bias)
    oldBias = readFloatConstant(bias);
  if (!w || !oldBias)
    return Outcome::NotConstant;
  BatchNormAffine affine;
  switch (computeBatchNormAffine(norm, affine)) {
  case BatchNormAffineFailure::None:
    break;
  case BatchNormAffineFailure::NotConstant:
    return Outcome::NotConstant;
  case BatchNormAffineFailure::NonPositiveVariance:
    // The fold would bake inf or NaN into the weights; the unfolded op gives
    // the same values PyTorch computes.
    return Outcome::BadVariance;
  }

  auto weightType = cast<RankedTensorType>(weight.getType());
  SmallVector<int64_t> channelOf = channelOfWeightElement(
      weightType, conv && conv.getTransposed(), conv ? conv.getGroups() : 1);
  for (auto [value, channel] : llvm::zip(*w, channelOf))
    value *= affine.scale[channel];
  // (b − μ)·s + β, written as b·s + (β − μ·s) to reuse the shift.
  SmallVector<double> newBias(channels);
  for (int64_t c = 0; c < channels; ++c)
    newBias[c] = (*oldBias)[c] * affine.scale[c] + affine.shift[c];

  rewriter.setInsertionPoint(producer);
  Location loc = rewriter.getFusedLoc({producer->getLoc(), norm.getLoc()});
  Value foldedWeight =
      createFloatConstant(rewriter, weight.getLoc(), weightType, *w);
  Value foldedBias = createFloatConstant(
      rewriter, loc,
      RankedTensorType::get({channels}, weightType.getElementType()), newBias);
  // The same op with the folded weight and bias and the same attributes.
  OperationState state(loc, producer->getName());
  state.addOperands({producer->getOperand(0), foldedWeight, foldedBias});
  state.addTypes(norm.getType());
  state.addAttributes(producer->getAttrs());
  Operation *folded = rewriter.create(state);
  // The old weight, bias and statistics are dead unless shared. One constant
  // may feed several of these operands (a statistic that is also the
  // weight), so each is collected once and erased once.
  llvm::SetVector<Operation *> replaced;
  for (Operation *op : {producer, norm.getOperation()})
    for (Value value : op->getOperands().drop_front())
      if (Operation *constant = value.getDefiningOp())
        if (isa<arith::ConstantOp>(constant))
          replaced.insert(constant);
  rewriter.replaceOp(norm, folded->getResults());
  rewriter.eraseOp(producer);
  for (Operation *constant : replaced)
    if (constant->use_empty())
      rewriter.eraseOp(constant);
  return Outcome::Folded;
}

struct FoldBatchNormPass
    : duet::impl::FoldBatchNormPassBase<FoldBatchNormPass> {
  using FoldBatchNormPassBase::FoldBatchNormPassBase;

  void runOnOperation() override {
    SmallVector<BatchNormOp> norms;
    getOperation().walk([&](BatchNormOp norm) { norms.push_back(norm); });
    IRRewriter rewriter(&getContext());
    for (BatchNormOp norm : norms) {
      Outcome outcome = tryFold(rewriter, norm);
      if (explain && outcome != Outcome::Folded)
        norm.emitRemark() << "batch norm not folded: " << describe(outcome);
      switch (outcome) {
      case Outcome::Folded:
        ++numFolded;
        break;
      case Outcome::NoProducer:
        ++numNoProducer;
        break;
      case Outcome::OtherUsers:
        ++numOtherUsers;
        break;
      case Outcome::NotConstant:
        ++numNotConstant;
        break;
      case Outcome::LinearNot2D:
        ++numLinearNot2D;
        break;
      case Outcome::BadVariance:
        ++numBadVariance;
        break;
      }
    }
  }
};

} // namespace
