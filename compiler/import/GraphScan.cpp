//===- GraphScan.cpp - what a serialized graph holds, read before import --===//

#include "compiler/import/GraphScan.h"

#include "compiler/import/CoreAten.h"

#include "compiler/import/HigherOrderOps.h"
#include "compiler/import/ImportError.h"
#include "compiler/import/OpTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace duet::import;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// The elements of a list member, or none when it is absent or malformed.
std::vector<JsonView> listField(const JsonView &object, StringRef key) {
  std::optional<JsonView> field = object.optionalField(key);
  if (!field || !field->raw().is_array())
    return {};
  return llvm::cantFail(field->elements());
}

/// The submodule graphs a node takes (`{"as_graph": {"graph": ...}}`).
std::vector<JsonView> subgraphs(const JsonView &node) {
  std::vector<JsonView> out;
  for (const JsonView &input : listField(node, "inputs")) {
    std::optional<JsonView> arg = input.optionalField("arg");
    auto kase = arg ? arg->tryUnionCase() : std::nullopt;
    if (!kase || kase->first != "as_graph")
      continue;
    if (std::optional<JsonView> graph = kase->second.optionalField("graph"))
      if (graph->raw().is_object())
        out.push_back(*graph);
  }
  return out;
}

/// Adds the names of the `{"as_tensor": {"name": ...}}` objects under
/// `value`, skipping the outputs of nodes; false when it nests deeper than
/// `depthLeft`.
bool collectRead(const nlohmann::json &value, unsigned depthLeft,
                 llvm::StringSet<> &out) {
  if (depthLeft == 0)
    return false;
  if (value.is_array()) {
    for (const nlohmann::json &element : value)
      if (!collectRead(element, depthLeft - 1, out))
        return false;
    return true;
  }
  if (!value.is_object())
    return true;
  bool isNode = value.contains("target") && value.contains("outputs");
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (isNode && it.key() == "outputs")
      continue;
    if (it.key() == "as_tensor" && it.value().is_object()) {
      auto name = it.value().find("name");
      if (name != it.value().end() && name->is_string())
        out.insert(name->get<std::string>());
    }
    // A list of tensors (cat's, stack's) holds bare {"name": ...} objects.
    if (it.key() == "as_tensors" && it.value().is_array())
      for (const nlohmann::json &element : it.value())
        if (element.is_object())
          if (auto name = element.find("name");
              name != element.end() && name->is_string())
            out.insert(name->get<std::string>());
    if (!collectRead(it.value(), depthLeft - 1, out))
      return false;
  }
  return true;
}

void collectUnsupported(const JsonView &graph, unsigned depth,
                        const std::optional<llvm::StringSet<>> &read,
                        std::vector<UnsupportedTarget> &out) {
  if (depth > kMaxRegionDepth)
    return;
  for (auto [index, node] : llvm::enumerate(listField(graph, "nodes"))) {
    std::optional<StringRef> target = node.stringField("target");
    if (!target)
      continue;
    if (isInlinedHigherOrder(*target)) {
      for (const JsonView &body : subgraphs(node))
        collectUnsupported(body, depth + 1, read, out);
      continue;
    }
    if (lookupOp(*target) || isUnreadUnsupported(node, read))
      continue;
    Expected<llvm::SmallVector<std::string>> outputs = nodeOutputNames(node);
    std::string name = nodeName(
        node, outputs ? *outputs : llvm::SmallVector<std::string>(), index);
    if (!outputs)
      llvm::consumeError(outputs.takeError());
    auto found = llvm::find_if(
        out, [&](const UnsupportedTarget &t) { return t.target == *target; });
    if (found == out.end())
      out.push_back({target->str(), {name}});
    else
      found->nodes.push_back(name);
  }
}

/// Adds the symbols of a sympy expression as torch.export prints it
/// ("s77*Max(2, s3)"), its identifiers that end in digits; whether it named
/// any.
bool addSymbols(StringRef expr, std::vector<std::string> &out) {
  bool any = false;
  while (!expr.empty()) {
    StringRef token =
        expr.take_while([](char c) { return llvm::isAlnum(c) || c == '_'; });
    expr = expr.drop_front(std::max<size_t>(token.size(), 1));
    if (token.empty() || !llvm::isAlpha(token.front()) ||
        !llvm::isDigit(token.back()))
      continue;
    any = true;
    if (!llvm::is_contained(out, token))
      out.push_back(token.str());
  }
  return any;
}

void collectSymbols(const JsonView &graph, unsigned depth,
                    std::vector<std::string> &out) {
  if (depth > kMaxRegionDepth)
    return;
  std::optional<JsonView> values = graph.optionalField("tensor_values");
  if (values && values->raw().is_object()) {
    for (auto &[name, meta] : llvm::cantFail(values->members())) {
      std::vector<JsonView> dims = listField(meta, "sizes");
      llvm::append_range(dims, listField(meta, "strides"));
      if (std::optional<JsonView> offset = meta.optionalField("storage_offset"))
        dims.push_back(*offset);
      for (const JsonView &dim : dims) {
        auto kase = dim.tryUnionCase();
        if (!kase || kase->first != "as_expr")
          continue;
        StringRef expr = kase->second.stringField("expr_str").value_or("?");
        if (!addSymbols(expr, out) && !llvm::is_contained(out, expr))
          out.push_back(expr.str());
      }
    }
  }
  for (const JsonView &node : listField(graph, "nodes"))
    for (const JsonView &body : subgraphs(node))
      collectSymbols(body, depth + 1, out);
}

} // namespace

