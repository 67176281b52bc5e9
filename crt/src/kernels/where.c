/* ONNX Where: out = cond ? x : y with 3-way numpy broadcasting (stride rows of
 * the kiln_broadcast_n_t: cond, x, y). Elements are copied, never converted, so
 * NaN payloads and -0 survive. */
#include "kiln/logic.h"
#include "nary_walk.h"

#define WHERE(SFX, T)                                                                                    \
  kiln_status_t kiln_where_##SFX(const kiln_broadcast_n_t* p, const uint8_t* cond, const T* x, const T* y, \
                                 T* out) {                                                               \
    const void* const in[3] = {cond, x, y};                                                              \
    const kiln_status_t st = kiln_nary_check(p, in, out);                                                \
    if (st != KILN_OK) return st;                                                                        \
    if (p->num_inputs != 3u) return KILN_ERR_BAD_ARGUMENT;                                               \
    KILN_NARY_WALK(p, { out[kiln_j] = cond[KILN_NARY_AT(0)] != 0u ? x[KILN_NARY_AT(1)] : y[KILN_NARY_AT(2)]; }); \
    return KILN_OK;                                                                                      \
  }

KILN_NUMERIC_TYPES(WHERE)
WHERE(b, uint8_t)
