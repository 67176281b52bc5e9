/*
 * Int8 depthwise Conv2D (NHWC, depth multiplier, strides, dilations, leading pads).
 * Weights come in blocks of four output channels, each block holding its taps one
 * after another ([Cout/4][KH*KW][4] int16, see nn_s8.h), so a block's weights are
 * one sequential stream. Per output pixel the in-bounds taps are ranged once; then
 * the channels run in blocks of four with the accumulators in registers. On the
 * DSP path one word load gives four input channels, SXTAB16 widens them (input
 * offset added) into even/odd halves and SMLABB/SMLABT/SMLATB/SMLATT multiply each
 * with its channel's weight; a full row of a 3-wide kernel is unrolled. A depth
 * multiplier M > 1 runs the same blocks of four output channels, each lane on its
 * input channel (one for all four when M is a multiple of four: one byte, two
 * weight words and SMLABB / SMLABT per tap). One input channel with M > 1 never
 * comes here from the compiler: that is an ordinary Conv2D (lower/ops/qnn_conv.cpp).
 */
#include "requant_s8.h"
#include "depthwise_conv_s8_mve.h"

/* The first tap k in [0, kernel) with 0 <= i0 + k * dilation < size, and one past the last. */
static void tap_range(int32_t i0, int32_t dilation, int32_t kernel, int32_t size, int32_t* first, int32_t* end) {
  int32_t k0 = 0, k1 = kernel;
  while (k0 < kernel && i0 + k0 * dilation < 0) ++k0;
  while (k1 > k0 && i0 + (k1 - 1) * dilation >= size) --k1;
  *first = k0;
  *end = k1;
}

/* Geometry of one output pixel's in-bounds taps. */
typedef struct {
  const int8_t* x;       /* input at tap (ky0, kx0), channel 0 */
  int32_t tap_offset;    /* first weight tap index: ky0 * kernel_w + kx0 */
  int32_t rows, cols;    /* in-bounds taps: ky1 - ky0, kx1 - kx0 */
} dw_window_t;

#if KILN_S8_DSP
/* acc0..3 += (x[c..c+3] + offset) * w[0..3] for one tap: one word of four input
 * channels, widened by SXTAB16 (offset added) into even / odd halves, each half
 * multiplied with its channel's weight. In one asm block so that the compiler
 * cannot interleave taps and run out of registers. */
#define DW_TAP_ASM(load_x, woff)                       \
  load_x                                               \
  "ldr %[w], [%[wp], #" woff "]\n\t"                   \
  "sxtab16 %[e], %[off], %[v]\n\t"                     \
  "sxtab16 %[v], %[off], %[v], ror #8\n\t"             \
  "smlabb %[a0], %[e], %[w], %[a0]\n\t"                \
  "smlabt %[a1], %[v], %[w], %[a1]\n\t"                \
  "ldr %[w], [%[wp], #" woff "+4]\n\t"                 \
  "smlatb %[a2], %[e], %[w], %[a2]\n\t"                \
  "smlatt %[a3], %[v], %[w], %[a3]\n\t"
