//===- XnnDialect.cpp - how XNNPACK holds and schedules a partition -------===//

#include "partitioners/xnnpack/dialect/XnnDialect.h"

#include "dialects/duet/DuetDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace duet;
using namespace duet::xnn;

/// `plain` or `nhwc` as a bare keyword.
static ParseResult parseLayoutKeyword(OpAsmParser &parser, LayoutAttr &attr) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Layout> layout = symbolizeLayout(keyword);
  if (!layout)
    return parser.emitError(loc) << "expected plain or nhwc, got " << keyword;
  attr = LayoutAttr::get(parser.getContext(), *layout);
  return success();
}

static void printLayoutKeyword(OpAsmPrinter &printer, Operation *,
                               LayoutAttr attr) {
  printer << stringifyLayout(attr.getValue());
}

/// `reshape`, `host_copy` or `repack` as a bare keyword.
static ParseResult parseTransferKeyword(OpAsmParser &parser,
                                        TransferAttr &attr) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Transfer> transfer = symbolizeTransfer(keyword);
  if (!transfer)
    return parser.emitError(loc)
           << "expected reshape, host_copy or repack, got " << keyword;
  attr = TransferAttr::get(parser.getContext(), *transfer);
  return success();
}

static void printTransferKeyword(OpAsmPrinter &printer, Operation *,
                                 TransferAttr attr) {
  printer << stringifyTransfer(attr.getValue());
}

#include "partitioners/xnnpack/XnnDialect.cpp.inc"
#include "partitioners/xnnpack/XnnEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "partitioners/xnnpack/XnnAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "partitioners/xnnpack/XnnOps.cpp.inc"

void XnnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "partitioners/xnnpack/XnnOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "partitioners/xnnpack/XnnAttrs.cpp.inc"
      >();
}

SmallVector<int64_t> xnn::expandTo4(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> expanded(shape.size() < 4 ? 4 - shape.size() : 0, 1);
  llvm::append_range(expanded, shape);
  return expanded;
}

bool xnn::sameOrder(ArrayRef<int64_t> shape) {
  return shape.size() == 4 && (shape[1] == 1 || shape[2] * shape[3] == 1);
}

std::optional<Layout> xnn::layoutOf(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer || producer->hasTrait<OpTrait::ConstantLike>())
    return Layout::plain;
  if (auto change = dyn_cast<LayoutChangeOp>(producer))
    return change.getTo();
  if (auto attr =
          producer->getAttrOfType<LayoutAttr>(XnnDialect::kLayoutAttrName))
    return attr.getValue();
  return std::nullopt;
}

std::optional<int64_t> xnn::subgraphOf(Operation *op) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(XnnDialect::kSubgraphAttrName))
    return attr.getInt();
  return std::nullopt;
}

/// Whether `op` is inside a `duet.delegate <xnnpack>`.
static bool inXnnpackPartition(Operation *op) {
  auto delegate = op->getParentOfType<DelegateOp>();
  return delegate && delegate.getBackend() == DelegateKind::xnnpack;
}

LogicalResult XnnDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (!inXnnpackPartition(op))
    return op->emitOpError() << attr.getName().getValue()
                             << " belongs inside a duet.delegate <xnnpack>";
  if (attr.getName() == kLayoutAttrName) {
    auto layout = dyn_cast<LayoutAttr>(attr.getValue());
    if (!layout || op->getNumResults() != 1)
      return op->emitOpError() << attr.getName().getValue()
                               << " is one #xnn.layout on an op of one result";
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (layout.getValue() == Layout::nhwc && (!type || type.getRank() != 4))
      return op->emitOpError() << "only a 4-D result can be nhwc";
    return success();
  }
  if (attr.getName() == kSubgraphAttrName) {
    auto subgraph = dyn_cast<IntegerAttr>(attr.getValue());
    if (!subgraph || subgraph.getInt() < 0)
      return op->emitOpError()
             << attr.getName().getValue() << " is a subgraph index, >= 0";
    return success();
  }
  if (attr.getName() == kQint8AttrName || attr.getName() == kFoldedAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError()
             << attr.getName().getValue() << " is a unit attribute";
    return success();
  }
  return op->emitOpError() << "unknown xnn attribute "
                           << attr.getName().getValue();
}

LogicalResult LayoutChangeOp::verify() {
  if (!inXnnpackPartition(*this))
    return emitOpError() << "belongs inside a duet.delegate <xnnpack>";
  auto type = cast<RankedTensorType>(getType());
  Layout from = getFrom(), to = getTo();
  if (type.getRank() > 4 && (from == Layout::nhwc || to == Layout::nhwc))
    return emitOpError() << "a tensor of rank " << type.getRank()
                         << " has no nhwc layout";
  switch (getBy()) {
  case Transfer::reshape:
    if (from == to || !sameOrder(expandTo4(type.getShape())))
      return emitOpError() << "a reshape changes between two layouts that "
                              "order the elements the same way";
    break;
  case Transfer::host_copy:
    if (from == to && !type.getElementType().isBF16())
      return emitOpError() << "a host copy to the same layout converts "
                              "bf16, got "
                           << type.getElementType();
    if (from != to && type.getRank() != 4)
      return emitOpError() << "a host copy transposes 4-D tensors only";
    break;
  case Transfer::repack:
    if (!getInput().getDefiningOp() ||
        !getInput().getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
      return emitOpError() << "only a constant is repacked";
    if (from != Layout::plain || to != Layout::nhwc)
      return emitOpError() << "a constant is repacked from plain to nhwc";
    break;
  }
  return success();
}
