/*
 * The runtime's int8 GEMM inner product (kiln_s8_dot_1x4, crt/src/kernels/s8/
 * requant_s8.h: one asm loop, LDRD + LDM + SMLAD) next to the same product written
 * with ACLE intrinsics (__smlad from arm_acle.h), for tools/intrinsics_vs_asm.sh:
 * it compiles both for the Cortex-M4 and counts the instructions of each loop.
 */
#include <arm_acle.h>
#include <stdint.h>
#include <string.h>

#include "s8/requant_s8.h"

const int16_t* dot_1x4_asm(const int16_t* col, const int16_t* w, int32_t row_len, int32_t* acc) {
  return kiln_s8_dot_1x4(col, w, row_len, &acc[0], &acc[1], &acc[2], &acc[3]);
}

static inline uint32_t load32(const int16_t* p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Row length a multiple of 16, as the asm's main loop: 16 taps a pass. */
const int16_t* dot_1x4_acle(const int16_t* col, const int16_t* w, int32_t row_len, int32_t* acc) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  const int16_t* end = col + row_len;
  for (const int16_t* c = col; c != end; c += 16) {
    int k;
    for (k = 0; k < 16; k += 4) {
      const uint32_t x0 = load32(c + k), x1 = load32(c + k + 2);
      a0 = __smlad(x0, load32(w + 0), a0);
      a1 = __smlad(x0, load32(w + 2), a1);
      a2 = __smlad(x0, load32(w + 4), a2);
      a3 = __smlad(x0, load32(w + 6), a3);
      a0 = __smlad(x1, load32(w + 8), a0);
      a1 = __smlad(x1, load32(w + 10), a1);
      a2 = __smlad(x1, load32(w + 12), a2);
      a3 = __smlad(x1, load32(w + 14), a3);
      w += 16;
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
  return w;
}