#define DW_LOAD_X0 "ldr %[v], [%[x]]\n\t"
#define DW_LOAD_X1 "ldr %[v], [%[x], %[s]]\n\t"
#define DW_LOAD_X2 "add %[v], %[x], %[s]\n\t" "ldr %[v], [%[v], %[s]]\n\t"
#define DW_TAP_OUTPUTS \
  [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [v] "=&r"(v_), [e] "=&r"(e_), [w] "=&r"(w_)
#define DW_TAP(xp, wptr)                                                                             \
  do {                                                                                               \
    uint32_t v_, e_, w_;                                                                             \
    __asm__(DW_TAP_ASM(DW_LOAD_X0, "0") : DW_TAP_OUTPUTS : [x] "r"(xp), [wp] "r"(wptr), [off] "r"(off2) \
            : "memory");                                                                             \
  } while (0)
/* Two taps of one kernel row: x, x + step; weights at wptr[0..7]. */
#define DW_ROW2(xp, step, wptr)                                                     \
  do {                                                                              \
    uint32_t v_, e_, w_;                                                            \
    __asm__(DW_TAP_ASM(DW_LOAD_X0, "0") DW_TAP_ASM(DW_LOAD_X1, "8")                 \
            : DW_TAP_OUTPUTS                                                        \
            : [x] "r"(xp), [s] "r"(step), [wp] "r"(wptr), [off] "r"(off2)           \
            : "memory");                                                            \
  } while (0)
/* A whole 3x3 window: rows at x, x + row, x + 2 * row; weights at wptr[0..35]. */
#define DW_3X3(xp, step, row, wptr)                                                                   \
  do {                                                                                                \
    uint32_t v_, e_, w_;                                                                              \
    const int8_t* xr_ = (xp);                                                                         \
    __asm__(DW_TAP_ASM(DW_LOAD_X0, "0") DW_TAP_ASM(DW_LOAD_X1, "8") DW_TAP_ASM(DW_LOAD_X2, "16")      \
            "add %[x], %[x], %[r]\n\t"                                                                \
            DW_TAP_ASM(DW_LOAD_X0, "24") DW_TAP_ASM(DW_LOAD_X1, "32") DW_TAP_ASM(DW_LOAD_X2, "40")    \
            "add %[x], %[x], %[r]\n\t"                                                                \
            DW_TAP_ASM(DW_LOAD_X0, "48") DW_TAP_ASM(DW_LOAD_X1, "56") DW_TAP_ASM(DW_LOAD_X2, "64")    \
            : DW_TAP_OUTPUTS, [x] "+r"(xr_)                                                           \
            : [s] "r"(step), [r] "r"(row), [wp] "r"(wptr), [off] "r"(off2)                            \
            : "memory");                                                                              \
  } while (0)
/* Three taps of one kernel row: x, x + step, x + 2 * step; weights at wptr[0..11]. */
#define DW_ROW3(xp, step, wptr)                                                                    \
  do {                                                                                             \
    uint32_t v_, e_, w_;                                                                           \
    __asm__(DW_TAP_ASM(DW_LOAD_X0, "0") DW_TAP_ASM(DW_LOAD_X1, "8") DW_TAP_ASM(DW_LOAD_X2, "16")   \
            : DW_TAP_OUTPUTS                                                                       \
            : [x] "r"(xp), [s] "r"(step), [wp] "r"(wptr), [off] "r"(off2)                          \
            : "memory");                                                                           \
  } while (0)
#endif

#if KILN_S8_DSP
/* One tap of a full 3x3 window: weights of the block's four channels by one LDRD. */
#define DW_TAP_LDRD(load_x, woff)                      \
  load_x                                               \
  "ldrd %[w0], %[w1], [%[wp], #" woff "]\n\t"          \
  "sxtab16 %[e], %[off], %[v]\n\t"                     \
  "sxtab16 %[v], %[off], %[v], ror #8\n\t"             \
  "smlabb %[a0], %[e], %[w0], %[a0]\n\t"               \
  "smlabt %[a1], %[v], %[w0], %[a1]\n\t"               \
  "smlatb %[a2], %[e], %[w1], %[a2]\n\t"               \
  "smlatt %[a3], %[v], %[w1], %[a3]\n\t"
#define DW_LOAD_X2_LSL "ldr %[v], [%[x], %[s], lsl #1]\n\t"

/* Weights of the taps of one window row, relative to its first tap (byte offsets of
 * LDRD: a tap is 4 int16, a kernel row of a 3-wide kernel 12). */
#define DW_ROW3_TAPS(w0, w1, w2) \
  DW_TAP_LDRD(DW_LOAD_X0, w0) DW_TAP_LDRD(DW_LOAD_X1, w1) DW_TAP_LDRD(DW_LOAD_X2_LSL, w2)
#define DW_ROW2_TAPS(w0, w1) DW_TAP_LDRD(DW_LOAD_X0, w0) DW_TAP_LDRD(DW_LOAD_X1, w1)
#define DW_NEXT_ROW "ldr %[v], %[r]\n\t" "add %[x], %[x], %[v]\n\t"

/*
 * A run of n_pix output pixels of a 3x3 depthwise convolution (depth multiplier
 * 1) whose in-bounds windows all have `rows` x `cols` taps (2 or 3 each,
 * constants: the interior is 3 x 3, the border rows and columns of a padded input
 * fewer), every full block of four channels: no bounds checks, one asm block of
 * the window's taps (8 instructions each; the row step is read from memory, the
 * asm has no 14th register), then the block's four requantizations. x is the
 * first in-bounds tap of the first pixel, channel 0; w the weights at that tap.
 */
KILN_S8_INLINE void dw3x3_run(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x, int32_t n_pix,
                              const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                              const kiln_s8_output_t* o, int8_t* y, int form, int rows, int cols) {
  const kiln_s8_output_t out = *o;
  const int32_t s = p->dilation_w * p->in_c, r = p->dilation_h * p->in_w * p->in_c;
  const int32_t x_step = p->stride_w * p->in_c, full = p->out_c / 4 * 4;
  const uint32_t off2 = ((uint32_t)p->input_offset & 0xFFFFu) | ((uint32_t)p->input_offset << 16);
  int32_t i, c;
  for (i = 0; i < n_pix; ++i, x += x_step, y += p->out_c) {
    const int16_t* wb = w;
    const kiln_s8_requant_t* rqc = rq;
    for (c = 0; c < full; c += 4, wb += 36) {
      int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      uint32_t v_, e_, w0_, w1_;
      const int8_t* xr = x + c;
      if (bias != NULL) a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
#define DW_RUN_ASM(taps)                                                                                       \
  __asm__(taps                                                                                                 \
          : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [v] "=&r"(v_), [e] "=&r"(e_),         \
            [w0] "=&r"(w0_), [w1] "=&r"(w1_), [x] "+r"(xr)                                                     \
          : [s] "r"(s), [r] "m"(r), [wp] "r"(wb), [off] "r"(off2)                                              \
          : "memory")
      if (rows == 3 && cols == 3)
        DW_RUN_ASM(DW_ROW3_TAPS("0", "8", "16") DW_NEXT_ROW DW_ROW3_TAPS("24", "32", "40") DW_NEXT_ROW
                       DW_ROW3_TAPS("48", "56", "64"));
      else if (rows == 2 && cols == 3)
        DW_RUN_ASM(DW_ROW3_TAPS("0", "8", "16") DW_NEXT_ROW DW_ROW3_TAPS("24", "32", "40"));
      else if (rows == 3)
        DW_RUN_ASM(DW_ROW2_TAPS("0", "8") DW_NEXT_ROW DW_ROW2_TAPS("24", "32") DW_NEXT_ROW DW_ROW2_TAPS("48", "56"));
      else
        DW_RUN_ASM(DW_ROW2_TAPS("0", "8") DW_NEXT_ROW DW_ROW2_TAPS("24", "32"));
#undef DW_RUN_ASM
      y[c] = kiln_s8_output_next(a0, &rqc, &out, form);
      y[c + 1] = kiln_s8_output_next(a1, &rqc, &out, form);
      y[c + 2] = kiln_s8_output_next(a2, &rqc, &out, form);
      y[c + 3] = kiln_s8_output_next(a3, &rqc, &out, form);
    }
  }
}

/* Out-of-line copies (the asm's 13 registers meet no caller's values): the
 * interior for every form, the border shapes for the short requantization forms
 * (the others take the general path there). */
#define DW3X3_RUN_COPY(name, form, rows, cols)                                                                    \
  static __attribute__((noinline)) void name(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,         \
                                             int32_t n_pix, const int16_t* w, const int32_t* bias,                \
                                             const kiln_s8_requant_t* rq, const kiln_s8_output_t* o, int8_t* y) { \
    dw3x3_run(p, x, n_pix, w, bias, rq, o, y, form, rows, cols);                                                   \
  }
DW3X3_RUN_COPY(dw3x3_run_0, 0, 3, 3)
DW3X3_RUN_COPY(dw3x3_run_1, 1, 3, 3)
DW3X3_RUN_COPY(dw3x3_run_2, 2, 3, 3)
DW3X3_RUN_COPY(dw3x3_run_3, 3, 3, 3)
DW3X3_RUN_COPY(dw2x3_run_1, 1, 2, 3)
DW3X3_RUN_COPY(dw2x3_run_3, 3, 2, 3)
DW3X3_RUN_COPY(dw3x2_run_1, 1, 3, 2)
DW3X3_RUN_COPY(dw3x2_run_3, 3, 3, 2)
DW3X3_RUN_COPY(dw2x2_run_1, 1, 2, 2)
DW3X3_RUN_COPY(dw2x2_run_3, 3, 2, 2)
#undef DW3X3_RUN_COPY

/* A run of pixels whose windows have rows x cols in-bounds taps: 1 when a copy
 * took it, 0 when the caller's general path must. */
static int dw_border_run(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x, int32_t n_pix,
                         const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                         const kiln_s8_output_t* o, int8_t* y, int32_t rows, int32_t cols) {
  const int form = KILN_S8_FORM(o);
  if (!(form & 1) || rows < 2 || cols < 2) return 0;
  if (rows == 2 && cols == 3) (form & 2 ? dw2x3_run_3 : dw2x3_run_1)(p, x, n_pix, w, bias, rq, o, y);
  else if (rows == 3 && cols == 2) (form & 2 ? dw3x2_run_3 : dw3x2_run_1)(p, x, n_pix, w, bias, rq, o, y);
  else if (rows == 2 && cols == 2) (form & 2 ? dw2x2_run_3 : dw2x2_run_1)(p, x, n_pix, w, bias, rq, o, y);
  else return 0;
  return 1;
}

static void dw3x3_run_any(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x, int32_t n_pix,
                          const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                          const kiln_s8_output_t* o, int8_t* y) {
  switch (KILN_S8_FORM(o)) {
    case 3: dw3x3_run_3(p, x, n_pix, w, bias, rq, o, y); break;
    case 2: dw3x3_run_2(p, x, n_pix, w, bias, rq, o, y); break;
    case 1: dw3x3_run_1(p, x, n_pix, w, bias, rq, o, y); break;
    default: dw3x3_run_0(p, x, n_pix, w, bias, rq, o, y); break;
  }
}
#endif

/* Output channels [0, out_c) in blocks of four of one pixel, depth multiplier 1.
 * `form` (KILN_S8_FORM) and `full3x3` (a 3x3 kernel entirely inside the input) are
 * constants in each inlined copy. */
KILN_S8_INLINE void dw_pixel_m1(const kiln_depthwise_conv2d_s8_params_t* p, const dw_window_t* win,
                               const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                               const kiln_s8_output_t* o, int8_t* y, int form, int full3x3) {
  const int32_t taps = p->kernel_h * p->kernel_w;
  const int32_t tap_step = p->dilation_w * p->in_c, row_step = p->dilation_h * p->in_w * p->in_c;
  const int8_t* x = win->x;
  const int16_t* wb = w + (int64_t)win->tap_offset * 4;
  int32_t c, ky, kx;
#if KILN_S8_DSP
  const uint32_t off2 = ((uint32_t)p->input_offset & 0xFFFFu) | ((uint32_t)p->input_offset << 16);
#endif
  for (c = 0; c + 4 <= p->out_c; c += 4, x += 4, wb += taps * 4) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (bias != NULL) a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
#if KILN_S8_DSP
    if (full3x3) {
      DW_3X3(x, tap_step, row_step, wb);
    } else {
      const int8_t* xr = x;
      const int16_t* wr = wb;
      for (ky = 0; ky < win->rows; ++ky, xr += row_step, wr += p->kernel_w * 4) {
        if (win->cols == 3) {
          DW_ROW3(xr, tap_step, wr);
        } else if (win->cols == 2) {
          DW_ROW2(xr, tap_step, wr);
        } else {
          const int8_t* xp = xr;
          const int16_t* wp = wr;
          for (kx = 0; kx < win->cols; ++kx, xp += tap_step, wp += 4) DW_TAP(xp, wp);
        }
      }
    }
#else
    (void)full3x3;
    for (ky = 0; ky < win->rows; ++ky) {
      const int8_t* xp = x + (int64_t)ky * row_step;
      const int16_t* wp = wb + (int64_t)ky * p->kernel_w * 4;
      for (kx = 0; kx < win->cols; ++kx, xp += tap_step, wp += 4) {
        a0 += (xp[0] + p->input_offset) * wp[0];
        a1 += (xp[1] + p->input_offset) * wp[1];
        a2 += (xp[2] + p->input_offset) * wp[2];
        a3 += (xp[3] + p->input_offset) * wp[3];
      }
    }
#endif
    y[c] = kiln_s8_output_as(a0, &rq[c], o, form);
    y[c + 1] = kiln_s8_output_as(a1, &rq[c + 1], o, form);
    y[c + 2] = kiln_s8_output_as(a2, &rq[c + 2], o, form);
    y[c + 3] = kiln_s8_output_as(a3, &rq[c + 3], o, form);
  }
}

