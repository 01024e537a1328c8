#!/usr/bin/env bash
# Configures and builds the instrumented tree: clang 19 with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer coverage, so one build serves the
# sanitizer test run (`make test`) and the fuzz targets (`make fuzz`).
# NDEBUG stays defined as in Debian's LLVM: some LLVM headers change class
# layouts without it (llvm::Statistic), which would break the ABI with libMLIR.so.
# Usage: scripts/sanitize-build.sh BUILD_DIR
set -euo pipefail
dir=${1:?usage: $0 BUILD_DIR}
if [ ! -f "$dir/build.ninja" ]; then
  CC=clang-19 CXX=clang++-19 cmake -G Ninja -S . -B "$dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
    -DDUET_FUZZ=ON
fi
cmake --build "$dir"
