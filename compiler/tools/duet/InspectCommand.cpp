//===- InspectCommand.cpp - duet inspect ---------------------------------===//
//
// `duet inspect --json` is a stable interface for CI (docs/inspect-json.md):
// fields are added, never renamed or removed.
//
//===----------------------------------------------------------------------===//

#include "compiler/tools/duet/Commands.h"

#include "runtime/core/Program.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace duet::cli {
namespace {

struct InspectArgs {
  std::string program;
  bool json = false;
};

using nlohmann::json;

json opJson(const rt::KernelCall &call) {
  return {{"op", call.op}, {"inputs", call.inputs}, {"outputs", call.outputs}};
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
                          {"backend", delegate.backend},
                          {"delegate", call.delegate},
                          {"inputs", call.inputs},
                          {"outputs", call.outputs},
                          {"ops", ops}});
    portable = nullptr;
  }
  return partitions;
}

json tensorJson(const rt::Program &program, int32_t id) {
  const rt::TensorInfo &t = program.tensors()[id];
  json out = {{"id", id},
              {"name", t.name},
              {"dtype", rt::dtypeName(t.dtype)},
              {"sizes", t.sizes},
              {"kind", rt::tensorKindName(t.kind)},
              {"bytes", t.nbytes}};
  if (t.placement) {
    out["backend"] = t.placement->backend;
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

int runInspect(const InspectArgs &args) {
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
    fmt::print("{}\n", doc.dump(2));
    return kOk;
  }

  fmt::print("{}: format {}, {} bytes ({} of constants)\n", program->name(),
             program->formatVersion(), program->fileBytes(),
             program->constantSegmentBytes());
  fmt::print("arena {} bytes (lower bound {})\n", plan.arenaBytes,
             plan.peakBytes);
  auto describe = [&](int32_t id) {
    const rt::TensorInfo &t = program->tensors()[id];
    return fmt::format("%{} {} {} {}", id, t.name, rt::dtypeName(t.dtype),
                       fmt::join(t.sizes, "x"));
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
  CLI::App *cmd = app.add_subcommand(
      "inspect", "Show a .duet program: tensors, partitions, memory plan");
  cmd->add_option("program", args->program, "the .duet program")->required();
  cmd->add_flag("--json", args->json,
                "print JSON (a stable interface; see docs/inspect-json.md)");
  return [args] { return runInspect(*args); };
}

} // namespace duet::cli