/* dw_pixel_m1 with its constants chosen at run time, once per pixel. */
static void dw_pixel_m1_any(const kiln_depthwise_conv2d_s8_params_t* p, const dw_window_t* win, const int16_t* w,
                            const int32_t* bias, const kiln_s8_requant_t* rq, const kiln_s8_output_t* o,
                            int8_t* y) {
  const int full = p->kernel_h == 3 && p->kernel_w == 3 && win->rows == 3 && win->cols == 3;
  switch (KILN_S8_FORM(o) + (full ? 4 : 0)) {
    case 7: dw_pixel_m1(p, win, w, bias, rq, o, y, 3, 1); break;
    case 6: dw_pixel_m1(p, win, w, bias, rq, o, y, 2, 1); break;
    case 5: dw_pixel_m1(p, win, w, bias, rq, o, y, 1, 1); break;
    case 4: dw_pixel_m1(p, win, w, bias, rq, o, y, 0, 1); break;
    case 3: dw_pixel_m1(p, win, w, bias, rq, o, y, 3, 0); break;
    case 2: dw_pixel_m1(p, win, w, bias, rq, o, y, 2, 0); break;
    case 1: dw_pixel_m1(p, win, w, bias, rq, o, y, 1, 0); break;
    default: dw_pixel_m1(p, win, w, bias, rq, o, y, 0, 0); break;
  }
}

