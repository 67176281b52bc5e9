/* ONNX Clip: out = min(max(x, lo), hi), every numeric dtype. NaN passes through
 * unchanged (both comparisons are false). When lo > hi every element becomes hi,
 * as numpy.clip does (max applied first, then min).
 *  kiln_clip_f32:      bounds from attributes (opset < 11), in the params.
 *  kiln_clip_range_*:  bounds are one-element tensors (opset >= 11), NULL when
 *                      the input is omitted. */
#include <string.h>

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

CLIP_RANGE_FLOAT(f64, double)
CLIP_RANGE_FLOAT(f16, uint16_t)
static CLIP_RANGE(f32_loop, float, KILN_ID)

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__thumb2__)
/* Clip(x, 0, hi) with 0 < hi < infinity (ReLU6) on the floats' bit patterns in core
 * registers, four per LDM / STM: first as Relu (relu.c: QSUB of 0xFF800001 is
 * negative exactly for negative non-NaN floats, BIC clears them), then a
 * non-negative value whose bits lie in (hi, +infinity] becomes hi (one unsigned
 * range test; NaNs lie outside it and pass through). Seven instructions an
 * element instead of fourteen. -0.0 becomes +0.0 (equal as floats). */
static void clip_0_hi_words(const float* in, float* out, uint32_t quads, float hi) {
  uint32_t hi_bits, t;
  memcpy(&hi_bits, &hi, sizeof hi_bits);
  {
    const uint32_t below = 0xFF800001u, above = hi_bits + 1u, range = 0x7F800000u - above;
    __asm__ volatile(
        "1:\n\t"
        "ldmia %[in]!, {r4, r5, r6, r8}\n\t"
        "qsub %[t], r4, %[k]\n\t"
        "bic r4, r4, %[t], asr #31\n\t"
        "sub %[t], r4, %[a]\n\t"
        "cmp %[t], %[r]\n\t"
        "it ls\n\t"
        "movls r4, %[h]\n\t"
        "qsub %[t], r5, %[k]\n\t"
        "bic r5, r5, %[t], asr #31\n\t"
        "sub %[t], r5, %[a]\n\t"
        "cmp %[t], %[r]\n\t"
        "it ls\n\t"
        "movls r5, %[h]\n\t"
        "qsub %[t], r6, %[k]\n\t"
        "bic r6, r6, %[t], asr #31\n\t"
        "sub %[t], r6, %[a]\n\t"
        "cmp %[t], %[r]\n\t"
        "it ls\n\t"
        "movls r6, %[h]\n\t"
        "qsub %[t], r8, %[k]\n\t"
        "bic r8, r8, %[t], asr #31\n\t"
        "sub %[t], r8, %[a]\n\t"
        "cmp %[t], %[r]\n\t"
        "it ls\n\t"
        "movls r8, %[h]\n\t"
        "stmia %[out]!, {r4, r5, r6, r8}\n\t"
        "subs %[n], %[n], #1\n\t"
        "bne 1b\n\t"
        : [in] "+r"(in), [out] "+r"(out), [n] "+r"(quads), [t] "=&r"(t)
        : [k] "r"(below), [a] "r"(above), [r] "r"(range), [h] "r"(hi_bits)
        : "r4", "r5", "r6", "r8", "cc", "memory");
  }
}
#define KILN_CLIP_F32_WORDS 1
#else
#define KILN_CLIP_F32_WORDS 0
#endif

kiln_status_t kiln_clip_range_f32(const float* in, const float* lo, const float* hi, float* out, uint32_t n) {
#if KILN_CLIP_F32_WORDS
  if (in != NULL && out != NULL && lo != NULL && hi != NULL && n >= 4u && *lo == 0.0f && *hi > 0.0f &&
      *hi < INFINITY) {
    const uint32_t done = n & ~3u;
    const float h = *hi; /* read before out (which may be in) is written */
    const float l = *lo;
    clip_0_hi_words(in, out, n >> 2, h);
    return kiln_clip_range_f32_loop(in + done, &l, &h, out + done, n - done);
  }
#endif
  return kiln_clip_range_f32_loop(in, lo, hi, out, n);
}
KILN_INT_TYPES(CLIP_RANGE_INT)
