//===- JsonView.cpp - checked access to parsed JSON -----------------------===//

#include "compiler/import/JsonView.h"

#include "compiler/import/ImportError.h"

#include "llvm/ADT/Twine.h"

#include <cmath>
#include <limits>

using namespace duet::import;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// `graph.nodes` under `graph`; a root path ending in ':' (an entry name)
/// is followed by a space.
std::string join(const std::string &path, llvm::StringRef key) {
  if (path.empty())
    return key.str();
  return path + (path.back() == ':' ? " " : ".") + key.str();
}

std::string describe(const nlohmann::json &v) {
  switch (v.type()) {
  case nlohmann::json::value_t::null:
    return "null";
  case nlohmann::json::value_t::object:
    return "an object";
  case nlohmann::json::value_t::array:
    return "a list";
  case nlohmann::json::value_t::string:
    return "the string \"" + v.get_ref<const std::string &>() + "\"";
  case nlohmann::json::value_t::boolean:
    return v.get<bool>() ? "true" : "false";
  case nlohmann::json::value_t::number_integer:
  case nlohmann::json::value_t::number_unsigned:
  case nlohmann::json::value_t::number_float:
    return "the number " + v.dump();
  default:
    return "an unexpected value";
  }
}

} // namespace

namespace {

/// Reads a document only to learn why it does not parse: nlohmann::json
/// reports the reason to a SAX handler instead of throwing it.
struct ParseErrorReader : nlohmann::json_sax<nlohmann::json> {
  std::string message;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &error) override {
    message = error.what();
    return false;
  }
};

} // namespace

Expected<nlohmann::json> duet::import::parseJson(StringRef text,
                                                 StringRef what) {
  nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(),
                                             /*cb=*/nullptr,
                                             /*allow_exceptions=*/false);
  if (!doc.is_discarded())
    return doc;
  ParseErrorReader reader;
  nlohmann::json::sax_parse(text.begin(), text.end(), &reader);
  return importError(what + " is not valid JSON (" + reader.message +
                     "); the archive is corrupt, re-export it");
}

llvm::Error JsonView::typeError(StringRef what) const {
  // A root path already ends in ':'.
  std::string at = where.empty() || where.back() == ':' ? where : where + ":";
  return importError(at + " expected " + what + ", got " + describe(*value));
}

Expected<JsonView> JsonView::field(StringRef key) const {
  if (!value->is_object())
    return typeError("an object");
  auto it = value->find(key.str());
  if (it == value->end() || it->is_null())
    return importError(where +
                       (!where.empty() && where.back() == ':' ? "" : ":") +
                       " missing field '" + key + "'");
  return JsonView(*it, join(where, key));
}

std::optional<JsonView> JsonView::optionalField(StringRef key) const {
  if (!value->is_object())
    return std::nullopt;
  auto it = value->find(key.str());
  if (it == value->end() || it->is_null())
    return std::nullopt;
  return JsonView(*it, join(where, key));
}

Expected<std::vector<JsonView>> JsonView::elements() const {
  if (!value->is_array())
    return typeError("a list");
  std::vector<JsonView> out;
  out.reserve(value->size());
  size_t i = 0;
  for (const nlohmann::json &element : *value)
    out.emplace_back(element, where + "[" + std::to_string(i++) + "]");
  return out;
}

Expected<std::vector<std::pair<std::string, JsonView>>>
JsonView::members() const {
  if (!value->is_object())
    return typeError("an object");
  std::vector<std::pair<std::string, JsonView>> out;
  for (auto it = value->begin(); it != value->end(); ++it)
    out.emplace_back(it.key(), JsonView(it.value(), join(where, it.key())));
  return out;
}

Expected<std::pair<std::string, JsonView>> JsonView::unionCase() const {
  if (!value->is_object() || value->size() != 1)
    return typeError("a one-key union object");
  auto it = value->begin();
  return std::make_pair(it.key(), JsonView(it.value(), join(where, it.key())));
}

std::optional<StringRef> JsonView::stringField(StringRef key) const {
  std::optional<JsonView> member = optionalField(key);
  if (!member || !member->isString())
    return std::nullopt;
  return StringRef(member->raw().get_ref<const std::string &>());
}

std::optional<std::pair<std::string, JsonView>> JsonView::tryUnionCase() const {
  if (!value->is_object() || value->size() != 1)
    return std::nullopt;
  auto it = value->begin();
  return std::make_pair(it.key(), JsonView(it.value(), join(where, it.key())));
}

Expected<int64_t> JsonView::integer() const {
  if (value->is_number_unsigned()) {
    uint64_t u = value->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return typeError("a 64-bit signed integer");
    return static_cast<int64_t>(u);
  }
  if (value->is_number_integer())
    return value->get<int64_t>();
  return typeError("an integer");
}

Expected<double> JsonView::number() const {
  if (value->is_number())
    return value->get<double>();
  if (value->is_string()) {
    const std::string &s = value->get_ref<const std::string &>();
    if (s == "Infinity")
      return std::numeric_limits<double>::infinity();
    if (s == "-Infinity")
      return -std::numeric_limits<double>::infinity();
    if (s == "NaN")
      return std::numeric_limits<double>::quiet_NaN();
  }
  return typeError("a number");
}

Expected<bool> JsonView::boolean() const {
  if (!value->is_boolean())
    return typeError("true or false");
  return value->get<bool>();
}

Expected<StringRef> JsonView::string() const {
  if (!value->is_string())
    return typeError("a string");
  return StringRef(value->get_ref<const std::string &>());
}

Expected<llvm::SmallVector<int64_t>> JsonView::integers() const {
  Expected<std::vector<JsonView>> list = elements();
  if (!list)
    return list.takeError();
  llvm::SmallVector<int64_t> out;
  for (const JsonView &element : *list) {
    Expected<int64_t> v = element.integer();
    if (!v)
      return v.takeError();
    out.push_back(*v);
  }
  return out;
}

Expected<llvm::SmallVector<double>> JsonView::numbers() const {
  Expected<std::vector<JsonView>> list = elements();
  if (!list)
    return list.takeError();
  llvm::SmallVector<double> out;
  for (const JsonView &element : *list) {
    Expected<double> v = element.number();
    if (!v)
      return v.takeError();
    out.push_back(*v);
  }
  return out;
}
