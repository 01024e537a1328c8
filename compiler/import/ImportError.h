//===- ImportError.h - the importer's error values --------------*- C++ -*-===//
//
// Every importer error is a one-line message; the entry point prefixes the
// file name. The parts build them with this one helper.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_COMPILER_IMPORT_IMPORTERROR_H
#define DUET_COMPILER_IMPORT_IMPORTERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <system_error>

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

/// Whether an error's code is that of unsupportedError.
inline bool isUnsupported(std::error_code code) {
  return code == std::errc::not_supported;
}

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_IMPORTERROR_H
