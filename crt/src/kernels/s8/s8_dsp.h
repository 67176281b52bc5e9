/*
 * Instruction-set path of the int8 kernels in this folder, fixed when the library
 * is compiled: the Arm DSP extension (SIMD on four int8 lanes of a 32-bit word,
 * arm_acle.h) when the target has it, else portable C. KILN_S8_PORTABLE forces the
 * portable path on any target (tests/crt/s8_qemu builds both and compares them
 * bit for bit on each board).
 */
#ifndef KILN_S8_DSP_H
#define KILN_S8_DSP_H

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && !defined(KILN_S8_PORTABLE)
#define KILN_S8_DSP 1
#include <arm_acle.h>
#else
#define KILN_S8_DSP 0
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
#include <arm_acle.h> /* __ssat (Cortex-M3) */
#endif
#endif

/* ARMv6-M (Cortex-M0/M0+: Thumb-1, no DSP): the GEMM core's dot product is
 * Thumb-1 assembly (requant_s8.h, kiln_s8_dot_1x4); everything else is the
 * portable C. */
#if defined(__ARM_ARCH_6M__) && defined(__GNUC__) && !defined(KILN_S8_PORTABLE)
#define KILN_S8_V6M 1
#else
#define KILN_S8_V6M 0
#endif

/* Four int8 values as one word, at any alignment (one LDR / STR on Cortex-M3 and up). */
static inline uint32_t kiln_s8_load4(const int8_t* p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline void kiln_s8_store4(int8_t* p, uint32_t v) { memcpy(p, &v, sizeof v); }

/* v rotated right by 8 bits: the odd bytes moved to the even lanes. (Not every
 * arm_acle.h has __ror; compilers fold this into the ROR operand of SXTAB16.) */
static inline uint32_t kiln_s8_ror8(uint32_t v) { return (v >> 8) | (v << 24); }

#endif /* KILN_S8_DSP_H */
