//===- BackendLowering.cpp - backend option values ------------------------===//

#include "partitioners/common/BackendLowering.h"

namespace duet::partition {

void BackendOptions::set(llvm::StringRef name, llvm::StringRef value) {
  for (auto &[key, text] : entries)
    if (key == name) {
      text = value.str();
      return;
    }
  entries.emplace_back(name.str(), value.str());
}

std::optional<llvm::StringRef> BackendOptions::get(llvm::StringRef name) const {
  for (const auto &[key, text] : entries)
    if (key == name)
      return llvm::StringRef(text);
  return std::nullopt;
}

std::string markdownCell(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

} // namespace duet::partition
