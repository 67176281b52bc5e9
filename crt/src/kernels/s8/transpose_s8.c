/*
 * Byte transpose (layout.h, kiln_transpose_s8): y[b][j][i] = x[b][i][j], the
 * NCHW <-> NHWC transpose of an int8 tensor that stays at a model's boundary
 * (docs/quantization.md, "Layout at the boundary"). Word loads and stores with
 * byte permutes: PKHBT / PKHTB and UXTB16 on the DSP path, the same masks and
 * shifts in portable C (under 3 instructions a byte on the M4, see the s8_qemu
 * check's timing):
 *  - three rows (planes of R, G, B -> pixels of three channels): four columns of
 *    each row (three word loads) become three words of four pixels;
 *  - three columns (pixels of three channels -> planes): the inverse;
 *  - otherwise blocks of four rows by four columns (four word loads, a 4x4 byte
 *    transpose, four word stores), the edges one byte at a time.
 * Loads and stores go through memcpy (kiln_s8_load32): single LDR / STR where the
 * CPU takes unaligned words (M3 and up), byte accesses where it does not (M0).
 */
#include "kiln/layout.h"
#include "requant_s8.h"

#define T8_EVEN 0x00FF00FFu

/* Bytes 0 and 2 of x, and bytes 1 and 3 moved to 0 and 2 (UXTB16, UXTB16 ROR #8). */
static inline uint32_t t8_even(uint32_t x) {
#if KILN_S8_DSP
  return __uxtb16(x);
#else
  return x & T8_EVEN;
#endif
}
static inline uint32_t t8_odd(uint32_t x) {
#if KILN_S8_DSP
  return __uxtb16(kiln_s8_ror8(x));
#else
  return (x >> 8) & T8_EVEN;
#endif
}

/* Low half of a, b's low half high (PKHBT a, b, LSL #16). */
static inline uint32_t t8_lo_lo(uint32_t a, uint32_t b) {
#if KILN_S8_DSP
  return kiln_s8_pkhbt_lsl16(a, b);
#else
  return (a & 0xFFFFu) | (b << 16);
#endif
}

/* High half of a, b's high half low (PKHTB a, b, ASR #16). */
static inline uint32_t t8_hi_hi(uint32_t a, uint32_t b) {
#if KILN_S8_DSP
  return kiln_s8_pkhtb_asr16(a, b);
#else
  return (a & 0xFFFF0000u) | (b >> 16);
#endif
}

