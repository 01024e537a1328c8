//===- KernelTestSupport.cpp - tensors and calls for kernel tests ---------===//

#include "KernelTestSupport.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

namespace duet::rt::test {
namespace {

constexpr uint8_t kGuardByte = 0xA5;

/// Reads element i of `t` as a double, whatever its dtype.
double readElement(const TensorView &t, int64_t i) {
  switch (t.dtype) {
  case DType::f32:
    return t.as<const float>()[i];
  case DType::f16:
    return halfToFloat(t.as<const uint16_t>()[i]);
  case DType::bf16:
    return bf16ToFloat(t.as<const uint16_t>()[i]);
  case DType::f64:
    return t.as<const double>()[i];
  case DType::i64:
    return static_cast<double>(t.as<const int64_t>()[i]);
  case DType::i32:
    return t.as<const int32_t>()[i];
  case DType::i16:
    return t.as<const int16_t>()[i];
  case DType::i8:
    return t.as<const int8_t>()[i];
  case DType::u8:
    return t.as<const uint8_t>()[i];
  case DType::boolean:
    return t.as<const uint8_t>()[i] != 0;
  }
  return 0;
}

} // namespace

Tensor::Tensor(DType dtype, Shape sizes) {
  view_.dtype = dtype;
  view_.sizes = std::move(sizes);
  storage_.assign(view_.bytes() + 2 * kGuard, kGuardByte);
  std::fill(storage_.begin() + kGuard, storage_.end() - kGuard, 0);
  bind();
}

Tensor::Tensor(const Tensor &other)
    : storage_(other.storage_), view_(other.view_) {
  bind();
}

Tensor &Tensor::operator=(const Tensor &other) {
  storage_ = other.storage_;
  view_ = other.view_;
  bind();
  return *this;
}

void Tensor::bind() {
  view_.data = storage_.empty() ? nullptr : storage_.data() + kGuard;
}

Tensor Tensor::absent() { return Tensor(); }

Tensor Tensor::of(Shape sizes, const std::vector<double> &values, DType dtype) {
  // Built as float64 and converted by the cast kernel: one conversion rule.
  Tensor wide(DType::f64, sizes);
  REQUIRE(static_cast<int64_t>(values.size()) == wide.numel());
  std::copy(values.begin(), values.end(), wide.view_.as<double>());
  return dtype == DType::f64 ? wide : wide.to(dtype);
}

Tensor Tensor::random(Shape sizes, uint32_t seed, double lo, double hi,
                      DType dtype) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  std::vector<double> values(n);
  for (double &v : values)
    v = static_cast<float>(dist(rng));
  return of(std::move(sizes), values, dtype);
}

std::vector<double> Tensor::values() const {
  std::vector<double> out(numel());
  for (int64_t i = 0; i < numel(); ++i)
    out[i] = readElement(view_, i);
  return out;
}

Tensor Tensor::to(DType dtype) const {
  Tensor out(dtype, sizes());
  std::vector<Tensor> outputs = {out};
  Status s = runOp("aten.cast", AttrMap(), {*this}, outputs);
  REQUIRE(s.isOk());
  return outputs[0];
}

bool Tensor::guardsIntact() const {
  if (storage_.empty())
    return true;
  for (size_t i = 0; i < kGuard; ++i)
    if (storage_[i] != kGuardByte ||
        storage_[storage_.size() - 1 - i] != kGuardByte)
      return false;
  return true;
}

std::vector<uint8_t> Tensor::bytes() const {
  if (storage_.empty())
    return {};
  return std::vector<uint8_t>(storage_.begin() + kGuard,
                              storage_.end() - kGuard);
}

Status runOp(std::string_view op, const OpAttrs &attrs,
             const std::vector<Tensor> &inputs, std::vector<Tensor> &outputs) {
  KernelFn kernel = findKernel(op);
  if (!kernel)
    return Status::error("no kernel for {}", op);
  std::vector<TensorView> in, out;
  for (const Tensor &t : inputs)
    in.push_back(t.view());
  for (const Tensor &t : outputs)
    out.push_back(t.view());
  // What the loader checks first, on the same operands without their data:
  // a call that passes runs, and a call a kernel refuses is refused there
  // (all but the checks that read values).
  std::vector<TensorView> shapesIn = in, shapesOut = out;
  std::vector<bool> given;
  for (TensorView &view : shapesIn) {
    given.push_back(view.present());
    view.data = nullptr;
  }
  for (TensorView &view : shapesOut)
    view.data = nullptr;
  DUET_RETURN_IF_ERROR(checkKernelCall(op, attrs, shapesIn, given, shapesOut));
  return kernel(attrs, in, out);
}

Tensor run1(std::string_view op, const OpAttrs &attrs,
            const std::vector<Tensor> &inputs, Shape shape, DType dtype) {
  std::vector<Tensor> outputs = {Tensor(dtype, std::move(shape))};
  Status s = runOp(op, attrs, inputs, outputs);
  INFO(s.message());
  REQUIRE(s.isOk());
  REQUIRE(outputs[0].guardsIntact());
  return outputs[0];
}

void requireClose(const Tensor &actual, const std::vector<double> &expected,
                  double tolerance) {
  std::vector<double> got = actual.values();
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", expected " << expected[i]);
    if (std::isnan(expected[i])) {
      REQUIRE(std::isnan(got[i]));
      continue;
    }
    if (std::isinf(expected[i])) {
      REQUIRE(got[i] == expected[i]);
      continue;
    }
    REQUIRE(std::fabs(got[i] - expected[i]) <=
            tolerance * (1.0 + std::fabs(expected[i])));
  }
}

} // namespace duet::rt::test
