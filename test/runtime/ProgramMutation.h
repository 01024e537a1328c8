//===- ProgramMutation.h - semantic mutations of programs -------*- C++ -*-===//
//
// The property behind the loader's checks: a program is either refused at
// load or runs to the end. The tests take a good program apart into a
// ProgramSpec, change its meaning the way a damaged or hostile file could
// (an operand dropped or pointing elsewhere, an attribute deleted, retyped or
// absurd, a tensor of another shape, dtype or offset), write it again with
// ProgramBuilder and check that property on it.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_TEST_RUNTIME_PROGRAMMUTATION_H
#define DUET_TEST_RUNTIME_PROGRAMMUTATION_H

#include "runtime/core/Program.h"
#include "runtime/core/ProgramBuilder.h"
#include "runtime/core/Runtime.h"

#include <map>
#include <random>
#include <string>
#include <vector>

namespace duet::rt::test {

/// Everything ProgramBuilder needs to write a program again.
struct ProgramSpec {
  std::vector<TensorInfo> tensors;
  /// Constant bytes by tensor id.
  std::map<int32_t, std::vector<uint8_t>> constants;
  std::vector<int32_t> inputs, outputs;
  std::vector<Instruction> instructions;
  std::vector<DelegateSpec> delegates;
  MemoryPlan plan;

  /// The spec of a loaded program.
  static ProgramSpec of(const Program &program);
  /// The file; false when the writer refuses the spec (it checks only that
  /// sizes and constant bytes agree).
  bool serialize(std::vector<uint8_t> &bytes) const;
};

/// Applies one random semantic mutation to `spec` and says what it did.
std::string mutate(ProgramSpec &spec, std::mt19937 &random);

/// What happened to one mutated program.
enum class Outcome { unwritable, refused, ran };

/// Loads `bytes` with `options` and, when it loads, runs it once on zero
/// inputs (valid for every op of the programs the tests mutate). A program
/// that loads and then fails to run fails the current test, with `what`
/// (the mutations) and the message.
Outcome loadAndRun(const std::vector<uint8_t> &bytes,
                   const LoadOptions &options, const std::string &what);

} // namespace duet::rt::test

#endif // DUET_TEST_RUNTIME_PROGRAMMUTATION_H
