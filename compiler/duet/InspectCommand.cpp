//===- InspectCommand.cpp - duet inspect ---------------------------------===//
//
// `duet inspect --json` is a stable interface for CI (docs/inspect-json.md):
// fields are added, never renamed or removed. `--svg` draws the program with
// Graphviz (`dot`, run as a subprocess; `--dot` writes its input instead).
//
// Names come from the file and are printed through printableName(), in the
// JSON, the text and the graph alike.
//
//===----------------------------------------------------------------------===//

#include "compiler/duet/Commands.h"
#include "runtime/cli/OutputFiles.h"
#include "runtime/cli/PrintableText.h"

#include "partitioners/common/BackendLowering.h"
#include "runtime/core/Program.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace duet::cli {
namespace {

struct InspectArgs {
  std::string program;
  bool json = false;
  std::string svg;
  std::string dot;
};

using nlohmann::json;

json opJson(const rt::KernelCall &call) {
  json out = {{"op", printableName(call.op)},
              {"inputs", call.inputs},
              {"outputs", call.outputs}};
  if (!call.node.empty())
    out["node"] = printableName(call.node);
  return out;
}

/// Partitions in execution order: each delegate call is one, and each run of
/// consecutive kernel calls is one portable partition.
json partitionsJson(const rt::Program &program) {
  json partitions = json::array();
  json *portable = nullptr;
  for (const rt::Instruction &instruction : program.instructions()) {
    if (const auto *call = std::get_if<rt::KernelCall>(&instruction)) {
      if (!portable) {
        partitions.push_back({{"id", partitions.size()},
                              {"backend", "portable"},
                              {"ops", json::array()}});
        portable = &partitions.back()["ops"];
      }
      portable->push_back(opJson(*call));
      continue;
    }
    const auto &call = std::get<rt::DelegateCall>(instruction);
    const rt::DelegateInfo &delegate = program.delegates()[call.delegate];
    json ops = json::array();
    for (const rt::KernelCall &op : delegate.ops)
      ops.push_back(opJson(op));
    partitions.push_back({{"id", partitions.size()},
                          {"backend", printableName(delegate.backend)},
                          {"delegate", call.delegate},
                          {"inputs", call.inputs},
                          {"outputs", call.outputs},
                          {"ops", ops}});
    // What the blob says of itself (Vulkan: its image format).
    if (const partition::BackendLowering *backend =
            partition::findBackendLowering(delegate.backend))
      for (const auto &[key, value] : backend->describeBlob(
               llvm::ArrayRef(delegate.blob.data, delegate.blob.size)))
        partitions.back()[key] = value;
    portable = nullptr;
  }
  return partitions;
}

json tensorJson(const rt::Program &program, int32_t id) {
  const rt::TensorInfo &t = program.tensors()[id];
  json out = {{"id", id},
              {"name", printableName(t.name)},
              {"dtype", rt::dtypeName(t.dtype)},
              {"sizes", t.sizes},
              {"kind", rt::tensorKindName(t.kind)},
              {"bytes", t.nbytes}};
  if (t.placement) {
    out["backend"] = printableName(t.placement->backend);
    out["storage"] = rt::storageName(t.placement->storage);
    out["layout"] = rt::layoutName(t.placement->layout);
    if (t.placement->storage == rt::Storage::texture3d)
      out["extents"] = t.placement->extents;
  } else {
    out["backend"] = "portable";
    out["storage"] = "host";
    out["layout"] = "contiguous";
  }
  if (t.arenaOffset >= 0)
    out["arena_offset"] = t.arenaOffset;
  return out;
}

//===----------------------------------------------------------------------===//
// The program as a graph
//===----------------------------------------------------------------------===//

/// Fill and border colour of a partition of `backend` (grey for portable).
std::pair<std::string, std::string> backendColors(const std::string &backend) {
  if (const partition::BackendLowering *known =
          partition::findBackendLowering(backend)) {
    auto [fill, border] = known->colors();
    return {fill.str(), border.str()};
  }
  return {"#ececec", "#6b7280"};
}

/// Text for a double-quoted DOT string.
std::string dotEscape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

/// Whether `call` in a partition of `backend` is a recorded layout
/// conversion: an emitter writes each `duet.layout_convert` (Vulkan's) as an
/// aten.clone between two tensors its backend stores differently.
bool isLayoutConversion(const rt::Program &program, const std::string &backend,
                        const rt::KernelCall &call) {
  if (call.op != "aten.clone" || call.inputs.size() != 1 ||
      call.outputs.size() != 1 || call.inputs[0] < 0 || call.outputs[0] < 0)
    return false;
  const auto &from = program.tensors()[call.inputs[0]].placement;
  const auto &to = program.tensors()[call.outputs[0]].placement;
  return from && to && from->backend == backend && to->backend == backend &&
         (from->storage != to->storage || from->layout != to->layout);
}

/// How a delegate stores a tensor: its texture packing ("width_packed"), or
/// "buffer", or "host".
std::string storageText(const rt::TensorInfo &tensor) {
  if (!tensor.placement)
    return "host";
  if (tensor.placement->storage != rt::Storage::texture3d)
    return std::string(rt::storageName(tensor.placement->storage));
  return std::string(rt::layoutName(tensor.placement->layout));
}

/// The program as a Graphviz graph: ops as boxes, tensors as ellipses
/// (constants left out), each partition a cluster coloured by its backend,
/// layout conversions as red diamonds. Clusters are named `cluster_p<id>`
/// after the partition ids of `--json`.
std::string programToDot(const rt::Program &program, const json &partitions) {
  std::string out;
  size_t conversions = 0;
  std::map<std::string, size_t> opsPerBackend;
  for (const json &p : partitions)
    opsPerBackend[p["backend"].get<std::string>()] += p["ops"].size();

  auto tensorNode = [&](int32_t id) {
    const rt::TensorInfo &t = program.tensors()[id];
    std::string shape = fmt::format("{}", fmt::join(t.sizes, "x"));
    std::string label =
        fmt::format("{}\\n{} [{}]", dotEscape(printableName(t.name)),
                    rt::dtypeName(t.dtype), shape);
    bool io =
        t.kind == rt::TensorKind::input || t.kind == rt::TensorKind::output;
    if (t.placement)
      label += "\\n" + storageText(t);
    return fmt::format("    t{} [shape=ellipse, label=\"{}\"{}];\n", id, label,
                       io ? ", style=\"bold,filled\", fillcolor=white" : "");
  };
  // Optional operands that are absent have id -1.
  auto isDrawn = [&](int32_t id) {
    return id >= 0 && static_cast<size_t>(id) < program.tensors().size() &&
           program.tensors()[id].kind != rt::TensorKind::constant;
  };

  std::set<int32_t> placed;
  std::string edges;
  std::string clusters;
  for (const json &p : partitions) {
    int64_t id = p["id"].get<int64_t>();
    std::string backend = p["backend"].get<std::string>();
    auto [fill, border] = backendColors(backend);
    clusters += fmt::format(
        "  subgraph cluster_p{} {{\n    label=\"partition {}: {} ({} ops)\";\n"
        "    style=\"filled,rounded\"; fillcolor=\"{}\"; color=\"{}\";\n",
        id, id, dotEscape(backend), p["ops"].size(), fill, border);
    size_t index = 0;
    for (const json &opJson : p["ops"]) {
      std::string node = fmt::format("p{}_op{}", id, index++);
      rt::KernelCall call;
      call.op = opJson["op"].get<std::string>();
      call.inputs = opJson["inputs"].get<std::vector<int32_t>>();
      call.outputs = opJson["outputs"].get<std::vector<int32_t>>();
      if (isLayoutConversion(program, backend, call)) {
        ++conversions;
        clusters += fmt::format(
            "    {} [shape=diamond, style=filled, fillcolor=\"#fecaca\", "
            "color=\"#b91c1c\", label=\"layout convert\\n{} -> {}\"];\n",
            node, storageText(program.tensors()[call.inputs[0]]),
            storageText(program.tensors()[call.outputs[0]]));
      } else {
        std::string name =
            call.op.rfind("aten.", 0) == 0 ? call.op.substr(5) : call.op;
        clusters +=
            fmt::format("    {} [shape=box, style=\"filled\", fillcolor=white, "
                        "color=\"{}\", label=\"{}\"];\n",
                        node, border, dotEscape(name));
      }
      for (int32_t input : call.inputs)
        if (isDrawn(input))
          edges += fmt::format("  t{} -> {};\n", input, node);
      for (int32_t output : call.outputs) {
        if (!isDrawn(output))
          continue;
        edges += fmt::format("  {} -> t{};\n", node, output);
        if (placed.insert(output).second)
          clusters += tensorNode(output);
      }
    }
    clusters += "  }\n";
  }

  size_t total = 0;
  std::string summary;
  for (const auto &[backend, count] : opsPerBackend) {
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ",
                           dotEscape(backend), count);
    total += count;
  }
  out += "digraph duet {\n  rankdir=TB;\n  newrank=true;\n"
         "  node [fontname=\"Helvetica\", fontsize=10];\n"
         "  graph [fontname=\"Helvetica\", fontsize=11];\n";
  out += fmt::format("  label=\"{}: {} ops ({}); {} layout conversion(s)\";\n"
                     "  labelloc=t;\n",
                     dotEscape(printableName(program.name())), total, summary,
                     conversions);
  // Inputs (and any tensor no op writes) stand outside the partitions.
  for (size_t id = 0; id < program.tensors().size(); ++id)
    if (isDrawn(static_cast<int32_t>(id)) && !placed.count(id))
      out += tensorNode(static_cast<int32_t>(id)).substr(2);
  out += clusters;
  out += edges;
  out += "}\n";
  return out;
}

