/* Float32 depthwise 3x3 convolution with register tiles; see depthwise3x3_f32.h. */
#include "depthwise3x3_f32.h"

#include <stddef.h>

#include "gemm_tiles_f32.h" /* KILN_F32_ASM */
#include "rows_f32.h"

#if KILN_F32_ASM

#define KILN_VFMA(acc, w, x) "vfma.f32 s" #acc ", s" #w ", s" #x "\n\t"
/* Eight outputs (accumulators s0-s7) += weight s<W> * inputs s<X0>..: */
#define KILN_DW_TAP8(W, X0, X1, X2, X3, X4, X5, X6, X7)                                             \
  KILN_VFMA(0, W, X0) KILN_VFMA(1, W, X1) KILN_VFMA(2, W, X2) KILN_VFMA(3, W, X3) KILN_VFMA(4, W, X4) \
  KILN_VFMA(5, W, X5) KILN_VFMA(6, W, X6) KILN_VFMA(7, W, X7)
#define KILN_DW_TAP4(W, X0, X1, X2, X3) KILN_VFMA(0, W, X0) KILN_VFMA(1, W, X1) KILN_VFMA(2, W, X2) KILN_VFMA(3, W, X3)
/* The weights: s18-s26 (w[ky][kx] at s(18 + 3ky + kx)), the bias s27. */
#define KILN_DW_BIAS8                                                                                           \
  "vmov.f32 s0, s27\n\t vmov.f32 s1, s27\n\t vmov.f32 s2, s27\n\t vmov.f32 s3, s27\n\t vmov.f32 s4, s27\n\t" \
  "vmov.f32 s5, s27\n\t vmov.f32 s6, s27\n\t vmov.f32 s7, s27\n\t"
#define KILN_DW_BIAS4 "vmov.f32 s0, s27\n\t vmov.f32 s1, s27\n\t vmov.f32 s2, s27\n\t vmov.f32 s3, s27\n\t"
/* Stride 1: input row values s8-s17 (x0..x9); output j reads x(j), x(j+1), x(j+2). */
#define KILN_DW_S1_ROW8(WA, WB, WC)                 \
  KILN_DW_TAP8(WA, 8, 9, 10, 11, 12, 13, 14, 15)  \
  KILN_DW_TAP8(WB, 9, 10, 11, 12, 13, 14, 15, 16) \
  KILN_DW_TAP8(WC, 10, 11, 12, 13, 14, 15, 16, 17)
#define KILN_DW_S1_ROW4(WA, WB, WC) KILN_DW_TAP4(WA, 8, 9, 10, 11) KILN_DW_TAP4(WB, 9, 10, 11, 12) KILN_DW_TAP4(WC, 10, 11, 12, 13)
/* Stride 2: x0..x8 in s8-s16; output j reads x(2j), x(2j+1), x(2j+2). */
#define KILN_DW_S2_ROW4(WA, WB, WC) KILN_DW_TAP4(WA, 8, 10, 12, 14) KILN_DW_TAP4(WB, 9, 11, 13, 15) KILN_DW_TAP4(WC, 10, 12, 14, 16)
/* One output (s0) from x0..x2 in s8-s10. */
#define KILN_DW_ROW1(WA, WB, WC) KILN_VFMA(0, WA, 8) KILN_VFMA(0, WB, 9) KILN_VFMA(0, WC, 10)

#define KILN_DW_CLOBBERS                                                                                   \
  "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "s16", \
      "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "cc", "memory"