/* Output channels [0, out_c) in blocks of four of one pixel, depth multiplier M > 1:
 * lane k of the block at c reads input channel (c + k) / M, and with M a multiple
 * of four (`same`, a constant in each inlined copy) the four lanes read one input
 * channel, so a tap is one input byte and the block's four weights (two words:
 * SMLABB / SMLABT, the input in the bottom half). The weights are the int16 blocks
 * of the multiplier-1 form, so every depth multiplier shares one layout. */
KILN_S8_INLINE void dw_pixel_mult(const kiln_depthwise_conv2d_s8_params_t* p, const dw_window_t* win,
                                  const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                  const kiln_s8_output_t* o, int8_t* y, int form, int same) {
  const int32_t m = p->depth_multiplier, off = p->input_offset, rows = win->rows, cols = win->cols;
  const int32_t tap_step = p->dilation_w * p->in_c, row_step = p->dilation_h * p->in_w * p->in_c;
  const int32_t block_step = p->kernel_h * p->kernel_w * 4, w_row_step = p->kernel_w * 4;
  const int16_t* wb = w + win->tap_offset * 4;
  int32_t c, ky, kx;
  for (c = 0; c + 4 <= p->out_c; c += 4, wb += block_step) {
    const int8_t* xr = win->x + c / m;
    const int16_t* wr = wb;
    const int32_t d1 = same ? 0 : (c + 1) / m - c / m, d2 = same ? 0 : (c + 2) / m - c / m,
                  d3 = same ? 0 : (c + 3) / m - c / m;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (bias != NULL) a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
    for (ky = 0; ky < rows; ++ky, xr += row_step, wr += w_row_step) {
      const int8_t* xp = xr;
      const int16_t* wp = wr;
      for (kx = 0; kx < cols; ++kx, xp += tap_step, wp += 4) {
        const int32_t v0 = xp[0] + off;
#if KILN_S8_DSP
        const int32_t w01 = (int32_t)kiln_s8_load32(wp), w23 = (int32_t)kiln_s8_load32(wp + 2);
        if (same) {
          a0 = __smlabb(v0, w01, a0), a1 = __smlabt(v0, w01, a1);
          a2 = __smlabb(v0, w23, a2), a3 = __smlabt(v0, w23, a3);
        } else {
          a0 = __smlabb(v0, w01, a0), a1 = __smlabt(xp[d1] + off, w01, a1);
          a2 = __smlabb(xp[d2] + off, w23, a2), a3 = __smlabt(xp[d3] + off, w23, a3);
        }
#else
        a0 += v0 * wp[0];
        a1 += (same ? v0 : xp[d1] + off) * wp[1];
        a2 += (same ? v0 : xp[d2] + off) * wp[2];
        a3 += (same ? v0 : xp[d3] + off) * wp[3];
#endif
      }
    }
    y[c] = kiln_s8_output_as(a0, &rq[c], o, form);
    y[c + 1] = kiln_s8_output_as(a1, &rq[c + 1], o, form);
    y[c + 2] = kiln_s8_output_as(a2, &rq[c + 2], o, form);
    y[c + 3] = kiln_s8_output_as(a3, &rq[c + 3], o, form);
  }
}

