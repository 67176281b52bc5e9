/*
 * Element-wise kernels: arithmetic, math functions and activations, for every
 * dtype ONNX allows them on. Comparisons, logic and Where are in kiln/logic.h,
 * Cast in kiln/cast.h.
 *
 * Dtypes. A kernel exists per dtype, named by suffix: _f32 _f64 _f16 (float16
 * stored as its 16 raw bits in a uint16_t and computed in float), _i8 _i16 _i32
 * _i64, _u8 _u16 _u32 _u64, _b (bool, one byte holding 0 or 1). Integer
 * arithmetic wraps modulo 2^bits like numpy; it is done in unsigned types so it is
 * never undefined behaviour in C. Integer division or modulo by zero yields 0
 * (C would trap or be undefined; ONNX leaves it unspecified).
 *
 * Aliasing. Every kernel here allows the output to alias an input of the same
 * size (`out == in`): all inputs of element i are read before out[i] is written.
 */
#ifndef KILN_ELEMENTWISE_H
#define KILN_ELEMENTWISE_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dtype lists X(suffix, C storage type), used to declare and define the kernels. */
#define KILN_FLOAT_TYPES(X) X(f32, float) X(f64, double) X(f16, uint16_t)
#define KILN_SINT_TYPES(X) X(i8, int8_t) X(i16, int16_t) X(i32, int32_t) X(i64, int64_t)
#define KILN_UINT_TYPES(X) X(u8, uint8_t) X(u16, uint16_t) X(u32, uint32_t) X(u64, uint64_t)
#define KILN_INT_TYPES(X) KILN_SINT_TYPES(X) KILN_UINT_TYPES(X)
#define KILN_NUMERIC_TYPES(X) KILN_FLOAT_TYPES(X) KILN_INT_TYPES(X)

/*
 * A numpy broadcast of N inputs to one output, worked out at compile time (like
 * kiln_broadcast_t, but for variadic ops and Where): the merged output shape and,
 * per input, the element stride of each output dimension (0 where broadcast).
 */
#define KILN_MAX_NARY_INPUTS 32
typedef struct {
  uint32_t ndim;                /* 1..KILN_MAX_DIMS */
  uint32_t num_inputs;          /* 1..KILN_MAX_NARY_INPUTS */
  int32_t shape[KILN_MAX_DIMS]; /* output shape */
  const int32_t* strides;       /* num_inputs rows of ndim strides (row k: input k) */
} kiln_broadcast_n_t;

/* Parameters of the activations that take attributes (unused ones are ignored). */
typedef struct {
  uint32_t n;  /* elements */
  float alpha;
  float beta;
  float gamma;
} kiln_activation_params_t;

/* ---- binary arithmetic with broadcasting (see kiln_broadcast_t) ----------- */
#define KILN_DECLARE_BINARY(OP, SFX, T) \
  kiln_status_t kiln_##OP##_##SFX(const kiln_broadcast_t* p, const T* a, const T* b, T* out);
#define KILN_DECLARE_ADD(SFX, T) KILN_DECLARE_BINARY(add, SFX, T)
#define KILN_DECLARE_SUB(SFX, T) KILN_DECLARE_BINARY(sub, SFX, T)
#define KILN_DECLARE_MUL(SFX, T) KILN_DECLARE_BINARY(mul, SFX, T)
#define KILN_DECLARE_DIV(SFX, T) KILN_DECLARE_BINARY(div, SFX, T)  /* integers truncate toward 0 */
#define KILN_DECLARE_MOD(SFX, T) KILN_DECLARE_BINARY(mod, SFX, T)  /* sign of the divisor (fmod=0) */
#define KILN_DECLARE_FMOD(SFX, T) KILN_DECLARE_BINARY(fmod, SFX, T) /* sign of the dividend (fmod=1) */
#define KILN_DECLARE_PRELU(SFX, T) KILN_DECLARE_BINARY(prelu, SFX, T) /* a < 0 ? a * slope : a */
KILN_NUMERIC_TYPES(KILN_DECLARE_ADD)
KILN_NUMERIC_TYPES(KILN_DECLARE_SUB)
KILN_NUMERIC_TYPES(KILN_DECLARE_MUL)
KILN_NUMERIC_TYPES(KILN_DECLARE_DIV)
KILN_NUMERIC_TYPES(KILN_DECLARE_MOD)
KILN_NUMERIC_TYPES(KILN_DECLARE_FMOD)
KILN_NUMERIC_TYPES(KILN_DECLARE_PRELU)

/* BitShift (unsigned types): shifting by >= the bit width gives 0. */
#define KILN_DECLARE_BITSHIFT(SFX, T) \
  KILN_DECLARE_BINARY(bitshift_left, SFX, T) KILN_DECLARE_BINARY(bitshift_right, SFX, T)
