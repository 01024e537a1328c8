//===- NodeContext.cpp - one graph node as an op builder sees it ----------===//

#include "compiler/import/NodeContext.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/DebugStringHelper.h"
#include "llvm/ADT/Twine.h"

#include <cmath>

using namespace duet::import;
using namespace mlir;
using llvm::Expected;

NodeContext::NodeContext(OpBuilder &builder, Location loc,
                         llvm::StringMap<JsonView> args,
                         llvm::ArrayRef<ArgDefault> defaults,
                         ValueLookup lookup,
                         llvm::SmallVector<RankedTensorType> resultTypes)
    : builder(builder), loc(loc), args(std::move(args)), defaults(defaults),
      lookup(std::move(lookup)), resultTypes(std::move(resultTypes)) {
  values.resize(this->resultTypes.size());
  unavailable.resize(this->resultTypes.size());
}

void NodeContext::fail(const llvm::Twine &message) {
  if (!error)
    error = message.str();
}

llvm::Error NodeContext::finish() {
  if (error)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), *error);
  for (size_t i = 0; i < values.size(); ++i) {
    if (resultTypes[i] && !values[i] && unavailable[i].empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the importer produced no value for "
                                     "output " +
                                         llvm::Twine(i));
    // The shape rules computed the value's type; torch.export recorded one
    // too, and the two must agree.
    if (resultTypes[i] && values[i] && values[i].getType() != resultTypes[i])
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "output " + llvm::Twine(i) + " computes as " +
              debugString(values[i].getType()) +
              ", but torch.export recorded " + debugString(resultTypes[i]));
  }
  return llvm::Error::success();
}

std::optional<JsonView> NodeContext::argument(llvm::StringRef name,
                                              bool required) {
  auto it = args.find(name);
  if (it != args.end())
    return it->second;
  for (const ArgDefault &d : defaults)
    if (name == d.name)
      return JsonView(d.value, ("the default of '" + name + "'").str());
  if (required)
    fail("missing argument '" + name + "'");
  return std::nullopt;
}

std::optional<std::pair<std::string, JsonView>>
NodeContext::argumentCase(llvm::StringRef name) {
  std::optional<JsonView> arg = argument(name);
  if (!arg)
    return std::nullopt;
  return check(name, arg->unionCase());
}

bool NodeContext::isNone(llvm::StringRef name) {
  std::optional<JsonView> arg = argument(name, /*required=*/false);
  if (!arg)
    return true;
  auto kase = arg->tryUnionCase();
  if (kase && kase->first == "as_optional_tensor")
    kase = kase->second.tryUnionCase();
  return kase && kase->first == "as_none";
}

bool NodeContext::isScalar(llvm::StringRef name) {
  std::optional<JsonView> arg = argument(name, /*required=*/false);
  auto kase = arg ? arg->tryUnionCase() : std::nullopt;
  return kase &&
         llvm::is_contained({"as_int", "as_float", "as_bool", "as_sym_int",
                             "as_sym_float", "as_sym_bool"},
                            kase->first);
}

Value NodeContext::lookupTensor(llvm::StringRef argName,
                                const JsonView &tensorArg) {
  std::optional<JsonView> nameField = check(argName, tensorArg.field("name"));
  if (!nameField)
    return {};
  std::optional<llvm::StringRef> name = check(argName, nameField->string());
  if (!name)
    return {};
  return check(argName, lookup(*name)).value_or(Value());
}

Value NodeContext::tensor(llvm::StringRef name) {
  auto kase = argumentCase(name);
  if (!kase)
    return {};
  if (kase->first == "as_tensor")
    return lookupTensor(name, kase->second);
  // An optional tensor may come wrapped: {"as_optional_tensor": {...}}.
  if (kase->first == "as_optional_tensor")
    if (auto inner = kase->second.tryUnionCase();
        inner && inner->first == "as_tensor")
      return lookupTensor(name, inner->second);
  fail("argument '" + name + "': expected a tensor, got " + kase->first);
  return {};
}

Value NodeContext::optionalTensor(llvm::StringRef name) {
  if (isNone(name))
    return {};
  return tensor(name);
}

