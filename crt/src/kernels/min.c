/* ONNX Min: element-wise minimum of N inputs with numpy broadcasting, every
 * numeric dtype. A NaN in any input gives NaN (as numpy.minimum). */
#include "elementwise_types.h"
#include "kiln/elementwise.h"
#include "nary_walk.h"

/* a if it is NaN or smaller, else b (which is NaN when b is NaN). */
#define MIN_COMBINE(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#define MIN_FINISH(acc, n) (acc)
#define MIN_INT_COMBINE(a, b) ((a) < (b) ? (a) : (b))

#define MIN_FLOAT(SFX, T)                                                                            \
  KILN_DEFINE_VARIADIC_KERNEL(kiln_min_##SFX, T, KILN_CT_##SFX, KILN_LOAD_##SFX, KILN_STORE_##SFX, \
                              MIN_COMBINE, MIN_FINISH)
#define MIN_INT(SFX, T) KILN_DEFINE_VARIADIC_KERNEL(kiln_min_##SFX, T, T, KILN_ID, KILN_ID, MIN_INT_COMBINE, MIN_FINISH)

KILN_FLOAT_TYPES(MIN_FLOAT)
KILN_INT_TYPES(MIN_INT)
