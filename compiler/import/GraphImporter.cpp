//===- GraphImporter.cpp - an ExportedProgram to a module -----------------===//

#include "compiler/import/GraphImporter.h"

#include "compiler/import/Compose.h"
#include "compiler/import/DecomposedTargets.h"
#include "compiler/import/GraphScan.h"
#include "compiler/import/HigherOrderOps.h"
#include "compiler/import/ImportError.h"
#include "compiler/import/NodeContext.h"
#include "compiler/import/OpTable.h"
#include "compiler/import/Pt2Schema.h"
#include "compiler/import/TensorData.h"

#include "dialects/aten/AtenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/DebugStringHelper.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace duet::import;
using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// `stateName` as a resource key: MLIR prints keys verbatim and parses them
/// back only as bare identifiers, so other characters become '_' (the exact
/// name stays in the constant's location).
std::string resourceKey(StringRef stateName) {
  std::string key;
  for (char c : stateName)
    key += llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_';
  if (key.empty() || !(llvm::isAlpha(key[0]) || key[0] == '_'))
    key.insert(key.begin(), '_');
  return key;
}

/// A node as its errors name it: "node 'relu' (torch.ops.aten.relu.default):
/// ...".
struct NodeRef {
  StringRef name, target;

  Error error(const Twine &message) const {
    return importError("node '" + name + "' (" + target + "): " + message);
  }
  /// `err` about this node, keeping whether it is an unsupported error.
  Error wrap(Error err) const {
    bool unsupported = false;
    std::string message;
    llvm::handleAllErrors(std::move(err), [&](const llvm::ErrorInfoBase &e) {
      unsupported = isUnsupported(e.convertToErrorCode());
      message = e.message();
    });
    if (!unsupported)
      return error(message);
    return unsupportedError("node '" + name + "' (" + target + "): " + message);
  }
  /// The name of a tensor argument (`{"as_tensor": {"name": "x"}}`); `what`
  /// says which in the error.
  Expected<StringRef> tensorName(const JsonView &arg, StringRef what) const {
    auto kase = arg.tryUnionCase();
    if (!kase || kase->first != "as_tensor")
      return error(arg.path() + ": expected a tensor " + what + ", got " +
                   (kase ? kase->first : std::string("something else")));
    std::optional<StringRef> name = kase->second.stringField("name");
    if (!name)
      return error(kase->second.path() + ": expected a tensor name");
    return *name;
  }
};

/// What a graph input is.
enum class InputKind { None, UserInput, Parameter, Buffer, Constant };

StringRef describe(InputKind kind) {
  switch (kind) {
  case InputKind::UserInput:
    return "input";
  case InputKind::Parameter:
    return "parameter";
  case InputKind::Buffer:
    return "buffer";
  case InputKind::Constant:
    return "constant";
  case InputKind::None:
    break;
  }
  return "value";
}

/// What a tensor name of the graph stands for while nodes are imported.
struct Binding {
  Value value;
  InputKind kind = InputKind::None;
  /// For a parameter, buffer or constant: its state-dict name. The constant
  /// is made on first use, so unused buffers cost nothing.
  std::string stateName;
  /// Set when the value cannot be used, with the reason.
  std::string unavailable;
  /// For a view (slice, select, permute, ...): the name of the tensor whose
  /// memory it shares, at the root of its chain of views.
  std::string viewOf;
  /// For a view: the tensor it views directly and the node that made it
  /// (output `viewOutput` of it, the node's recorded types `viewTypes`), so
  /// that the view can be made again after a write into the memory it
  /// shares, and a write into it carried back to its root. The output of
  /// an in-place op is the tensor it wrote: `parent` without a node.
  std::string parent;
  std::optional<JsonView> viewNode;
  unsigned viewOutput = 0;
  std::vector<RankedTensorType> viewTypes;
  /// For a root: how many writes it has taken. For a view: that count when
  /// the view's value was made; a view whose count is behind is made again
  /// when it is next used.
  unsigned writes = 0;
};

/// `binding` as a tensor of its own: what a region sees of an operand and
/// the enclosing graph of a region's result, which share no names with
/// each other's views.
Binding asRoot(Binding binding) {
  binding.viewOf.clear();
  binding.parent.clear();
  binding.viewNode.reset();
  binding.viewTypes.clear();
  binding.writes = 0;
  return binding;
}

/// A node's arguments by schema name, and the name of the first.
struct NodeArgs {
  llvm::StringMap<JsonView> byName;
  std::string first;
};

Expected<NodeArgs> readNodeArgs(const JsonView &node) {
  DUET_TRY(inputsField, node.field("inputs"));
  DUET_TRY(inputs, inputsField.elements());
  NodeArgs args;
  for (const JsonView &input : inputs) {
    DUET_TRY(argNameField, input.field("name"));
    DUET_TRY(argName, argNameField.string());
    DUET_TRY(arg, input.field("arg"));
    if (args.first.empty())
      args.first = argName.str();
    args.byName.try_emplace(argName, arg);
  }
  return args;
}

/// Whether the ATen op `op` (without overload) returns a view of its first
/// argument, or may (reshape and flatten alias when they can): an in-place
/// write into its result changes that argument too.
bool returnsView(StringRef op) {
  static constexpr StringRef kViews[] = {
      "view",      "reshape",   "_unsafe_view", "slice",     "select",
      "permute",   "transpose", "t",            "expand",    "expand_as",
      "squeeze",   "unsqueeze", "flatten",      "unflatten", "view_as",
      "reshape_as", "alias",    "detach",       "narrow",    "diagonal",
      "unfold",    "as_strided", "split",       "split_with_sizes", "chunk",
      "unbind",    "movedim",   "swapaxes",     "swapdims",  "view_as_real",
      "real",      "imag",      "numpy_T",      "mT",        "T"};
  return llvm::is_contained(kViews, op);
}

