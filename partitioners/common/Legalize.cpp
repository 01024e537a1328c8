//===- Legalize.cpp - decomposition per backend, for real and on trial ----===//

#include "partitioners/common/Legalize.h"

#include "passes/Decompose.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace duet::partition {

namespace {
FrozenRewritePatternSet buildPatterns(MLIRContext *context,
                                      const llvm::StringSet<> &nativeOps,
                                      int64_t *counter) {
  llvm::DenseSet<OperationName> native;
  for (const auto &entry : nativeOps)
    native.insert(OperationName(entry.getKey(), context));
  RewritePatternSet patterns(context);
  populateDecompositionPatterns(patterns, native, counter);
  return FrozenRewritePatternSet(std::move(patterns));
}
} // namespace

Decomposer::Decomposer(MLIRContext *context, const llvm::StringSet<> &nativeOps)
    : context(context), numDecomposed(std::make_unique<int64_t>(0)) {
  context->getOrLoadDialect<func::FuncDialect>();
  patterns = buildPatterns(context, nativeOps, numDecomposed.get());
  scratch = ModuleOp::create(UnknownLoc::get(context));
}

std::optional<std::string> Decomposer::trial(
    Operation *op, StringRef backend,
    llvm::function_ref<std::optional<std::string>(Operation *)> visit,
    SmallVectorImpl<std::string> &pieces) {
  // The copy reads block arguments in place of the op's inputs, except
  // constants, which it copies: rules look at weights and scalar arguments.
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(scratch->getBody());
  SmallVector<Type> argTypes;
  for (Value operand : op->getOperands())
    if (!isConstant(operand))
      argTypes.push_back(operand.getType());
  auto func = builder.create<func::FuncOp>(
      op->getLoc(), "trial",
      builder.getFunctionType(argTypes, op->getResultTypes()));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  unsigned nextArg = 0;
  for (Value operand : op->getOperands()) {
    if (mapping.contains(operand))
      continue;
    if (isConstant(operand))
      mapping.map(operand,
                  builder.clone(*operand.getDefiningOp())->getResult(0));
    else
      mapping.map(operand, body->getArgument(nextArg++));
  }
  Operation *copy = builder.clone(*op, mapping);
  builder.create<func::ReturnOp>(op->getLoc(), copy->getResults());

  *numDecomposed = 0;
  GreedyRewriteConfig config;
  config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
  std::optional<std::string> reason;
  if (failed(applyPatternsAndFoldGreedily(func.getBody(), patterns, config)))
    reason = (backend + ": decomposing " + op->getName().getStringRef() +
              " did not converge")
                 .str();
  else if (*numDecomposed == 0)
    reason = (backend + ": " + op->getName().getStringRef() +
              " is not native here and the decomposition library cannot "
              "rewrite it")
                 .str();
  if (!reason) {
    for (Operation &piece : func.getBody().front().without_terminator()) {
      if (piece.hasTrait<OpTrait::ConstantLike>())
        continue;
      std::string name = piece.getName().getStringRef().str();
      if (!llvm::is_contained(pieces, name))
        pieces.push_back(name);
      if (auto why = visit(&piece)) {
        reason = (backend + ": " + op->getName().getStringRef() +
                  " decomposes into " + name + ", which " + backend +
                  " rejects (" + *why + ")")
                     .str();
        break;
      }
    }
  }
  func->erase();
  return reason;
}

LogicalResult Decomposer::legalize(DelegateOp delegate) {
  GreedyRewriteConfig config;
  config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
  if (succeeded(
          applyPatternsAndFoldGreedily(delegate.getBody(), patterns, config)))
    return success();
  return delegate.emitOpError() << "legalization of this "
                                << stringifyDelegateKind(delegate.getBackend())
                                << " partition did not converge";
}

} // namespace duet::partition