KILN_UINT_TYPES(KILN_DECLARE_BITSHIFT)

/*
 * Pow: kiln_pow_<base>_<exponent>; the output has the base's dtype. A float base
 * uses pow(); an integer base with an integer exponent is exact (wrapping)
 * integer exponentiation (a negative exponent gives 1/x^|e| truncated); an integer
 * base with a float exponent is pow() in double, converted with saturation.
 */
#define KILN_DECLARE_POW(BS, TB, ES, TE) \
  kiln_status_t kiln_pow_##BS##_##ES(const kiln_broadcast_t* p, const TB* a, const TE* b, TB* out);
#define KILN_POW_EXPONENTS(BS, TB)                                                                      \
  KILN_DECLARE_POW(BS, TB, f32, float) KILN_DECLARE_POW(BS, TB, f64, double)                            \
  KILN_DECLARE_POW(BS, TB, f16, uint16_t) KILN_DECLARE_POW(BS, TB, i8, int8_t)                          \
  KILN_DECLARE_POW(BS, TB, i16, int16_t) KILN_DECLARE_POW(BS, TB, i32, int32_t)                         \
  KILN_DECLARE_POW(BS, TB, i64, int64_t) KILN_DECLARE_POW(BS, TB, u8, uint8_t)                          \
  KILN_DECLARE_POW(BS, TB, u16, uint16_t) KILN_DECLARE_POW(BS, TB, u32, uint32_t)                       \
  KILN_DECLARE_POW(BS, TB, u64, uint64_t)
#define KILN_POW_BASES(X) X(f32, float) X(f64, double) X(f16, uint16_t) X(i32, int32_t) X(i64, int64_t)
KILN_POW_BASES(KILN_POW_EXPONENTS)

/* ---- variadic ops with N-way broadcasting (inputs as an array of pointers) -- */
#define KILN_DECLARE_VARIADIC(OP, SFX, T) \
  kiln_status_t kiln_##OP##_##SFX(const kiln_broadcast_n_t* p, const void* const* in, T* out);
#define KILN_DECLARE_MIN(SFX, T) KILN_DECLARE_VARIADIC(min, SFX, T)   /* NaN propagates */
#define KILN_DECLARE_MAX(SFX, T) KILN_DECLARE_VARIADIC(max, SFX, T)   /* NaN propagates */
#define KILN_DECLARE_SUM(SFX, T) KILN_DECLARE_VARIADIC(sum, SFX, T)
#define KILN_DECLARE_MEAN(SFX, T) KILN_DECLARE_VARIADIC(mean, SFX, T)
KILN_NUMERIC_TYPES(KILN_DECLARE_MIN)
KILN_NUMERIC_TYPES(KILN_DECLARE_MAX)
KILN_NUMERIC_TYPES(KILN_DECLARE_SUM)
KILN_FLOAT_TYPES(KILN_DECLARE_MEAN)

/* ---- unary ops over `n` elements ----------------------------------------- */
#define KILN_DECLARE_UNARY(OP, SFX, T) kiln_status_t kiln_##OP##_##SFX(const T* in, T* out, uint32_t n);
#define KILN_DECLARE_ABS(SFX, T) KILN_DECLARE_UNARY(abs, SFX, T)   /* abs(INT_MIN) wraps to INT_MIN */
#define KILN_DECLARE_NEG(SFX, T) KILN_DECLARE_UNARY(neg, SFX, T)   /* wraps */
#define KILN_DECLARE_SIGN(SFX, T) KILN_DECLARE_UNARY(sign, SFX, T) /* -1, 0, 1 (NaN stays NaN) */
#define KILN_DECLARE_RELU(SFX, T) KILN_DECLARE_UNARY(relu, SFX, T)
KILN_NUMERIC_TYPES(KILN_DECLARE_ABS)
KILN_FLOAT_TYPES(KILN_DECLARE_NEG)
KILN_SINT_TYPES(KILN_DECLARE_NEG)
KILN_NUMERIC_TYPES(KILN_DECLARE_SIGN)
KILN_FLOAT_TYPES(KILN_DECLARE_RELU)
KILN_SINT_TYPES(KILN_DECLARE_RELU)