/// Where in the user's model code a node's op was called: the innermost frame
/// of its stack trace outside PyTorch itself (`File "...", line N`), else the
/// outermost one.
std::optional<std::pair<std::string, unsigned>> sourceLine(StringRef trace) {
  std::optional<std::pair<std::string, unsigned>> outermost, user;
  for (size_t at = trace.find("File \""); at != StringRef::npos;
       at = trace.find("File \"", at + 1)) {
    StringRef rest = trace.drop_front(at + 6);
    size_t quote = rest.find('"');
    if (quote == StringRef::npos)
      break;
    StringRef file = rest.take_front(quote);
    rest = rest.drop_front(quote + 1).ltrim(", ");
    unsigned line;
    if (!rest.consume_front("line ") || rest.consumeInteger(10, line))
      continue;
    auto frame = std::make_pair(file.str(), line);
    if (!outermost)
      outermost = frame;
    if (!file.contains("/torch/"))
      user = frame;
  }
  return user ? user : outermost;
}

class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, StringRef fileName, const ProgramJson &json,
                 WeightMemory &memory)
      : ctx(ctx), fileName(fileName), json(json), memory(memory), builder(&ctx),
        constantBuilder(&ctx) {}

  Expected<OwningOpRef<ModuleOp>> build();

private:
  Error checkVersion();
  Error checkStaticShapes(const JsonView &graph);
  Error readTensorValues(const JsonView &graph);
  Error readInputs(const JsonView &graph, const JsonView &signature,
                   SmallVectorImpl<std::pair<std::string, Type>> &userInputs);
  Error readOutputs(const JsonView &signature,
                    SmallVectorImpl<std::string> &userOutputs);
  Error checkGraphOutputs(const JsonView &graph,
                          ArrayRef<std::string> userOutputs);
  Error importNode(const JsonView &node, size_t index, unsigned depth);
  Error importRegion(const JsonView &node, StringRef name, StringRef target,
                     ArrayRef<std::string> outputNames, unsigned depth);
  Expected<SmallVector<std::pair<std::string, Binding>, 4>>
  regionOperands(const NodeRef &at, const RegionCall &call);
  Expected<SmallVector<std::pair<Binding, RankedTensorType>, 4>>
  importRegionGraph(const NodeRef &at, const RegionCall &call,
                    ArrayRef<std::pair<std::string, Binding>> operands,
                    unsigned depth);
  Expected<Value> use(StringRef name);
  /// Runs `build` on `nodeCtx` at the insertion point and verifies the ops
  /// it made.
  Error buildOps(NodeContext &nodeCtx,
                 llvm::function_ref<void(NodeContext &)> build);
  /// Makes the view `name` again, and the views between it and the first
  /// current one, from the values its chain shares now.
  Error refresh(StringRef name);
  Error remakeView(StringRef name);
  /// Carries a write of `value` into `written` back through its chain of
  /// views to the root. False (with `refusal` saying why) when a view of
  /// the chain has no inverse duet writes.
  Expected<bool> carryWrite(StringRef written, Value value,
                            std::string &refusal);
  /// The view `child` (a binding with a view node) of `parent` after its
  /// value became `value`: `parent` with `value` written back; a null value
  /// (with `refusal`) for a view duet cannot write through.
  Expected<Value> unview(const Binding &child, Value parent, Value value,
                         std::string &refusal);
  Expected<Value> materializeWeight(StringRef name, Binding &binding);
  Expected<JsonView> payloadOf(StringRef stateName, bool &isConstant);
  Location nodeLocation(const JsonView &node, StringRef name);

  MLIRContext &ctx;
  StringRef fileName;
  const ProgramJson &json;
  WeightMemory &memory;
  OpBuilder builder;
  /// Inserts weight constants at the top of the body, in order of first use.
  OpBuilder constantBuilder;
  /// The graph being imported: the program's, or while a region is inlined,
  /// its submodule graph's, whose names are its own.
  llvm::StringMap<RankedTensorType> tensorTypes;
  llvm::StringMap<Binding> values;
  /// Every target of the program duet lacks, for the error at the first.
  std::vector<UnsupportedTarget> unsupported;
  /// The tensor names the program reads (namesRead).
  std::optional<llvm::StringSet<>> read;
  /// The views being made again, innermost last (remakeView).
  SmallVector<std::string> remaking;
  std::string lastDiagnostic;
};

Error GraphImporter::checkVersion() {
  DUET_TRY(version, json.program.field("schema_version"));
  DUET_TRY(majorField, version.field("major"));
  DUET_TRY(major, majorField.integer());
  std::string minor;
  if (std::optional<JsonView> minorField = version.optionalField("minor"))
    if (minorField->raw().is_number_integer())
      minor = "." + minorField->raw().dump();
  if (major != kSchemaMajorVersion)
    return importError(
        "serialization schema version " + Twine(major) + minor +
        " is not supported; duet reads schema major version " +
        Twine(kSchemaMajorVersion) +
        " (PyTorch 2.9 to 2.11): re-export the model with one of "
        "those versions");
  return Error::success();
}

Error GraphImporter::checkStaticShapes(const JsonView &graph) {
  // The symbols the tensors' shapes use, not the program's range_constraints:
  // run_decompositions() can leave a symbol there that no shape uses any more
  // (PyTorch 2.11), and such a program is static.
  std::vector<std::string> symbols = shapeSymbols(graph);
  if (!symbols.empty()) {
    std::string names;
    for (const std::string &name : symbols)
      names += (names.empty() ? "" : ", ") + name;
    return importError("the program has symbolic dimensions (" + names + "); " +
                       dynamicShapeAdvice());
  }
  for (StringRef key :
       {"sym_int_values", "sym_bool_values", "sym_float_values"}) {
    std::optional<JsonView> symbols = graph.optionalField(key);
    if (!symbols)
      continue;
    DUET_TRY(members, symbols->members());
    for (auto &[name, value] : members) {
      DUET_TRY(kase, value.unionCase());
      if (kase.first == "as_expr")
        return importError("symbolic value '" + name + "'; " +
                           dynamicShapeAdvice());
    }
  }
  return Error::success();
}