llvm::SmallVector<Value> NodeContext::tensorList(llvm::StringRef name) {
  llvm::SmallVector<Value> out = optionalTensorList(name);
  if (llvm::is_contained(out, Value())) {
    fail("argument '" + name + "': a None in a tensor list is not supported");
    out.clear();
  }
  return out;
}

llvm::SmallVector<Value> NodeContext::optionalTensorList(llvm::StringRef name) {
  llvm::SmallVector<Value> out;
  auto kase = argumentCase(name);
  if (!kase)
    return out;
  bool optionals = kase->first == "as_optional_tensors";
  if (kase->first != "as_tensors" && !optionals) {
    fail("argument '" + name + "': expected a list of tensors, got " +
         kase->first);
    return out;
  }
  std::optional<std::vector<JsonView>> items =
      check(name, kase->second.elements());
  if (!items)
    return out;
  for (const JsonView &item : *items) {
    std::optional<JsonView> tensorArg = item;
    if (optionals) {
      auto inner = item.tryUnionCase();
      tensorArg.reset();
      if (inner && inner->first == "as_tensor")
        tensorArg = inner->second;
    }
    out.push_back(tensorArg ? lookupTensor(name, *tensorArg) : Value());
  }
  return out;
}

std::optional<Scalar> NodeContext::readScalar(llvm::StringRef name,
                                              const JsonView &arg) {
  auto kase = check(name, arg.unionCase());
  if (!kase)
    return std::nullopt;
  auto &[key, value] = *kase;
  Scalar out;
  if (key == "as_bool") {
    std::optional<bool> b = check(name, value.boolean());
    out.isInteger = true;
    out.integer = b.value_or(false);
    return b ? std::optional(out) : std::nullopt;
  }
  if (key == "as_int") {
    std::optional<int64_t> i = check(name, value.integer());
    out.isInteger = true;
    out.integer = i.value_or(0);
    return i ? std::optional(out) : std::nullopt;
  }
  if (key == "as_float") {
    std::optional<double> f = check(name, value.number());
    out.real = f.value_or(0);
    return f ? std::optional(out) : std::nullopt;
  }
  if (key == "as_sym_int" || key == "as_sym_float" || key == "as_sym_bool") {
    // A concrete value inside a symbolic slot: {"as_sym_int": {"as_int": 3}}.
    auto inner = value.tryUnionCase();
    if (inner && inner->first != "as_name")
      return readScalar(name, value);
    fail("argument '" + name +
         "' is a symbolic value; duet compiles static shapes only; export "
         "without dynamic_shapes");
    return std::nullopt;
  }
  fail("argument '" + name + "': expected a number, got " + key);
  return std::nullopt;
}

Scalar NodeContext::scalar(llvm::StringRef name) {
  std::optional<JsonView> arg = argument(name);
  if (!arg)
    return {};
  return readScalar(name, *arg).value_or(Scalar());
}

std::optional<Scalar> NodeContext::optionalScalar(llvm::StringRef name) {
  if (isNone(name))
    return std::nullopt;
  std::optional<JsonView> arg = argument(name);
  if (!arg)
    return std::nullopt;
  return readScalar(name, *arg);
}

std::optional<double> NodeContext::optionalNumber(llvm::StringRef name) {
  if (std::optional<Scalar> s = optionalScalar(name))
    return s->toDouble();
  return std::nullopt;
}

int64_t NodeContext::integer(llvm::StringRef name) {
  Scalar s = scalar(name);
  if (ok() && !s.isInteger)
    fail("argument '" + name + "': expected an integer, got " +
         llvm::Twine(std::to_string(s.real)));
  return s.integer;
}

std::optional<int64_t> NodeContext::optionalInteger(llvm::StringRef name) {
  if (isNone(name))
    return std::nullopt;
  return integer(name);
}