/* Float-only math. Round is round-half-to-even; Reciprocal(0) = inf. */
#define KILN_DECLARE_FLOAT_MATH(SFX, T)                                                   \
  KILN_DECLARE_UNARY(reciprocal, SFX, T) KILN_DECLARE_UNARY(sqrt, SFX, T)                 \
  KILN_DECLARE_UNARY(exp, SFX, T) KILN_DECLARE_UNARY(log, SFX, T)                         \
  KILN_DECLARE_UNARY(floor, SFX, T) KILN_DECLARE_UNARY(ceil, SFX, T)                      \
  KILN_DECLARE_UNARY(round, SFX, T) KILN_DECLARE_UNARY(sin, SFX, T)                       \
  KILN_DECLARE_UNARY(cos, SFX, T) KILN_DECLARE_UNARY(tan, SFX, T)                         \
  KILN_DECLARE_UNARY(asin, SFX, T) KILN_DECLARE_UNARY(acos, SFX, T)                       \
  KILN_DECLARE_UNARY(atan, SFX, T) KILN_DECLARE_UNARY(sinh, SFX, T)                       \
  KILN_DECLARE_UNARY(cosh, SFX, T) KILN_DECLARE_UNARY(asinh, SFX, T)                      \
  KILN_DECLARE_UNARY(acosh, SFX, T) KILN_DECLARE_UNARY(atanh, SFX, T)                     \
  KILN_DECLARE_UNARY(erf, SFX, T) KILN_DECLARE_UNARY(sigmoid, SFX, T)                     \
  KILN_DECLARE_UNARY(tanh, SFX, T) KILN_DECLARE_UNARY(softplus, SFX, T)                   \
  KILN_DECLARE_UNARY(softsign, SFX, T) KILN_DECLARE_UNARY(mish, SFX, T)                   \
  KILN_DECLARE_UNARY(hardswish, SFX, T)
KILN_FLOAT_TYPES(KILN_DECLARE_FLOAT_MATH)

/* IsNaN / IsInf: float input, bool output. */
typedef struct {
  uint32_t n;
  uint8_t detect_positive;
  uint8_t detect_negative;
} kiln_isinf_params_t;
#define KILN_DECLARE_FLOAT_TESTS(SFX, T)                                          \
  kiln_status_t kiln_isnan_##SFX(const T* in, uint8_t* out, uint32_t n);          \
  kiln_status_t kiln_isinf_##SFX(const kiln_isinf_params_t* p, const T* in, uint8_t* out);
KILN_FLOAT_TYPES(KILN_DECLARE_FLOAT_TESTS)

/* Activations with attributes (kiln_activation_params_t). */
#define KILN_DECLARE_ACTIVATION(OP, SFX, T) \
  kiln_status_t kiln_##OP##_##SFX(const kiln_activation_params_t* p, const T* in, T* out);
#define KILN_DECLARE_ACTIVATIONS(SFX, T)                                                    \
  KILN_DECLARE_ACTIVATION(leakyrelu, SFX, T)       /* x < 0 ? alpha*x : x */                \
  KILN_DECLARE_ACTIVATION(elu, SFX, T)             /* x < 0 ? alpha*(e^x-1) : x */          \
  KILN_DECLARE_ACTIVATION(selu, SFX, T)            /* gamma*(x <= 0 ? alpha*(e^x-1) : x) */ \
  KILN_DECLARE_ACTIVATION(celu, SFX, T)            /* max(0,x) + min(0,alpha*(e^(x/alpha)-1)) */ \
  KILN_DECLARE_ACTIVATION(hardsigmoid, SFX, T)     /* clamp(alpha*x + beta, 0, 1) */        \
  KILN_DECLARE_ACTIVATION(thresholdedrelu, SFX, T) /* x > alpha ? x : 0 */
KILN_FLOAT_TYPES(KILN_DECLARE_ACTIVATIONS)

/*
 * Clip. kiln_clip_f32: bounds from attributes (opset < 11). kiln_clip_range_*:
 * bounds are tensors (opset >= 11); `lo` / `hi` point to one element, or are NULL
 * when the input is omitted. NaN passes through unchanged.
 */
typedef struct {
  uint32_t n;
  float min; /* -INFINITY when absent */
  float max; /* +INFINITY when absent */
} kiln_clip_params_t;
kiln_status_t kiln_clip_f32(const kiln_clip_params_t* p, const float* in, float* out);
#define KILN_DECLARE_CLIP_RANGE(SFX, T) \
  kiln_status_t kiln_clip_range_##SFX(const T* in, const T* lo, const T* hi, T* out, uint32_t n);
KILN_NUMERIC_TYPES(KILN_DECLARE_CLIP_RANGE)

/*
 * Shape / Size when they were not folded away: Kiln's shapes are static, so the
 * compiler puts the answer in the params and the kernel writes it out (int64).
 */
typedef struct {
  uint32_t n; /* values to write, <= KILN_MAX_DIMS */
  int64_t values[KILN_MAX_DIMS];
} kiln_shape_params_t;
kiln_status_t kiln_shape_i64(const kiln_shape_params_t* p, int64_t* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_ELEMENTWISE_H */