Error GraphImporter::readTensorValues(const JsonView &graph) {
  DUET_TRY(tensorValues, graph.field("tensor_values"));
  DUET_TRY(members, tensorValues.members());
  for (auto &[name, meta] : members) {
    Expected<TensorMeta> tensor = readTensorMeta(meta, ctx);
    if (!tensor)
      return importError("tensor '" + name +
                         "': " + toString(tensor.takeError()));
    tensorTypes[name] = tensor->type();
  }
  return Error::success();
}

Error GraphImporter::readInputs(
    const JsonView &graph, const JsonView &signature,
    SmallVectorImpl<std::pair<std::string, Type>> &userInputs) {
  DUET_TRY(inputsField, graph.field("inputs"));
  DUET_TRY(inputs, inputsField.elements());
  DUET_TRY(specsField, signature.field("input_specs"));
  DUET_TRY(specs, specsField.elements());
  if (inputs.size() != specs.size())
    return importError("the graph has " + Twine(inputs.size()) +
                       " inputs but " + Twine(specs.size()) + " input specs");

  for (auto [spec, input] : llvm::zip(specs, inputs)) {
    DUET_TRY(kase, spec.unionCase());
    auto &[kind, body] = kase;
    if (kind == "constant_input")
      continue; // A Python constant, already inlined into the nodes.
    if (kind == "custom_obj")
      return importError("input " + input.path() +
                         " is a custom (torchbind) object; duet imports tensor "
                         "programs only");
    if (kind == "token")
      return importError(
          "the program threads an effect token through side-effecting "
          "ops, which duet does not support");
    DUET_TRY(arg, input.unionCase());
    if (arg.first != "as_tensor") {
      if (kind == "user_input")
        continue; // A non-tensor user input was specialized at export.
      return importError(input.path() + ": expected a tensor input, got " +
                         arg.first);
    }
    DUET_TRY(nameField, arg.second.field("name"));
    DUET_TRY(name, nameField.string());
    auto type = tensorTypes.lookup(name);
    if (!type)
      return importError("input '" + name +
                         "' has no recorded tensor metadata");

    Binding binding;
    StringRef stateKey;
    if (kind == "user_input") {
      binding.kind = InputKind::UserInput;
      userInputs.emplace_back(name.str(), type);
    } else if (kind == "parameter") {
      binding.kind = InputKind::Parameter;
      stateKey = "parameter_name";
    } else if (kind == "buffer") {
      binding.kind = InputKind::Buffer;
      stateKey = "buffer_name";
    } else if (kind == "tensor_constant") {
      binding.kind = InputKind::Constant;
      stateKey = "tensor_constant_name";
    } else {
      return importError(spec.path() + ": unknown input kind '" + kind + "'");
    }
    if (!stateKey.empty()) {
      DUET_TRY(stateField, body.field(stateKey));
      DUET_TRY(stateName, stateField.string());
      binding.stateName = stateName.str();
    }
    values[name] = std::move(binding);
  }
  return Error::success();
}

Error GraphImporter::readOutputs(const JsonView &signature,
                                  SmallVectorImpl<std::string> &userOutputs) {
  DUET_TRY(specsField, signature.field("output_specs"));
  DUET_TRY(specs, specsField.elements());
  const char *stateAdvice =
      "; duet compiles inference graphs that leave their inputs and state "
      "unchanged: remove the in-place update from forward() (and call "
      "model.eval() before torch.export)";
  for (const JsonView &spec : specs) {
    DUET_TRY(kase, spec.unionCase());
    auto &[kind, body] = kase;
    const JsonView &fields = kase.second;
    auto nameOf = [&](StringRef key) {
      return fields.stringField(key).value_or("?");
    };
    if (kind == "buffer_mutation")
      return importError("the model mutates buffer '" + nameOf("buffer_name") +
                         "'" + stateAdvice);
    if (kind == "parameter_mutation")
      return importError("the model mutates parameter '" +
                         nameOf("parameter_name") + "'" + stateAdvice);
    if (kind == "user_input_mutation")
      return importError("the model mutates its input '" +
                         nameOf("user_input_name") + "'" + stateAdvice);
    if (kind == "loss_output" || kind == "gradient_to_parameter" ||
        kind == "gradient_to_user_input")
      return importError("the program is a training graph (it has a " + kind +
                         " output); export the inference model instead");
    if (kind == "token")
      return importError(
          "the program threads an effect token through side-effecting "
          "ops, which duet does not support");
    if (kind != "user_output")
      return importError(spec.path() + ": unknown output kind '" + kind + "'");
    DUET_TRY(argField, body.field("arg"));
    DUET_TRY(arg, argField.unionCase());
    if (arg.first != "as_tensor")
      return importError("output " + Twine(userOutputs.size()) +
                         " is not a tensor (" + arg.first +
                         "); duet programs return tensors only");
    DUET_TRY(nameField, arg.second.field("name"));
    DUET_TRY(name, nameField.string());
    userOutputs.push_back(name.str());
  }
  return Error::success();
}

/// The function returns what the output specs name, so graph.outputs is not
/// needed to build it; but torch.export writes one graph output per spec, in
/// order, and an archive whose graph outputs disagree with the specs (or
/// name nothing, or a value nothing defines) is corrupt. Checked once the
/// nodes have defined their values.
Error GraphImporter::checkGraphOutputs(const JsonView &graph,
                                        ArrayRef<std::string> userOutputs) {
  DUET_TRY(outputsField, graph.field("outputs"));
  DUET_TRY(outputs, outputsField.elements());
  const char *corrupt = "; the archive is corrupt, re-export it";
  if (outputs.empty())
    return importError(outputsField.path() +
                       " is empty: the program returns nothing; duet "
                       "compiles models that return at least one tensor");
  if (outputs.size() != userOutputs.size())
    return importError(outputsField.path() + " lists " + Twine(outputs.size()) +
                       " outputs but the signature " +
                       Twine(userOutputs.size()) + " output specs" + corrupt);
  for (auto [output, specName] : llvm::zip(outputs, userOutputs)) {
    DUET_TRY(kase, output.unionCase());
    if (kase.first != "as_tensor")
      return importError(output.path() + " is not a tensor (" + kase.first +
                         "); duet programs return tensors only");
    DUET_TRY(nameField, kase.second.field("name"));
    DUET_TRY(name, nameField.string());
    if (!values.count(name))
      return importError(output.path() + " names '" + name +
                         "', which no graph input or node defines" + corrupt);
    if (name != specName)
      return importError(output.path() + " names '" + name +
                         "' but its output spec names '" + specName + "'" +
                         corrupt);
  }
  return Error::success();
}