/* n outputs of one row, stride 1: eight at a time, then four, then one by one. */
static void dw_row_s1(const float* wb, const float* r0, const float* r1, const float* r2, float* o, uint32_t n) {
  __asm__ volatile(
      "vldmia %[wb], {s18-s27}\n\t"
      "subs %[n], %[n], #8\n\t"
      "blt 2f\n"
      "1:\n\t"
      KILN_DW_BIAS8
      "vldmia %[r0], {s8-s17}\n\t"
      "adds %[r0], %[r0], #32\n\t"
      KILN_DW_S1_ROW8(18, 19, 20)
      "vldmia %[r1], {s8-s17}\n\t"
      "adds %[r1], %[r1], #32\n\t"
      KILN_DW_S1_ROW8(21, 22, 23)
      "vldmia %[r2], {s8-s17}\n\t"
      "adds %[r2], %[r2], #32\n\t"
      KILN_DW_S1_ROW8(24, 25, 26)
      "vstmia %[o]!, {s0-s7}\n\t"
      "subs %[n], %[n], #8\n\t"
      "bge 1b\n"
      "2:\n\t"
      "adds %[n], %[n], #8\n\t"
      "cmp %[n], #4\n\t"
      "blt 3f\n\t"
      KILN_DW_BIAS4
      "vldmia %[r0], {s8-s13}\n\t"
      "adds %[r0], %[r0], #16\n\t"
      KILN_DW_S1_ROW4(18, 19, 20)
      "vldmia %[r1], {s8-s13}\n\t"
      "adds %[r1], %[r1], #16\n\t"
      KILN_DW_S1_ROW4(21, 22, 23)
      "vldmia %[r2], {s8-s13}\n\t"
      "adds %[r2], %[r2], #16\n\t"
      KILN_DW_S1_ROW4(24, 25, 26)
      "vstmia %[o]!, {s0-s3}\n\t"
      "subs %[n], %[n], #4\n"
      "3:\n\t"
      "cmp %[n], #0\n\t"
      "beq 5f\n"
      "4:\n\t"
      "vmov.f32 s0, s27\n\t"
      "vldmia %[r0], {s8-s10}\n\t"
      "adds %[r0], %[r0], #4\n\t"
      KILN_DW_ROW1(18, 19, 20)
      "vldmia %[r1], {s8-s10}\n\t"
      "adds %[r1], %[r1], #4\n\t"
      KILN_DW_ROW1(21, 22, 23)
      "vldmia %[r2], {s8-s10}\n\t"
      "adds %[r2], %[r2], #4\n\t"
      KILN_DW_ROW1(24, 25, 26)
      "vstmia %[o]!, {s0}\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 4b\n"
      "5:\n\t"
      : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [o] "+r"(o), [n] "+r"(n)
      : [wb] "r"(wb)
      : KILN_DW_CLOBBERS);
}

/* n outputs of one row, stride 2: four at a time, then one by one. */
static void dw_row_s2(const float* wb, const float* r0, const float* r1, const float* r2, float* o, uint32_t n) {
  __asm__ volatile(
      "vldmia %[wb], {s18-s27}\n\t"
      "subs %[n], %[n], #4\n\t"
      "blt 2f\n"
      "1:\n\t"
      KILN_DW_BIAS4
      "vldmia %[r0], {s8-s16}\n\t"
      "adds %[r0], %[r0], #32\n\t"
      KILN_DW_S2_ROW4(18, 19, 20)
      "vldmia %[r1], {s8-s16}\n\t"
      "adds %[r1], %[r1], #32\n\t"
      KILN_DW_S2_ROW4(21, 22, 23)
      "vldmia %[r2], {s8-s16}\n\t"
      "adds %[r2], %[r2], #32\n\t"
      KILN_DW_S2_ROW4(24, 25, 26)
      "vstmia %[o]!, {s0-s3}\n\t"
      "subs %[n], %[n], #4\n\t"
      "bge 1b\n"
      "2:\n\t"
      "adds %[n], %[n], #4\n\t"
      "beq 5f\n"
      "4:\n\t"
      "vmov.f32 s0, s27\n\t"
      "vldmia %[r0], {s8-s10}\n\t"
      "adds %[r0], %[r0], #8\n\t"
      KILN_DW_ROW1(18, 19, 20)
      "vldmia %[r1], {s8-s10}\n\t"
      "adds %[r1], %[r1], #8\n\t"
      KILN_DW_ROW1(21, 22, 23)
      "vldmia %[r2], {s8-s10}\n\t"
      "adds %[r2], %[r2], #8\n\t"
      KILN_DW_ROW1(24, 25, 26)
      "vstmia %[o]!, {s0}\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 4b\n"
      "5:\n\t"
      : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [o] "+r"(o), [n] "+r"(n)
      : [wb] "r"(wb)
      : KILN_DW_CLOBBERS);
}