llvm::SmallVector<int64_t> NodeContext::integers(llvm::StringRef name) {
  llvm::SmallVector<int64_t> out;
  auto kase = argumentCase(name);
  if (!kase)
    return out;
  auto &[key, value] = *kase;
  // An int[N] argument given a single int; the builder repeats it.
  if (key == "as_int" || key == "as_sym_int") {
    if (std::optional<Scalar> s = readScalar(name, *argument(name)))
      out.push_back(s->integer);
    return out;
  }
  if (key != "as_ints" && key != "as_sym_ints") {
    fail("argument '" + name + "': expected a list of integers, got " + key);
    return out;
  }
  std::optional<std::vector<JsonView>> items = check(name, value.elements());
  if (!items)
    return out;
  for (const JsonView &item : *items) {
    // as_ints holds numbers; as_sym_ints holds {"as_int": n} or
    // {"as_name": "s0"} unions.
    std::optional<int64_t> v;
    if (key == "as_ints")
      v = check(name, item.integer());
    else if (std::optional<Scalar> s = readScalar(name, item))
      v = s->integer;
    if (!v)
      return out;
    out.push_back(*v);
  }
  return out;
}

std::optional<llvm::SmallVector<int64_t>>
NodeContext::optionalIntegers(llvm::StringRef name) {
  if (isNone(name))
    return std::nullopt;
  return integers(name);
}

std::optional<llvm::SmallVector<double>>
NodeContext::optionalNumbers(llvm::StringRef name) {
  if (isNone(name))
    return std::nullopt;
  auto kase = argumentCase(name);
  if (!kase)
    return std::nullopt;
  if (kase->first != "as_floats") {
    fail("argument '" + name + "': expected a list of floats, got " +
         kase->first);
    return std::nullopt;
  }
  return check(name, kase->second.numbers());
}

bool NodeContext::boolean(llvm::StringRef name) {
  auto kase = argumentCase(name);
  if (!kase)
    return false;
  if (kase->first != "as_bool") {
    fail("argument '" + name + "': expected true or false, got " + kase->first);
    return false;
  }
  return check(name, kase->second.boolean()).value_or(false);
}

std::optional<std::string> NodeContext::optionalString(llvm::StringRef name) {
  if (isNone(name))
    return std::nullopt;
  auto kase = argumentCase(name);
  if (!kase)
    return std::nullopt;
  if (kase->first != "as_string") {
    fail("argument '" + name + "': expected a string, got " + kase->first);
    return std::nullopt;
  }
  if (std::optional<llvm::StringRef> s = check(name, kase->second.string()))
    return s->str();
  return std::nullopt;
}

RankedTensorType NodeContext::resultType(size_t i) {
  if (i >= resultTypes.size() || !resultTypes[i]) {
    fail("output " + llvm::Twine(i) + " is missing or not a tensor");
    // A stand-in, as create() takes after a failure: a builder that reads
    // the type before checking ok() reads this, never a null type.
    return RankedTensorType::get({}, builder.getF32Type());
  }
  return resultTypes[i];
}

void NodeContext::setResult(size_t i, Value value) {
  if (i >= values.size()) {
    fail("the node has " + llvm::Twine(values.size()) +
         " outputs but the op makes more");
    return;
  }
  values[i] = value;
}

void NodeContext::setUnavailable(size_t i, const llvm::Twine &reason) {
  if (i < unavailable.size())
    unavailable[i] = reason.str();
}

int64_t NodeContext::normalizeDim(int64_t dim, int64_t rank,
                                  llvm::StringRef what) {
  // A 0-d tensor accepts dims 0 and -1, as PyTorch does.
  int64_t extent = std::max<int64_t>(rank, 1);
  if (dim < -extent || dim >= extent) {
    fail(what + " " + llvm::Twine(dim) + " is out of range for rank " +
         llvm::Twine(rank));
    return 0;
  }
  return dim < 0 ? dim + extent : dim;
}

int64_t NodeContext::existingDim(int64_t dim, int64_t rank,
                                 llvm::StringRef what) {
  if (rank == 0) {
    fail(what + " " + llvm::Twine(dim) +
         " names a dim of a 0-d tensor, which has none; the op needs a "
         "tensor of rank 1 or more");
    return 0;
  }
  return normalizeDim(dim, rank, what);
}

