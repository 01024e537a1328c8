//===- VectorMath.h - eight floats at a time ---------------------*- C++
//-*-===//
//
// Internal to the portable kernels: eight float32 lanes as one value (GCC's
// vector extension: two SSE registers or one AVX register, whichever the
// target has), the loops that walk an array in such blocks, and exp, erf and
// tanh on eight lanes, branch-free, so that the activations, softmax and
// GELU run without a libm call per element.
//
// Each function here is the one formula its kernel uses for every element:
// a tail shorter than eight lanes goes through the same code in a padded
// block, so a value never depends on where in the tensor it sits. Accuracy,
// checked against double-precision libm over the whole float range in
// test/runtime/vector_math_test.cpp: exp within 1 ulp (8e-8 relative), tanh
// within 1.3e-7 and erf within 1.8e-7 relative; NaN propagates, infinities
// give the limits.
//
//===----------------------------------------------------------------------===//

#ifndef DUET_RUNTIME_KERNELS_VECTORMATH_H
#define DUET_RUNTIME_KERNELS_VECTORMATH_H

#include <algorithm>
#include <cstdint>
#include <cstring>

/// Everything here is inlined into the loop that uses it: a call would pass
/// the eight lanes through memory (without AVX they are not one register)
/// and keep the AVX2 clone of its caller from using its instructions.
#define DUET_VEC_INLINE [[gnu::always_inline]] inline

/// On a kernel whose loops use these vectors: compiled twice, for the x86-64
/// baseline and for x86-64-v3 (AVX2, FMA), the loader picking the clone the
/// CPU runs (GCC's target_clones). The vector code must be inlined into it
/// (DUET_VEC_INLINE, and so must the templates between). The baseline clone
/// is correct but gains little: GCC 12 splits the 32-byte comparisons of
/// the selects into scalar ones without AVX.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DUET_KERNEL_CLONES                                                     \
  __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DUET_KERNEL_CLONES
#endif

