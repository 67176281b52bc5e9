/*
 * Comparisons, boolean logic and Where. Bool tensors are one byte per element
 * holding 0 or 1 (`uint8_t`); kernels read any non-zero byte as true and always
 * write 0 or 1. Dtype suffixes and broadcasting as in kiln/elementwise.h; the
 * output may alias an input of the same size.
 */
#ifndef KILN_LOGIC_H
#define KILN_LOGIC_H

#include "kiln/elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Comparisons: out = a (op) b, bool output. float16 compares the float values;
 * any comparison with NaN is false (Equal(NaN, NaN) is false). */
#define KILN_DECLARE_COMPARE(OP, SFX, T) \
  kiln_status_t kiln_##OP##_##SFX(const kiln_broadcast_t* p, const T* a, const T* b, uint8_t* out);
#define KILN_DECLARE_COMPARES(SFX, T)                                                   \
  KILN_DECLARE_COMPARE(equal, SFX, T) KILN_DECLARE_COMPARE(less, SFX, T)                \
  KILN_DECLARE_COMPARE(less_equal, SFX, T) KILN_DECLARE_COMPARE(greater, SFX, T)        \
  KILN_DECLARE_COMPARE(greater_equal, SFX, T)
KILN_NUMERIC_TYPES(KILN_DECLARE_COMPARES)
KILN_DECLARE_COMPARES(b, uint8_t)

/* Boolean logic (bool in, bool out). */
kiln_status_t kiln_and_b(const kiln_broadcast_t* p, const uint8_t* a, const uint8_t* b, uint8_t* out);
kiln_status_t kiln_or_b(const kiln_broadcast_t* p, const uint8_t* a, const uint8_t* b, uint8_t* out);
kiln_status_t kiln_xor_b(const kiln_broadcast_t* p, const uint8_t* a, const uint8_t* b, uint8_t* out);
kiln_status_t kiln_not_b(const uint8_t* in, uint8_t* out, uint32_t n);

/*
 * Where: out = cond ? x : y with 3-way broadcasting (p->num_inputs == 3; stride
 * rows: cond, x, y). It only moves elements, so bfloat16 uses the _u16 kernel.
 */
#define KILN_DECLARE_WHERE(SFX, T)                                                                 \
  kiln_status_t kiln_where_##SFX(const kiln_broadcast_n_t* p, const uint8_t* cond, const T* x, const T* y, \
                                 T* out);
KILN_NUMERIC_TYPES(KILN_DECLARE_WHERE)
KILN_DECLARE_WHERE(b, uint8_t)

#ifdef __cplusplus
}
#endif

#endif /* KILN_LOGIC_H */
