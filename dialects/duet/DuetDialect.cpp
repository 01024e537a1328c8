//===- DuetDialect.cpp - partitions and Vulkan layouts --------------------===//

#include "dialects/duet/DuetDialect.h"

#include "runtime/backends/vulkan/TextureExtents.h"

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

LogicalResult VkLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   Storage storage, PackedDim packing,
                                   ArrayRef<int64_t> extents) {
  bool contiguous = packing == PackedDim::contiguous;
  if ((storage == Storage::buffer) != contiguous)
    return emitError() << "a buffer is contiguous and a texture3d is width-, "
                          "height- or channels-packed, got "
                       << stringifyStorage(storage) << " with "
                       << stringifyPackedDim(packing);
  if (extents.empty())
    return success();
  if (storage == Storage::buffer)
    return emitError() << "a buffer has no image extents, got "
                       << extents.size();
  if (extents.size() != 3 ||
      llvm::any_of(extents, [](int64_t e) { return e < 1; }))
    return emitError() << "texture extents must be three positive sizes "
                          "[x, y, z], got ["
                       << extents << "]";
  return success();
}

SmallVector<int64_t, 3> duet::textureExtents(ArrayRef<int64_t> shape,
                                             PackedDim packing) {
  std::array<int64_t, 3> extents = rt::vulkan::textureExtents(
      shape.data(), shape.size(), toRuntime(packing));
  return {extents.begin(), extents.end()};
}

/// Checks that `layout` can hold a tensor of `type`: a texture holds at most
/// four dims, and recorded extents must be the ones its shape gives.
static LogicalResult
checkLayoutFits(function_ref<InFlightDiagnostic()> emitError,
                VkLayoutAttr layout, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || layout.getStorage() == Storage::buffer)
    return success();
  if (tensor.getRank() > 4)
    return emitError() << "a texture3d holds at most 4 dims, got " << type;
  if (layout.getExtents().empty())
    return success();
  SmallVector<int64_t, 3> expected =
      textureExtents(tensor.getShape(), layout.getPacking());
  if (ArrayRef<int64_t>(expected) != layout.getExtents())
    return emitError() << "texture extents [" << layout.getExtents()
                       << "] differ from the [" << ArrayRef<int64_t>(expected)
                       << "] that " << type << " has when "
                       << stringifyPackedDim(layout.getPacking());
  return success();
}

/// Checks an array of layouts, one per value of `types`.
static LogicalResult checkLayoutArray(Operation *op, NamedAttribute attr,
                                      TypeRange types, StringRef what) {
  auto layouts = dyn_cast<ArrayAttr>(attr.getValue());
  if (!layouts || layouts.size() != types.size())
    return op->emitOpError()
           << attr.getName() << " must be an array of " << types.size()
           << " #duet.vk_layout, one per " << what;
  for (auto [index, entry, type] : llvm::enumerate(layouts, types)) {
    auto layout = dyn_cast<VkLayoutAttr>(entry);
    if (!layout)
      return op->emitOpError() << attr.getName() << " entry " << index
                               << " is not a #duet.vk_layout: " << entry;
    auto emitError = [&]() {
      return op->emitOpError() << attr.getName() << " entry " << index << ": ";
    };
    if (failed(checkLayoutFits(emitError, layout, type)))
      return failure();
  }
  return success();
}

LogicalResult DuetDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kVkLayoutsAttrName)
    return checkLayoutArray(op, attr, op->getResultTypes(), "result");
  if (attr.getName() == kVkArgLayoutsAttrName) {
    auto delegate = dyn_cast<DelegateOp>(op);
    if (!delegate)
      return op->emitOpError()
             << attr.getName() << " belongs on a duet.delegate";
    return checkLayoutArray(op, attr,
                            delegate.getBody().front().getArgumentTypes(),
                            "partition input");
  }
  return op->emitOpError() << "unknown duet attribute " << attr.getName();
}

//===----------------------------------------------------------------------===//
// LayoutConvertOp
//===----------------------------------------------------------------------===//

LogicalResult LayoutConvertOp::verify() {
  if (getFrom() == getTo())
    return emitOpError() << "converts a tensor to the layout it already has";
  auto delegate = (*this)->getParentOfType<DelegateOp>();
  if (!delegate || delegate.getBackend() != DelegateKind::vulkan)
    return emitOpError() << "belongs inside a duet.delegate <vulkan>";
  auto emitError = [&]() { return emitOpError(); };
  if (failed(checkLayoutFits(emitError, getFrom(), getType())) ||
      failed(checkLayoutFits(emitError, getTo(), getType())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// DelegateOp
//===----------------------------------------------------------------------===//

// duet.delegate <backend> (%arg = %operand : type, ...) -> (types) { body } attr-dict
ParseResult DelegateOp::parse(OpAsmParser &parser, OperationState &result) {
  DelegateKindAttr backend;
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