/* One out-of-line copy per requantization form and lane pattern, so that each
 * has its own register allocation (inlined into the caller, the loop spills). */
#define DW_MULT_COPY(name, form, same)                                                              \
  KILN_S8_NOINLINE void name(const kiln_depthwise_conv2d_s8_params_t* p, const dw_window_t* win, \
                             const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,  \
                             const kiln_s8_output_t* o, int8_t* y) {                              \
    dw_pixel_mult(p, win, w, bias, rq, o, y, form, same);                                         \
  }
DW_MULT_COPY(dw_mult_0_same, 0, 1)
DW_MULT_COPY(dw_mult_1_same, 1, 1)
DW_MULT_COPY(dw_mult_2_same, 2, 1)
DW_MULT_COPY(dw_mult_3_same, 3, 1)
DW_MULT_COPY(dw_mult_0, 0, 0)
DW_MULT_COPY(dw_mult_1, 1, 0)
DW_MULT_COPY(dw_mult_2, 2, 0)
DW_MULT_COPY(dw_mult_3, 3, 0)

/* dw_pixel_mult with its constants chosen at run time, once per pixel. */
static void dw_pixel_mult_any(const kiln_depthwise_conv2d_s8_params_t* p, const dw_window_t* win,
                              const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                              const kiln_s8_output_t* o, int8_t* y) {
  switch (KILN_S8_FORM(o) + (p->depth_multiplier % 4 == 0 ? 4 : 0)) {
    case 7: dw_mult_3_same(p, win, w, bias, rq, o, y); break;
    case 6: dw_mult_2_same(p, win, w, bias, rq, o, y); break;
    case 5: dw_mult_1_same(p, win, w, bias, rq, o, y); break;
    case 4: dw_mult_0_same(p, win, w, bias, rq, o, y); break;
    case 3: dw_mult_3(p, win, w, bias, rq, o, y); break;
    case 2: dw_mult_2(p, win, w, bias, rq, o, y); break;
    case 1: dw_mult_1(p, win, w, bias, rq, o, y); break;
    default: dw_mult_0(p, win, w, bias, rq, o, y); break;
  }
}

