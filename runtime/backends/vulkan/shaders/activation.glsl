// activation.glsl - the elementwise functions of one value that unary.comp
// computes and that a product's epilogue (epilogue.glsl) applies to its
// sums, in one place so that both give the same bits. Each has its own
// formula (hardswish, hardsigmoid, silu and hardshrink included: they are
// never decomposed on Vulkan).

// tanh without the inf/inf that exp-based formulas give for large |x|.
float stableTanh(float x) {
  float e = exp(-2.0 * abs(x));
  return sign(x) * (1.0 - e) / (1.0 + e);
}

// erf to within 1.5e-7 (Abramowitz and Stegun 7.1.26).
float erfApprox(float x) {
  float t = 1.0 / (1.0 + 0.3275911 * abs(x));
  float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 +
               t * (-1.453152027 + t * 1.061405429))));
  return sign(x) * (1.0 - poly * exp(-x * x));
}

// erf⁻¹ to within 4e-7 relative: Giles' single-precision polynomials in
// w = -ln(1 - x²) ("Approximating the erfinv function", GPU Computing Gems).
float erfinvValue(float x) {
  if (abs(x) >= 1.0)
    return abs(x) == 1.0 ? x * uintBitsToFloat(0x7f800000u)
                         : uintBitsToFloat(0x7fc00000u);
  float w = -log((1.0 - x) * (1.0 + x));
  float p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * x;
}

// x^e with PyTorch's exact formulas for the common exponents; a negative
// base with a fractional exponent is NaN, as in C's pow.
float power(float x, float e) {
  if (e == 2.0) return x * x;
  if (e == 3.0) return x * x * x;
  if (e == 0.5) return sqrt(x);
  if (e == -0.5) return 1.0 / sqrt(x);
  if (e == -1.0) return 1.0 / x;
  if (e == -2.0) return 1.0 / (x * x);
  if (e == 0.0) return 1.0;
  if (x >= 0.0) return pow(x, e);
  if (floor(e) != e) return uintBitsToFloat(0x7fc00000u);
  float magnitude = pow(-x, e);
  return mod(e, 2.0) == 1.0 ? -magnitude : magnitude;
}

// ln(1 + x) and e^x - 1 without the cancellation of the plain formulas
// for small x: the rounding of 1 + x (or of e^x) is divided back out.
float log1pValue(float x) {
  float u = 1.0 + x;
  return u == 1.0 ? x : log(u) * x / (u - 1.0);
}
float expm1Value(float x) {
  float u = exp(x);
  if (u == 1.0) return x;
  float um1 = u - 1.0;
  return um1 == -1.0 ? -1.0 : um1 * x / log(u);
}

// vulkan.fbs's UnaryOp `op` of x with parameters a.xyz.
float unaryValue(int op, float x, vec4 a) {
  switch (op) {
  case UNARY_OP_RELU: return x < 0.0 ? 0.0 : x;
  case UNARY_OP_HARDSWISH: return x * min(max(x + 3.0, 0.0), 6.0) / 6.0;
  case UNARY_OP_HARDSIGMOID: return min(max(x + 3.0, 0.0), 6.0) / 6.0;
  case UNARY_OP_SILU: return x / (1.0 + exp(-x));
  case UNARY_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
  case UNARY_OP_TANH: return stableTanh(x);
  case UNARY_OP_ABS: return abs(x);
  case UNARY_OP_NEG: return -x;
  case UNARY_OP_EXP: return exp(x);
  case UNARY_OP_LOG: return log(x);
  case UNARY_OP_SQRT: return sqrt(x);
  case UNARY_OP_RSQRT: return 1.0 / sqrt(x);
  case UNARY_OP_CLAMP: return min(max(x, a.x), a.y);
  case UNARY_OP_HARDSHRINK: return x >= -a.x && x <= a.x ? 0.0 : x;
  case UNARY_OP_GELU_ERF: return 0.5 * x * (1.0 + erfApprox(x * 0.7071067811865476));
  case UNARY_OP_GELU_TANH:
    return 0.5 * x * (1.0 + stableTanh(0.7978845608028654 *
                                       (x + 0.044715 * x * x * x)));
  case UNARY_OP_LEAKY_RELU: return x > 0.0 ? x : x * a.x;
  case UNARY_OP_ELU: return x <= 0.0 ? (exp(x * a.z) - 1.0) * a.x * a.y : x * a.y;
  case UNARY_OP_POW: return power(x, a.x);
  case UNARY_OP_ERF: return erfApprox(x);
  case UNARY_OP_ERFINV: return erfinvValue(x);
  case UNARY_OP_SIN: return sin(x);
  case UNARY_OP_COS: return cos(x);
  // Through atan: lavapipe's asin and acos are off by 4e-4 near |x| = 1.
  case UNARY_OP_ACOS: return atan(sqrt((1.0 - x) * (1.0 + x)), x);
  case UNARY_OP_ASIN: return atan(x, sqrt((1.0 - x) * (1.0 + x)));
  case UNARY_OP_ATAN: return atan(x);
  case UNARY_OP_SINH: return sinh(x);
  case UNARY_OP_COSH: return cosh(x);
  case UNARY_OP_TAN: return tan(x);
  case UNARY_OP_ASINH: return asinh(x);
  case UNARY_OP_ACOSH: return acosh(x);
  case UNARY_OP_ATANH: return atanh(x);
  case UNARY_OP_LOG1P: return log1pValue(x);
  case UNARY_OP_EXPM1: return expm1Value(x);
  case UNARY_OP_LOG2: return log2(x);
  case UNARY_OP_LOG10: return log(x) * 0.4342944819032518;
  case UNARY_OP_CEIL: return ceil(x);
  case UNARY_OP_FLOOR: return floor(x);
  case UNARY_OP_ROUND: return roundEven(x);
  case UNARY_OP_TRUNC: return trunc(x);
  // (0 < x) - (x < 0), which is 0 for NaN as in PyTorch.
  case UNARY_OP_SIGN: return float(0.0 < x) - float(x < 0.0);
  }
  return x;
}
