//===- JsonView.h - checked access to parsed JSON ---------------*- C++ -*-===//
//
// The importer is built without exceptions, and nlohmann::json throws (that
// is, aborts) on a wrong-typed access. Every read of the program JSON goes
// through JsonView instead: each accessor checks the type first and returns an
// error that names where in the document the value sits.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_JSONVIEW_H
#define DUET_COMPILER_IMPORT_JSONVIEW_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace duet::import {

/// Parses `text` without throwing; the error names `what` (the entry name).
llvm::Expected<nlohmann::json> parseJson(llvm::StringRef text,
                                         llvm::StringRef what);

/// A JSON value and its path from the document root, for messages: the root
/// is named by its entry followed by ':' (`models/model.json:`), members
/// follow as `models/model.json: graph.nodes[3].target`.
class JsonView {
public:
  JsonView(const nlohmann::json &value, std::string path)
      : value(&value), where(std::move(path)) {}

  const std::string &path() const { return where; }
  const nlohmann::json &raw() const { return *value; }
  bool isString() const { return value->is_string(); }

  /// The member `key` of an object; an error when absent or null.
  llvm::Expected<JsonView> field(llvm::StringRef key) const;
  /// The member `key` of an object, or nothing when absent or null.
  std::optional<JsonView> optionalField(llvm::StringRef key) const;
  /// The elements of a list.
  llvm::Expected<std::vector<JsonView>> elements() const;
  /// The members of an object, in document order.
  llvm::Expected<std::vector<std::pair<std::string, JsonView>>> members() const;
  /// The case of a one-key union object (`{"as_int": 3}`): its key and value.
  llvm::Expected<std::pair<std::string, JsonView>> unionCase() const;

  /// The string member `key`, or nothing when it is absent or not a string
  /// (for fields that only improve a message or a location).
  std::optional<llvm::StringRef> stringField(llvm::StringRef key) const;
  /// The case of a one-key union object, or nothing when this is not one.
  std::optional<std::pair<std::string, JsonView>> tryUnionCase() const;

  llvm::Expected<int64_t> integer() const;
  /// A number; also the strings "Infinity", "-Infinity" and "NaN", which is
  /// how torch.export writes non-finite floats.
  llvm::Expected<double> number() const;
  llvm::Expected<bool> boolean() const;
  llvm::Expected<llvm::StringRef> string() const;
  llvm::Expected<llvm::SmallVector<int64_t>> integers() const;
  llvm::Expected<llvm::SmallVector<double>> numbers() const;

  /// An error "<path>: expected <what>, got <type>".
  llvm::Error typeError(llvm::StringRef what) const;

private:
  const nlohmann::json *value;
  std::string where;
};

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_JSONVIEW_H