namespace duet::rt::portable::vec {

typedef float Floats8 __attribute__((vector_size(8 * sizeof(float))));
typedef int32_t Ints8 __attribute__((vector_size(8 * sizeof(int32_t))));
typedef float Floats4 __attribute__((vector_size(4 * sizeof(float))));
/// Half a block in double: GCC keeps a vector of eight doubles in memory
/// between operations (slow), so sums in double take the halves apart.
typedef double Doubles4 __attribute__((vector_size(4 * sizeof(double))));

constexpr int64_t kLanes = 8;

DUET_VEC_INLINE Floats8 splat(float v) {
  return Floats8{v, v, v, v, v, v, v, v};
}

DUET_VEC_INLINE Floats8 load(const float *p) {
  Floats8 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
DUET_VEC_INLINE void store(float *p, Floats8 v) {
  std::memcpy(p, &v, sizeof(v));
}

/// The first `count` (<= 8) lanes from `p`, the others `fill`: a loop over
/// blocks of min(8, n - i) lanes loads every block with one formula, and a
/// whole block costs no more than load().
DUET_VEC_INLINE Floats8 loadPartial(const float *p, int64_t count, float fill) {
  if (count == kLanes)
    return load(p);
  Floats8 v = splat(fill);
  std::memcpy(&v, p, count * sizeof(float));
  return v;
}
DUET_VEC_INLINE void storePartial(float *p, Floats8 v, int64_t count) {
  if (count == kLanes)
    return store(p, v);
  std::memcpy(p, &v, count * sizeof(float));
}

/// Lanes 0-3 and 4-7 in double, and back.
DUET_VEC_INLINE Doubles4 widenLow(Floats8 v) {
  return __builtin_convertvector(__builtin_shufflevector(v, v, 0, 1, 2, 3),
                                 Doubles4);
}
DUET_VEC_INLINE Doubles4 widenHigh(Floats8 v) {
  return __builtin_convertvector(__builtin_shufflevector(v, v, 4, 5, 6, 7),
                                 Doubles4);
}
DUET_VEC_INLINE Floats8 narrow(Doubles4 low, Doubles4 high) {
  Floats4 l = __builtin_convertvector(low, Floats4);
  Floats4 h = __builtin_convertvector(high, Floats4);
  return __builtin_shufflevector(l, h, 0, 1, 2, 3, 4, 5, 6, 7);
}

DUET_VEC_INLINE double sumLanes(Doubles4 v) {
  return (v[0] + v[1]) + (v[2] + v[3]);
}
DUET_VEC_INLINE float maxLanes(Floats8 v) {
  float m = v[0];
  for (int64_t i = 1; i < kLanes; ++i)
    m = std::max(m, v[i]);
  return m;
}

/// out[i] = fn(in[i]) for n elements with `fn` on eight lanes; the last
/// block is padded with zeros. Each block is loaded whole before it is
/// stored, so in == out (an in-place op) is fine.
template <typename Fn>
DUET_VEC_INLINE void map(const float *in, float *out, int64_t n, Fn fn) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    store(out + i, fn(load(in + i)));
  if (i < n)
    storePartial(out + i, fn(loadPartial(in + i, n - i, 0.f)), n - i);
}

/// |v| and v's sign bit, as bit masks.
DUET_VEC_INLINE Floats8 abs(Floats8 v) {
  return (Floats8)((Ints8)v & 0x7fffffff);
}
DUET_VEC_INLINE Floats8 copySign(Floats8 magnitude, Floats8 sign) {
  return (Floats8)(((Ints8)magnitude & 0x7fffffff) |
                   ((Ints8)sign & (int32_t)0x80000000u));
}

/// `lo` <= v <= `hi` lane by lane, NaN kept (the comparisons are false).
DUET_VEC_INLINE Floats8 clamp(Floats8 v, float lo, float hi) {
  v = v < lo ? splat(lo) : v;
  return v > hi ? splat(hi) : v;
}

/// Polynomial c[0] + c[1] z + ... by Horner's rule.
template <size_t N>
DUET_VEC_INLINE Floats8 polynomial(Floats8 z, const float (&c)[N]) {
  Floats8 r = splat(c[N - 1]);
  for (size_t i = N - 1; i-- > 0;)
    r = r * z + c[i];
  return r;
}

/// e^x: x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in two parts so the
/// reduction is exact), e^r by Cephes' expf polynomial, times 2^n built in
/// the exponent bits in two halves, so that results down to the smallest
/// subnormal and up to overflow (inf) come out right.
DUET_VEC_INLINE Floats8 exp(Floats8 x) {
  // Below -104 e^x rounds to 0; above 88.8 to infinity.
  x = clamp(x, -104.f, 88.8f);
  // n = x log2(e) rounded to nearest: adding 1.5 * 2^23 leaves n in the low
  // mantissa bits (|n| <= 150).
  const float kRound = 12582912.f;
  Floats8 shifted = x * 1.44269504088896341f + kRound;
  Ints8 n = (Ints8)shifted - (Ints8)splat(kRound);
  Floats8 fn = shifted - kRound;
  Floats8 r = x - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;
  static constexpr float kC[] = {5.0000001201e-1f, 1.6666665459e-1f,
                                 4.1665795894e-2f, 8.3334519073e-3f,
                                 1.3981999507e-3f, 1.9875691500e-4f};
  Floats8 p = polynomial(r, kC) * (r * r) + r + 1.f;
  Ints8 half = n >> 1;
  Floats8 scaleA = (Floats8)((half + 127) << 23);
  Floats8 scaleB = (Floats8)((n - half + 127) << 23);
  return p * scaleA * scaleB;
}

/// erf(x) = sign(x) erf(|x|): for |x| < 1, x P(x^2) (Cephes' erff
/// coefficients); for 1 <= |x| < 4, 1 - e^-x^2 Q(1/x), Q a least-squares fit
/// of erfc(x) e^(x^2) on [1, 4]; from 4 on, erf is 1 in float.
DUET_VEC_INLINE Floats8 erf(Floats8 x) {
  Floats8 a = clamp(abs(x), 0.f, 4.f);
  static constexpr float kNear[] = {
      1.1283791065216064f,    -0.3761262595653534f, 0.1128358542919159f,
      -0.026853816583752632f, 0.00518833426758647f, -0.0008010247838683426f,
      7.854027353459969e-05f};
  static constexpr float kFar[] = {
      0.00012108782539144158f, 0.5617678165435791f,  0.020537244156003f,
      -0.37586936354637146f,   0.23041263222694397f, 0.23830245435237885f,
      -0.5369120836257935f,    0.43821364641189575f, -0.1797018200159073f,
      0.030712002888321877f};
  Floats8 near = a * polynomial(a * a, kNear);
  Floats8 far = 1.f - exp(-(a * a)) * polynomial(1.f / a, kFar);
  return copySign(a < 1.f ? near : far, x);
}

/// tanh(x) = sign(x) tanh(|x|): for |x| < 0.625, x + x^3 P(x^2) (Cephes'
/// tanhf); beyond, 1 - 2 / (e^2|x| + 1), which reaches 1 (e^2|x| = inf
/// included).
DUET_VEC_INLINE Floats8 tanh(Floats8 x) {
  Floats8 a = abs(x);
  static constexpr float kSmall[] = {-3.33332819422e-1f, 1.33314422036e-1f,
                                     -5.37397155531e-2f, 2.06390887954e-2f,
                                     -5.70498872745e-3f};
  Floats8 z = a * a;
  Floats8 small = a + a * z * polynomial(z, kSmall);
  Floats8 large = 1.f - 2.f / (exp(a + a) + 1.f);
  return copySign(a < 0.625f ? small : large, x);
}

} // namespace duet::rt::portable::vec

#endif // DUET_RUNTIME_KERNELS_VECTORMATH_H
