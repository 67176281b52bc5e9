/*
 * The packed form of int8 depthwise Conv2D (depth multiplier 1, nn_s8.h,
 * kiln_depthwise_conv2d_s8_pk): per block of four channels one stream of
 * 2 * bias, the doubled int16 weights tap by tap and the channels'
 * requantization (pk_s8.h). A pixel whose window lies inside the input reads it
 * in place; a border pixel's window is copied into scratch with the input zero
 * point in its padded taps (which then add 0), so every window is a whole one.
 * On the DSP path a run of pixels of a 3x3 kernel is one asm function: per block
 * an LDM of the bias, per tap an LDR of four input channels, two SXTAB16 (input
 * offset added), an LDRD of the four weights and SMLABB / SMLABT / SMLATB /
 * SMLATT (8 instructions), then per two outputs an LDM of their requantization
 * constants and SMMLAR, ASR, SSAT each.
 */
#include "pk_s8.h"

/* What a run of pixels needs (the asm reads it by these offsets). */
typedef struct {
  int32_t tap_step;  /* bytes between the taps of a kernel row (0) */
  int32_t row_step;  /* bytes between kernel rows (4) */
  uint32_t off2;     /* input offset in both halves (8) */
  int32_t n_blocks;  /* blocks of four channels (12) */
  int32_t x_step;    /* bytes between the windows of neighbouring pixels (16) */
  int32_t n_pix;     /* pixels, >= 1 (20) */
  int32_t taps, kernel_w, input_offset, corr;
} dwpk_ctl_t;

/* Portable C: n_pix pixels, windows at x + i * x_step, outputs y[i * 4 * n_blocks ...]. */
static void dwpk_pixels_c(const int8_t* x, const int32_t* packed, int8_t* y, const dwpk_ctl_t* k) {
  const int32_t words = 4 + 2 * k->taps + 12;
  int32_t i, b, t, l;
  for (i = 0; i < k->n_pix; ++i, x += k->x_step) {
    const int32_t* wp = packed;
    for (b = 0; b < k->n_blocks; ++b, wp += words, y += 4) {
      const int16_t* w = (const int16_t*)(const void*)(wp + 4);
      const int32_t* rq = wp + 4 + 2 * k->taps;
      int32_t a[4];
      for (l = 0; l < 4; ++l) a[l] = wp[l];
      for (t = 0; t < k->taps; ++t) {
        const int8_t* xp = x + 4 * b + (t / k->kernel_w) * k->row_step + (t % k->kernel_w) * k->tap_step;
        for (l = 0; l < 4; ++l) a[l] += (xp[l] + k->input_offset) * w[t * 4 + l];
      }
      for (l = 0; l < 4; ++l) y[l] = kiln_s8_pk_out(a[l], rq + 3 * l, k->corr);
    }
  }
}

#if KILN_S8_DSP && defined(__GNUC__)
/* r0 x, r1 stream, r2 y, r3 ctl. Registers: r0-r3 accumulators, r4/r5 input
 * halves, r6 window, r7 stream, r8/r9 weights, r10 tap step, r11 input offset,
 * r12 row step, lr outputs; on the stack the block loop's output end (pushed per
 * pixel), the pixel's window, the stream, ctl, the pixels left. */
#define DWPK_TAP(load)                  \
  load                                  \
  "ldrd r8, r9, [r7], #8\n\t"           \
  "sxtab16 r5, r11, r4\n\t"             \
  "sxtab16 r4, r11, r4, ror #8\n\t"     \
  "smlabb r0, r5, r8, r0\n\t"           \
  "smlabt r1, r4, r8, r1\n\t"           \
  "smlatb r2, r5, r9, r2\n\t"           \
  "smlatt r3, r4, r9, r3\n\t"
#define DWPK_ROW                                   \
  DWPK_TAP("ldr r4, [r6]\n\t")                     \
  DWPK_TAP("ldr r4, [r6, r10]\n\t")                \
  DWPK_TAP("ldr r4, [r6, r10, lsl #1]\n\t")
