/* ONNX Relu: out = max(x, 0), float and signed integer dtypes. NaN stays NaN
 * (the comparison is false). */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define RELU_FLOAT(SFX, T) KILN_DEFINE_FLOAT_UNARY(relu, SFX, T, x < 0 ? (CT)0 : x)
#define RELU_SINT(SFX, T) KILN_DEFINE_UNARY_KERNEL_T(kiln_relu_##SFX, T, T, x < 0 ? (T)0 : x)

RELU_FLOAT(f64, double)
RELU_FLOAT(f16, uint16_t)

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__thumb2__)
/* Four floats per iteration on their bit patterns in core registers: a float is
 * below zero (and not a NaN) exactly when its bits, read as int32, are at most
 * 0xFF800000 (-infinity). QSUB (saturating) of 0xFF800001 is then negative, and
 * BIC with that sign spread over the word clears the value: two instructions per
 * element, NaNs (of either sign) kept. -0.0 becomes +0.0 (equal as floats). */
static void relu_f32_words(const float* in, float* out, uint32_t quads) {
  uint32_t t;
  const int32_t below = (int32_t)0xFF800001u;
  __asm__ volatile(
      "1:\n\t"
      "ldmia %[in]!, {r4-r7}\n\t"
      "qsub %[t], r4, %[k]\n\t"
      "bic r4, r4, %[t], asr #31\n\t"
      "qsub %[t], r5, %[k]\n\t"
      "bic r5, r5, %[t], asr #31\n\t"
      "qsub %[t], r6, %[k]\n\t"
      "bic r6, r6, %[t], asr #31\n\t"
      "qsub %[t], r7, %[k]\n\t"
      "bic r7, r7, %[t], asr #31\n\t"
      "stmia %[out]!, {r4-r7}\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n\t"
      : [in] "+r"(in), [out] "+r"(out), [n] "+r"(quads), [t] "=&r"(t)
      : [k] "r"(below)
      : "r4", "r5", "r6", "r7", "cc", "memory");
}
#define KILN_RELU_F32_WORDS 1
#else
#define KILN_RELU_F32_WORDS 0
#endif

kiln_status_t kiln_relu_f32(const float* in, float* out, uint32_t n) {
  uint32_t i = 0;
  if (in == NULL || out == NULL) return n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER;
#if KILN_RELU_F32_WORDS
  if (n >= 4u) {
    relu_f32_words(in, out, n >> 2);
    i = n & ~3u;
  }
#endif
  for (; i < n; ++i) {
    const float x = in[i];
    out[i] = x < 0.0f ? 0.0f : x;
  }
  return KILN_OK;
}
KILN_SINT_TYPES(RELU_SINT)
