//===- PrintableText.h - bytes from a file, made safe to print --*- C++ -*-===//
//
// Names in a program (tensor and op names) are bytes the file chose, not
// validated text: they may be invalid UTF-8, which nlohmann::json refuses to
// dump, or hold control characters that move a terminal's cursor or break a
// DOT label. Everything the tools print from a file goes through here first.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_PRINTABLETEXT_H
#define DUET_RUNTIME_CLI_PRINTABLETEXT_H

#include <string>
#include <string_view>

namespace duet::cli {

/// `bytes` as valid UTF-8 without control characters, reversibly: a
/// backslash becomes `\\`, and each byte that is not part of a valid UTF-8
/// sequence or that encodes a control character (U+0000-U+001F, U+007F,
/// U+0080-U+009F) becomes `\xNN` (lowercase hex). Valid printable text is
/// unchanged. docs/inspect-json.md documents this for `duet inspect`.
std::string printableName(std::string_view bytes);

/// A message for the terminal: like printableName(), but newlines and tabs
/// are kept and backslashes left as they are, since messages are read by
/// people rather than decoded.
std::string printableMessage(std::string_view text);

/// `value` (nlohmann::json or ordered_json) as JSON text, `indent` spaces per
/// level (-1: one line). Invalid UTF-8 that escaped printableName() becomes
/// U+FFFD instead of throwing, so a dump never aborts the tool.
template <typename Json>
std::string dumpJson(const Json &value, int indent = -1) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false,
                    Json::error_handler_t::replace);
}

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_PRINTABLETEXT_H