/* Low half of a, high half of b (PKHBT a, b). */
static inline uint32_t t8_lo_hi(uint32_t a, uint32_t b) {
#if KILN_S8_DSP
  uint32_t r;
  __asm__("pkhbt %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return (a & 0xFFFFu) | (b & 0xFFFF0000u);
#endif
}

/* x [3][n] -> y [n][3]: rows a, c, d. */
static void interleave3(const int8_t* x, int8_t* y, int32_t n) {
  const int8_t *r = x, *g = x + n, *b = x + 2 * n;
  int32_t i = 0;
  for (; i + 3 < n; i += 4, y += 12) {
    const uint32_t a = kiln_s8_load32(r + i), c = kiln_s8_load32(g + i), d = kiln_s8_load32(b + i);
    const uint32_t ac_e = t8_even(a) | (t8_even(c) << 8); /* [c2 a2 c0 a0] */
    const uint32_t da = t8_even(d) | (a & ~T8_EVEN);      /* [a3 d2 a1 d0] */
    const uint32_t cd_o = t8_odd(c) | (d & ~T8_EVEN);     /* [d3 c3 d1 c1] */
    kiln_s8_store32(y, t8_lo_lo(ac_e, da));                /* [a1 d0 c0 a0] */
    kiln_s8_store32(y + 4, t8_lo_hi(cd_o, ac_e));          /* [c2 a2 d1 c1] */
    kiln_s8_store32(y + 8, t8_hi_hi(cd_o, da));            /* [d3 c3 a3 d2] */
  }
  for (; i < n; ++i, y += 3) y[0] = r[i], y[1] = g[i], y[2] = b[i];
}

/* x [m][3] -> y [3][m]: the inverse of interleave3. */
static void deinterleave3(const int8_t* x, int8_t* y, int32_t m) {
  int8_t *r = y, *g = y + m, *b = y + 2 * m;
  int32_t j = 0;
  for (; j + 3 < m; j += 4, x += 12) {
    /* w0 = [r1 b0 g0 r0], w1 = [g2 r2 b1 g1], w2 = [b3 g3 r3 b2] */
    const uint32_t w0 = kiln_s8_load32(x), w1 = kiln_s8_load32(x + 4), w2 = kiln_s8_load32(x + 8);
    const uint32_t rg_e = t8_lo_hi(w0, w1);      /* [g2 r2 g0 r0] */
    const uint32_t rb = (w0 >> 16) | (w2 << 16); /* [r3 b2 r1 b0] */
    const uint32_t gb_o = t8_lo_hi(w1, w2);      /* [b3 g3 b1 g1] */
    kiln_s8_store32(r + j, t8_even(rg_e) | (rb & ~T8_EVEN));
    kiln_s8_store32(g + j, t8_odd(rg_e) | (t8_even(gb_o) << 8));
    kiln_s8_store32(b + j, t8_even(rb) | (gb_o & ~T8_EVEN));
  }
  for (; j < m; ++j, x += 3) r[j] = x[0], g[j] = x[1], b[j] = x[2];
}

/* x [m][n] -> y [n][m]: 4x4 blocks, then the edges. */
static void blocks4(const int8_t* x, int8_t* y, int32_t m, int32_t n) {
  const int32_t m4 = m & ~3, n4 = n & ~3;
  int32_t i, j;
  for (i = 0; i < m4; i += 4) {
    const int8_t* s = x + (int64_t)i * n;
    int8_t* d = y + i;
    for (j = 0; j < n4; j += 4, d += 4 * (int64_t)m) {
      const uint32_t a = kiln_s8_load32(s + j), b = kiln_s8_load32(s + n + j), c = kiln_s8_load32(s + 2 * n + j),
                     e = kiln_s8_load32(s + 3 * n + j);
      /* Halves: ac_l = [c1 c0 a1 a0], ac_h = [c3 c2 a3 a2], the same of b and e. */
      const uint32_t ac_l = t8_lo_lo(a, c), ac_h = t8_hi_hi(c, a);
      const uint32_t be_l = t8_lo_lo(b, e), be_h = t8_hi_hi(e, b);
      /* Column k of the block is [e_k c_k b_k a_k]. */
      kiln_s8_store32(d, t8_even(ac_l) | (t8_even(be_l) << 8));
      kiln_s8_store32(d + m, t8_odd(ac_l) | (be_l & ~T8_EVEN));
      kiln_s8_store32(d + 2 * m, t8_even(ac_h) | (t8_even(be_h) << 8));
      kiln_s8_store32(d + 3 * m, t8_odd(ac_h) | (be_h & ~T8_EVEN));
    }
    for (; j < n; ++j, d += m) d[0] = s[j], d[1] = s[n + j], d[2] = s[2 * n + j], d[3] = s[3 * n + j];
  }
  for (; i < m; ++i)
    for (j = 0; j < n; ++j) y[(int64_t)j * m + i] = x[(int64_t)i * n + j];
}

kiln_status_t kiln_transpose_s8(const kiln_transpose_s8_params_t* p, const int8_t* x, int8_t* y) {
  int32_t b;
  if (p == NULL || x == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->batch < 0 || p->rows < 0 || p->cols < 0) return KILN_ERR_BAD_ARGUMENT;
  for (b = 0; b < p->batch; ++b) {
    const int64_t off = (int64_t)b * p->rows * p->cols;
    if (p->rows == 3)
      interleave3(x + off, y + off, p->cols);
    else if (p->cols == 3)
      deinterleave3(x + off, y + off, p->rows);
    else
      blocks4(x + off, y + off, p->rows, p->cols);
  }
  return KILN_OK;
}
