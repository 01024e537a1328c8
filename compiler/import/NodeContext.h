//===- NodeContext.h - one graph node as an op builder sees it --*- C++ -*-===//
//
// A node of the serialized graph names its arguments after the ATen schema and
// omits those equal to their defaults. NodeContext decodes the arguments (with
// the op table's defaults filled in), resolves tensor names to SSA values and
// collects the values the builder produces for the node's outputs.
//
// Argument readers record the first error and return an empty value instead
// of failing one by one, so a builder reads all its arguments, checks ok()
// once, and only then creates ops.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_NODECONTEXT_H
#define DUET_COMPILER_IMPORT_NODECONTEXT_H

#include "compiler/import/JsonView.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <type_traits>

namespace duet::import {

/// A Python number as a node argument holds it; integers stay exact.
struct Scalar {
  bool isInteger = false;
  int64_t integer = 0;
  double real = 0;

  double toDouble() const {
    return isInteger ? static_cast<double>(integer) : real;
  }
};

/// One schema argument's default, as the serialized Argument union it would
/// have been written as (`{"as_int": 1}`).
struct ArgDefault {
  const char *name;
  nlohmann::json value;
};

/// Resolves a tensor name used by a node to its value, or explains why it
/// cannot be used. Owned (not a function_ref): the context keeps it for the
/// whole node, longer than the expression that builds it.
using ValueLookup = std::function<llvm::Expected<mlir::Value>(llvm::StringRef)>;

class NodeContext {
public:
  NodeContext(mlir::OpBuilder &builder, mlir::Location loc,
              llvm::StringMap<JsonView> args,
              llvm::ArrayRef<ArgDefault> defaults, ValueLookup lookup,
              llvm::SmallVector<mlir::RankedTensorType> resultTypes);

  mlir::OpBuilder &builder;
  mlir::Location loc;

  /// Creates an op at the node's location. After an error, or when a type
  /// among the arguments is missing (what a helper returns after a failure),
  /// the node fails, and missing values and types are replaced by
  /// placeholders: such ops are thrown away with the node, and never read a
  /// missing value. (Before any error, a null value is an optional operand
  /// left out.)
  ///
  /// An op with a shape rule (InferTypeOpAdaptor) takes no result type: its
  /// rule infers it, the one place that shape is worked out. When the rule
  /// refuses the operands the node fails with the rule's message.
  template <typename OpT, typename... Args> OpT create(Args &&...args) {
    if constexpr (OpT::template hasTrait<mlir::OpTrait::InferTypeOpAdaptor>()) {
      static_assert(!(passesResultType<Args>() || ...),
                    "an aten op with a shape rule infers its result type: "
                    "leave the type out");
      return createInferred<OpT>(args...);
    } else {
      if (ok() && !(missingType(args) || ...))
        return builder.create<OpT>(loc, std::forward<Args>(args)...);
      failMissing();
      return builder.create<OpT>(loc, present(std::forward<Args>(args))...);
    }
  }

  //===--- Arguments ------------------------------------------------------===//

  /// Whether the argument is None (or absent with a None default).
  bool isNone(llvm::StringRef name);
  /// Whether the argument is a Python number rather than a tensor.
  bool isScalar(llvm::StringRef name);
  mlir::Value tensor(llvm::StringRef name);
  /// A null value when the argument is None.
  mlir::Value optionalTensor(llvm::StringRef name);
  llvm::SmallVector<mlir::Value> tensorList(llvm::StringRef name);
  /// A `Tensor?[]` argument: a null value for each None.
  llvm::SmallVector<mlir::Value> optionalTensorList(llvm::StringRef name);
  /// A tensor, or a Python number turned into a 0-d constant of
  /// `elementType` (the `.Scalar` overloads and scalars in Tensor slots).
  mlir::Value tensorOrScalar(llvm::StringRef name, mlir::Type elementType);
  int64_t integer(llvm::StringRef name);
  std::optional<int64_t> optionalInteger(llvm::StringRef name);
  llvm::SmallVector<int64_t> integers(llvm::StringRef name);
  std::optional<llvm::SmallVector<int64_t>>
  optionalIntegers(llvm::StringRef name);
  Scalar scalar(llvm::StringRef name);
  std::optional<Scalar> optionalScalar(llvm::StringRef name);
  double number(llvm::StringRef name) { return scalar(name).toDouble(); }
  std::optional<double> optionalNumber(llvm::StringRef name);
  std::optional<llvm::SmallVector<double>>
  optionalNumbers(llvm::StringRef name);
  bool boolean(llvm::StringRef name);
  std::optional<std::string> optionalString(llvm::StringRef name);

  //===--- Results --------------------------------------------------------===//

  size_t numResults() const { return resultTypes.size(); }
  /// The type torch.export recorded for output `i`. When there is none (the
  /// output is missing or not a tensor) the node fails, and a 0-d float32
  /// stand-in comes back, so that reading it before checking ok() is safe.
  mlir::RankedTensorType resultType(size_t i = 0);
  void setResult(size_t i, mlir::Value value);
  void setResult(mlir::Value value) { setResult(0, value); }
  /// Output `i` is not computed by duet; a node that uses it fails with
  /// `reason`.
  void setUnavailable(size_t i, const llvm::Twine &reason);

  //===--- Helpers --------------------------------------------------------===//

