//===- Pt2Importer.cpp - torch.export .pt2 archives to the aten dialect ---===//

#include "compiler/import/Pt2Importer.h"

#include "compiler/import/ImportError.h"
#include "compiler/import/GraphImporter.h"
#include "compiler/import/Pt2Archive.h"

#include "mlir/IR/AsmState.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace duet::import;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

constexpr StringRef kModelEntry = "models/model.json";
constexpr StringRef kWeightsConfigEntry =
    "data/weights/model_weights_config.json";
constexpr StringRef kConstantsConfigEntry =
    "data/constants/model_constants_config.json";

/// `message` on one line: control characters that came from the archive
/// (names, JSON strings) are written as escapes. A DetailedError's lines
/// are each made one line so.
std::string oneLine(llvm::StringRef message) {
  std::string out;
  for (char c : message) {
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
      continue;
    }
    out += "\\x";
    out += llvm::hexdigit(byte >> 4, /*LowerCase=*/true);
    out += llvm::hexdigit(byte & 15, /*LowerCase=*/true);
  }
  return out;
}

/// Reads and parses a JSON entry of the archive.
Expected<nlohmann::json> readJson(Pt2Archive &archive, StringRef entry) {
  Expected<EntryBytes> bytes = archive.read(entry);
  if (!bytes)
    return bytes.takeError();
  return parseJson(StringRef(bytes->bytes.data(), bytes->bytes.size()), entry);
}

} // namespace

struct ImportedProgram::Storage {
  std::unique_ptr<Pt2Archive> archive;
  WeightMemory memory;

  ~Storage() {
    // The context outlives this memory; leave it no blob that points here.
    for (mlir::DenseResourceElementsHandle &handle : memory.blobs)
      if (auto *entry = handle.getResource())
        entry->setBlob(mlir::AsmResourceBlob());
  }
};

ImportedProgram::ImportedProgram(std::unique_ptr<Storage> storage,
                                 mlir::OwningOpRef<mlir::ModuleOp> moduleOp)
    : storage(std::move(storage)), moduleOp(std::move(moduleOp)) {}

ImportedProgram::ImportedProgram(ImportedProgram &&) noexcept = default;

ImportedProgram &ImportedProgram::operator=(ImportedProgram &&other) noexcept {
  // Drop the old module before the memory its blobs point into.
  moduleOp = std::move(other.moduleOp);
  storage = std::move(other.storage);
  return *this;
}

ImportedProgram::~ImportedProgram() = default;

const ImportStats &ImportedProgram::stats() const {
  return storage->memory.stats;
}

namespace {

/// Imports `archive` (or reports the error of opening it), which `storage`
/// keeps with the weights' memory; `name` is the file name errors start with.
Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importArchive(Expected<std::unique_ptr<Pt2Archive>> archive,
              ImportedProgram::Storage &storage, StringRef name,
              mlir::MLIRContext &ctx) {
  auto prefixed = [&](Error err) -> Error {
    bool unsupported = false;
    std::string message;
    std::vector<std::string> details;
    llvm::handleAllErrors(
        std::move(err),
        [&](const DetailedError &info) {
          unsupported = true;
          message += (message.empty() ? "" : "; ") + info.message;
          for (const std::string &line : info.details)
            details.push_back(oneLine(line));
        },
        [&](const llvm::ErrorInfoBase &info) {
          unsupported |= isUnsupported(info.convertToErrorCode());
          message += (message.empty() ? "" : "; ") + info.message();
        });
    std::string line = oneLine((name + ": " + message).str());
    if (!details.empty())
      return llvm::make_error<DetailedError>(std::move(line),
                                             std::move(details));
    return unsupported ? unsupportedError(line) : importError(line);
  };
  if (!archive)
    return prefixed(archive.takeError());
  storage.archive = std::move(*archive);
  Pt2Archive &zip = *storage.archive;
  storage.memory.archive = &zip;
  if (!zip.contains(kModelEntry))
    return prefixed(
        importError("the archive has no '" + zip.root() + "/" + kModelEntry +
                    "'; expected a program saved by torch.export.save "
                    "(PyTorch 2.9 to 2.11)"));
  if (zip.contains("byteorder")) {
    Expected<EntryBytes> order = zip.read("byteorder");
    if (!order)
      return prefixed(order.takeError());
    StringRef text(order->bytes.data(), order->bytes.size());
    if (text.trim() != "little")
      return prefixed(
          importError("the weights are stored in '" + text.trim() +
                      "' byte order; duet reads little-endian archives "
                      "only"));
  }

  Expected<nlohmann::json> model = readJson(zip, kModelEntry);
  if (!model)
    return prefixed(model.takeError());
  std::optional<nlohmann::json> configs[2];
  ProgramJson json{JsonView(*model, (kModelEntry + ":").str()), {}, {}};
  for (auto [i, entry] : llvm::enumerate(std::array<StringRef, 2>{
           kWeightsConfigEntry, kConstantsConfigEntry})) {
    if (!zip.contains(entry))
      continue;
    Expected<nlohmann::json> config = readJson(zip, entry);
    if (!config)
      return prefixed(config.takeError());
    configs[i] = std::move(*config);
    Expected<JsonView> payloads =
        JsonView(*configs[i], (entry + ":").str()).field("config");
    if (!payloads)
      return prefixed(payloads.takeError());
    (i == 0 ? json.weights : json.constants) = *payloads;
  }

  Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      buildProgram(ctx, name, json, storage.memory);
  if (!module)
    return prefixed(module.takeError());
  return std::move(*module);
}

} // namespace

Expected<ImportedProgram> duet::import::importPt2(StringRef path,
                                                  mlir::MLIRContext &ctx) {
  auto storage = std::make_unique<ImportedProgram::Storage>();
  Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      importArchive(Pt2Archive::open(path), *storage, path, ctx);
  if (!module)
    return module.takeError();
  return ImportedProgram(std::move(storage), std::move(*module));
}

Expected<ImportedProgram>
duet::import::importPt2FromMemory(llvm::ArrayRef<char> bytes, StringRef name,
                                  mlir::MLIRContext &ctx) {
  auto storage = std::make_unique<ImportedProgram::Storage>();
  Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      importArchive(Pt2Archive::openBytes(bytes), *storage, name, ctx);
  if (!module)
    return module.takeError();
  return ImportedProgram(std::move(storage), std::move(*module));
}
