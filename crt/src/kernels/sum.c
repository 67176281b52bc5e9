/* ONNX Sum: element-wise sum of N inputs with numpy broadcasting, added in input
 * order. Floats are summed in their compute type (float16 in float, rounded once
 * at the end); integers wrap modulo 2^bits (accumulated in the unsigned WT). */
#include "elementwise_types.h"
#include "kiln/elementwise.h"
#include "nary_walk.h"

#define SUM_COMBINE(a, b) ((a) + (b))
#define SUM_FINISH(acc, n) (acc)

#define SUM_FLOAT(SFX, T)                                                                            \
  KILN_DEFINE_VARIADIC_KERNEL(kiln_sum_##SFX, T, KILN_CT_##SFX, KILN_LOAD_##SFX, KILN_STORE_##SFX, \
                              SUM_COMBINE, SUM_FINISH)
#define SUM_INT(SFX, T)                                                                      \
  static inline KILN_WT_##SFX kiln_sum_widen_##SFX(T v) { return (KILN_WT_##SFX)v; }      \
  static inline T kiln_sum_narrow_##SFX(KILN_WT_##SFX v) { return (T)v; }                  \
  KILN_DEFINE_VARIADIC_KERNEL(kiln_sum_##SFX, T, KILN_WT_##SFX, kiln_sum_widen_##SFX,      \
                              kiln_sum_narrow_##SFX, SUM_COMBINE, SUM_FINISH)

KILN_FLOAT_TYPES(SUM_FLOAT)
KILN_INT_TYPES(SUM_INT)
