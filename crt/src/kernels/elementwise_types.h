/*
 * Per-dtype traits and exact conversions shared by the element-wise kernel files
 * (private to the kernel library).
 *
 * Traits are macros named by dtype suffix, so a kernel macro given a suffix can
 * paste its way to them:
 *   KILN_CT_<sfx>       type the arithmetic is done in (float for float16)
 *   KILN_LOAD_<sfx>(v)  storage -> compute type; KILN_STORE_<sfx>(v) back
 *   KILN_FN_<sfx>(fn)   the libm function for the compute type (expf / exp)
 *   KILN_WT_<sfx>       unsigned type at least as wide as the integer, used for
 *                       wrapping arithmetic (unsigned overflow is defined in C,
 *                       signed overflow is not; uint32_t does not promote to int)
 */
#ifndef KILN_ELEMENTWISE_TYPES_H
#define KILN_ELEMENTWISE_TYPES_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "kiln/kernel_common.h"

#define KILN_ID(v) (v)

#define KILN_CT_f32 float
#define KILN_CT_f64 double
#define KILN_CT_f16 float
#define KILN_CT_bf16 float
#define KILN_LOAD_f32(v) (v)
#define KILN_LOAD_f64(v) (v)
#define KILN_LOAD_f16(v) kiln_f16_to_f32(v)
#define KILN_LOAD_bf16(v) kiln_bf16_to_f32(v)
#define KILN_STORE_f32(v) (v)
#define KILN_STORE_f64(v) (v)
#define KILN_STORE_f16(v) kiln_f32_to_f16(v)
/* double -> compute type without an out-of-range conversion (kiln_f64_to_f32). */
#define KILN_FROM_F64_f32(v) kiln_f64_to_f32(v)
#define KILN_FROM_F64_f64(v) (v)
#define KILN_FROM_F64_f16(v) kiln_f64_to_f32(v)
#define KILN_FN_f32(fn) fn##f
#define KILN_FN_f64(fn) fn
#define KILN_FN_f16(fn) fn##f

#define KILN_WT_i8 uint32_t
#define KILN_WT_i16 uint32_t
#define KILN_WT_i32 uint32_t
#define KILN_WT_i64 uint64_t
#define KILN_WT_u8 uint32_t
#define KILN_WT_u16 uint32_t
#define KILN_WT_u32 uint32_t
#define KILN_WT_u64 uint64_t

/* Integer ranges, and 2^(bits-1) (signed) / 2^bits (unsigned) as an exact double:
 * the first float value that no longer fits. */
#define KILN_MIN_i8 INT8_MIN
#define KILN_MIN_i16 INT16_MIN
#define KILN_MIN_i32 INT32_MIN
#define KILN_MIN_i64 INT64_MIN
#define KILN_MAX_i8 INT8_MAX
#define KILN_MAX_i16 INT16_MAX
#define KILN_MAX_i32 INT32_MAX
#define KILN_MAX_i64 INT64_MAX
#define KILN_MAX_u8 UINT8_MAX
#define KILN_MAX_u16 UINT16_MAX
#define KILN_MAX_u32 UINT32_MAX
#define KILN_MAX_u64 UINT64_MAX
#define KILN_LIMIT_i8 128.0
#define KILN_LIMIT_i16 32768.0
#define KILN_LIMIT_i32 2147483648.0
#define KILN_LIMIT_i64 9223372036854775808.0
#define KILN_LIMIT_u8 256.0
#define KILN_LIMIT_u16 65536.0
#define KILN_LIMIT_u32 4294967296.0
#define KILN_LIMIT_u64 18446744073709551616.0

/* Float (compute type CT, value v) -> integer: truncate toward zero, saturate,
 * NaN -> 0. Every bound is a power of two, exact in float and double, and the
 * final C conversion only sees values whose truncation fits (so it is defined). */
#define KILN_SAT_SINT(SFX, T, CT, v)                                             \
  ((v) != (v) ? (T)0                                                             \
   : (v) >= (CT)KILN_LIMIT_##SFX ? (T)KILN_MAX_##SFX                             \
   : (v) <= -(CT)KILN_LIMIT_##SFX ? (T)KILN_MIN_##SFX                            \
                                  : (T)(v))
