//===- Compiler.cpp - duet's library API for compiling models -------------===//
//
// A thin layer over compileModel (compiler/pipeline): it turns the options
// and results into standard-library types, errors into Status values, and
// adds what the command line adds (strict mode, per-backend counts).
//
//===----------------------------------------------------------------------===//

#include "duet/compiler.h"

#include "compiler/pipeline/Pipeline.h"
#include "dialects/aten/AtenDialect.h"
#include "partitioners/vulkan/DeviceProfile.h"
#include "partitioners/vulkan/VulkanRules.h"
#include "partitioners/xnnpack/XnnpackRules.h"
#include "runtime/kernels/Kernel.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace duet::compiler {
namespace {

ErrorCode codeOf(CompileErrorKind kind) {
  switch (kind) {
  case CompileErrorKind::badInput:
    return ErrorCode::badInput;
  case CompileErrorKind::unsupported:
    return ErrorCode::unsupported;
  case CompileErrorKind::internal:
    break;
  }
  return ErrorCode::failure;
}

/// Replaces every occurrence of `from` in `text` by `to`.
std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  if (from.empty())
    return text;
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// Compiles the archive at `path`; messages name it `shownAs`.
Status compilePath(const std::string &path, const std::string &shownAs,
                   const Options &options, Result &result) {
  result = Result();
  CompileOptions pipeline;
  pipeline.backends = options.backends;
  pipeline.partition.targetProfile = options.targetProfile;
  pipeline.partition.textureLimits = options.textureLimits;
  pipeline.partition.enableBf16 = options.enableBf16;
  pipeline.forceFp16 = options.forceFp16;

  CompileErrorKind kind = CompileErrorKind::internal;
  llvm::Expected<CompileResult> compiled = compileModel(path, pipeline, &kind);
  if (!compiled)
    return Status(codeOf(kind), replaceAll(llvm::toString(compiled.takeError()),
                                           path, shownAs));

  result.program = std::move(compiled->program);
  result.reportJson = reportToJson(compiled->report);
  result.backends = compiled->backends;
  result.ops = compiled->report.ops.size();
  BackendCounts counts = countByBackend(compiled->report);
  result.vulkanOps = counts.vulkan;
  result.xnnpackOps = counts.xnnpack;
  result.portableOps = counts.portable;
  result.delegatePartitions = compiled->report.partitions.size();
  result.portableOpReasons = portableOps(compiled->report);

  if (options.strict && !result.portableOpReasons.empty()) {
    std::string used;
    for (const std::string &backend : result.backends)
      used += (used.empty() ? "" : ",") + backend;
    std::string message = shownAs + ": strict: " +
                          std::to_string(result.portableOpReasons.size()) +
                          " op(s) fall to the portable kernels (backends: " +
                          (used.empty() ? "none" : used) + "): ";
    for (size_t i = 0; i < result.portableOpReasons.size(); ++i)
      message += (i ? "; " : "") + result.portableOpReasons[i];
    return Status(ErrorCode::strictFallback, message);
  }
  return Status::ok();
}

/// A private temporary file holding a copy of some bytes, removed when the
/// object goes away.
class TemporaryCopy {
public:
  Status create(const void *data, size_t size) {
    int fd = -1;
    llvm::SmallString<128> created;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "duet-model", "pt2", fd, created))
      return Status(ErrorCode::ioError,
                    "cannot create a temporary file for the model in memory: " +
                        ec.message() + "; set TMPDIR to a writable folder");
    path = created.str().str();
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out.write(static_cast<const char *>(data), size);
    out.close();
    if (out.has_error()) {
      std::string why = out.error().message();
      out.clear_error();
      return Status(ErrorCode::ioError,
                    "cannot write the model in memory to '" + path +
                        "': " + why);
    }
    return Status::ok();
  }
  ~TemporaryCopy() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  std::string path;
};

/// The decomposition pieces as "aten.sigmoid, aten.mul".
std::string joinPieces(llvm::ArrayRef<llvm::StringLiteral> pieces) {
  std::string out;
  for (llvm::StringLiteral piece : pieces)
    out += (out.empty() ? "" : ", ") + piece.str();
  return out;
}