Expected<JsonView> GraphImporter::payloadOf(StringRef stateName,
                                             bool &isConstant) {
  // Parameters and persistent buffers are weights; constants and
  // non-persistent buffers are constants.
  for (auto [config, constant] : {std::make_pair(&json.weights, false),
                                  std::make_pair(&json.constants, true)}) {
    if (!*config)
      continue;
    if (std::optional<JsonView> payload = (*config)->optionalField(stateName)) {
      isConstant = constant;
      return *payload;
    }
  }
  return importError(
      "'" + stateName +
      "' is not in the archive's weights or constants config; the "
      "archive is incomplete, re-export it with torch.export.save");
}

Expected<Value> GraphImporter::materializeWeight(StringRef name,
                                                  Binding &binding) {
  StringRef stateName = binding.stateName;
  auto wrap = [&](Error err) {
    return importError(describe(binding.kind) + " '" + stateName +
                       "': " + toString(std::move(err)));
  };
  bool isConstant = false;
  Expected<JsonView> payload = payloadOf(stateName, isConstant);
  if (!payload)
    return wrap(payload.takeError());
  if (std::optional<JsonView> pickled = payload->optionalField("use_pickle"))
    if (Expected<bool> p = pickled->boolean(); p && *p)
      return wrap(
          importError("it is stored pickled (a tensor subclass); duet reads "
                      "plain tensors only"));
  Expected<JsonView> metaField = payload->field("tensor_meta");
  if (!metaField)
    return wrap(metaField.takeError());
  Expected<TensorMeta> meta = readTensorMeta(*metaField, ctx);
  if (!meta)
    return wrap(meta.takeError());
  RankedTensorType type = meta->type();
  if (type != tensorTypes.lookup(name))
    return wrap(importError("its stored type " + debugString(type) +
                            " differs from the graph's " +
                            debugString(tensorTypes.lookup(name))));
  Expected<JsonView> pathField = payload->field("path_name");
  if (!pathField)
    return wrap(pathField.takeError());
  Expected<StringRef> pathName = pathField->string();
  if (!pathName)
    return wrap(pathName.takeError());
  std::string entry =
      (Twine(isConstant ? "data/constants/" : "data/weights/") + *pathName)
          .str();
  Expected<EntryBytes> storage = memory.archive->read(entry);
  if (!storage)
    return wrap(storage.takeError());
  Expected<TensorBytes> bytes = tensorBytes(*storage, *meta, memory.copies);
  if (!bytes)
    return wrap(importError("'" + entry + "': " + toString(bytes.takeError())));

  Location loc = NameLoc::get(StringAttr::get(&ctx, stateName));
  ElementsAttr attr;
  if (type.getNumElements() == 0) {
    attr = DenseElementsAttr::get(type, ArrayRef<Attribute>());
  } else {
    auto resource = DenseResourceElementsAttr::get(
        type, resourceKey(stateName),
        UnmanagedAsmResourceBlob::allocateWithAlign(bytes->bytes,
                                                    bytes->alignment));
    memory.blobs.push_back(resource.getRawHandle());
    attr = resource;
  }
  ++memory.stats.tensors;
  (bytes->copied ? memory.stats.bytesCopied : memory.stats.bytesMapped) +=
      bytes->bytes.size();
  auto constant =
      constantBuilder.create<arith::ConstantOp>(loc, cast<TypedAttr>(attr));
  constantBuilder.setInsertionPointAfter(constant);
  binding.value = constant;
  return binding.value;
}

Expected<Value> GraphImporter::use(StringRef name) {
  auto it = values.find(name);
  if (it == values.end())
    return importError("'" + name + "' is not defined by any earlier node");
  if (!it->second.unavailable.empty())
    return importError("'" + name + "' " + it->second.unavailable);
  if (Error err = refresh(name))
    return std::move(err);
  Binding &binding = values.find(name)->second;
  if (!binding.unavailable.empty())
    return importError("'" + name + "' " + binding.unavailable);
  if (binding.value)
    return binding.value;
  return materializeWeight(name, binding);
}

Error GraphImporter::buildOps(NodeContext &nodeCtx,
                              llvm::function_ref<void(NodeContext &)> build) {
  Block *body = builder.getInsertionBlock();
  Operation *before = body->empty() ? nullptr : &body->back();
  build(nodeCtx);
  if (Error err = nodeCtx.finish())
    return err;
  // The verifiers recompute every result shape from the operands and
  // attributes; a mismatch with what torch.export recorded is caught here,
  // at the node that caused it.
  Operation *first = before ? before->getNextNode()
                            : (body->empty() ? nullptr : &body->front());
  for (Operation *op = first; op; op = op->getNextNode()) {
    lastDiagnostic.clear();
    if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
      return importError("the imported op does not verify: " + lastDiagnostic);
  }
  return Error::success();
}

Error GraphImporter::refresh(StringRef name) {
  // The views behind their root's writes, from `name` up to the first
  // current one; made again top down. Names are unique in a graph, but a
  // hostile one may make views of each other: the walk is bounded.
  SmallVector<std::string> stale;
  std::string at = name.str();
  while (true) {
    auto it = values.find(at);
    if (it == values.end() || it->second.parent.empty() ||
        !it->second.unavailable.empty())
      break;
    auto root = values.find(it->second.viewOf);
    if (root == values.end() || it->second.writes == root->second.writes)
      break;
    if (stale.size() > values.size())
      return importError("'" + name + "' is a view in a cycle of views");
    stale.push_back(at);
    at = it->second.parent;
  }
  for (const std::string &view : llvm::reverse(stale))
    if (Error err = remakeView(view))
      return err;
  return Error::success();
}