#define DWPK_RQ(a, corr)                           \
  "ldmia r7!, {r4, r5, r8}\n\t"                   \
  corr("r5", a)                                    \
  "smmlar " a ", " a ", r4, r5\n\t"                \
  "asr.w " a ", " a ", r8\n\t"                     \
  "ssat " a ", #8, " a "\n\t"
#define DWPK_CORR1(r, a) "add " r ", " r ", " a ", asr #31\n\t"
#define DWPK_CORR0(r, a)
#define DWPK_UNUSED __attribute__((unused))
#define DWPK_ASM(name, corr)                                                                                  \
  __attribute__((naked, noinline)) static void name(DWPK_UNUSED const int8_t* x, DWPK_UNUSED const int32_t* wp, \
                                                    DWPK_UNUSED int8_t* y, DWPK_UNUSED const dwpk_ctl_t* k) {   \
    __asm__ volatile(                                                                                         \
        "push {r4-r11, lr}\n\t"                                                                               \
        "sub sp, sp, #16\n\t"                                                                                 \
        "str r0, [sp]\n\t"                                                                                    \
        "str r3, [sp, #8]\n\t"                                                                                \
        "ldr r4, [r3, #20]\n\t"                                                                               \
        "str r4, [sp, #12]\n\t"                                                                               \
        "ldr r10, [r3]\n\t"                                                                                   \
        "ldr r12, [r3, #4]\n\t"                                                                               \
        "ldr r11, [r3, #8]\n\t"                                                                               \
        "str r1, [sp, #4]\n\t"                                                                                \
        "mov lr, r2\n"                                                                                        \
        "1:\n\t"                                                                                              \
        "ldr r6, [sp]\n\t"                                                                                    \
        "ldr r7, [sp, #4]\n\t"                                                                                \
        "ldr r4, [sp, #8]\n\t"                                                                                \
        "ldr r4, [r4, #12]\n\t"                                                                               \
        "add r4, lr, r4, lsl #2\n\t"                                                                          \
        "push {r4}\n"                                                                                         \
        "2:\n\t"                                                                                              \
        "ldmia r7!, {r0, r1, r2, r3}\n\t" DWPK_ROW "add r6, r6, r12\n\t" DWPK_ROW "add r6, r6, r12\n\t"       \
        DWPK_ROW "sub r6, r6, r12, lsl #1\n\t"                                                                \
        "adds r6, r6, #4\n\t" DWPK_RQ("r0", corr) DWPK_RQ("r1", corr) DWPK_RQ("r2", corr) DWPK_RQ("r3", corr) \
        "strb r0, [lr], #1\n\t"                                                                               \
        "strb r1, [lr], #1\n\t"                                                                               \
        "strb r2, [lr], #1\n\t"                                                                               \
        "strb r3, [lr], #1\n\t"                                                                               \
        "ldr r4, [sp]\n\t"                                                                                    \
        "cmp lr, r4\n\t"                                                                                      \
        "bne 2b\n\t"                                                                                          \
        "add sp, sp, #4\n\t"                                                                                  \
        "ldr r4, [sp, #8]\n\t"                                                                                \
        "ldr r4, [r4, #16]\n\t"                                                                               \
        "ldr r5, [sp]\n\t"                                                                                    \
        "add r5, r5, r4\n\t"                                                                                  \
        "str r5, [sp]\n\t"                                                                                    \
        "ldr r4, [sp, #12]\n\t"                                                                               \
        "subs r4, r4, #1\n\t"                                                                                 \
        "str r4, [sp, #12]\n\t"                                                                               \
        "bne 1b\n\t"                                                                                          \
        "add sp, sp, #16\n\t"                                                                                 \
        "pop {r4-r11, pc}\n\t");                                                                              \
  }
DWPK_ASM(dwpk_3x3_dsp0, DWPK_CORR0)
DWPK_ASM(dwpk_3x3_dsp1, DWPK_CORR1)
#endif

static void dwpk_pixels(const int8_t* x, const int32_t* packed, int8_t* y, const dwpk_ctl_t* k) {
#if KILN_S8_DSP && defined(__GNUC__)
  if (k->taps == 9 && k->kernel_w == 3) {
    if (k->corr)
      dwpk_3x3_dsp1(x, packed, y, k);
    else
      dwpk_3x3_dsp0(x, packed, y, k);
    return;
  }
#endif
  dwpk_pixels_c(x, packed, y, k);
}

