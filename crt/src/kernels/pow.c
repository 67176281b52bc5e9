/*
 * ONNX Pow with numpy broadcasting: out = a ^ b, kiln_pow_<base>_<exponent>; the
 * output has the base's dtype.
 *  - float base: pow() in the base's compute type (float16 in float).
 *  - integer base, integer exponent: exact exponentiation by squaring in uint64_t,
 *    wrapping modulo 2^bits like numpy. A negative exponent gives the truncated
 *    1 / x^|e|: 1 for x = 1, +-1 for x = -1, otherwise 0 (x = 0 gives 0 too,
 *    rather than a division by zero).
 *  - integer base, float exponent: pow() in double, converted back with
 *    truncation and saturation (never an out-of-range conversion).
 */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/elementwise.h"

/* x^e for e >= 0 by squaring, modulo 2^64. */
static inline uint64_t kiln_ipow_u64(uint64_t x, uint64_t e) {
  uint64_t r = 1u;
  while (e != 0u) {
    if ((e & 1u) != 0u) r *= x;
    x *= x;
    e >>= 1;
  }
  return r;
}
/* x^e for a signed exponent; x is the base's value sign-extended to 64 bits. */
static inline uint64_t kiln_ipow_signed(int64_t x, int64_t e) {
  if (e >= 0) return kiln_ipow_u64((uint64_t)x, (uint64_t)e);
  if (x == 1) return 1u;
  if (x == -1) return (e % 2 == 0) ? 1u : (uint64_t)0u - 1u;
  return 0u;
}
static inline uint64_t kiln_ipow_unsigned(int64_t x, uint64_t e) { return kiln_ipow_u64((uint64_t)x, e); }

/* Exponent traits: how an exponent of each dtype enters the computation. */
#define POW_EXP_IPOW_i8 kiln_ipow_signed
#define POW_EXP_IPOW_i16 kiln_ipow_signed
#define POW_EXP_IPOW_i32 kiln_ipow_signed
#define POW_EXP_IPOW_i64 kiln_ipow_signed
#define POW_EXP_IPOW_u8 kiln_ipow_unsigned
#define POW_EXP_IPOW_u16 kiln_ipow_unsigned
#define POW_EXP_IPOW_u32 kiln_ipow_unsigned
#define POW_EXP_IPOW_u64 kiln_ipow_unsigned
#define POW_EXP_LOAD_f32(v) (v)
#define POW_EXP_LOAD_f64(v) (v)
#define POW_EXP_LOAD_f16(v) kiln_f16_to_f32(v)
#define POW_EXP_LOAD_i8(v) (v)
#define POW_EXP_LOAD_i16(v) (v)
#define POW_EXP_LOAD_i32(v) (v)
#define POW_EXP_LOAD_i64(v) (v)
#define POW_EXP_LOAD_u8(v) (v)
#define POW_EXP_LOAD_u16(v) (v)
#define POW_EXP_LOAD_u32(v) (v)
#define POW_EXP_LOAD_u64(v) (v)

/* Float base, any exponent. */
#define POW_FLOAT_BASE(BS, TB, ES, TE)                                                             \
  KILN_DEFINE_BINARY_KERNEL_T(kiln_pow_##BS##_##ES, TB, TE, TB,                                    \
                              KILN_STORE_##BS(KILN_FN_##BS(pow)(KILN_LOAD_##BS(x),                 \
                                                                (KILN_CT_##BS)POW_EXP_LOAD_##ES(y))))
/* Float base, double exponent: computed in double (a double exponent need not fit
 * the base's float type), then rounded back without an out-of-range conversion. */
#define POW_FLOAT_BASE_F64_EXP(BS, TB)                                                \
  KILN_DEFINE_BINARY_KERNEL_T(kiln_pow_##BS##_f64, TB, double, TB,                    \
                              KILN_STORE_##BS(KILN_FROM_F64_##BS(pow((double)KILN_LOAD_##BS(x), y))))
/* Integer base, float exponent. */
#define POW_INT_BASE_FLOAT_EXP(BS, TB, ES, TE)                                  \
  static inline TB kiln_pow_one_##BS##_##ES(TB x, TE y) {                       \
    const double r = pow((double)x, (double)POW_EXP_LOAD_##ES(y));              \
    return KILN_SAT_##BS(double, r);                                            \
  }                                                                             \
  KILN_DEFINE_BINARY_KERNEL_T(kiln_pow_##BS##_##ES, TB, TE, TB, kiln_pow_one_##BS##_##ES(x, y))
/* Integer base, integer exponent. */
#define POW_INT_BASE_INT_EXP(BS, TB, ES, TE) \
  KILN_DEFINE_BINARY_KERNEL_T(kiln_pow_##BS##_##ES, TB, TE, TB, (TB)POW_EXP_IPOW_##ES((int64_t)x, y))

#define POW_FLOAT_BASE_ALL(BS, TB)                                                               \
  POW_FLOAT_BASE(BS, TB, f32, float) POW_FLOAT_BASE_F64_EXP(BS, TB)                              \
  POW_FLOAT_BASE(BS, TB, f16, uint16_t) POW_FLOAT_BASE(BS, TB, i8, int8_t)                       \
  POW_FLOAT_BASE(BS, TB, i16, int16_t) POW_FLOAT_BASE(BS, TB, i32, int32_t)                      \
  POW_FLOAT_BASE(BS, TB, i64, int64_t) POW_FLOAT_BASE(BS, TB, u8, uint8_t)                       \
  POW_FLOAT_BASE(BS, TB, u16, uint16_t) POW_FLOAT_BASE(BS, TB, u32, uint32_t)                    \
  POW_FLOAT_BASE(BS, TB, u64, uint64_t)
#define POW_INT_BASE_ALL(BS, TB)                                                                 \
  POW_INT_BASE_FLOAT_EXP(BS, TB, f32, float) POW_INT_BASE_FLOAT_EXP(BS, TB, f64, double)         \
  POW_INT_BASE_FLOAT_EXP(BS, TB, f16, uint16_t) POW_INT_BASE_INT_EXP(BS, TB, i8, int8_t)         \
  POW_INT_BASE_INT_EXP(BS, TB, i16, int16_t) POW_INT_BASE_INT_EXP(BS, TB, i32, int32_t)          \
  POW_INT_BASE_INT_EXP(BS, TB, i64, int64_t) POW_INT_BASE_INT_EXP(BS, TB, u8, uint8_t)           \
  POW_INT_BASE_INT_EXP(BS, TB, u16, uint16_t) POW_INT_BASE_INT_EXP(BS, TB, u32, uint32_t)        \
  POW_INT_BASE_INT_EXP(BS, TB, u64, uint64_t)

POW_FLOAT_BASE_ALL(f32, float)
POW_FLOAT_BASE_ALL(f64, double)
POW_FLOAT_BASE_ALL(f16, uint16_t)
POW_INT_BASE_ALL(i32, int32_t)
POW_INT_BASE_ALL(i64, int64_t)
