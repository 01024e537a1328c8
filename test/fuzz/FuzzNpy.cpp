//===- FuzzNpy.cpp - libFuzzer target: the .npy reader -------------------===//
//
// `duet run` reads its inputs from .npy files a user hands it. The target
// parses the bytes; an array that parses is copied into a tensor of its own
// dtype and shape (what `duet run` does with an input) and written back, and
// the written bytes must parse to the same array.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Npy.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace duet::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  NpyArray array;
  if (!parseNpy(data, size, "fuzz.npy", array).isOk())
    return 0;
  // Runtime::setInputFromNpy copies into arena memory, never null.
  std::vector<uint8_t> copy(std::max<size_t>(array.data.size(), 1));
  std::string notice;
  Status copied = copyNpyInto(array, "fuzz.npy", "input 0", array.dtype,
                              array.sizes, copy.data(), notice);
  if (!copied.isOk()) {
    std::fprintf(stderr,
                 "a parsed array does not copy into its own shape: %s\n",
                 copied.message().c_str());
    std::abort();
  }
  TensorView view;
  view.dtype = array.dtype;
  view.sizes = array.sizes;
  view.data = copy.data();
  std::vector<uint8_t> encoded;
  NpyArray again;
  if (!encodeNpy(view, encoded, notice).isOk() ||
      !parseNpy(encoded.data(), encoded.size(), "encoded.npy", again).isOk() ||
      again.dtype != array.dtype || again.sizes != array.sizes ||
      again.data != array.data) {
    std::fprintf(stderr, "a parsed array does not survive encodeNpy\n");
    std::abort();
  }
  return 0;
}
