/* ONNX IsNaN: float dtypes in, bool out. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ISNAN(SFX, T) KILN_DEFINE_UNARY_KERNEL_T(kiln_isnan_##SFX, T, uint8_t, (uint8_t)(isnan(KILN_LOAD_##SFX(x)) ? 1 : 0))

KILN_FLOAT_TYPES(ISNAN)
