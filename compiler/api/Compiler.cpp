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
#include "runtime/core/Kernel.h"

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
  pipeline.maxWork = options.maxWork;
  for (const auto &[name, value] : options.backendOptions)
    pipeline.partition.backendOptions.set(name, value);
  std::optional<PlacementPolicy> placement =
      parsePlacementPolicy(options.placement);
  if (!placement)
    return Status(ErrorCode::badInput,
                  "placement must be \"priority\" or \"cost\", got \"" +
                      options.placement + "\"");
  pipeline.partition.placement = *placement;

  CompileErrorKind kind = CompileErrorKind::internal;
  llvm::Expected<CompileResult> compiled = compileModel(path, pipeline, &kind);
  if (!compiled)
    return Status(codeOf(kind), replaceAll(llvm::toString(compiled.takeError()),
                                           path, shownAs));

  result.program = std::move(compiled->program);
  result.reportJson = reportToJson(compiled->report);
  result.backends = compiled->backends;
  result.ops = compiled->report.ops.size();
  // The counts end with the portable one.
  result.backendOps = countByBackend(compiled->report);
  result.portableOps = result.backendOps.back().second;
  result.backendOps.pop_back();
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

OpSupport supportOf(const partition::OpDoc &doc) {
  OpSupport support;
  if (doc.lowering)
    support.how = *doc.lowering == partition::Lowering::Native
                      ? OpSupport::How::native
                      : OpSupport::How::decomposed;
  support.conditional = doc.conditional;
  support.detail = doc.detail;
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

std::vector<BackendInfo> knownBackends() {
  std::vector<BackendInfo> backends;
  for (const partition::BackendLowering *backend :
       partition::backendLowerings()) {
    BackendInfo &info = backends.emplace_back();
    info.name = backend->name().str();
    info.title = backend->title().str();
    for (const partition::OptionSpec &spec : backend->options())
      info.options.push_back(
          {spec.name.str(), spec.value.str(), spec.help.str()});
  }
  return backends;
}

std::vector<OpRow> opSupportTable() {
  mlir::MLIRContext ctx;
  ctx.loadDialect<aten::AtenDialect>();
  llvm::ArrayRef<const partition::BackendLowering *> backends =
      partition::backendLowerings();
  llvm::StringMap<OpRow> rows;
  for (mlir::RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != aten::AtenDialect::getDialectNamespace())
      continue;
    OpRow &row = rows[name.getStringRef()];
    row.op = name.getStringRef().str();
    row.portable = rt::findKernel(row.op) != nullptr;
    row.backends.resize(backends.size());
  }
  for (auto [index, backend] : llvm::enumerate(backends))
    for (const partition::OpDoc &doc : backend->describeOps())
      if (rows.count(doc.op))
        rows[doc.op].backends[index] = supportOf(doc);

  std::vector<OpRow> sorted;
  for (auto &entry : rows)
    sorted.push_back(std::move(entry.second));
  std::sort(sorted.begin(), sorted.end(),
            [](const OpRow &a, const OpRow &b) { return a.op < b.op; });
  return sorted;
}

} // namespace duet::compiler
