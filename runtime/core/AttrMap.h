//===- AttrMap.h - op attributes held in a map ------------------*- C++ -*-===//
//
// The plain OpAttrs implementation: attribute name to value. Tests build their
// ops with it, and the program loader fills one per kernel call.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_ATTRMAP_H
#define DUET_RUNTIME_CORE_ATTRMAP_H

#include "runtime/core/Kernel.h"

#include <map>
#include <string>
#include <variant>

namespace duet::rt {

/// One attribute value: integer, float, bool, integer list, or string (enum).
using AttrValue =
    std::variant<int64_t, double, bool, std::vector<int64_t>, std::string>;

/// Attributes by name. Setters return the map so that calls chain:
/// `AttrMap().setInts("dim", {1}).setBool("keepdim", true)`.
class AttrMap final : public OpAttrs {
public:
  AttrMap &set(std::string name, AttrValue value);
  AttrMap &setInt(std::string name, int64_t value);
  AttrMap &setFloat(std::string name, double value);
  AttrMap &setBool(std::string name, bool value);
  AttrMap &setInts(std::string name, std::vector<int64_t> value);
  AttrMap &setString(std::string name, std::string value);

  bool contains(std::string_view name) const;
  const std::map<std::string, AttrValue, std::less<>> &values() const {
    return values_;
  }

  std::optional<int64_t> getInt(std::string_view name) const override;
  /// An integer attribute reads as a float too: a program may record `2`
  /// where the op documents a float.
  std::optional<double> getFloat(std::string_view name) const override;
  std::optional<bool> getBool(std::string_view name) const override;
  std::optional<std::vector<int64_t>>
  getInts(std::string_view name) const override;
  std::optional<std::string_view>
  getString(std::string_view name) const override;

private:
  const AttrValue *find(std::string_view name) const;
  std::map<std::string, AttrValue, std::less<>> values_;
};

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_ATTRMAP_H
