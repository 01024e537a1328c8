//===- status.h - errors as values in duet's library API -------*- C++ -*-===//
//
// Part of duet's installed, stable C++ API (include/duet/). Every call of the
// API reports failure as a Status: a code and one readable line. Nothing
// throws out of the API and nothing exits the process.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_STATUS_H
#define DUET_STATUS_H

#include "duet/error_code.h"

#include <string>
#include <utility>

namespace duet {

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(ErrorCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool isOk() const { return code_ == ErrorCode::ok; }
  explicit operator bool() const { return isOk(); }
  ErrorCode code() const { return code_; }
  /// One line naming the file, node, op or limit at fault and what to do;
  /// empty when ok.
  const std::string &message() const { return message_; }

private:
  ErrorCode code_ = ErrorCode::ok;
  std::string message_;
};

} // namespace duet

#endif // DUET_STATUS_H