Expected<llvm::SmallVector<std::string>>
duet::import::nodeOutputNames(const JsonView &node) {
  DUET_TRY(outputsField, node.field("outputs"));
  DUET_TRY(outputs, outputsField.elements());
  llvm::SmallVector<std::string> names;
  for (const JsonView &output : outputs) {
    DUET_TRY(kase, output.unionCase());
    std::vector<JsonView> tensors;
    if (kase.first == "as_tensor") {
      tensors.push_back(kase.second);
    } else if (kase.first == "as_tensors") {
      DUET_TRY(list, kase.second.elements());
      tensors = std::move(list);
    } else {
      names.emplace_back();
      continue;
    }
    for (const JsonView &tensor : tensors) {
      DUET_TRY(nameField, tensor.field("name"));
      DUET_TRY(name, nameField.string());
      names.push_back(name.str());
    }
  }
  return names;
}

std::string duet::import::nodeName(const JsonView &node,
                                   llvm::ArrayRef<std::string> outputs,
                                   size_t index) {
  std::string name = node.stringField("name").value_or("").str();
  for (const std::string &out : outputs)
    if (name.empty())
      name = out;
  if (name.empty())
    name = "#" + std::to_string(index);
  return name;
}

std::vector<UnsupportedTarget>
duet::import::unsupportedTargets(const JsonView &graph,
                                 const std::optional<llvm::StringSet<>> &read) {
  std::vector<UnsupportedTarget> out;
  collectUnsupported(graph, 0, read, out);
  return out;
}

std::optional<llvm::StringSet<>>
duet::import::namesRead(const JsonView &graph) {
  llvm::StringSet<> read;
  // Deep enough for any graph torch.export writes (node, inputs, argument,
  // union, list, optional tensor), with submodule graphs nested to the
  // importer's limit.
  constexpr unsigned kMaxDepth = 16 * (kMaxRegionDepth + 2);
  if (!collectRead(graph.raw(), kMaxDepth, read))
    return std::nullopt;
  return read;
}

bool duet::import::isUnreadUnsupported(
    const JsonView &node, const std::optional<llvm::StringSet<>> &read) {
  std::optional<StringRef> target = node.stringField("target");
  if (!read || !target || lookupOp(*target) || isHigherOrder(*target))
    return false;
  // Only the ops no static program holds (a random draw, a symbolic size),
  // which write nothing: another op duet lacks may write into an argument
  // (`__ior__`, an `.out` overload) even when nothing reads its result.
  StringRef op = target->rsplit('.').first.rsplit('.').second;
  if (outsideStaticInference(*target).empty() || op.ends_with("_") ||
      target->ends_with(".out"))
    return false;
  Expected<llvm::SmallVector<std::string>> outputs = nodeOutputNames(node);
  if (!outputs) {
    llvm::consumeError(outputs.takeError());
    return false;
  }
  return llvm::none_of(*outputs, [&](const std::string &name) {
    return !name.empty() && read->contains(name);
  });
}

std::vector<std::string> duet::import::shapeSymbols(const JsonView &graph) {
  std::vector<std::string> out;
  collectSymbols(graph, 0, out);
  return out;
}

std::string duet::import::outsideStaticInference(StringRef target) {
  if (!target.consume_front("torch.ops.aten."))
    return "";
  if (target.ends_with(".out"))
    return "an out= variant, which writes into a tensor it is given: "
           "torch.export records the functional form, which duet imports";
  StringRef op = target.split('.').first;
  if (op.ends_with("_backward"))
    return "a gradient op: export the model in eval mode for inference, "
           "without a backward pass";
  if (llvm::is_contained({"rand", "randn", "randint", "randperm", "rand_like",
                          "randn_like", "randint_like", "bernoulli", "normal",
                          "uniform", "multinomial", "exponential"},
                         op))
    return "it draws random numbers, which a compiled program cannot "
           "reproduce: pass the random tensor as an input instead";
  if (op.starts_with("sym_"))
    return "it reads a symbolic (dynamic) size: export with static shapes";
  if (llvm::is_contained({"nonzero", "_local_scalar_dense", "masked_select",
                          "unique", "_unique2", "unique_consecutive", "item"},
                         op))
    return "its result's shape or value depends on the data, which a static "
           "program cannot hold";
  return "";
}


llvm::Error
duet::import::unsupportedTargetError(StringRef name, StringRef target,
                                     llvm::ArrayRef<UnsupportedTarget> all) {
  std::string what =
      isHigherOrder(target)
          ? ("higher-order op not supported by duet, which inlines " +
             inlinedHigherOrderOps() +
             " only: express the control flow without it in forward()")
                .str()
          : !outsideStaticInference(target).empty()
              ? "op not supported by duet: " + outsideStaticInference(target)
          : decomposedByExport(target)
              ? "op not supported by duet; ep.run_decompositions() rewrites "
                "it into core ATen ops: export with it and compile that "
                "program"
              : "op not supported by duet";
  std::string first = ("node '" + name + "' (" + target + "): " + what +
                       " (docs/ops.md lists the ATen ops duet imports)")
                          .str();
  size_t nodes = 0;
  for (const UnsupportedTarget &t : all)
    nodes += t.nodes.size();
  if (nodes <= 1)
    return unsupportedError(first);
  std::vector<std::string> details = {
      "the model uses " + std::to_string(all.size()) +
      (all.size() == 1 ? " op" : " ops") + " duet does not support, in " +
      std::to_string(nodes) + " nodes:"};
  for (const UnsupportedTarget &t : all) {
    std::string line =
        t.target + (t.nodes.size() == 1 ? ": node " : ": nodes ");
    for (auto [i, node] : llvm::enumerate(t.nodes))
      line += (i ? ", '" : "'") + node + "'";
    if (decomposedByExport(t.target))
      line += " (run_decompositions() rewrites it)";
    details.push_back(std::move(line));
  }
  return llvm::make_error<DetailedError>(std::move(first), std::move(details));
}