/// Writes `text` to the temporary file `path`; false when it cannot.
bool writeTemporary(const std::string &path, const std::string &text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  return static_cast<bool>(file.flush());
}

/// Renders DOT text into an SVG file with Graphviz's `dot`.
int renderSvg(const std::string &dotText, const std::string &svgPath) {
  // Graphviz writes the temporary file; the SVG replaces `svgPath` only
  // once it is complete.
  std::unique_ptr<PendingOutput> svg;
  if (int code = PendingOutput::create(svgPath, svg))
    return code;
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/duet-inspect-XXXXXX.dot";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemps(name.data(), 4);
  if (fd < 0) {
    printError(fmt::format("cannot create a temporary file for the graph "
                           "({}): {}; set TMPDIR to a writable folder",
                           pattern, std::strerror(errno)));
    return kIoError;
  }
  close(fd);
  std::string dotPath(name.data());
  if (!writeTemporary(dotPath, dotText)) {
    std::remove(dotPath.c_str());
    printError(fmt::format("cannot write the temporary file '{}'", dotPath));
    return kIoError;
  }
  std::string format = "-Tsvg";
  std::string outFlag = "-o" + svg->writePath();
  char *argv[] = {const_cast<char *>("dot"), format.data(), outFlag.data(),
                  dotPath.data(), nullptr};
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, "dot", nullptr, nullptr, argv, environ);
  int status = 0;
  if (spawned == 0)
    waitpid(pid, &status, 0);
  std::remove(dotPath.c_str());
  if (spawned == ENOENT) {
    printError("--svg needs Graphviz, and 'dot' is not on PATH: install it "
               "(Debian: apt-get install graphviz), or write the graph with "
               "--dot FILE and render it elsewhere");
    return kFailure;
  }
  if (spawned != 0) {
    printError(
        fmt::format("cannot run Graphviz 'dot': {}", std::strerror(spawned)));
    return kFailure;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    printError(fmt::format(
        "Graphviz 'dot' failed ({} {}) drawing '{}'",
        WIFEXITED(status) ? "exit" : "signal",
        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), svgPath));
    return kFailure;
  }
  return svg->commit();
}