/// Whether the view op `op` may copy instead (`reshape` of a tensor whose
/// layout it cannot view): PyTorch's result then shares no memory with its
/// input, so a write on either side is neither carried nor seen.
bool mayCopy(StringRef op) {
  return op == "reshape" || op == "flatten" || op == "reshape_as";
}

Error GraphImporter::remakeView(StringRef name) {
  Binding &binding = values.find(name)->second;
  unsigned writes = values.find(binding.viewOf)->second.writes;
  // A hostile graph may make views of each other by reusing names.
  if (llvm::is_contained(remaking, name.str()))
    return importError("'" + name + "' is a view in a cycle of views");
  remaking.push_back(name.str());
  auto done = llvm::make_scope_exit([&] { remaking.pop_back(); });
  Value value;
  if (binding.viewNode) {
    StringRef target =
        binding.viewNode->stringField("target").value_or("");
    if (mayCopy(target.rsplit('.').first.rsplit('.').second)) {
      binding.value = Value();
      binding.unavailable =
          "is a " + target.rsplit('.').first.rsplit('.').second.str() +
          " of a tensor written in place since: PyTorch may have copied or "
          "viewed it, which duet cannot tell; export the model, call "
          "ep.run_decompositions() (which writes them functionally) and "
          "compile that program";
      return Error::success();
    }
  }
  if (!binding.viewNode) {
    DUET_TRY(parent, use(binding.parent));
    value = parent;
  } else {
    JsonView node = *binding.viewNode;
    SmallVector<RankedTensorType> types(binding.viewTypes.begin(),
                                        binding.viewTypes.end());
    unsigned output = binding.viewOutput;
    DUET_TRY(targetField, node.field("target"));
    DUET_TRY(target, targetField.string());
    const OpEntry *entry = lookupOp(target);
    DUET_TRY(args, readNodeArgs(node));
    if (!entry || output >= types.size())
      return importError("view '" + name + "' cannot be made again");
    NodeContext nodeCtx(
        builder, nodeLocation(node, name), std::move(args.byName),
        entry->defaults, [&](StringRef n) { return use(n); }, types);
    if (Error err = buildOps(nodeCtx, entry->build))
      return importError("view '" + name + "' (" + target +
                         "), made again after a write into the tensor it "
                         "views: " + toString(std::move(err)));
    value = nodeCtx.results()[output];
  }
  // `use` above may have grown the map: look the binding up again.
  Binding &again = values.find(name)->second;
  again.value = value;
  again.writes = writes;
  if (!value)
    again.unavailable = "is a view that duet could not make again after a "
                        "write into the tensor it views";
  return Error::success();
}

Expected<Value> GraphImporter::unview(const Binding &child, Value parent,
                                      Value value, std::string &refusal) {
  JsonView node = *child.viewNode;
  DUET_TRY(targetField, node.field("target"));
  DUET_TRY(target, targetField.string());
  StringRef op = target.rsplit('.').first.rsplit('.').second;
  const OpEntry *entry = lookupOp(target);
  DUET_TRY(args, readNodeArgs(node));
  if (!entry)
    return importError("a view by " + target + " has no import");
  RankedTensorType type = NodeContext::typeOf(parent);
  NodeContext nodeCtx(
      builder, value.getLoc(), std::move(args.byName), entry->defaults,
      [&](StringRef n) { return use(n); }, {type});
  int64_t rank = type.getRank();
  auto dimArg = [&](StringRef what) {
    return nodeCtx.normalizeDim(nodeCtx.integer(what), std::max<int64_t>(rank, 1),
                                what);
  };
  // Each case sets the result to `parent` with `value` written where the
  // view reads it; PyTorch's functionalization writes the same.
  static constexpr StringRef kReshapes[] = {
      "view",      "_unsafe_view", "unflatten", "squeeze",
      "unsqueeze", "view_as",      "alias",     "detach"};
  bool known = llvm::is_contained(kReshapes, op) || op == "slice" ||
               op == "narrow" || op == "select" || op == "permute" ||
               op == "transpose" || op == "t";
  if (!known) {
    refusal = ("duet carries writes back through slice, select, narrow, "
               "permute, transpose and the views that only reshape, not "
               "through " +
               op + (mayCopy(op) ? ", which may copy" : ""))
                  .str();
    return Value();
  }
  auto inverse = [&](NodeContext &) {
    if (llvm::is_contained(kReshapes, op)) {
      nodeCtx.setResult(compose::view(nodeCtx, value, type.getShape()));
    } else if (op == "slice" || op == "narrow") {
      int64_t dim = dimArg("dim");
      std::optional<int64_t> start = nodeCtx.optionalInteger("start");
      int64_t step = op == "slice" ? nodeCtx.integer("step") : 1;
      if (nodeCtx.ok()) {
        int64_t n = type.getDimSize(dim);
        int64_t first = start.value_or(0);
        if (first < 0)
          first = std::max<int64_t>(first + n, 0);
        emitSliceScatter(nodeCtx, parent, value, dim, std::min(first, n),
                         step);
      }
    } else if (op == "select") {
      int64_t dim = dimArg("dim");
      int64_t index = nodeCtx.integer("index");
      if (nodeCtx.ok()) {
        int64_t n = type.getDimSize(dim);
        SmallVector<int64_t> shape(type.getShape());
        shape[dim] = 1;
        emitSliceScatter(nodeCtx, parent,
                         compose::view(nodeCtx, value, shape), dim,
                         index < 0 ? index + n : index, 1);
      }
    } else {
      SmallVector<int64_t> order;
      for (int64_t d = 0; d < rank; ++d)
        order.push_back(d);
      if (op == "permute") {
        SmallVector<int64_t> dims = nodeCtx.integers("dims");
        if (nodeCtx.ok() && dims.size() != order.size())
          nodeCtx.fail("permute of " + Twine(dims.size()) + " dims on rank " +
                       Twine(rank));
        for (auto [i, d] : llvm::enumerate(dims))
          if (nodeCtx.ok())
            order[nodeCtx.normalizeDim(d, rank)] = i;
      } else if (rank >= 2 && (op == "transpose" || rank == 2)) {
        int64_t a = op == "t" ? 0 : dimArg("dim0");
        int64_t b = op == "t" ? 1 : dimArg("dim1");
        if (nodeCtx.ok())
          std::swap(order[a], order[b]);
      }
      if (nodeCtx.ok())
        nodeCtx.setResult(compose::permute(nodeCtx, value, order));
    }
  };
  if (Error err = buildOps(nodeCtx, inverse))
    return importError("the write back through " + target + ": " +
                       toString(std::move(err)));
  return nodeCtx.results()[0];
}

