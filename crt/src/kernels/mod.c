/* ONNX Mod with numpy broadcasting, every numeric dtype.
 *  kiln_mod_*  (fmod = 0): the remainder takes the sign of the divisor, like
 *              Python's % and numpy.mod.
 *  kiln_fmod_* (fmod = 1): the remainder takes the sign of the dividend, like C's
 *              fmod() and integer %.
 * Integer x mod 0 gives 0 (C is undefined; numpy gives 0). x mod -1 is 0, computed
 * without `%` because INT_MIN % -1 overflows in C. */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/elementwise.h"

/* Floats: C fmod, then for fmod = 0 move a non-zero remainder to the divisor's sign. */
#define MOD_FLOAT(SFX, T)                                                                      \
  static inline KILN_CT_##SFX kiln_fmod_one_##SFX(KILN_CT_##SFX x, KILN_CT_##SFX y) {         \
    return KILN_FN_##SFX(fmod)(x, y);                                                          \
  }                                                                                            \
  static inline KILN_CT_##SFX kiln_mod_one_##SFX(KILN_CT_##SFX x, KILN_CT_##SFX y) {          \
    KILN_CT_##SFX r = KILN_FN_##SFX(fmod)(x, y);                                               \
    if (r != 0 && ((r < 0) != (y < 0))) r += y;                                                \
    return r;                                                                                  \
  }                                                                                            \
  KILN_DEFINE_BINARY_KERNEL(kiln_fmod_##SFX, T,                                                \
                            KILN_STORE_##SFX(kiln_fmod_one_##SFX(KILN_LOAD_##SFX(x), KILN_LOAD_##SFX(y)))) \
  KILN_DEFINE_BINARY_KERNEL(kiln_mod_##SFX, T,                                                 \
                            KILN_STORE_##SFX(kiln_mod_one_##SFX(KILN_LOAD_##SFX(x), KILN_LOAD_##SFX(y))))

#define MOD_SINT(SFX, T)                                                     \
  static inline T kiln_fmod_one_##SFX(T x, T y) {                            \
    if (y == 0 || y == -1) return (T)0;                                      \
    return (T)(x % y);                                                       \
  }                                                                          \
  static inline T kiln_mod_one_##SFX(T x, T y) {                             \
    const T r = kiln_fmod_one_##SFX(x, y);                                   \
    /* |r| < |y|, so r + y cannot overflow */                                \
    return (r != 0 && ((r < 0) != (y < 0))) ? (T)(r + y) : r;                \
  }                                                                          \
  KILN_DEFINE_BINARY_KERNEL(kiln_fmod_##SFX, T, kiln_fmod_one_##SFX(x, y))   \
  KILN_DEFINE_BINARY_KERNEL(kiln_mod_##SFX, T, kiln_mod_one_##SFX(x, y))

/* Unsigned: both conventions agree. */
#define MOD_UINT(SFX, T)                                                               \
  KILN_DEFINE_BINARY_KERNEL(kiln_fmod_##SFX, T, y == 0u ? (T)0 : (T)(x % y))          \
  KILN_DEFINE_BINARY_KERNEL(kiln_mod_##SFX, T, y == 0u ? (T)0 : (T)(x % y))

KILN_FLOAT_TYPES(MOD_FLOAT)
KILN_SINT_TYPES(MOD_SINT)
KILN_UINT_TYPES(MOD_UINT)
