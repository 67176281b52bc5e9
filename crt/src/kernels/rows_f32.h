/*
 * Whole-row float32 helpers the register-blocked kernels share (copying a run of
 * an input row, summing a plane in order). On Arm cores with a single-precision
 * FPU they move eight floats per VLDM / VSTM (one instruction each), which a C loop
 * (or newlib-nano's byte-wise memcpy) does not; elsewhere plain C loops.
 */
#ifndef KILN_ROWS_F32_H
#define KILN_ROWS_F32_H

#include <stdint.h>

#include "gemm_tiles_f32.h" /* KILN_F32_ASM */

/* kiln_f32_copy(dst, src, n): dst[i] = src[i], i < n; the ranges must not overlap.
 * kiln_f32_sum(x, n): x[0] + x[1] + ... + x[n-1], added left to right from 0.0f
 * (as a C loop does). */
#if KILN_F32_ASM

static inline void kiln_f32_copy(float* dst, const float* src, uint32_t n) {
  uint32_t eights = n >> 3, rest = n & 7u;
  __asm__ volatile(
      "cmp %[q], #0\n\t"
      "beq 2f\n"
      "1:\n\t"
      "vldmia %[s]!, {s0-s7}\n\t"
      "vstmia %[d]!, {s0-s7}\n\t"
      "subs %[q], %[q], #1\n\t"
      "bne 1b\n"
      "2:\n\t" /* the last n % 8: four, two, one */
      "tst %[r], #4\n\t"
      "beq 3f\n\t"
      "vldmia %[s]!, {s0-s3}\n\t"
      "vstmia %[d]!, {s0-s3}\n"
      "3:\n\t"
      "tst %[r], #2\n\t"
      "beq 4f\n\t"
      "vldmia %[s]!, {s0-s1}\n\t"
      "vstmia %[d]!, {s0-s1}\n"
      "4:\n\t"
      "tst %[r], #1\n\t"
      "beq 5f\n\t"
      "vldr s0, [%[s]]\n\t"
      "vstr s0, [%[d]]\n"
      "5:\n\t"
      : [s] "+r"(src), [d] "+r"(dst), [q] "+r"(eights), [r] "+r"(rest)
      :
      : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "cc", "memory");
}

static inline float kiln_f32_sum(const float* x, uint32_t n) {
  uint32_t eights = n >> 3, rest = n & 7u;
  float sum;
  __asm__ volatile(
      "vmov.f32 s0, #1.0\n\t"
      "vsub.f32 s0, s0, s0\n\t" /* +0.0 */
      "cmp %[q], #0\n\t"
      "beq 2f\n"
      "1:\n\t"
      "vldmia %[x]!, {s8-s15}\n\t"
      "vadd.f32 s0, s0, s8\n\t"
      "vadd.f32 s0, s0, s9\n\t"
      "vadd.f32 s0, s0, s10\n\t"
      "vadd.f32 s0, s0, s11\n\t"
      "vadd.f32 s0, s0, s12\n\t"
      "vadd.f32 s0, s0, s13\n\t"
      "vadd.f32 s0, s0, s14\n\t"
      "vadd.f32 s0, s0, s15\n\t"
      "subs %[q], %[q], #1\n\t"
      "bne 1b\n"
      "2:\n\t"
      "cmp %[r], #0\n\t"
      "beq 4f\n"
      "3:\n\t"
      "vldmia %[x]!, {s8}\n\t"
      "vadd.f32 s0, s0, s8\n\t"
      "subs %[r], %[r], #1\n\t"
      "bne 3b\n"
      "4:\n\t"
      "vmov %[sum], s0\n\t"
      : [x] "+r"(x), [q] "+r"(eights), [r] "+r"(rest), [sum] "=r"(sum)
      :
      : "s0", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "cc", "memory");
  return sum;
}

#else

static inline void kiln_f32_copy(float* dst, const float* src, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) dst[i] = src[i];
}

static inline float kiln_f32_sum(const float* x, uint32_t n) {
  float s = 0.0f;
  uint32_t i;
  for (i = 0; i < n; ++i) s += x[i];
  return s;
}

#endif

#endif /* KILN_ROWS_F32_H */
