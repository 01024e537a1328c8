//===- AttrMap.cpp - op attributes held in a map --------------------------===//

#include "runtime/core/AttrMap.h"

namespace duet::rt {

AttrMap &AttrMap::set(std::string name, AttrValue value) {
  values_.insert_or_assign(std::move(name), std::move(value));
  return *this;
}

AttrMap &AttrMap::setInt(std::string name, int64_t value) {
  return set(std::move(name), value);
}

AttrMap &AttrMap::setFloat(std::string name, double value) {
  return set(std::move(name), value);
}

AttrMap &AttrMap::setBool(std::string name, bool value) {
  return set(std::move(name), value);
}

AttrMap &AttrMap::setInts(std::string name, std::vector<int64_t> value) {
  return set(std::move(name), std::move(value));
}

AttrMap &AttrMap::setString(std::string name, std::string value) {
  return set(std::move(name), std::move(value));
}

bool AttrMap::contains(std::string_view name) const {
  return find(name) != nullptr;
}

const AttrValue *AttrMap::find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

std::optional<int64_t> AttrMap::getInt(std::string_view name) const {
  if (const AttrValue *v = find(name))
    if (auto *i = std::get_if<int64_t>(v))
      return *i;
  return std::nullopt;
}

std::optional<double> AttrMap::getFloat(std::string_view name) const {
  if (const AttrValue *v = find(name)) {
    if (auto *d = std::get_if<double>(v))
      return *d;
    if (auto *i = std::get_if<int64_t>(v))
      return static_cast<double>(*i);
  }
  return std::nullopt;
}

std::optional<bool> AttrMap::getBool(std::string_view name) const {
  if (const AttrValue *v = find(name))
    if (auto *b = std::get_if<bool>(v))
      return *b;
  return std::nullopt;
}

std::optional<std::vector<int64_t>>
AttrMap::getInts(std::string_view name) const {
  if (const AttrValue *v = find(name))
    if (auto *list = std::get_if<std::vector<int64_t>>(v))
      return *list;
  return std::nullopt;
}

std::optional<std::string_view>
AttrMap::getString(std::string_view name) const {
  if (const AttrValue *v = find(name))
    if (auto *s = std::get_if<std::string>(v))
      return std::string_view(*s);
  return std::nullopt;
}

} // namespace duet::rt