  /// `dim` made non-negative for a tensor of rank `rank` (a 0-d tensor takes
  /// dims 0 and -1, as PyTorch's reductions do).
  int64_t normalizeDim(int64_t dim, int64_t rank, llvm::StringRef what = "dim");
  /// `dim` made non-negative, for a builder that reads the size of that dim:
  /// a 0-d tensor, which has none, fails the node.
  int64_t existingDim(int64_t dim, int64_t rank, llvm::StringRef what = "dim");
  /// A constant of `type` with every element `value`.
  mlir::Value splat(mlir::RankedTensorType type, Scalar value);
  /// `value` converted to `elementType` (itself when it already has it).
  mlir::Value castTo(mlir::Value value, mlir::Type elementType);
  /// The value's tensor type; null for a missing value.
  static mlir::RankedTensorType typeOf(mlir::Value value) {
    return value ? llvm::dyn_cast<mlir::RankedTensorType>(value.getType())
                 : mlir::RankedTensorType();
  }

  //===--- Errors ---------------------------------------------------------===//

  /// Records `message` unless an error was already recorded.
  void fail(const llvm::Twine &message);
  /// Runs `rule`, a shape rule that reports through MLIR diagnostics; when it
  /// fails, fails the node with `prefix` and the rule's first message, or
  /// `fallback` when it gave none.
  llvm::LogicalResult checkRule(llvm::function_ref<llvm::LogicalResult()> rule,
                                const llvm::Twine &prefix,
                                const llvm::Twine &fallback);
  bool ok() const { return !error; }
  /// The recorded error, or success; then checks that every output is set.
  llvm::Error finish();

  llvm::ArrayRef<mlir::Value> results() const { return values; }
  llvm::ArrayRef<std::string> unavailableReasons() const { return unavailable; }

private:
  template <typename T> static constexpr bool passesResultType() {
    using U = std::decay_t<T>;
    return std::is_convertible_v<U, mlir::Type> ||
           std::is_convertible_v<U, llvm::ArrayRef<mlir::Type>> ||
           std::is_same_v<U, mlir::TypeRange>;
  }
  using InferFn = llvm::LogicalResult (*)(
      mlir::MLIRContext *, std::optional<mlir::Location>, mlir::ValueRange,
      mlir::DictionaryAttr, mlir::OpaqueProperties, mlir::RegionRange,
      llvm::SmallVectorImpl<mlir::Type> &);
  /// Runs the op's shape rule on `state` and adds the types it infers; on
  /// failure, fails the node with the rule's message.
  llvm::LogicalResult inferResultTypes(mlir::OperationState &state,
                                       InferFn infer);
  /// `count` 0-d float32 types, the result types of an op thrown away with
  /// its failed node.
  llvm::SmallVector<mlir::Type> placeholderTypes(unsigned count);
  template <typename OpT> static constexpr unsigned fixedResultCount() {
    if constexpr (OpT::template hasTrait<mlir::OpTrait::OneResult>())
      return 1;
    else if constexpr (OpT::template hasTrait<
                           mlir::OpTrait::NResults<2>::Impl>())
      return 2;
    else
      return 0; // variadic: a failed node's stand-in has no results
  }
  template <typename OpT, typename... Args> OpT createInferred(Args... args) {
    if (ok()) {
      mlir::OperationState state(loc, OpT::getOperationName());
      OpT::build(builder, state, mlir::TypeRange(), args...);
      if (mlir::succeeded(inferResultTypes(state, &OpT::inferReturnTypes)))
        return llvm::cast<OpT>(builder.create(state));
    }
    mlir::OperationState state(loc, OpT::getOperationName());
    OpT::build(builder, state, placeholderTypes(fixedResultCount<OpT>()),
               present(args)...);
    return llvm::cast<OpT>(builder.create(state));
  }

  /// create()'s arguments: themselves, or a placeholder for a missing value
  /// or type.
  template <typename T> T &&present(T &&argument) {
    return std::forward<T>(argument);
  }
  template <typename T> static bool missingType(const T &) { return false; }
  static bool missingType(mlir::Type type) { return !type; }
  static bool missingType(mlir::RankedTensorType type) { return !type; }
  void failMissing();
  mlir::Value present(mlir::Value value);
  mlir::Type present(mlir::Type type);
  mlir::RankedTensorType present(mlir::RankedTensorType type);
  /// A 0-d float32 constant standing in for a missing value.
  mlir::Value placeholder();

  /// The argument as written, else its default, else an error.
  std::optional<JsonView> argument(llvm::StringRef name, bool required = true);
  /// The union case of the argument (`as_int`, `as_tensor`, ...).
  std::optional<std::pair<std::string, JsonView>>
  argumentCase(llvm::StringRef name);
  /// The value, or nothing after recording the error as argument `name`'s.
  template <typename T>
  std::optional<T> check(llvm::StringRef name, llvm::Expected<T> value) {
    if (value)
      return std::move(*value);
    fail("argument '" + name + "': " + llvm::toString(value.takeError()));
    return std::nullopt;
  }
  std::optional<Scalar> readScalar(llvm::StringRef name, const JsonView &arg);
  mlir::Value lookupTensor(llvm::StringRef name, const JsonView &tensorArg);

  llvm::StringMap<JsonView> args;
  llvm::ArrayRef<ArgDefault> defaults;
  ValueLookup lookup;
  llvm::SmallVector<mlir::RankedTensorType> resultTypes;
  llvm::SmallVector<mlir::Value> values;
  llvm::SmallVector<std::string> unavailable;
  std::optional<std::string> error;
  mlir::Value placeholderValue;
};

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_NODECONTEXT_H
