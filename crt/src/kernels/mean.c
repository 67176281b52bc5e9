/* ONNX Mean: element-wise mean of N inputs with numpy broadcasting (float
 * dtypes): the sum in input order divided by N, in the compute type. */
#include "elementwise_types.h"
#include "kiln/elementwise.h"
#include "nary_walk.h"

#define MEAN_COMBINE(a, b) ((a) + (b))
#define MEAN_FINISH(acc, n) ((acc) / (n))

#define MEAN_FLOAT(SFX, T)                                                                            \
  KILN_DEFINE_VARIADIC_KERNEL(kiln_mean_##SFX, T, KILN_CT_##SFX, KILN_LOAD_##SFX, KILN_STORE_##SFX, \
                              MEAN_COMBINE, MEAN_FINISH)

KILN_FLOAT_TYPES(MEAN_FLOAT)
