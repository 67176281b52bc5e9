/*
 * Widening the odd bytes of a word of int8 values to two int16 lanes, as the
 * runtime's int8 kernels do for every weight or input word on the DSP path:
 * kiln_s8_sxtab16_ror8 (crt/src/kernels/s8/requant_s8.h, one SXTAB16 with its
 * ROR #8 operand, in inline asm) against the ACLE form __sxtab16(a, ror(b, 8))
 * (GCC 12's arm_acle.h has no __ror: kiln_s8_ror8 of s8_dsp.h spells it), and
 * the two PKHBT / PKHTB wrappers against the C that means the same.
 */
#include <arm_acle.h>
#include <stdint.h>

#include "s8/requant_s8.h"

uint32_t widen_asm(const uint32_t* p, int n) {
  uint32_t s = 0;
  for (int i = 0; i < n; ++i) s = kiln_s8_sxtab16_ror8(s, p[i]);
  return s;
}

uint32_t widen_acle(const uint32_t* p, int n) {
  uint32_t s = 0;
  for (int i = 0; i < n; ++i) s = __sxtab16(s, kiln_s8_ror8(p[i]));
  return s;
}

void pack_asm(const uint32_t* a, const uint32_t* b, uint32_t* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = kiln_s8_pkhbt_lsl16(a[i], b[i]) ^ kiln_s8_pkhtb_asr16(a[i], b[i]);
}

void pack_c(const uint32_t* a, const uint32_t* b, uint32_t* out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = ((a[i] & 0xFFFFu) | (b[i] << 16)) ^ ((a[i] & 0xFFFF0000u) | ((uint32_t)((int32_t)b[i] >> 16) & 0xFFFFu));
}
