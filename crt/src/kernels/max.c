/* ONNX Max: element-wise maximum of N inputs with numpy broadcasting, every
 * numeric dtype. A NaN in any input gives NaN (as numpy.maximum). */
#include "elementwise_types.h"
#include "kiln/elementwise.h"
#include "nary_walk.h"

/* a if it is NaN or larger, else b (which is NaN when b is NaN). */
#define MAX_COMBINE(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#define MAX_FINISH(acc, n) (acc)
#define MAX_INT_COMBINE(a, b) ((a) > (b) ? (a) : (b))

#define MAX_FLOAT(SFX, T)                                                                            \
  KILN_DEFINE_VARIADIC_KERNEL(kiln_max_##SFX, T, KILN_CT_##SFX, KILN_LOAD_##SFX, KILN_STORE_##SFX, \
                              MAX_COMBINE, MAX_FINISH)
#define MAX_INT(SFX, T) KILN_DEFINE_VARIADIC_KERNEL(kiln_max_##SFX, T, T, KILN_ID, KILN_ID, MAX_INT_COMBINE, MAX_FINISH)

KILN_FLOAT_TYPES(MAX_FLOAT)
KILN_INT_TYPES(MAX_INT)
