/* ONNX Clip: out = min(max(x, lo), hi), every numeric dtype. NaN passes through
 * unchanged (both comparisons are false). When lo > hi every element becomes hi,
 * as numpy.clip does (max applied first, then min).
 *  kiln_clip_f32:      bounds from attributes (opset < 11), in the params.
 *  kiln_clip_range_*:  bounds are one-element tensors (opset >= 11), NULL when
 *                      the input is omitted. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

kiln_status_t kiln_clip_f32(const kiln_clip_params_t* p, const float* in, float* out) {
  uint32_t i;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (in == NULL || out == NULL) return p->n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER;
  for (i = 0; i < p->n; ++i) {
    float x = in[i];
    if (x < p->min) x = p->min;
    if (x > p->max) x = p->max;
    out[i] = x;
  }
  return KILN_OK;
}

/* Compares in the compute type (float16 as float); values are stored unchanged. */
#define CLIP_RANGE(SFX, T, LOAD)                                                                       \
  kiln_status_t kiln_clip_range_##SFX(const T* in, const T* lo, const T* hi, T* out, uint32_t n) {      \
    uint32_t i;                                                                                        \
    T l, h;                                                                                            \
    if (in == NULL || out == NULL) return n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER;                   \
    if (n == 0u) return KILN_OK;                                                                       \
    l = lo != NULL ? *lo : in[0]; /* bounds read once, before out is written */                        \
    h = hi != NULL ? *hi : in[0];                                                                      \
    for (i = 0; i < n; ++i) {                                                                          \
      T x = in[i];                                                                                     \
      if (lo != NULL && LOAD(x) < LOAD(l)) x = l;                                                      \
      if (hi != NULL && LOAD(x) > LOAD(h)) x = h;                                                      \
      out[i] = x;                                                                                      \
    }                                                                                                  \
    return KILN_OK;                                                                                    \
  }
#define CLIP_RANGE_FLOAT(SFX, T) CLIP_RANGE(SFX, T, KILN_LOAD_##SFX)
#define CLIP_RANGE_INT(SFX, T) CLIP_RANGE(SFX, T, KILN_ID)

KILN_FLOAT_TYPES(CLIP_RANGE_FLOAT)
KILN_INT_TYPES(CLIP_RANGE_INT)
