/* ONNX GridSample (opset 16, 4-D). Coordinates are unnormalized to pixel units;
 * out-of-range positions are clamped (border) or reflected (reflection) first, and
 * each tap read by the interpolation applies the padding mode again (zeros: taps
 * outside the image read 0). This is the behaviour of the ONNX reference and of
 * PyTorch's grid_sample, which produced the backend test data. */
#include <math.h>

#include "kiln/sample.h"

static float unnormalize(float v, uint32_t len, uint32_t align) {
  return align ? (v + 1.0f) / 2.0f * (float)(len - 1u) : ((v + 1.0f) * (float)len - 1.0f) / 2.0f;
}

/* Mirrors x into [lo, hi] (repeatedly, like a ping-pong). */
static float reflect(float x, float lo, float hi) {
  const float range = hi - lo;
  float d, r;
  long k;
  if (!(range > 0.0f)) return lo;
  if (x < lo) {
    d = lo - x;
    k = (long)(d / range);
    r = d - (float)k * range;
    return (k % 2 == 0) ? lo + r : hi - r;
  }
  if (x > hi) {
    d = x - hi;
    k = (long)(d / range);
    r = d - (float)k * range;
    return (k % 2 == 0) ? hi - r : lo + r;
  }
  return x;
}

static float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

typedef struct {
  const float* img; /* one [h, w] plane */
  uint32_t h, w, padding;
  float lo_x, hi_x, lo_y, hi_y; /* reflection borders */
} plane_t;

static float tap(const plane_t* pl, float fr, float fc) {
  long r, c;
  if (pl->padding == KILN_GRID_BORDER) {
    fr = clampf(fr, 0.0f, (float)pl->h - 1.0f);
    fc = clampf(fc, 0.0f, (float)pl->w - 1.0f);
  } else if (pl->padding == KILN_GRID_REFLECTION) {
    fr = reflect(fr, pl->lo_y, pl->hi_y);
    fc = reflect(fc, pl->lo_x, pl->hi_x);
    /* Truncation toward zero as in the reference; the clamp only guards rounding at the edges. */
    fr = clampf(fr, 0.0f, (float)pl->h - 1.0f);
    fc = clampf(fc, 0.0f, (float)pl->w - 1.0f);
  } else if (!(fr >= 0.0f && fr < (float)pl->h && fc >= 0.0f && fc < (float)pl->w)) {
    return 0.0f;
  }
  r = (long)fr;
  c = (long)fc;
  return pl->img[(size_t)r * pl->w + (size_t)c];
}

static void cubic_coeffs(float t, float cf[4]) {
  const float a = -0.75f;
  const float x = fabsf(t);
  cf[0] = ((a * (x + 1.0f) - 5.0f * a) * (x + 1.0f) + 8.0f * a) * (x + 1.0f) - 4.0f * a;
  cf[1] = ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f;
  cf[2] = ((a + 2.0f) * (1.0f - x) - (a + 3.0f)) * (1.0f - x) * (1.0f - x) + 1.0f;
  cf[3] = ((a * (2.0f - x) - 5.0f * a) * (2.0f - x) + 8.0f * a) * (2.0f - x) - 4.0f * a;
}

static float sample(const plane_t* pl, uint32_t mode, float x, float y) {
  if (mode == KILN_GRID_NEAREST) {
    return tap(pl, (float)rint(y), (float)rint(x));
  }
  if (mode == KILN_GRID_BILINEAR) {
    const float x1 = floorf(x), y1 = floorf(y);
    const float dx1 = x - x1, dx2 = x1 + 1.0f - x, dy1 = y - y1, dy2 = y1 + 1.0f - y;
    const float p11 = tap(pl, y1, x1), p12 = tap(pl, y1, x1 + 1.0f);
    const float p21 = tap(pl, y1 + 1.0f, x1), p22 = tap(pl, y1 + 1.0f, x1 + 1.0f);
    return dy2 * (dx2 * p11 + dx1 * p12) + dy1 * (dx2 * p21 + dx1 * p22);
  }
  {
    const float x0 = floorf(x) - 1.0f, y0 = floorf(y) - 1.0f;
    float cx[4], cy[4], acc = 0.0f;
    int i, j;
    cubic_coeffs(x - x0 - 1.0f, cx);
    cubic_coeffs(y - y0 - 1.0f, cy);
    for (i = 0; i < 4; ++i) {
      float row = 0.0f;
      for (j = 0; j < 4; ++j) row += cx[j] * tap(pl, y0 + (float)i, x0 + (float)j);
      acc += cy[i] * row;
    }
    return acc;
  }
}

kiln_status_t kiln_grid_sample_f32(const kiln_grid_sample_params_t* p, const float* x, const float* grid,
                                   float* out) {
  uint32_t b, ch, oy, ox;
  plane_t pl;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (p->mode > KILN_GRID_BICUBIC || p->padding_mode > KILN_GRID_REFLECTION) return KILN_ERR_BAD_ARGUMENT;
  if ((size_t)p->n * p->c * p->h_out * p->w_out == 0u) return KILN_OK;
  if (x == NULL || grid == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->h_in == 0u || p->w_in == 0u) return KILN_ERR_BAD_ARGUMENT;
  pl.h = p->h_in;
  pl.w = p->w_in;
  pl.padding = p->padding_mode;
  pl.lo_x = p->align_corners ? 0.0f : -0.5f;
  pl.lo_y = pl.lo_x;
  pl.hi_x = p->align_corners ? (float)p->w_in - 1.0f : (float)p->w_in - 0.5f;
  pl.hi_y = p->align_corners ? (float)p->h_in - 1.0f : (float)p->h_in - 0.5f;
  for (b = 0; b < p->n; ++b) {
    for (oy = 0; oy < p->h_out; ++oy) {
      for (ox = 0; ox < p->w_out; ++ox) {
        const float* g = grid + (((size_t)b * p->h_out + oy) * p->w_out + ox) * 2u;
        float fx = unnormalize(g[0], p->w_in, p->align_corners);
        float fy = unnormalize(g[1], p->h_in, p->align_corners);
        if (!(fx == fx) || !(fy == fy)) return KILN_ERR_BAD_ARGUMENT; /* NaN position */
        if (p->mode == KILN_GRID_NEAREST) {
          fx = (float)rint(fx);
          fy = (float)rint(fy);
        }
        if (fx < pl.lo_x || fx > pl.hi_x || fy < pl.lo_y || fy > pl.hi_y) {
          if (p->padding_mode == KILN_GRID_BORDER) {
            fx = clampf(fx, 0.0f, (float)p->w_in - 1.0f);
            fy = clampf(fy, 0.0f, (float)p->h_in - 1.0f);
          } else if (p->padding_mode == KILN_GRID_REFLECTION) {
            fx = reflect(fx, pl.lo_x, pl.hi_x);
            fy = reflect(fy, pl.lo_y, pl.hi_y);
          }
        }
        /* Far outside positions cannot index anything; keep the float -> long casts defined. */
        fx = clampf(fx, -4.0f, (float)p->w_in + 4.0f);
        fy = clampf(fy, -4.0f, (float)p->h_in + 4.0f);
        for (ch = 0; ch < p->c; ++ch) {
          pl.img = x + ((size_t)b * p->c + ch) * p->h_in * p->w_in;
          out[(((size_t)b * p->c + ch) * p->h_out + oy) * p->w_out + ox] = sample(&pl, p->mode, fx, fy);
        }
      }
    }
  }
  return KILN_OK;
}
