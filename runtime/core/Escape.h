//===- Escape.h - file content made safe to quote in a message -*- C++ -*-===//
//
// Names in a program file (tensors, ops, attributes, backends) are bytes the
// file chose. A message that quotes one verbatim can carry a NUL that cuts
// it short, a newline that forges a second line, or terminal control
// sequences, so every message that quotes file content goes through
// escaped().
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_ESCAPE_H
#define DUET_RUNTIME_CORE_ESCAPE_H

#include <string>
#include <string_view>

namespace duet::rt {

/// `text` with printable ASCII kept and every other byte (control bytes,
/// NUL, DEL, bytes of 0x80 and above, valid UTF-8 or not) written as
/// `\xNN`; a backslash is doubled, so the result reads back unambiguously.
std::string escaped(std::string_view text);

} // namespace duet::rt

#endif // DUET_RUNTIME_CORE_ESCAPE_H