kiln_status_t kiln_depthwise_conv2d_s8_pk(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                          const int32_t* packed, int8_t* y, int8_t* scratch) {
  int32_t b, oy, ox, ox_lo, ox_hi, ky, kx;
  dwpk_ctl_t inside, border;
  const int32_t c = p != NULL ? p->in_c : 0;
  if (p == NULL || x == NULL || packed == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->depth_multiplier != 1 || p->out_c != p->in_c || p->in_c <= 0 || p->in_c % 4 != 0 || p->kernel_h <= 0 ||
      p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 || p->dilation_h <= 0 || p->dilation_w <= 0 ||
      p->act_min != -128 || p->act_max != 127 || !kiln_s8_aligned4(packed))
    return KILN_ERR_BAD_ARGUMENT;
  inside.tap_step = p->dilation_w * c;
  inside.row_step = p->dilation_h * p->in_w * c;
  inside.off2 = ((uint32_t)p->input_offset & 0xFFFFu) | ((uint32_t)p->input_offset << 16);
  inside.n_blocks = c / 4;
  inside.x_step = p->stride_w * c;
  inside.n_pix = 1;
  inside.taps = p->kernel_h * p->kernel_w;
  inside.kernel_w = p->kernel_w;
  inside.input_offset = p->input_offset;
  inside.corr = p->output_offset != -128;
  border = inside;
  border.tap_step = c;
  border.row_step = p->kernel_w * c;
  /* Output columns [ox_lo, ox_hi) have every kernel column inside the input. */
  ox_lo = 0;
  while (ox_lo < p->out_w && ox_lo * p->stride_w - p->pad_left < 0) ++ox_lo;
  ox_hi = ox_lo;
  while (ox_hi < p->out_w && ox_hi * p->stride_w - p->pad_left + (p->kernel_w - 1) * p->dilation_w < p->in_w) ++ox_hi;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * c;
    int8_t* yp = y + (int64_t)b * p->out_h * p->out_w * c;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      const int rows_inside = iy0 >= 0 && iy0 + (p->kernel_h - 1) * p->dilation_h < p->in_h;
      for (ox = 0; ox < p->out_w;) {
        const int32_t ix0 = ox * p->stride_w - p->pad_left;
        if (rows_inside && ox == ox_lo && ox_lo < ox_hi) {
          inside.n_pix = ox_hi - ox_lo;
          dwpk_pixels(xb + ((int64_t)iy0 * p->in_w + ix0) * c, packed, yp, &inside);
          yp += (int64_t)inside.n_pix * c;
          ox = ox_hi;
          continue;
        }
        /* The window with the input zero point (-input_offset) in its padded taps. */
        for (ky = 0; ky < p->kernel_h; ++ky) {
          const int32_t iy = iy0 + ky * p->dilation_h;
          int8_t* dst = scratch + ky * p->kernel_w * c;
          int32_t kx0 = 0, kx1 = p->kernel_w;
          if (iy < 0 || iy >= p->in_h) kx1 = 0;
          while (kx0 < kx1 && ix0 + kx0 * p->dilation_w < 0) ++kx0;
          while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w) --kx1;
          if (kx0 >= kx1) {
            memset(dst, -p->input_offset, (size_t)(p->kernel_w * c));
            continue;
          }
          memset(dst, -p->input_offset, (size_t)(kx0 * c));
          if (p->dilation_w == 1) {
            /* The in-bounds taps of a kernel row are one run of input bytes. */
            memcpy(dst + kx0 * c, xb + ((int64_t)iy * p->in_w + ix0 + kx0) * c, (size_t)((kx1 - kx0) * c));
          } else {
            for (kx = kx0; kx < kx1; ++kx)
              memcpy(dst + kx * c, xb + ((int64_t)iy * p->in_w + ix0 + kx * p->dilation_w) * c, (size_t)c);
          }
          memset(dst + kx1 * c, -p->input_offset, (size_t)((p->kernel_w - kx1) * c));
        }
        dwpk_pixels(scratch, packed, yp, &border);
        yp += c;
        ++ox;
      }
    }
  }
  return KILN_OK;
}