Expected<bool> GraphImporter::carryWrite(StringRef written, Value value,
                                         std::string &refusal) {
  SmallVector<std::pair<std::string, Value>> path{{written.str(), value}};
  while (true) {
    auto it = values.find(path.back().first);
    if (it == values.end())
      return false;
    const Binding &child = it->second;
    if (child.viewOf.empty())
      break; // The root.
    if (child.parent.empty()) {
      refusal = "duet does not know which tensor '" + path.back().first +
                "' views";
      return false;
    }
    if (path.size() > values.size())
      return importError("'" + written + "' is a view in a cycle of views");
    std::string parentName = child.parent;
    Binding childCopy = child;
    DUET_TRY(parent, use(parentName));
    Value up = path.back().second;
    if (childCopy.viewNode) {
      DUET_TRY(carried, unview(childCopy, parent, up, refusal));
      if (!carried)
        return false;
      up = carried;
    }
    path.emplace_back(parentName, up);
  }
  Binding &root = values.find(path.back().first)->second;
  ++root.writes;
  unsigned writes = root.writes;
  for (auto &[name, carried] : path) {
    Binding &binding = values.find(name)->second;
    binding.value = carried;
    binding.writes = writes;
  }
  return true;
}

Location GraphImporter::nodeLocation(const JsonView &node, StringRef name) {
  Location where = FileLineColLoc::get(&ctx, fileName, 0, 0);
  std::optional<JsonView> metadata = node.optionalField("metadata");
  if (std::optional<StringRef> trace =
          metadata ? metadata->stringField("stack_trace") : std::nullopt)
    if (auto line = sourceLine(*trace))
      where = FileLineColLoc::get(&ctx, line->first, line->second, 0);
  return NameLoc::get(StringAttr::get(&ctx, name), where);
}