#else /* portable C: the same order of operations */

static void dw_row(const float* wb, const float* r0, const float* r1, const float* r2, float* o, uint32_t n,
                   uint32_t stride) {
  uint32_t j, kx;
  for (j = 0; j < n; ++j, r0 += stride, r1 += stride, r2 += stride) {
    float acc = wb[9];
    for (kx = 0; kx < 3u; ++kx) acc += wb[kx] * r0[kx];
    for (kx = 0; kx < 3u; ++kx) acc += wb[3u + kx] * r1[kx];
    for (kx = 0; kx < 3u; ++kx) acc += wb[6u + kx] * r2[kx];
    o[j] = acc;
  }
}

static void dw_row_s1(const float* wb, const float* r0, const float* r1, const float* r2, float* o, uint32_t n) {
  dw_row(wb, r0, r1, r2, o, n, 1u);
}

static void dw_row_s2(const float* wb, const float* r0, const float* r1, const float* r2, float* o, uint32_t n) {
  dw_row(wb, r0, r1, r2, o, n, 2u);
}

#endif /* KILN_F32_ASM */

int kiln_f32_depthwise3x3_supported(const kiln_conv2d_params_t* p) {
  return p->groups == p->c_in && p->c_out == p->c_in && p->d_in == 1u && p->d_out == 1u && p->k_d == 1u &&
         p->k_h == 3u && p->k_w == 3u && p->stride_h == p->stride_w && (p->stride_w == 1u || p->stride_w == 2u) &&
         p->dilation_h == 1u && p->dilation_w == 1u && p->pad_top >= 0 && p->pad_top <= 1 && p->pad_left >= 0 &&
         p->pad_left <= 1 && p->w_out > 0u && p->h_out > 0u;
}

/* Puts input row iy (zeros above and below the plane) at dst[left ..]. */
static void load_row(float* dst, const float* plane, int32_t iy, const kiln_conv2d_params_t* p, uint32_t cols) {
  uint32_t i;
  if (iy >= 0 && iy < (int32_t)p->h_in) {
    kiln_f32_copy(dst, plane + (uint32_t)iy * p->w_in, cols);
  } else {
    for (i = 0; i < cols; ++i) dst[i] = 0.0f;
  }
}

void kiln_f32_depthwise3x3(const kiln_conv2d_params_t* p, const float* in, const float* packed, float* out,
                           float* scratch) {
  const uint32_t s = p->stride_w, row_len = KILN_DW3X3_ROW_LEN(p->w_out, s);
  const uint32_t left = (uint32_t)p->pad_left;
  /* Input columns a padded row holds: the ones some output reads. */
  const uint32_t cols = p->w_in < row_len - left ? p->w_in : row_len - left;
  const uint32_t plane_in = p->h_in * p->w_in, plane_out = p->h_out * p->w_out;
  uint32_t c, i, oy;
  for (i = 0; i < 3u * row_len; ++i) scratch[i] = 0.0f; /* the pads stay zero from here on */
  for (c = 0; c < p->c_in; ++c) {
    const float* plane = in + c * plane_in;
    const float* wb = packed + 10u * c;
    float* o = out + c * plane_out;
    /* ring[0..2] hold input rows top .. top + 2 of the current output row; rows
     * below `next` have been loaded. Each new row goes into the slot of the oldest. */
    float* ring[3];
    int32_t next = -p->pad_top;
    ring[0] = scratch, ring[1] = scratch + row_len, ring[2] = scratch + 2u * row_len;
    for (oy = 0; oy < p->h_out; ++oy, o += p->w_out) {
      const int32_t top = (int32_t)(oy * s) - p->pad_top;
      while (next <= top + 2) {
        float* t = ring[0];
        ring[0] = ring[1], ring[1] = ring[2], ring[2] = t;
        load_row(t + left, plane, next, p, cols);
        ++next;
      }
      if (s == 1u) dw_row_s1(wb, ring[0], ring[1], ring[2], o, p->w_out);
      else dw_row_s2(wb, ring[0], ring[1], ring[2], o, p->w_out);
    }
  }
}
