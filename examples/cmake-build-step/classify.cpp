//===- classify.cpp - run a compiled image classifier ---------------------===//
//
// Loads a .duet program, feeds it an image tensor from a .npy file, runs it
// and prints the five highest scores. Given a reference output (.npy), also
// prints the largest absolute difference from it.
//
//   classify model.duet input.npy [reference.npy]
//
//===----------------------------------------------------------------------===//

#include <duet/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

namespace {

int fail(const duet::Status &status) {
  std::fprintf(stderr, "error: %s\n", status.message().c_str());
  return static_cast<int>(status.code());
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s model.duet input.npy [reference.npy]\n",
                 argv[0]);
    return 2;
  }
  std::unique_ptr<duet::runtime::Model> model;
  if (duet::Status status = duet::runtime::Model::load(argv[1], model); !status)
    return fail(status);
  if (model->inputCount() != 1 || model->outputCount() != 1) {
    std::fprintf(stderr,
                 "error: %s has %zu inputs and %zu outputs; this "
                 "example takes one of each\n",
                 argv[1], model->inputCount(), model->outputCount());
    return 2;
  }

  std::string notice;
  if (duet::Status status = model->setInputFromNpy(0, argv[2], &notice);
      !status)
    return fail(status);
  if (!notice.empty())
    std::fprintf(stderr, "note: %s\n", notice.c_str());
  if (duet::Status status = model->run(); !status)
    return fail(status);

  std::vector<float> scores;
  if (duet::Status status = model->outputAsFloat32(0, scores); !status)
    return fail(status);
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  size_t top = std::min<size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + top, order.end(),
                    [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  std::printf("top-%zu of %s:\n", top, model->outputs()[0].name.c_str());
  for (size_t i = 0; i < top; ++i)
    std::printf("  class %zu: %.6f\n", order[i], scores[order[i]]);

  if (argc == 4) {
    duet::runtime::Tensor reference;
    std::vector<float> expected;
    if (duet::Status status = duet::runtime::readNpy(argv[3], reference);
        !status)
      return fail(status);
    if (duet::Status status =
            duet::runtime::toFloat32(reference.view(), expected);
        !status)
      return fail(status);
    if (expected.size() != scores.size()) {
      std::fprintf(stderr, "error: %s has %zu values, the output %zu\n",
                   argv[3], expected.size(), scores.size());
      return 2;
    }
    double maxDiff = 0, maxRef = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
      maxDiff = std::max(maxDiff, std::fabs(double(scores[i]) - expected[i]));
      maxRef = std::max(maxRef, std::fabs(double(expected[i])));
    }
    std::printf("max abs diff from %s: %.9g (max |ref| %.9g)\n", argv[3],
                maxDiff, maxRef);
  }
  return 0;
}
