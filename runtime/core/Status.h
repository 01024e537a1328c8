//===- Status.h - errors as values in the runtime ---------------*- C++ -*-===//
//
// The runtime reports every failure as a Status carrying one readable line;
// nothing throws across its API and nothing aborts on bad input.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CORE_STATUS_H
#define DUET_RUNTIME_CORE_STATUS_H

#include "duet/error_code.h"

#include <fmt/format.h>

#include <string>
#include <utility>

namespace duet::rt {

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status ok() { return Status(); }

  /// An error whose message is formatted with fmt.
  template <typename... Args>
  static Status error(fmt::format_string<Args...> format, Args &&...args) {
    Status s;
    s.failed_ = true;
    s.message_ = fmt::format(format, std::forward<Args>(args)...);
    return s;
  }

  bool isOk() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string &message() const { return message_; }

  /// The kind of failure its maker said it is (withCode), else `fallback`:
  /// the caller's view, which knows what it was doing (a load's errors are
  /// mostly about the program). A device or library that fails a call is
  /// ErrorCode::failure whatever the program, which only the backend knows.
  ErrorCode codeOr(ErrorCode fallback) const {
    return code_ == ErrorCode::ok ? fallback : code_;
  }
  /// The same error, of kind `code`.
  Status withCode(ErrorCode code) const {
    Status s = *this;
    if (failed_)
      s.code_ = code;
    return s;
  }

  /// The same error with `context` put in front ("loading x.duet: ...").
  Status withContext(const std::string &context) const {
    if (!failed_)
      return *this;
    Status s = *this;
    s.message_ = context + ": " + message_;
    return s;
  }

private:
  bool failed_ = false;
  /// ok: not said (codeOr).
  ErrorCode code_ = ErrorCode::ok;
  std::string message_;
};

} // namespace duet::rt

/// Returns the status from the enclosing function when it is an error.
#define DUET_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    ::duet::rt::Status duetStatus_ = (expr);                                   \
    if (!duetStatus_.isOk())                                                   \
      return duetStatus_;                                                      \
  } while (0)

#endif // DUET_RUNTIME_CORE_STATUS_H
