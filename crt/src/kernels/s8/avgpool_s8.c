/* KilnQAvgPool2D: NHWC int8 average pooling, TFLite's integer semantics (see
 * kiln/nn_s8_pool.h). For every output pixel the in-bounds tap window is worked
 * out once; the channels are then summed in register blocks (8 per pass on the DSP
 * path, as int16 lanes of SXTAB16; 4 per pass in portable C), so the inner loop is
 * loads and adds only. */
#include "kiln/nn_s8_pool.h"
#include "s8_dsp.h"

/* The clipped tap window of one output pixel: rows [y0, y1) and columns [x0, x1)
 * of the input. */
typedef struct {
  int32_t y0, y1, x0, x1;
} window_t;

static window_t window_of(const kiln_pool2d_s8_params_t* p, int32_t oy, int32_t ox) {
  window_t w;
  const int32_t iy = oy * p->stride_h - p->pad_top;
  const int32_t ix = ox * p->stride_w - p->pad_left;
  w.y0 = iy < 0 ? 0 : iy;
  w.y1 = iy + p->kernel_h < p->in_h ? iy + p->kernel_h : p->in_h;
  w.x0 = ix < 0 ? 0 : ix;
  w.x1 = ix + p->kernel_w < p->in_w ? ix + p->kernel_w : p->in_w;
  return w;
}

/* sum / count rounded half away from zero (count > 0), then clamped. */
static int8_t average(int32_t sum, int32_t count, int32_t lo, int32_t hi) {
  int32_t v = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  return (int8_t)v;
}

/* Sums channels [c, c + n) (n <= 4) of the window's taps into s[0..n). `first`
 * points at channel c of the window's top-left tap. */
static void sum_channels(const int8_t* first, int32_t n, int32_t rows, int32_t cols, int32_t col_step,
                         int32_t row_step, int32_t s[4]) {
  int32_t r, k, i;
  s[0] = s[1] = s[2] = s[3] = 0;
  for (r = 0; r < rows; ++r, first += row_step) {
    const int8_t* t = first;
    if (n == 4) {
      for (k = 0; k < cols; ++k, t += col_step) {
        s[0] += t[0];
        s[1] += t[1];
        s[2] += t[2];
        s[3] += t[3];
      }
    } else {
      for (k = 0; k < cols; ++k, t += col_step)
        for (i = 0; i < n; ++i) s[i] += t[i];
    }
  }
}

#if KILN_S8_DSP
/* Eight channels of the window summed as int16 lanes (exact: at most 256 taps of
 * |v| <= 128 stay within int16). even = channels 0,2 / 4,6; odd = 1,3 / 5,7. */
static void sum8_dsp(const int8_t* first, int32_t rows, int32_t cols, int32_t col_step, int32_t row_step,
                     int32_t s[8]) {
  uint32_t e0 = 0, o0 = 0, e1 = 0, o1 = 0;
  int32_t r, k;
  for (r = 0; r < rows; ++r, first += row_step) {
    const int8_t* t = first;
    for (k = 0; k < cols; ++k, t += col_step) {
      const uint32_t w0 = kiln_s8_load4(t), w1 = kiln_s8_load4(t + 4);
      e0 = __sxtab16(e0, w0);
      o0 = __sxtab16(o0, kiln_s8_ror8(w0));
      e1 = __sxtab16(e1, w1);
      o1 = __sxtab16(o1, kiln_s8_ror8(w1));
    }
  }
  s[0] = (int16_t)(e0 & 0xFFFFu);
  s[1] = (int16_t)(o0 & 0xFFFFu);
  s[2] = (int16_t)(e0 >> 16);
  s[3] = (int16_t)(o0 >> 16);
  s[4] = (int16_t)(e1 & 0xFFFFu);
  s[5] = (int16_t)(o1 & 0xFFFFu);
  s[6] = (int16_t)(e1 >> 16);
  s[7] = (int16_t)(o1 >> 16);
}
#endif

kiln_status_t kiln_avgpool2d_s8(const kiln_pool2d_s8_params_t* p, const int8_t* x, int8_t* y) {
  int32_t b, oy, ox, c, i;
  if (p == NULL || x == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->batch < 0 || p->in_h <= 0 || p->in_w <= 0 || p->channels <= 0 || p->out_h < 0 || p->out_w < 0 ||
      p->kernel_h <= 0 || p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 ||
      p->kernel_h > (1 << 23) / p->kernel_w || p->act_min > p->act_max)
    return KILN_ERR_BAD_ARGUMENT;
  {
    const int32_t C = p->channels;
    const int32_t row_step = p->in_w * C;
    for (b = 0; b < p->batch; ++b) {
      const int8_t* image = x + (size_t)b * (size_t)p->in_h * (size_t)row_step;
      for (oy = 0; oy < p->out_h; ++oy) {
        for (ox = 0; ox < p->out_w; ++ox, y += C) {
          const window_t w = window_of(p, oy, ox);
          const int32_t rows = w.y1 - w.y0, cols = w.x1 - w.x0;
          const int8_t* first = image + (size_t)w.y0 * (size_t)row_step + (size_t)w.x0 * (size_t)C;
          int32_t s[8];
          if (rows <= 0 || cols <= 0) return KILN_ERR_BAD_ARGUMENT; /* no tap inside the input */
          c = 0;
#if KILN_S8_DSP
          if (rows * cols <= 256) {
            for (; c + 8 <= C; c += 8) {
              sum8_dsp(first + c, rows, cols, C, row_step, s);
              for (i = 0; i < 8; ++i) y[c + i] = average(s[i], rows * cols, p->act_min, p->act_max);
            }
          }
#endif
          for (; c < C; c += 4) {
            const int32_t n = C - c < 4 ? C - c : 4;
            sum_channels(first + c, n, rows, cols, C, row_step, s);
            for (i = 0; i < n; ++i) y[c + i] = average(s[i], rows * cols, p->act_min, p->act_max);
          }
        }
      }
    }
  }
  return KILN_OK;
}
