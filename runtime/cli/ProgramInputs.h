//===- ProgramInputs.h - loading a program and giving it inputs -*- C++ -*-===//
//
// What `run`, `bench` and `replay` do before their first run: load the
// program under the tools' environment (Environment.h), then set its inputs
// from .npy files, one per model input, or, where a command allows it, to
// seeded random values that are the same on every call.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_CLI_PROGRAMINPUTS_H
#define DUET_RUNTIME_CLI_PROGRAMINPUTS_H

#include "runtime/core/Runtime.h"

#include <memory>
#include <string>
#include <vector>

namespace duet::cli {

/// Loads `path` with `options` and the environment's Vulkan options; kOk,
/// or prints one error and returns its code: kBadInput unless the error
/// says otherwise (a device or library failing a call: kFailure; a CPU
/// XNNPACK cannot use: kUnsupported). `loadMs`, when given, is the time the
/// load took.
int loadProgram(const std::string &path, rt::LoadOptions options,
                std::unique_ptr<rt::Runtime> &runtime,
                double *loadMs = nullptr);

/// The model's inputs as messages list them: "x float32 (1, 3, 16, 16), …".
std::string describeInputs(const rt::Runtime &runtime);

/// Whether a command runs without --input files.
enum class RandomInputs { refused, allowed };

/// Sets every input of `runtime` (loaded from `program`) from `paths`, one
/// per input in the model's order, printing the notes of converted files
/// unless `quiet`; with no paths and `random` allowed, to values from a
/// generator seeded by the input's index: floats in [-1, 1], integers in
/// [0, 8), booleans 0 or 1. kOk, or prints one error and returns kBadInput.
int setInputs(rt::Runtime &runtime, const std::string &program,
              const std::vector<std::string> &paths, RandomInputs random,
              bool quiet);

} // namespace duet::cli

#endif // DUET_RUNTIME_CLI_PROGRAMINPUTS_H