Error GraphImporter::importNode(const JsonView &node, size_t index,
                                 unsigned depth) {
  DUET_TRY(targetField, node.field("target"));
  DUET_TRY(target, targetField.string());
  DUET_TRY(outputNames, nodeOutputNames(node));
  std::string name = nodeName(node, outputNames, index);
  auto nodeError = [&](const Twine &message) {
    return importError("node '" + name + "' (" + target + "): " + message);
  };
  if (isInlinedHigherOrder(target))
    return importRegion(node, name, target, outputNames, depth);
  if (isHigherOrder(target))
    return unsupportedTargetError(name, target, unsupported);
  // What an op duet lacks computes is left out when nothing reads it.
  if (isUnreadUnsupported(node, read))
    return Error::success();
  DUET_TRY(nodeArgs, readNodeArgs(node));
  llvm::StringMap<JsonView> &args = nodeArgs.byName;
  const std::string &firstArg = nodeArgs.first;

  // An in-place op (`relu_`, `add_.Tensor`) writes into its first argument.
  StringRef opName = target.rsplit('.').first.rsplit('.').second;
  bool writesFirstArg = opName.ends_with("_") && !opName.ends_with("__");
  Binding *written = nullptr;
  std::string writtenName;
  if (writesFirstArg && !firstArg.empty()) {
    auto kase = args.find(firstArg)->second.tryUnionCase();
    std::optional<StringRef> tensorName;
    if (kase && kase->first == "as_tensor")
      tensorName = kase->second.stringField("name");
    auto it = tensorName ? values.find(*tensorName) : values.end();
    if (it != values.end()) {
      written = &it->second;
      writtenName = tensorName->str();
    }
  }
  // The tensor a view op's result views, and the root of its chain.
  std::string viewedBase, viewedRoot;
  if (!opName.ends_with("_copy") && returnsView(opName) && !firstArg.empty()) {
    auto kase = args.find(firstArg)->second.tryUnionCase();
    if (kase && kase->first == "as_tensor") {
      std::string base = kase->second.stringField("name").value_or("").str();
      auto it = values.find(base);
      if (it != values.end()) {
        viewedBase = base;
        viewedRoot = it->second.viewOf.empty() ? base : it->second.viewOf;
      }
    }
  }
  const OpEntry *entry = lookupOp(target);
  bool inPlace = entry ? entry->effect == Effect::InPlace : writesFirstArg;
  // A write into a view changes the tensor it views: the root of the chain.
  std::string root = written && !written->viewOf.empty() ? written->viewOf
                                                         : writtenName;
  if (inPlace && written && root != writtenName) {
    auto base = values.find(root);
    if (base != values.end() && base->second.kind != InputKind::None) {
      std::string which =
          base->second.stateName.empty() ? root : base->second.stateName;
      return nodeError("changes the model's " + describe(base->second.kind) +
                       " '" + which + "' in place, through its view '" +
                       writtenName +
                       "'; duet compiles inference graphs that leave their "
                       "inputs and state unchanged: remove the in-place "
                       "update from forward()");
    }
  }
  if (inPlace && written && written->kind != InputKind::None) {
    StringRef what = describe(written->kind);
    std::string which =
        written->stateName.empty() ? writtenName : written->stateName;
    return nodeError("changes the model's " + what + " '" + which +
                     "' in place; duet compiles inference graphs that leave "
                     "their inputs and state unchanged: remove the in-place "
                     "update from forward()");
  }
  if (!entry)
    return unsupportedTargetError(name, target, unsupported);

  SmallVector<RankedTensorType> resultTypes;
  for (const std::string &out : outputNames) {
    if (out.empty()) {
      resultTypes.emplace_back();
      continue;
    }
    RankedTensorType type = tensorTypes.lookup(out);
    if (!type)
      return nodeError("output '" + out + "' has no recorded tensor metadata");
    resultTypes.push_back(type);
  }

  NodeContext nodeCtx(
      builder, nodeLocation(node, name), std::move(args), entry->defaults,
      [&](StringRef n) { return use(n); }, resultTypes);
  if (Error err = buildOps(nodeCtx, entry->build))
    return nodeError(toString(std::move(err)));

  // An in-place op's new value is written into the tensor it changed, and
  // carried back through the views between it and the root (PyTorch's
  // functionalization: slice_scatter, select_scatter, inverse permutes and
  // reshapes); every other view of the root is made again when next used.
  std::string refusal;
  bool carried = false;
  if (inPlace && written && !nodeCtx.results().empty() &&
      nodeCtx.results()[0] && values.count(root)) {
    DUET_TRY(ok, carryWrite(writtenName, nodeCtx.results()[0], refusal));
    carried = ok;
  }

  // The outputs of a view share the memory of the tensor it views; the
  // output of an in-place op is the tensor it wrote.
  std::string viewRoot = inPlace && written ? root : viewedRoot;
  unsigned rootWrites = 0;
  if (auto it = values.find(viewRoot); it != values.end())
    rootWrites = it->second.writes;
  for (auto [i, out] : llvm::enumerate(outputNames)) {
    if (out.empty())
      continue;
    Binding binding;
    binding.viewOf = viewRoot;
    binding.value = nodeCtx.results()[i];
    binding.writes = rootWrites;
    if (inPlace && written && carried) {
      binding.parent = writtenName;
    } else if (!viewedBase.empty()) {
      binding.parent = viewedBase;
      binding.viewNode = node;
      binding.viewOutput = i;
      binding.viewTypes.assign(resultTypes.begin(), resultTypes.end());
    }
    if (!binding.value)
      binding.unavailable = "is output " + std::to_string(i) + " of node '" +
                            name + "': " + nodeCtx.unavailableReasons()[i];
    values[out] = std::move(binding);
  }
  // A write duet could not carry back: the value written into is stale from
  // now on, and so is every other tensor sharing its memory; duet refuses
  // their use instead of computing with the old values.
  if (inPlace && written && !carried) {
    if (refusal.empty())
      refusal = "duet does not carry this write through views";
    written = &values.find(writtenName)->second;
    written->value = Value();
    written->unavailable = "was overwritten in place by node '" + name +
                           "', so its old value is not available";
    for (auto &entry : values) {
      StringRef other = entry.getKey();
      Binding &binding = entry.getValue();
      bool shares = other == root || binding.viewOf == root;
      if (!shares || other == writtenName ||
          llvm::is_contained(outputNames, other.str()) ||
          !binding.unavailable.empty())
        continue;
      binding.value = Value();
      binding.unavailable =
          "shares its memory with '" + writtenName + "', which node '" +
          name + "' changed in place; " + refusal +
          ": export the model, call ep.run_decompositions() (which writes "
          "them functionally) and compile that program";
    }
  }
  return Error::success();
}

/// Imports the submodule graph of a higher-order node in place of the node:
/// its inputs are bound to the node's operands and its outputs become the
/// node's.
Error GraphImporter::importRegion(const JsonView &node, StringRef name,
                                   StringRef target,
                                   ArrayRef<std::string> outputNames,
                                   unsigned depth) {
  NodeRef at{name, target};
  if (depth >= kMaxRegionDepth)
    return at.error("regions are nested deeper than " + Twine(kMaxRegionDepth) +
                    " levels");
  DUET_TRY(call, readRegionCall(node));
  DUET_TRY(operands, regionOperands(at, call));
  DUET_TRY(results, importRegionGraph(at, call, operands, depth));
  if (outputNames.size() != results.size())
    return at.error("its graph returns " + Twine(results.size()) +
                    " values but the node has " + Twine(outputNames.size()) +
                    " outputs");
  for (auto [out, result] : llvm::zip(outputNames, results)) {
    if (out.empty())
      continue;
    RankedTensorType type = tensorTypes.lookup(out);
    if (type != result.second)
      return at.error("output '" + out + "' is " + debugString(type) +
                      " but its graph returns " + debugString(result.second));
    values[out] = result.first;
  }
  return Error::success();
}

/// The region's operands as the enclosing graph binds them; a weight is made
/// here, so that the region and the graph share its constant.
Expected<SmallVector<std::pair<std::string, Binding>, 4>>
GraphImporter::regionOperands(const NodeRef &at, const RegionCall &call) {
  SmallVector<std::pair<std::string, Binding>, 4> operands;
  for (const JsonView &operand : call.operands) {
    DUET_TRY(name, at.tensorName(operand, "operand"));
    auto it = values.find(name);
    if (it == values.end())
      return at.error("'" + name + "' is not defined by any earlier node");
    if (Error err = refresh(name))
      return err;
    Binding &outer = values.find(name)->second;
    if (!outer.value && outer.unavailable.empty())
      if (Expected<Value> made = materializeWeight(name, outer); !made)
        return made.takeError();
    operands.emplace_back(name.str(), asRoot(outer));
  }
  return operands;
}

