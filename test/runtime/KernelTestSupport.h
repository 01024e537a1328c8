//===- KernelTestSupport.h - tensors and calls for kernel tests -*- C++ -*-===//

#ifndef DUET_TEST_RUNTIME_KERNELTESTSUPPORT_H
#define DUET_TEST_RUNTIME_KERNELTESTSUPPORT_H

#include "runtime/core/AttrMap.h"
#include "runtime/core/Kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace duet::rt::test {

using Shape = std::vector<int64_t>;

/// A tensor that owns its memory, with guard bytes on both sides of the data
/// so that a test can tell whether a kernel wrote out of bounds.
class Tensor {
public:
  Tensor() = default;
  Tensor(DType dtype, Shape sizes);
  Tensor(const Tensor &other);
  Tensor &operator=(const Tensor &other);

  /// A tensor holding `values`, converted to `dtype` as aten.cast would.
  static Tensor of(Shape sizes, const std::vector<double> &values,
                   DType dtype = DType::f32);
  /// Uniform values in [lo, hi) from a fixed seed, rounded to `dtype`.
  static Tensor random(Shape sizes, uint32_t seed, double lo = -1.0,
                       double hi = 1.0, DType dtype = DType::f32);
  /// An optional operand left out.
  static Tensor absent();

  const TensorView &view() const { return view_; }
  DType dtype() const { return view_.dtype; }
  const Shape &sizes() const { return view_.sizes; }
  int64_t numel() const { return view_.numel(); }

  /// Every element as a double (16-bit floats widened, bool 0/1).
  std::vector<double> values() const;
  double at(int64_t i) const { return values().at(i); }
  /// The same values in another dtype, converted as aten.cast would.
  Tensor to(DType dtype) const;
  /// Whether the guard bytes around the data are untouched.
  bool guardsIntact() const;
  /// The raw bytes of the data.
  std::vector<uint8_t> bytes() const;

private:
  void bind();
  static constexpr size_t kGuard = 64;
  std::vector<uint8_t> storage_;
  TensorView view_;
};

/// Runs `op` on the tensors; outputs must already have their shapes.
Status runOp(std::string_view op, const OpAttrs &attrs,
             const std::vector<Tensor> &inputs, std::vector<Tensor> &outputs);

/// Runs a one-output op into a fresh float32 (or `dtype`) output of `shape`
/// and returns it; fails the current test if the kernel returns an error.
Tensor run1(std::string_view op, const OpAttrs &attrs,
            const std::vector<Tensor> &inputs, Shape shape,
            DType dtype = DType::f32);

/// Fails the current test unless every element is within `tolerance` of
/// `expected` (absolute, plus relative to the expected value).
void requireClose(const Tensor &actual, const std::vector<double> &expected,
                  double tolerance = 1e-5);

} // namespace duet::rt::test

#endif // DUET_TEST_RUNTIME_KERNELTESTSUPPORT_H
