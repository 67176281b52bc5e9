/* KilnQMaxPool2D: NHWC int8 max pooling, TFLite's integer semantics (see
 * kiln/nn_s8_pool.h). For every output pixel the in-bounds tap window is worked
 * out once; the channels are then reduced in register blocks (8 per pass on the DSP
 * path as two words of four lanes, SSUB8 + SEL; 4 per pass in portable C). */
#include "kiln/nn_s8_pool.h"
#include "s8_dsp.h"

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

static int8_t clamp(int32_t v, int32_t lo, int32_t hi) {
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  return (int8_t)v;
}

/* Maxima of channels [c, c + n) (n <= 4) over the window into m[0..n); -128 when
 * the window is empty. `first` points at channel c of the top-left tap. */
static void max_channels(const int8_t* first, int32_t n, int32_t rows, int32_t cols, int32_t col_step,
                         int32_t row_step, int32_t m[4]) {
  int32_t r, k, i;
  m[0] = m[1] = m[2] = m[3] = -128;
  for (r = 0; r < rows; ++r, first += row_step) {
    const int8_t* t = first;
    if (n == 4) {
      for (k = 0; k < cols; ++k, t += col_step) {
        m[0] = t[0] > m[0] ? t[0] : m[0];
        m[1] = t[1] > m[1] ? t[1] : m[1];
        m[2] = t[2] > m[2] ? t[2] : m[2];
        m[3] = t[3] > m[3] ? t[3] : m[3];
      }
    } else {
      for (k = 0; k < cols; ++k, t += col_step)
        for (i = 0; i < n; ++i) m[i] = t[i] > m[i] ? t[i] : m[i];
    }
  }
}

#if KILN_S8_DSP
/* Lane-wise signed max of four int8 lanes: SSUB8 sets a GE flag per lane where
 * a >= b, SEL takes those lanes from a. */
static inline uint32_t max4(uint32_t a, uint32_t b) {
  (void)__ssub8(a, b);
  return __sel(a, b);
}

/* Eight channels of the window reduced and clamped, written to out[0..8). */
static void max8_dsp(const int8_t* first, int32_t rows, int32_t cols, int32_t col_step, int32_t row_step,
                     uint32_t lo4, uint32_t hi4, int8_t* out) {
  uint32_t m0 = lo4, m1 = lo4; /* max(taps, act_min) == clamp from below */
  int32_t r, k;
  for (r = 0; r < rows; ++r, first += row_step) {
    const int8_t* t = first;
    for (k = 0; k < cols; ++k, t += col_step) {
      m0 = max4(kiln_s8_load4(t), m0);
      m1 = max4(kiln_s8_load4(t + 4), m1);
    }
  }
  /* min(m, act_max): lanes where m >= hi take hi. */
  (void)__ssub8(m0, hi4);
  m0 = __sel(hi4, m0);
  (void)__ssub8(m1, hi4);
  m1 = __sel(hi4, m1);
  kiln_s8_store4(out, m0);
  kiln_s8_store4(out + 4, m1);
}
#endif

kiln_status_t kiln_maxpool2d_s8(const kiln_pool2d_s8_params_t* p, const int8_t* x, int8_t* y) {
  int32_t b, oy, ox, c, i;
  if (p == NULL || x == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->batch < 0 || p->in_h <= 0 || p->in_w <= 0 || p->channels <= 0 || p->out_h < 0 || p->out_w < 0 ||
      p->kernel_h <= 0 || p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 || p->act_min > p->act_max ||
      p->act_min < -128 || p->act_max > 127)
    return KILN_ERR_BAD_ARGUMENT;
  {
    const int32_t C = p->channels;
    const int32_t row_step = p->in_w * C;
#if KILN_S8_DSP
    const uint32_t lo4 = 0x01010101u * (uint32_t)(uint8_t)(int8_t)p->act_min;
    const uint32_t hi4 = 0x01010101u * (uint32_t)(uint8_t)(int8_t)p->act_max;
#endif
    for (b = 0; b < p->batch; ++b) {
      const int8_t* image = x + (size_t)b * (size_t)p->in_h * (size_t)row_step;
      for (oy = 0; oy < p->out_h; ++oy) {
        for (ox = 0; ox < p->out_w; ++ox, y += C) {
          const window_t w = window_of(p, oy, ox);
          const int32_t rows = w.y1 > w.y0 ? w.y1 - w.y0 : 0, cols = w.x1 > w.x0 ? w.x1 - w.x0 : 0;
          const int8_t* first = image + (size_t)(rows > 0 ? w.y0 : 0) * (size_t)row_step +
                                (size_t)(cols > 0 ? w.x0 : 0) * (size_t)C;
          int32_t m[4];
          c = 0;
#if KILN_S8_DSP
          for (; c + 8 <= C; c += 8) max8_dsp(first + c, rows, cols, C, row_step, lo4, hi4, y + c);
#endif
          for (; c < C; c += 4) {
            const int32_t n = C - c < 4 ? C - c : 4;
            max_channels(first + c, n, rows, cols, C, row_step, m);
            for (i = 0; i < n; ++i) y[c + i] = clamp(m[i], p->act_min, p->act_max);
          }
        }
      }
    }
  }
  return KILN_OK;
}