std::string describePackings(partition::PackingSet set) {
  if (set == partition::kAnyPacking)
    return "any packing";
  std::string out;
  if (set & partition::kWidthPacked)
    out += "width";
  if (set & partition::kHeightPacked)
    out += std::string(out.empty() ? "" : "/") + "height";
  if (set & partition::kChannelsPacked)
    out += std::string(out.empty() ? "" : "/") + "channels";
  return out + "-packed";
}

/// "constant operands 1, 2" for a bit set of operands that must be
/// constants.
std::string describeWeights(unsigned mask) {
  std::string list;
  unsigned count = 0;
  for (unsigned bit = 0; bit < 32; ++bit)
    if (mask & (1u << bit)) {
      list += (list.empty() ? "" : ", ") + std::to_string(bit);
      ++count;
    }
  return (count == 1 ? "constant operand " : "constant operands ") + list;
}

OpSupport vulkanSupport(const partition::VulkanRule &rule) {
  OpSupport support;
  support.conditional = rule.predicate != nullptr;
  if (rule.lowering == partition::Lowering::Decomposed) {
    support.how = OpSupport::How::decomposed;
    support.detail = "as " + joinPieces(rule.decomposesInto);
    return support;
  }
  support.how = OpSupport::How::native;
  support.detail = describePackings(rule.packings);
  if (rule.layout == partition::LayoutKind::Independent)
    support.detail += " (per tensor)";
  support.detail += rule.bufferKernel ? "; buffer kernel" : "; textures only";
  if (rule.weights)
    support.detail += "; " + describeWeights(rule.weights);
  return support;
}

OpSupport xnnpackSupport(const partition::XnnpackRule &rule) {
  OpSupport support;
  support.conditional = rule.predicate != nullptr;
  if (rule.lowering == partition::Lowering::Decomposed) {
    support.how = OpSupport::How::decomposed;
    support.detail = "as " + joinPieces(rule.decomposesInto);
  } else {
    support.how = OpSupport::How::native;
    support.detail = rule.node.str();
  }
  if (rule.weights)
    support.detail += "; " + describeWeights(rule.weights);
  if (rule.bf16)
    support.detail += "; bf16 with enable-bf16";
  return support;
}

} // namespace

Status compileFile(const std::string &path, const Options &options,
                   Result &result) {
  return compilePath(path, path, options, result);
}

Status compileBuffer(const void *data, size_t size, const Options &options,
                     Result &result, const std::string &name) {
  result = Result();
  if (!data && size)
    return Status(ErrorCode::badInput, name +
                                           ": no bytes given for a model of " +
                                           std::to_string(size) + " bytes");
  TemporaryCopy copy;
  if (Status status = copy.create(data, size); !status)
    return status;
  return compilePath(copy.path, name, options, result);
}

std::vector<std::string> availableBackends() { return emittableBackends(); }

std::vector<std::string> builtinProfiles() {
  return partition::builtinProfileNames();
}

std::vector<OpRow> opSupportTable() {
  mlir::MLIRContext ctx;
  ctx.loadDialect<aten::AtenDialect>();
  llvm::StringMap<OpRow> rows;
  for (mlir::RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != aten::AtenDialect::getDialectNamespace())
      continue;
    OpRow &row = rows[name.getStringRef()];
    row.op = name.getStringRef().str();
    row.portable = rt::findKernel(row.op) != nullptr;
  }
  for (const partition::VulkanRule &rule : partition::VulkanRules::table())
    if (rows.count(rule.op))
      rows[rule.op].vulkan = vulkanSupport(rule);
  for (auto [op, why] : partition::VulkanRules::unsupportedOps())
    if (rows.count(op))
      rows[op].vulkan.detail = why.str();
  for (const partition::XnnpackRule &rule : partition::XnnpackRules::table())
    if (rows.count(rule.op))
      rows[rule.op].xnnpack = xnnpackSupport(rule);
  for (auto [op, why] : partition::XnnpackRules::unsupportedOps())
    if (rows.count(op))
      rows[op].xnnpack.detail = why.str();

  std::vector<OpRow> sorted;
  for (auto &entry : rows)
    sorted.push_back(std::move(entry.second));
  std::sort(sorted.begin(), sorted.end(),
            [](const OpRow &a, const OpRow &b) { return a.op < b.op; });
  return sorted;
}

} // namespace duet::compiler
