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

namespace duet::import {

/// An import error carrying `message`.
inline llvm::Error importError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace duet::import

#endif // DUET_COMPILER_IMPORT_IMPORTERROR_H