#define KILN_SAT_UINT(SFX, T, CT, v)                                             \
  ((v) != (v) ? (T)0 : (v) >= (CT)KILN_LIMIT_##SFX ? (T)KILN_MAX_##SFX : (v) <= (CT)0 ? (T)0 : (T)(v))
#define KILN_SAT_i8(CT, v) KILN_SAT_SINT(i8, int8_t, CT, v)
#define KILN_SAT_i16(CT, v) KILN_SAT_SINT(i16, int16_t, CT, v)
#define KILN_SAT_i32(CT, v) KILN_SAT_SINT(i32, int32_t, CT, v)
#define KILN_SAT_i64(CT, v) KILN_SAT_SINT(i64, int64_t, CT, v)
#define KILN_SAT_u8(CT, v) KILN_SAT_UINT(u8, uint8_t, CT, v)
#define KILN_SAT_u16(CT, v) KILN_SAT_UINT(u16, uint16_t, CT, v)
#define KILN_SAT_u32(CT, v) KILN_SAT_UINT(u32, uint32_t, CT, v)
#define KILN_SAT_u64(CT, v) KILN_SAT_UINT(u64, uint64_t, CT, v)

/* Bit views of floats; union type punning is defined in C99. */
static inline uint32_t kiln_f32_bits(float f) {
  union { float f; uint32_t u; } v;
  v.f = f;
  return v.u;
}
static inline float kiln_f32_from_bits(uint32_t u) {
  union { float f; uint32_t u; } v;
  v.u = u;
  return v.f;
}

/* IEEE half -> float: exact. */
static inline float kiln_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t man = h & 0x3FFu;
  if (exp == 0u) { /* zero or subnormal: man * 2^-24, exact in float */
    const float v = (float)man * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (exp == 31u) return kiln_f32_from_bits(sign | 0x7F800000u | (man << 13)); /* inf / NaN */
  return kiln_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

/* float -> IEEE half, round to nearest even; overflow gives inf, NaN stays NaN. */
static inline uint16_t kiln_f32_to_f16(float f) {
  const uint32_t x = kiln_f32_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exp = (x >> 23) & 0xFFu;
  uint32_t man = x & 0x7FFFFFu;
  int32_t e;
  if (exp == 0xFFu) return (uint16_t)(sign | 0x7C00u | (man != 0u ? 0x200u | (man >> 13) : 0u));
  e = (int32_t)exp - 112; /* half's biased exponent */
  if (e >= 31) return (uint16_t)(sign | 0x7C00u);
  if (e <= 0) { /* half subnormal (or zero): m = M >> (14 - e) with the implicit bit */
    uint32_t shift, r, rem, half;
    if (e < -10) return (uint16_t)sign; /* below 2^-25: rounds to zero */
    man |= 0x800000u;
    shift = (uint32_t)(14 - e);
    r = man >> shift;
    rem = man & ((1u << shift) - 1u);
    half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u) != 0u)) ++r;
    return (uint16_t)(sign | r);
  } else {
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    const uint32_t rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0u)) ++h; /* a carry may reach inf: correct */
    return (uint16_t)(sign | h);
  }
}

/* bfloat16 <-> float: bfloat16 is the upper half of a float. */
static inline float kiln_bf16_to_f32(uint16_t b) { return kiln_f32_from_bits((uint32_t)b << 16); }
static inline uint16_t kiln_f32_to_bf16(float f) { /* round to nearest even */
  const uint32_t x = kiln_f32_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40u); /* NaN stays quiet NaN */
  return (uint16_t)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}
static inline uint16_t kiln_f32_to_bf16_trunc(float f) {
  const uint32_t x = kiln_f32_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40u);
  return (uint16_t)(x >> 16);
}

/* double -> float without relying on Annex F for out-of-range values (plain C
 * makes them undefined): beyond FLT_MAX rounds to FLT_MAX until half an ulp
 * (2^103) above it, then to infinity, as IEEE round-to-nearest-even does. */
static inline float kiln_f64_to_f32(double v) {
  if (v > (double)FLT_MAX) return v >= (double)FLT_MAX + 0x1p103 ? INFINITY : FLT_MAX;
  if (v < -(double)FLT_MAX) return v <= -(double)FLT_MAX - 0x1p103 ? -INFINITY : -FLT_MAX;
  return (float)v; /* NaN and in-range values */
}

#endif /* KILN_ELEMENTWISE_TYPES_H */
