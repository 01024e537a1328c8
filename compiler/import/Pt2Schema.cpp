//===- Pt2Schema.cpp - the parts of the torch.export schema duet reads ----===//

#include "compiler/import/Pt2Schema.h"

#include "compiler/import/ImportError.h"

#include "runtime/core/Limits.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace duet::import;
using llvm::Expected;

llvm::StringRef duet::import::dynamicShapeAdvice() {
  return "duet compiles static shapes only; export without dynamic_shapes "
         "(or with every dimension static)";
}

Expected<std::pair<mlir::Type, unsigned>>
duet::import::elementTypeOf(int64_t dtype, mlir::MLIRContext &ctx) {
  mlir::Builder b(&ctx);
  // Numbers of schema.ScalarType.
  switch (dtype) {
  case 1: // BYTE
    return std::make_pair(mlir::Type(b.getIntegerType(8, false)), 1u);
  case 2: // CHAR
    return std::make_pair(mlir::Type(b.getI8Type()), 1u);
  case 3: // SHORT
    return std::make_pair(mlir::Type(b.getI16Type()), 2u);
  case 4: // INT
    return std::make_pair(mlir::Type(b.getI32Type()), 4u);
  case 5: // LONG
    return std::make_pair(mlir::Type(b.getI64Type()), 8u);
  case 6: // HALF
    return std::make_pair(mlir::Type(b.getF16Type()), 2u);
  case 7: // FLOAT
    return std::make_pair(mlir::Type(b.getF32Type()), 4u);
  case 8: // DOUBLE
    return std::make_pair(mlir::Type(b.getF64Type()), 8u);
  case 12: // BOOL
    return std::make_pair(mlir::Type(b.getI1Type()), 1u);
  case 13: // BFLOAT16
    return std::make_pair(mlir::Type(b.getBF16Type()), 2u);
  default:
    return importError(
        "unsupported dtype " + llvm::Twine(dtype) +
        " (schema ScalarType); duet supports uint8 (1), int8 (2), "
        "int16 (3), int32 (4), int64 (5), float16 (6), float32 (7), "
        "float64 (8), bool (12) and bfloat16 (13)");
  }
}

Expected<int64_t> duet::import::readStaticSymInt(const JsonView &symInt,
                                                 llvm::StringRef what) {
  Expected<std::pair<std::string, JsonView>> kase = symInt.unionCase();
  if (!kase)
    return kase.takeError();
  if (kase->first == "as_int")
    return kase->second.integer();
  if (kase->first == "as_expr") {
    llvm::StringRef expr = kase->second.stringField("expr_str").value_or("?");
    return importError(what + " is symbolic (" + expr + "); " +
                       dynamicShapeAdvice());
  }
  return symInt.typeError("{\"as_int\": n}");
}

Expected<TensorMeta> duet::import::readTensorMeta(const JsonView &meta,
                                                  mlir::MLIRContext &ctx) {
  TensorMeta out;
  Expected<JsonView> dtype = meta.field("dtype");
  if (!dtype)
    return dtype.takeError();
  Expected<int64_t> code = dtype->integer();
  if (!code)
    return code.takeError();
  Expected<std::pair<mlir::Type, unsigned>> type = elementTypeOf(*code, ctx);
  if (!type)
    return type.takeError();
  out.dtype = *code;
  out.elementType = type->first;
  out.elementBytes = type->second;

  for (auto [key, into] : {std::make_pair("sizes", &out.sizes),
                           std::make_pair("strides", &out.strides)}) {
    std::string what = llvm::StringRef(key).drop_back().str() + " ";
    Expected<JsonView> list = meta.field(key);
    if (!list)
      return list.takeError();
    Expected<std::vector<JsonView>> items = list->elements();
    if (!items)
      return items.takeError();
    for (const JsonView &item : *items) {
      Expected<int64_t> v =
          readStaticSymInt(item, what + std::to_string(into->size()));
      if (!v)
        return v.takeError();
      into->push_back(*v);
    }
  }
  for (int64_t size : out.sizes)
    if (size < 0)
      return importError(meta.path() + ".sizes: negative size " +
                         llvm::Twine(size));
  if (out.strides.size() != out.sizes.size())
    return importError(meta.path() + ": " + llvm::Twine(out.sizes.size()) +
                       " sizes but " + llvm::Twine(out.strides.size()) +
                       " strides");
  // Every tensor of the program (input, weight, node output) has its
  // metadata read here before any node is built, so this is the earliest
  // place to refuse one that no duet program may hold: the error names the
  // tensor, nothing has been allocated for it, and no shape arithmetic
  // downstream sees its sizes.
  std::string shape;
  for (int64_t size : out.sizes)
    shape += (shape.empty() ? "" : ", ") + std::to_string(size);
  if (out.sizes.size() > duet::rt::kMaxTensorRank)
    return importError(
        "its shape [" + shape + "] has " + llvm::Twine(out.sizes.size()) +
        " dims, over duet's limit of " + llvm::Twine(duet::rt::kMaxTensorRank) +
        " (kMaxTensorRank, runtime/core/Limits.h)");
  // Computed dim by dim, as the loader's tensorBytes (runtime/core/DType.h)
  // does, so that every tensor the compiler accepts also loads: a zero dim
  // after dims whose product overflows does not save the shape.
  std::optional<int64_t> bytes = out.elementBytes;
  for (int64_t size : out.sizes)
    if (bytes)
      bytes = llvm::checkedMul(*bytes, size);
  if (!bytes || static_cast<uint64_t>(*bytes) > duet::rt::kMaxTensorBytes) {
    std::string needs =
        bytes ? std::to_string(*bytes) + " bytes" : "a byte count over int64";
    return importError("its shape [" + shape + "] of " +
                       llvm::Twine(out.elementBytes) + "-byte elements needs " +
                       needs + ", over duet's limit of " +
                       llvm::Twine(duet::rt::kMaxTensorBytes) +
                       " bytes (4 GiB) per tensor (kMaxTensorBytes, "
                       "runtime/core/Limits.h); export the model with "
                       "smaller shapes");
  }
  if (std::optional<JsonView> offset = meta.optionalField("storage_offset")) {
    Expected<int64_t> v = readStaticSymInt(*offset, "the storage offset");
    if (!v)
      return v.takeError();
    out.storageOffset = *v;
  }
  return out;
}