int runInspect(const InspectArgs &args) {
  CommandFiles files;
  files.addInput("the program", args.program);
  if (!args.svg.empty())
    files.addOutput("--svg", args.svg);
  if (!args.dot.empty())
    files.addOutput("--dot", args.dot);
  if (int code = files.check())
    return code;
  rt::LoadOptions options;
  // Inspection runs nothing: delegates need no backend in this build.
  options.inspectOnly = true;
  std::unique_ptr<rt::Program> program;
  rt::Status status = rt::Program::load(args.program, options, program);
  if (!status.isOk()) {
    printError(status.message());
    return kBadInput;
  }
  const rt::MemoryPlan &plan = program->memoryPlan();
  if (!args.svg.empty() || !args.dot.empty()) {
    std::string dotText = programToDot(*program, partitionsJson(*program));
    if (!args.dot.empty())
      if (int code = writeOutputs({{args.dot, dotText}}); code != kOk)
        return code;
    if (!args.svg.empty())
      if (int code = renderSvg(dotText, args.svg); code != kOk)
        return code;
    if (!args.json)
      return kOk;
  }
  if (args.json) {
    json tensors = json::array();
    for (size_t id = 0; id < program->tensors().size(); ++id)
      tensors.push_back(tensorJson(*program, static_cast<int32_t>(id)));
    json doc = {{"format_version", program->formatVersion()},
                {"file_bytes", program->fileBytes()},
                {"constant_bytes", program->constantSegmentBytes()},
                {"arena_bytes", plan.arenaBytes},
                {"arena_lower_bound_bytes", plan.peakBytes},
                {"inputs", program->inputs()},
                {"outputs", program->outputs()},
                {"tensors", tensors},
                {"partitions", partitionsJson(*program)}};
    fmt::print("{}\n", dumpJson(doc, 2));
    return kOk;
  }

  fmt::print("{}: format {}, {} bytes ({} of constants)\n",
             printableName(program->name()), program->formatVersion(),
             program->fileBytes(), program->constantSegmentBytes());
  fmt::print("arena {} bytes (lower bound {})\n", plan.arenaBytes,
             plan.peakBytes);
  auto describe = [&](int32_t id) {
    const rt::TensorInfo &t = program->tensors()[id];
    return fmt::format("%{} {} {} {}", id, printableName(t.name),
                       rt::dtypeName(t.dtype), fmt::join(t.sizes, "x"));
  };
  for (int32_t id : program->inputs())
    fmt::print("input  {}\n", describe(id));
  for (int32_t id : program->outputs())
    fmt::print("output {}\n", describe(id));
  json partitions = partitionsJson(*program);
  for (const json &p : partitions) {
    fmt::print("partition {} [{}]: {} ops\n", p["id"].get<int>(),
               p["backend"].get<std::string>(), p["ops"].size());
    for (const json &op : p["ops"])
      fmt::print("  {} ({}) -> ({})\n", op["op"].get<std::string>(),
                 fmt::join(op["inputs"].get<std::vector<int>>(), ", "),
                 fmt::join(op["outputs"].get<std::vector<int>>(), ", "));
  }
  return kOk;
}

} // namespace

Runner addInspectCommand(CLI::App &app) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App *cmd = addProgramCommand(
      app, "inspect", "Show a .duet program: tensors, partitions, memory plan",
      args->program);
  cmd->add_flag("--json", args->json,
                "print JSON (a stable interface; see docs/inspect-json.md)");
  cmd->add_option("--svg", args->svg,
                  "draw the graph into this SVG file: ops and tensors, each "
                  "partition a cluster coloured by backend, layout "
                  "conversions marked (needs Graphviz 'dot' on PATH)");
  cmd->add_option("--dot", args->dot,
                  "write the same graph as Graphviz DOT text to this file");
  return [args] { return runInspect(*args); };
}

} // namespace duet::cli
