//===- Messages.h - how the tools report errors -----------------*- C++ -*-===//
//
// Messages go to stderr, data to stdout. An error is one line, "error: "
// and the message, with the bytes a file chose made printable
// (PrintableText.h).
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_MESSAGES_H
#define DUET_RUNTIME_CLI_MESSAGES_H

#include <string>

namespace duet::cli {

/// Whether messages may use colour: stderr is a terminal and NO_COLOR is
/// unset or empty.
bool useColor();
/// Prints "error: <message>" on stderr.
void printError(const std::string &message);

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_MESSAGES_H
