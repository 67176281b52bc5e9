/* Shared by the NonZero and Unique kernels: reading one element of a tensor of a
 * kiln_sel_type_t and comparing two of them. */
#ifndef KILN_SELECTION_ELEM_H
#define KILN_SELECTION_ELEM_H

#include <stddef.h>

#include "kiln/selection.h"

/* Element size of a kiln_sel_type_t, 0 for an unknown one. */
static inline uint32_t kiln_sel_size(uint32_t t) {
  switch (t) {
    case KILN_SEL_F64: case KILN_SEL_I64: case KILN_SEL_U64: return 8u;
    case KILN_SEL_F32: case KILN_SEL_I32: case KILN_SEL_U32: return 4u;
    case KILN_SEL_I16: case KILN_SEL_U16: return 2u;
    case KILN_SEL_I8: case KILN_SEL_U8: return 1u;
    default: return 0u;
  }
}

/* x[i] != 0 (NaN is not zero, -0.0 is). */
static inline int kiln_sel_nonzero(const void* x, uint32_t t, size_t i) {
  switch (t) {
    case KILN_SEL_F32: return ((const float*)x)[i] != 0.0f;
    case KILN_SEL_F64: return ((const double*)x)[i] != 0.0;
    case KILN_SEL_I8: return ((const int8_t*)x)[i] != 0;
    case KILN_SEL_I16: return ((const int16_t*)x)[i] != 0;
    case KILN_SEL_I32: return ((const int32_t*)x)[i] != 0;
    case KILN_SEL_I64: return ((const int64_t*)x)[i] != 0;
    case KILN_SEL_U8: return ((const uint8_t*)x)[i] != 0u;
    case KILN_SEL_U16: return ((const uint16_t*)x)[i] != 0u;
    case KILN_SEL_U32: return ((const uint32_t*)x)[i] != 0u;
    default: return ((const uint64_t*)x)[i] != 0u;
  }
}

#define KILN_SEL_CMP(a, b) ((a) < (b) ? -1 : ((a) > (b) ? 1 : 0))
/* Floats: NaN after every number, NaN equal to NaN (a total order). */
#define KILN_SEL_FCMP(a, b) \
  ((a) != (a) ? ((b) != (b) ? 0 : 1) : ((b) != (b) ? -1 : KILN_SEL_CMP(a, b)))

/* -1, 0 or 1 as x[i] is less than, equal to or greater than x[j]. */
static inline int kiln_sel_compare(const void* x, uint32_t t, size_t i, size_t j) {
  switch (t) {
    case KILN_SEL_F32: { float a = ((const float*)x)[i], b = ((const float*)x)[j]; return KILN_SEL_FCMP(a, b); }
    case KILN_SEL_F64: { double a = ((const double*)x)[i], b = ((const double*)x)[j]; return KILN_SEL_FCMP(a, b); }
    case KILN_SEL_I8: return KILN_SEL_CMP(((const int8_t*)x)[i], ((const int8_t*)x)[j]);
    case KILN_SEL_I16: return KILN_SEL_CMP(((const int16_t*)x)[i], ((const int16_t*)x)[j]);
    case KILN_SEL_I32: return KILN_SEL_CMP(((const int32_t*)x)[i], ((const int32_t*)x)[j]);
    case KILN_SEL_I64: return KILN_SEL_CMP(((const int64_t*)x)[i], ((const int64_t*)x)[j]);
    case KILN_SEL_U8: return KILN_SEL_CMP(((const uint8_t*)x)[i], ((const uint8_t*)x)[j]);
    case KILN_SEL_U16: return KILN_SEL_CMP(((const uint16_t*)x)[i], ((const uint16_t*)x)[j]);
    case KILN_SEL_U32: return KILN_SEL_CMP(((const uint32_t*)x)[i], ((const uint32_t*)x)[j]);
    default: return KILN_SEL_CMP(((const uint64_t*)x)[i], ((const uint64_t*)x)[j]);
  }
}

#endif /* KILN_SELECTION_ELEM_H */