Value NodeContext::splat(RankedTensorType type, Scalar value) {
  Type element = type.getElementType();
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    APFloat v(value.toDouble());
    bool lost;
    v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    attr = DenseElementsAttr::get(type, llvm::ArrayRef(v));
  } else if (auto intType = dyn_cast<IntegerType>(element)) {
    double real = value.toDouble();
    if (!value.isInteger &&
        (!std::isfinite(real) || real != std::trunc(real))) {
      fail("the value " + llvm::Twine(std::to_string(real)) +
           " does not fit element type " + llvm::Twine(intType.getWidth()) +
           "-bit integer");
      return {};
    }
    // The range check keeps the conversion below defined.
    if (!value.isInteger && std::abs(real) >= 9.2e18) {
      fail("the value " + llvm::Twine(std::to_string(real)) +
           " does not fit a 64-bit integer");
      return {};
    }
    int64_t i = value.isInteger ? value.integer : static_cast<int64_t>(real);
    if (intType.getWidth() == 1)
      i = i != 0;
    APInt v(intType.getWidth(), static_cast<uint64_t>(i),
            /*isSigned=*/!intType.isUnsigned());
    attr = DenseElementsAttr::get(type, llvm::ArrayRef(v));
  } else {
    fail("cannot make a constant of element type other than int or float");
    return {};
  }
  return create<arith::ConstantOp>(cast<TypedAttr>(attr));
}

static constexpr const char *kMissing =
    "internal error: an op was built on a missing value; please report this "
    "node";

void NodeContext::failMissing() { fail(kMissing); }

LogicalResult NodeContext::checkRule(function_ref<LogicalResult()> rule,
                                     const Twine &prefix,
                                     const Twine &fallback) {
  std::string message;
  LogicalResult held = failure();
  {
    ScopedDiagnosticHandler capture(builder.getContext(),
                                    [&](Diagnostic &diagnostic) {
                                      if (message.empty())
                                        message = diagnostic.str();
                                      return success();
                                    });
    held = rule();
  }
  if (failed(held))
    fail(prefix + (message.empty() ? fallback : Twine(message)));
  return held;
}

LogicalResult NodeContext::inferResultTypes(OperationState &state,
                                            InferFn infer) {
  MLIRContext *context = builder.getContext();
  SmallVector<Type> types;
  // The words the verifier would use on the op, as for an op given a type.
  if (failed(checkRule(
          [&] {
            return infer(context, state.location, state.operands,
                         state.attributes.getDictionary(context),
                         state.getRawProperties(), state.regions, types);
          },
          "the imported op does not verify: ",
          "'" + state.name.getStringRef() +
              "' op: operands its shape rule refuses")))
    return failure();
  state.addTypes(types);
  return success();
}

SmallVector<Type> NodeContext::placeholderTypes(unsigned count) {
  return SmallVector<Type>(count,
                           RankedTensorType::get({}, builder.getF32Type()));
}

RankedTensorType NodeContext::present(RankedTensorType type) {
  return type ? type : RankedTensorType::get({}, builder.getF32Type());
}

Type NodeContext::present(Type type) {
  if (type)
    return type;
  return present(RankedTensorType());
}

Value NodeContext::present(Value value) {
  return value ? value : placeholder();
}

Value NodeContext::placeholder() {
  if (!placeholderValue) {
    auto type = RankedTensorType::get({}, builder.getF32Type());
    placeholderValue = builder.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, llvm::ArrayRef(0.0f)));
  }
  return placeholderValue;
}

Value NodeContext::castTo(Value value, Type elementType) {
  RankedTensorType type = typeOf(value);
  if (!type) {
    failMissing();
    return placeholder();
  }
  if (type.getElementType() == elementType)
    return value;
  return create<duet::aten::CastOp>(type.clone(elementType), value);
}

Value NodeContext::tensorOrScalar(llvm::StringRef name, Type elementType) {
  if (!isScalar(name))
    return tensor(name);
  std::optional<Scalar> s = readScalar(name, *argument(name));
  if (!s)
    return {};
  return splat(RankedTensorType::get({}, elementType), *s);
}