/// Imports the region's graph in a scope of its own (it names its values
/// itself), its inputs bound to `operands`; returns what it yields with the
/// recorded types.
Expected<SmallVector<std::pair<Binding, RankedTensorType>, 4>>
GraphImporter::importRegionGraph(
    const NodeRef &at, const RegionCall &call,
    ArrayRef<std::pair<std::string, Binding>> operands, unsigned depth) {
  DUET_TRY(inputsField, call.graph.field("inputs"));
  DUET_TRY(inputs, inputsField.elements());
  if (inputs.size() != operands.size())
    return at.error("its graph takes " + Twine(inputs.size()) +
                    " inputs but the node passes " + Twine(operands.size()));
  llvm::StringMap<RankedTensorType> outerTypes;
  llvm::StringMap<Binding> outerValues;
  std::swap(tensorTypes, outerTypes);
  std::swap(values, outerValues);
  auto restore = llvm::make_scope_exit([&] {
    std::swap(tensorTypes, outerTypes);
    std::swap(values, outerValues);
  });

  if (Error err = readTensorValues(call.graph))
    return std::move(err);
  SmallVector<std::string> innerNames;
  for (auto [input, operand] : llvm::zip(inputs, operands)) {
    DUET_TRY(name, at.tensorName(input, "input"));
    RankedTensorType type = tensorTypes.lookup(name);
    RankedTensorType given = outerTypes.lookup(operand.first);
    if (type != given)
      return at.error("its graph's input '" + name + "' is " +
                      debugString(type) + " but operand '" + operand.first +
                      "' is " + debugString(given));
    values[name] = operand.second;
    innerNames.push_back(name.str());
  }
  SmallVector<RankedTensorType> regionTypes;
  for (const auto &entry : tensorTypes)
    regionTypes.push_back(entry.second);
  if (Error err = checkRegion(at.target, call, regionTypes))
    return at.wrap(std::move(err));

  DUET_TRY(nodesField, call.graph.field("nodes"));
  DUET_TRY(nodes, nodesField.elements());
  for (auto [i, inner] : llvm::enumerate(nodes))
    if (Error err = importNode(inner, i, depth + 1))
      return std::move(err);

  DUET_TRY(resultsField, call.graph.field("outputs"));
  DUET_TRY(resultList, resultsField.elements());
  SmallVector<std::pair<Binding, RankedTensorType>, 4> results;
  for (const JsonView &result : resultList) {
    DUET_TRY(name, at.tensorName(result, "output"));
    auto it = values.find(name);
    if (it == values.end())
      return at.error("its graph returns '" + name +
                      "', which nothing in it defines");
    if (Error err = refresh(name))
      return err;
    results.emplace_back(asRoot(values.find(name)->second),
                         tensorTypes.lookup(name));
  }
  // An operand the region wrote in place is stale outside it, and so is
  // every tensor sharing its memory there: duet does not carry a write out
  // of a region, so it refuses their use.
  for (auto [innerName, operand] : llvm::zip(innerNames, operands)) {
    const Binding &inner = values[innerName];
    if (inner.unavailable.empty() && inner.writes == 0)
      continue;
    auto outer = outerValues.find(operand.first);
    if (outer == outerValues.end())
      continue;
    std::string root = outer->second.viewOf.empty() ? operand.first
                                                    : outer->second.viewOf;
    std::string reason =
        "was overwritten in place inside node '" + at.name.str() +
        (operand.first == root ? "'" : "' (through '" + operand.first + "')");
    for (auto &entry : outerValues)
      if (entry.getKey() == root || entry.getValue().viewOf == root) {
        entry.getValue().value = Value();
        entry.getValue().unavailable = reason;
      }
  }
  return results;
}

Expected<OwningOpRef<ModuleOp>> GraphImporter::build() {
  if (Error err = checkVersion())
    return err;
  DUET_TRY(graphModule, json.program.field("graph_module"));
  DUET_TRY(graph, graphModule.field("graph"));
  DUET_TRY(signature, graphModule.field("signature"));
  if (Error err = checkStaticShapes(graph))
    return err;
  if (Error err = readTensorValues(graph))
    return err;
  SmallVector<std::pair<std::string, Type>> userInputs;
  if (Error err = readInputs(graph, signature, userInputs))
    return err;
  SmallVector<std::string> userOutputs;
  if (Error err = readOutputs(signature, userOutputs))
    return err;

  Location fileLoc = FileLineColLoc::get(&ctx, fileName, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  SmallVector<Type> argTypes;
  for (auto &[name, type] : userInputs)
    argTypes.push_back(type);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<func::FuncOp>(
      fileLoc, "forward", builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, input] : llvm::enumerate(userInputs)) {
    func.setArgAttr(i, kNameAttr, builder.getStringAttr(input.first));
    values[input.first].value = body->getArgument(i);
  }
  builder.setInsertionPointToEnd(body);
  constantBuilder.setInsertionPointToStart(body);

  ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      lastDiagnostic = diag.str();
    return success();
  });
  DUET_TRY(nodesField, graph.field("nodes"));
  DUET_TRY(nodes, nodesField.elements());
  read = namesRead(graph);
  unsupported = unsupportedTargets(graph, read);
  for (auto [i, node] : llvm::enumerate(nodes))
    if (Error err = importNode(node, i, 0))
      return err;
  if (Error err = checkGraphOutputs(graph, userOutputs))
    return err;

  SmallVector<Value> results;
  for (const std::string &name : userOutputs) {
    Expected<Value> value = use(name);
    if (!value)
      return importError("output " + Twine(results.size()) + ": " +
                         toString(value.takeError()));
    results.push_back(*value);
  }
  builder.create<func::ReturnOp>(fileLoc, results);
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(userOutputs))
    func.setResultAttr(i, kNameAttr, builder.getStringAttr(name));
  return std::move(module);
}

} // namespace

Expected<OwningOpRef<ModuleOp>>
duet::import::buildProgram(MLIRContext &ctx, StringRef fileName,
                           const ProgramJson &json, WeightMemory &memory) {
  ctx.loadDialect<aten::AtenDialect, arith::ArithDialect, func::FuncDialect>();
  return GraphImporter(ctx, fileName, json, memory).build();
}
