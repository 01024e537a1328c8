//===- error_code.h - what kind of failure an error is ---------*- C++ -*-===//
//
// Part of duet's installed, stable C++ API (include/duet/): the codes of
// duet::Status (status.h), apart so that the runtime's own errors can carry
// one without the API's Status class. Standard library only.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_ERROR_CODE_H
#define DUET_ERROR_CODE_H

namespace duet {

/// What kind of failure a Status carries. The numbers are those of the
/// `duet` command line's exit codes (docs/cli.md), so a tool built on the
/// API can exit with `static_cast<int>(status.code())`.
enum class ErrorCode : int {
  ok = 0,
  /// Anything not listed below, including an internal error.
  failure = 1,
  /// The model, program or input is malformed or does not fit the call.
  badInput = 2,
  /// The model uses an op, dtype or backend this build cannot handle.
  unsupported = 3,
  /// Strict compilation and some op fell to the portable kernels.
  strictFallback = 4,
  /// A file could not be read or written.
  ioError = 5,
};

} // namespace duet

#endif // DUET_ERROR_CODE_H
