//===- XnnpackQuantization.cpp - which XNNPACK nodes compute in qint8 -----===//
//
// Facts about this XNNPACK (checked by defining each node): convolution_2d
// and depthwise_convolution_2d take qint8 inputs with qcint8 filters and
// qcint32 biases; add2 and global_average_pooling_2d take qint8 with any
// qparams; max_pooling_2d and static_reshape take qint8 only with the
// output's qparams equal to the input's; fully_connected takes no qcint8
// filter, so a linear with per-channel weights is a 1x1 convolution between
// two reshapes; there is no qint8 average pooling, hardswish or leaky relu.
//
//===----------------------------------------------------------------------===//

#include "partitioners/xnnpack/rules/XnnpackQuantization.h"

#include "dialects/aten/AtenDialect.h"
#include "dialects/aten/Constants.h"
#include "partitioners/common/FusionDialect.h"
#include "partitioners/common/Rules.h"
#include "partitioners/xnnpack/dialect/XnnDialect.h"
#include "partitioners/xnnpack/rules/XnnpackRules.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace duet::aten;

namespace duet::partition {

namespace {

using xnn::XnnDialect;

/// A dequantize_per_tensor of a computed qint8 value: what a qint8 node
/// reads in its place. Null for anything else.
DequantizePerTensorOp activationDequantize(Value value) {
  auto dq = value.getDefiningOp<DequantizePerTensorOp>();
  if (!dq || isQuantizedWeightOp(dq) ||
      !dq.getSelf().getType().getElementType().isSignlessInteger(8) ||
      int64_t(dq.getQuantMin()) != -128 || int64_t(dq.getQuantMax()) != 127 ||
      !dq.getType().getElementType().isF32())
    return {};
  return dq;
}

bool isQint8Quantize(QuantizePerTensorOp q) {
  return q.getType().getElementType().isSignlessInteger(8) &&
         int64_t(q.getQuantMin()) == -128 && int64_t(q.getQuantMax()) == 127 &&
         int64_t(q.getZeroPoint()) >= -128 && int64_t(q.getZeroPoint()) <= 127;
}

std::string opName(Operation *op) {
  if (isa<YieldOp>(op))
    return "the partition's output";
  return op->getName().getStringRef().str();
}

/// The quantize that takes `op`'s result, possibly through activations
/// activation fusion folds into `op`'s node (each the only reader of the
/// value before it); null with `why` otherwise.
QuantizePerTensorOp outputQuantize(Operation *op, std::string &why) {
  Value value = op->getResult(0);
  bool takesBounds = XnnpackRules::takesOutputBounds(op);
  for (;;) {
    if (!value.hasOneUse()) {
      why = "its result has " +
            std::string(value.use_empty() ? "no reader" : "several readers") +
            ", so it is not quantized by one quantize_per_tensor";
      return {};
    }
    Operation *user = *value.getUsers().begin();
    if (auto q = dyn_cast<QuantizePerTensorOp>(user)) {
      if (!isQint8Quantize(q)) {
        why = "the quantize after it is not to qint8 [-128, 127]";
        return {};
      }
      return q;
    }
    std::optional<fusion::Bounds> bounds = fusion::activationBounds(user);
    if (!takesBounds || !bounds || !(bounds->lo < bounds->hi)) {
      why = "its result is read by " + opName(user) +
            " as float, not "
            "quantized";
      return {};
    }
    value = user->getResult(0);
  }
}

/// Why the quantized weight `weight` cannot be a qcint8 filter of a node
/// whose output channels are dim 0; nothing when it can.
std::optional<std::string> filterProblem(Value weight) {
  Operation *def = weight.getDefiningOp();
  if (!isQuantizedWeightOp(def))
    return std::string("its weight is not quantized (a dequantize of int8 "
                       "constants)");
  auto integers = [](Value v) {
    return v.getType().cast<RankedTensorType>().getElementType();
  };
  if (auto pc = dyn_cast<DequantizePerChannelOp>(def)) {
    if (!integers(pc.getSelf()).isSignlessInteger(8))
      return std::string("its weight is not int8");
    if (pc.getAxis() != 0)
      return "its weight is quantized along dim " +
             std::to_string(pc.getAxis()) +
             ", not along the output channels (dim 0)";
    if (int64_t(pc.getQuantMin()) < -127)
      return std::string("its weight's range includes -128; qcint8 filters "
                         "are symmetric, [-127, 127]");
    if (Value zp = pc.getZeroPoints()) {
      auto points = readIntegerElements(getConstantElements(zp));
      if (!points)
        return std::string("its weight's zero points cannot be read");
      for (int64_t p : *points)
        if (p != 0)
          return std::string("its weight has a zero point other than 0; "
                             "qcint8 filters are symmetric");
    }
    auto scales = readFloatConstant(pc.getScales());
    if (!scales)
      return std::string("its weight's scales cannot be read");
    for (double s : *scales)
      if (!(s > 0) || !std::isfinite(float(s)))
        return std::string("its weight has a scale that is not a positive "
                           "float32");
    return std::nullopt;
  }
  auto pt = cast<DequantizePerTensorOp>(def);
  if (!integers(pt.getSelf()).isSignlessInteger(8))
    return std::string("its weight is not int8");
  if (int64_t(pt.getZeroPoint()) != 0 || int64_t(pt.getQuantMin()) < -127)
    return std::string("its weight is not symmetric (zero point 0, range "
                       "[-127, 127])");
  return std::nullopt;
}

/// Why `bias` cannot become a qcint32 bias; nothing when it can.
std::optional<std::string> biasProblem(Value bias) {
  if (!bias)
    return std::nullopt;
  if (isConstant(bias) &&
      cast<RankedTensorType>(bias.getType()).getElementType().isF32() &&
      readFloatConstant(bias))
    return std::nullopt;
  return std::string("its bias is not a float32 constant");
}

/// The result of a candidate: the ops the qint8 node would absorb.
struct Match {
  SmallVector<DequantizePerTensorOp> inputs;
  QuantizePerTensorOp output;
  Value weight;
};

float scaleOf(Operation *op) {
  return float(op->getAttrOfType<FloatAttr>("scale").getValueAsDouble());
}

/// Why this XNNPACK's qint8 node for `op` cannot requantize from `match`'s
/// scales: the ratios its integer kernels take (its convolution needs input
/// x filter / output scale below 256, add2 each input / output scale in
/// [2^-10, 2^8), global average pooling input / output in [2^-8, 2^8)).
std::optional<std::string> requantizationProblem(Operation *op,
                                                 const Match &match) {
  float out = scaleOf(match.output);
  auto ratio = [&](float r, float lo, float hi, const char *what) {
    return r >= lo && r < hi && std::isnormal(r)
               ? std::optional<std::string>()
               : std::optional<std::string>(
                     std::string(what) + " scale ratio " + std::to_string(r) +
                     " is outside what this XNNPACK's qint8 kernels take");
  };
  if (match.weight) {
    std::optional<SmallVector<double>> scales;
    Operation *def = match.weight.getDefiningOp();
    if (auto pc = dyn_cast<DequantizePerChannelOp>(def))
      scales = readFloatConstant(pc.getScales());
    else
      scales = SmallVector<double>{
          cast<DequantizePerTensorOp>(def).getScale().convertToDouble()};
    float in = scaleOf(match.inputs[0]);
    // The bias becomes int32 in units of input x filter scale.
    std::optional<SmallVector<double>> bias;
    if (Value b = op->getNumOperands() > 2 ? op->getOperand(2) : Value())
      bias = readFloatConstant(b);
    for (auto [c, w] : llvm::enumerate(*scales)) {
      float product = in * float(w);
      if (!std::isnormal(product))
        return std::string("input x filter scale is not a normal float32");
      if (auto why = ratio(product / out, 0, 256, "input x filter / output"))
        return why;
      double b = bias ? (*bias)[bias->size() == 1 ? 0 : c] : 0.0;
      if (std::fabs(b / double(product)) >= 2147483647.0)
        return std::string("its bias does not fit int32 in units of input x "
                           "filter scale");
    }
    return std::nullopt;
  }
  if (isa<AddOp>(op)) {
    for (DequantizePerTensorOp dq : match.inputs)
      if (auto why =
              ratio(scaleOf(dq) / out, 0x1.0p-10f, 0x1.0p+8f, "input / output"))
        return why;
    return std::nullopt;
  }
  if (isa<MeanOp, AdaptiveAvgPool2dOp>(op))
    return ratio(scaleOf(match.inputs[0]) / out, 0x1.0p-8f, 0x1.0p+8f,
                 "input / output");
  return std::nullopt;
}

bool sameQparams(DequantizePerTensorOp dq, QuantizePerTensorOp q) {
  return dq.getScale().convertToDouble() == q.getScale().convertToDouble() &&
         int64_t(dq.getZeroPoint()) == int64_t(q.getZeroPoint());
}

/// Whether `op` can compute in qint8, and what it then absorbs; `why`
/// otherwise (empty for an op that has no qint8 form at all).
std::optional<Match> matchQint8(Operation *op, std::string &why) {
  Match match;
  auto input = [&](Value value) {
    DequantizePerTensorOp dq = activationDequantize(value);
    if (!dq)
      why = "an input is not dequantized from qint8";
    else
      match.inputs.push_back(dq);
    return bool(dq);
  };
  auto output = [&]() {
    match.output = outputQuantize(op, why);
    return bool(match.output);
  };
  auto weighted = [&](Value in, Value weight, Value bias) {
    if (!input(in))
      return false;
    if (auto problem = filterProblem(weight)) {
      why = *problem;
      return false;
    }
    if (auto problem = biasProblem(bias)) {
      why = *problem;
      return false;
    }
    match.weight = weight;
    return output();
  };
  bool ok =
      llvm::TypeSwitch<Operation *, bool>(op)
          .Case([&](ConvolutionOp conv) {
            if (conv.getTransposed()) {
              why = "a transposed convolution runs in fp32 (duet uses "
                    "no qint8 deconvolution)";
              return false;
            }
            return weighted(conv.getInput(), conv.getWeight(), conv.getBias());
          })
          .Case([&](LinearOp linear) {
            return weighted(linear.getInput(), linear.getWeight(),
                            linear.getBias());
          })
          .Case([&](AddOp add) {
            return input(add.getSelf()) && input(add.getOther()) && output();
          })
          .Case<MeanOp, AdaptiveAvgPool2dOp>([&](Operation *pool) {
            return input(pool->getOperand(0)) && output();
          })
          .Case<MaxPool2dOp, ViewOp>([&](Operation *same) {
            if (!input(same->getOperand(0)) || !output())
              return false;
            if (!sameQparams(match.inputs[0], match.output)) {
              why = "its output is quantized with other qparams than "
                    "its input, which this XNNPACK's qint8 " +
                    std::string(isa<ViewOp>(same) ? "reshape" : "max pooling") +
                    " cannot change";
              return false;
            }
            return true;
          })
          .Default([&](Operation *) { return false; });
  if (!ok)
    return std::nullopt;
  if (auto problem = requantizationProblem(op, match)) {
    why = *problem;
    return std::nullopt;
  }
  return match;
}

} // namespace

bool isQint8(Operation *op) { return op->hasAttr(XnnDialect::kQint8AttrName); }

bool isFoldedQuantization(Operation *op) {
  return op->hasAttr(XnnDialect::kFoldedAttrName);
}

std::vector<QuantizationFold> planXnnpackQuantization(DelegateOp delegate) {
  Block &body = delegate.getBody().front();
  MLIRContext *context = delegate.getContext();
  UnitAttr unit = UnitAttr::get(context);

  // The ops that compute in qint8, and why the others that read a
  // dequantize do not.
  llvm::DenseMap<Operation *, Operation *> foldedInto;
  llvm::DenseMap<Operation *, std::string> fp32Because;
  for (Operation &op : body.without_terminator()) {
    op.removeAttr(XnnDialect::kQint8AttrName);
    op.removeAttr(XnnDialect::kFoldedAttrName);
  }
  llvm::MapVector<Operation *, Match> candidates;
  for (Operation &op : body.without_terminator()) {
    if (isa<QuantizePerTensorOp, DequantizePerTensorOp, DequantizePerChannelOp>(
            op))
      continue;
    std::string why;
    std::optional<Match> match = matchQint8(&op, why);
    if (!match) {
      fp32Because[&op] =
          why.empty() ? "this XNNPACK has no qint8 " + opName(&op) : why;
      continue;
    }
    candidates.insert({&op, std::move(*match)});
  }
  // A qint8 node reads the integers in place of its dequantizes, so every
  // reader of those must be a qint8 node too (PT2E writes a dequantize per
  // reader): drop candidates until that holds.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = candidates.begin(); it != candidates.end(); ++it) {
      Operation *op = it->first;
      for (DequantizePerTensorOp dq : it->second.inputs)
        for (Operation *user : dq.getResult().getUsers())
          if (!candidates.count(user) && !fp32Because.count(op)) {
            fp32Because[op] = "its input " + opName(dq) + " is also read by " +
                              opName(user) + ", which computes in fp32";
          }
      if (fp32Because.count(op)) {
        candidates.erase(it);
        changed = true;
        break;
      }
    }
  }
  for (auto &[op, match] : candidates) {
    op->setAttr(XnnDialect::kQint8AttrName, unit);
    foldedInto[match.output] = op;
  }

  // A dequantize or weight folds when every reader is a qint8 node reading
  // it as the integers it stands for.
  std::vector<QuantizationFold> folds;
  for (Operation &op : body.without_terminator()) {
    if (!isa<QuantizePerTensorOp, DequantizePerTensorOp,
             DequantizePerChannelOp>(op))
      continue;
    QuantizationFold fold;
    fold.op = &op;
    if (isa<QuantizePerTensorOp>(op)) {
      fold.into = foldedInto.lookup(&op);
      if (!fold.into)
        fold.why = "a convert node: the op before it computes in fp32";
    } else {
      bool weight = isQuantizedWeightOp(&op);
      for (OpOperand &use : op.getResult(0).getUses()) {
        Operation *user = use.getOwner();
        bool absorbed =
            isQint8(user) &&
            (weight ? use.getOperandNumber() == 1
                    : use.getOperandNumber() == 0 || isa<AddOp>(user));
        if (!absorbed) {
          fold.into = nullptr;
          std::string because = fp32Because.lookup(user);
          fold.why = (weight ? "dequantized at compile time for "
                             : "a convert node for ") +
                     opName(user) +
                     (because.empty() ? std::string(", which reads float")
                                      : ", which computes in fp32: " + because);
          break;
        }
        if (!fold.into)
          fold.into = user;
      }
      if (op.getResult(0).use_empty())
        fold.why = "nothing reads it";
    }
    if (fold.into)
      op.setAttr(XnnDialect::kFoldedAttrName, unit);
    folds.push_back(std::move(fold));
  }
  return folds;
}

} // namespace duet::partition
