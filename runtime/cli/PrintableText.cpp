//===- PrintableText.cpp - bytes from a file, made safe to print ----------===//

#include "runtime/cli/PrintableText.h"

#include <cstdint>

namespace duet::cli {
namespace {

/// The length of the valid UTF-8 sequence at `s` (of `n` bytes left), or 0
/// when it is not one: overlong forms, surrogates and code points past
/// U+10FFFF are invalid (RFC 3629).
size_t utf8Length(const unsigned char *s, size_t n) {
  unsigned char b = s[0];
  if (b < 0x80)
    return 1;
  size_t length;
  unsigned char low = 0x80, high = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) {
    length = 2;
  } else if (b >= 0xe0 && b <= 0xef) {
    length = 3;
    if (b == 0xe0)
      low = 0xa0;
    else if (b == 0xed)
      high = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    length = 4;
    if (b == 0xf0)
      low = 0x90;
    else if (b == 0xf4)
      high = 0x8f;
  } else {
    return 0;
  }
  if (n < length || s[1] < low || s[1] > high)
    return 0;
  for (size_t i = 2; i < length; ++i)
    if (s[i] < 0x80 || s[i] > 0xbf)
      return 0;
  return length;
}

bool isControl(const unsigned char *s, size_t length) {
  if (length == 1)
    return s[0] < 0x20 || s[0] == 0x7f;
  // U+0080-U+009F, the C1 controls, are 0xc2 0x80-0x9f.
  return length == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

std::string escape(std::string_view text, bool forMessage) {
  static const char *const kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  const auto *s = reinterpret_cast<const unsigned char *>(text.data());
  for (size_t i = 0, n = text.size(); i < n;) {
    bool kept = forMessage && (s[i] == '\n' || s[i] == '\t');
    size_t length = utf8Length(s + i, n - i);
    if (!kept && (!length || isControl(s + i, length))) {
      // A control character is escaped byte by byte, as invalid bytes are,
      // so that each \xNN stands for one byte of the file.
      out += "\\x";
      out += kHex[s[i] >> 4];
      out += kHex[s[i] & 0xf];
      ++i;
      continue;
    }
    if (!forMessage && s[i] == '\\')
      out += '\\';
    out.append(text.data() + i, length);
    i += length;
  }
  return out;
}

} // namespace

std::string printableName(std::string_view bytes) {
  return escape(bytes, /*forMessage=*/false);
}

std::string printableMessage(std::string_view text) {
  return escape(text, /*forMessage=*/true);
}

} // namespace duet::cli
