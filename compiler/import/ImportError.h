//===- ImportError.h - the importer's error values --------------*- C++ -*-===//
//
// Every importer error is a one-line message, the entry point prefixing the
// file name; an unsupported one may carry more lines (DetailedError). The
// parts build them with these helpers.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_IMPORTERROR_H
#define DUET_COMPILER_IMPORT_IMPORTERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <system_error>
#include <vector>

/// Turns an Expected into its value, or returns its error from the enclosing
/// function.
#define DUET_TRY(var, expr)                                                    \
  auto var##OrErr = (expr);                                                    \
  if (!var##OrErr)                                                             \
    return var##OrErr.takeError();                                             \
  auto &var = *var##OrErr

namespace duet::import {

/// An import error carrying `message`.
inline llvm::Error importError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// An import error for a well-formed model that uses something duet does
/// not support (an op outside the table): `duet compile` exits with its
/// "unsupported" code for it rather than "bad input".
inline llvm::Error unsupportedError(const llvm::Twine &message) {
  return llvm::createStringError(std::make_error_code(std::errc::not_supported),
                                 message);
}

/// An unsupported error with lines below its message: `duet compile` prints
/// each indented under the first line (the list of every op a model uses that
/// duet lacks).
class DetailedError : public llvm::ErrorInfo<DetailedError> {
public:
  static inline char ID = 0;

  DetailedError(std::string message, std::vector<std::string> details)
      : message(std::move(message)), details(std::move(details)) {}

  void log(llvm::raw_ostream &os) const override {
    os << message;
    for (const std::string &line : details)
      os << "\n  " << line;
  }
  std::error_code convertToErrorCode() const override {
    return std::make_error_code(std::errc::not_supported);
  }

  std::string message;
  std::vector<std::string> details;
};

/// Whether an error's code is that of unsupportedError.
inline bool isUnsupported(std::error_code code) {
  return code == std::errc::not_supported;
}

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_IMPORTERROR_H
