//===- DuetDialect.cpp - partitions and Vulkan layouts --------------------===//

#include "dialects/duet/DuetDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace duet;

#include "dialects/duet/DuetDialect.cpp.inc"
#include "dialects/duet/DuetEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/duet/DuetAttrs.cpp.inc"

void DuetDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/duet/DuetOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/duet/DuetAttrs.cpp.inc"
      >();
}

LogicalResult
VkLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     Storage storage, PackedDim packing) {
  bool contiguous = packing == PackedDim::contiguous;
  if ((storage == Storage::buffer) != contiguous)
    return emitError() << "a buffer is contiguous and a texture3d is width-, "
                          "height- or channels-packed, got "
                       << stringifyStorage(storage) << " with "
                       << stringifyPackedDim(packing);
  return success();
}

//===----------------------------------------------------------------------===//
// DelegateOp
//===----------------------------------------------------------------------===//

// duet.delegate <backend> (%arg = %operand : type, ...) -> (types) { body } attr-dict
ParseResult DelegateOp::parse(OpAsmParser &parser, OperationState &result) {
  BackendAttr backend;
  if (parser.parseCustomAttributeWithFallback(backend, Type{}))
    return failure();
  result.addAttribute(getBackendAttrName(result.name), backend);

  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  auto parseBinding = [&]() -> ParseResult {
    OpAsmParser::Argument arg;
    OpAsmParser::UnresolvedOperand operand;
    if (parser.parseArgument(arg) || parser.parseEqual() ||
        parser.parseOperand(operand) || parser.parseColonType(arg.type))
      return failure();
    args.push_back(arg);
    operands.push_back(operand);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                     parseBinding))
    return failure();
  for (auto [arg, operand] : llvm::zip(args, operands))
    if (parser.resolveOperand(operand, arg.type, result.operands))
      return failure();

  SmallVector<Type> resultTypes;
  if (parser.parseArrow() || parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen()) &&
      (parser.parseTypeList(resultTypes) || parser.parseRParen()))
    return failure();
  result.addTypes(resultTypes);

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  DelegateOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void DelegateOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printStrippedAttrOrType(getBackendAttr());
  p << " (";
  Block &block = getBody().front();
  llvm::interleaveComma(llvm::zip(block.getArguments(), getInputs()), p,
                        [&](auto pair) {
                          auto [arg, input] = pair;
                          p << arg << " = " << input << " : " << arg.getType();
                        });
  p << ") -> (";
  llvm::interleaveComma(getResultTypes(), p);
  p << ") ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getBackendAttrName()});
}

LogicalResult DelegateOp::verify() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size() << " inputs but "
                         << block.getNumArguments() << " block arguments";
  for (auto [arg, input] : llvm::zip(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "block argument type " << arg.getType()
                           << " differs from its input " << input.getType();
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values whose types differ from its "
                         << getNumResults() << " results";
  return success();
}

#define GET_OP_CLASSES
#include "dialects/duet/DuetOps.cpp.inc"