/* Output channels [c0, out_c) one at a time (any depth multiplier). */
static void dw_pixel_each(const kiln_depthwise_conv2d_s8_params_t* p, const dw_window_t* win, int32_t c0,
                          const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                          const kiln_s8_output_t* o, int8_t* y) {
  const int32_t taps = p->kernel_h * p->kernel_w;
  const int32_t tap_step = p->dilation_w * p->in_c, row_step = p->dilation_h * p->in_w * p->in_c;
  int32_t c, ky, kx;
  for (c = c0; c < p->out_c; ++c) {
    const int8_t* xc = win->x + c / p->depth_multiplier;
    const int16_t* wc = w + ((int64_t)(c / 4) * taps + win->tap_offset) * 4 + c % 4;
    int32_t acc = bias != NULL ? bias[c] : 0;
    for (ky = 0; ky < win->rows; ++ky)
      for (kx = 0; kx < win->cols; ++kx)
        acc += (xc[(int64_t)ky * row_step + (int64_t)kx * tap_step] + p->input_offset) *
               wc[((int64_t)ky * p->kernel_w + kx) * 4];
    y[c] = kiln_s8_output(acc, &rq[c], o);
  }
}

kiln_status_t kiln_depthwise_conv2d_s8(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                       const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                       int8_t* y) {
  int32_t b, oy, ox, ox_lo, ox_hi;
  kiln_s8_output_t o;
#if KILN_S8_DSP
  const int fast3x3 = p->depth_multiplier == 1 && p->kernel_h == 3 && p->kernel_w == 3;
#endif
  if (p == NULL || x == NULL || w == NULL || rq == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->depth_multiplier <= 0 || p->out_c != p->in_c * p->depth_multiplier || p->kernel_h <= 0 ||
      p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 || p->dilation_h <= 0 || p->dilation_w <= 0 ||
      !kiln_s8_aligned4(w))
    return KILN_ERR_BAD_ARGUMENT;
#if KILN_S8_MVE
  if (kiln_depthwise_s8_mve_ok(p)) return kiln_depthwise_conv2d_s8_mve(p, x, w, bias, rq, y);
#endif
  kiln_s8_output_init(&o, p->output_offset, p->act_min, p->act_max, rq, bias, p->out_c,
                      (int64_t)p->kernel_h * p->kernel_w);
  /* Output columns [ox_lo, ox_hi) have every kernel column inside the input. */
  ox_lo = 0;
  while (ox_lo < p->out_w && ox_lo * p->stride_w - p->pad_left < 0) ++ox_lo;
  ox_hi = ox_lo;
  while (ox_hi < p->out_w && ox_hi * p->stride_w - p->pad_left + (p->kernel_w - 1) * p->dilation_w < p->in_w) ++ox_hi;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      int32_t ky0, ky1;
      tap_range(iy0, p->dilation_h, p->kernel_h, p->in_h, &ky0, &ky1);
      for (ox = 0; ox < p->out_w; ++ox) {
        const int32_t ix0 = ox * p->stride_w - p->pad_left;
        int8_t* yp = y + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * p->out_c;
        int32_t kx0, kx1, c0 = 0;
        dw_window_t win;
        tap_range(ix0, p->dilation_w, p->kernel_w, p->in_w, &kx0, &kx1);
        win.rows = ky1 - ky0;
        win.cols = kx1 - kx0;
        win.tap_offset = ky0 * p->kernel_w + kx0;
        win.x = win.rows > 0 && win.cols > 0
                    ? xb + ((int64_t)(iy0 + ky0 * p->dilation_h) * p->in_w + ix0 + kx0 * p->dilation_w) * p->in_c
                    : xb;
#if KILN_S8_DSP
        if (fast3x3) {
          /* The pixels [ox_lo, ox_hi) of a row share one window shape: one run. */
          const int32_t n = ox == ox_lo && ox_lo < ox_hi ? ox_hi - ox_lo : 1;
          const int16_t* wt = w + (int64_t)win.tap_offset * 4;
          int handled = 1;
          if (win.rows == 3 && win.cols == 3)
            dw3x3_run_any(p, win.x, n, wt, bias, rq, &o, yp);
          else
            handled = dw_border_run(p, win.x, n, wt, bias, rq, &o, yp, win.rows, win.cols);
          if (handled) {
            int32_t i;
            for (i = 0; i < n && p->out_c % 4 != 0; ++i) {
              dw_pixel_each(p, &win, p->out_c / 4 * 4, w, bias, rq, &o, yp + (int64_t)i * p->out_c);
              win.x += p->stride_w * p->in_c;
            }
            ox += n - 1;
            continue;
          }
        }
#endif
        if (p->depth_multiplier == 1)
          dw_pixel_m1_any(p, &win, w, bias, rq, &o, yp);
        else
          dw_pixel_mult_any(p, &win, w, bias, rq, &o, yp);
        c0 = p->out_c / 4 * 4;
        dw_pixel_each(p, &win, c0, w, bias, rq, &o, yp);
      }
    }
  }
  return KILN_OK;
}
