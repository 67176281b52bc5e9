/* ONNX MaxPool (with the optional Indices output), up to three spatial axes,
 * NC[D]HW, for float32/float64/int8/uint8. The loop is written once as a macro
 * over the element type; only the comparison differs (floats propagate NaN). */
#include <math.h>

#include "kiln/pool.h"

static kiln_status_t check(const kiln_pool2d_params_t* p, const void* in, const void* out) {
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->stride_d == 0u || p->stride_h == 0u || p->stride_w == 0u || p->dilation_d == 0u || p->dilation_h == 0u ||
      p->dilation_w == 0u)
    return KILN_ERR_BAD_ARGUMENT;
  return KILN_OK;
}

/* Flat input index of spatial position (z, y, x) in plane `c`, honouring storage_order
 * (1: the spatial index is column-major, x varies slowest). */
static int64_t flat_index(const kiln_pool2d_params_t* p, uint32_t c, uint32_t z, uint32_t y, uint32_t x) {
  const int64_t plane = (int64_t)p->d_in * p->h_in * p->w_in;
  const int64_t sp = p->storage_order ? ((int64_t)x * p->h_in + y) * p->d_in + z
                                      : ((int64_t)z * p->h_in + y) * p->w_in + x;
  return (int64_t)c * plane + sp;
}

/* The window taps [*lo, *hi) of one axis that land inside the input (0..n-1) for
 * output position `o`: one contiguous run, found once per output position rather
 * than tested per tap. */
static void valid_taps(uint32_t o, uint32_t k, uint32_t stride, uint32_t dilation, int32_t pad, uint32_t n,
                       uint32_t* lo, uint32_t* hi) {
  const int64_t base = (int64_t)o * stride - pad;
  uint32_t a = 0, b = k;
  while (a < k && base + (int64_t)a * dilation < 0) ++a;
  while (b > a && base + (int64_t)(b - 1u) * dilation >= (int64_t)n) --b;
  *lo = a;
  *hi = b;
}

#define KILN_MAXPOOL_BODY(T, LOWEST, BETTER)                                                                \
  uint32_t c, oz, oy, ox, kz, ky, kx, kz0, kz1, ky0, ky1, kx0, kx1;                                          \
  kiln_status_t s = check(p, in, out);                                                                      \
  if (s != KILN_OK) return s;                                                                               \
  for (c = 0; c < p->n * p->c; ++c) {                                                                       \
    const T* plane = in + c * p->d_in * p->h_in * p->w_in;                                                  \
    for (oz = 0; oz < p->d_out; ++oz) {                                                                     \
      valid_taps(oz, p->k_d, p->stride_d, p->dilation_d, p->pad_front, p->d_in, &kz0, &kz1);                \
      for (oy = 0; oy < p->h_out; ++oy) {                                                                   \
        valid_taps(oy, p->k_h, p->stride_h, p->dilation_h, p->pad_top, p->h_in, &ky0, &ky1);                \
        for (ox = 0; ox < p->w_out; ++ox) {                                                                 \
          T m = LOWEST;                                                                                     \
          int64_t at = -1;                                                                                  \
          int found = 0;                                                                                    \
          valid_taps(ox, p->k_w, p->stride_w, p->dilation_w, p->pad_left, p->w_in, &kx0, &kx1);             \
          for (kz = kz0; kz < kz1; ++kz) {                                                                  \
            const uint32_t iz = oz * p->stride_d + kz * p->dilation_d - (uint32_t)p->pad_front;             \
            for (ky = ky0; ky < ky1; ++ky) {                                                                \
              const uint32_t iy = oy * p->stride_h + ky * p->dilation_h - (uint32_t)p->pad_top;             \
              const T* row = plane + (iz * p->h_in + iy) * p->w_in;                                         \
              uint32_t ix = ox * p->stride_w + kx0 * p->dilation_w - (uint32_t)p->pad_left;                 \
              for (kx = kx0; kx < kx1; ++kx, ix += p->dilation_w) {                                         \
                const T v = row[ix];                                                                        \
                if (!found || BETTER(v, m)) { /* the index only when asked for: it is 64-bit math */     \
                  m = v;                                                                                    \
                  found = 1;                                                                                \
                  if (indices != NULL) at = flat_index(p, c, iz, iy, ix);                                   \
                }                                                                                           \
              }                                                                                             \
            }                                                                                               \
          }                                                                                                 \
          *out++ = m;                                                                                       \
          if (indices != NULL) *indices++ = at;                                                             \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
  }                                                                                                         \
  return KILN_OK;

/* A later element wins only when strictly greater, so ties keep the first index. */
#define KILN_GT_NAN(v, m) ((v) > (m) || ((v) != (v) && (m) == (m)))
#define KILN_GT(v, m) ((v) > (m))

/* The common 2x2 window, stride 2, no padding, no indices: each output reads its
 * four taps straight from two input rows, no per-tap index or range arithmetic.
 * Same result as the general loop: a NaN tap makes the output NaN, else the max. */
static int is_2x2_stride2(const kiln_pool2d_params_t* p) {
  return p->d_in == 1u && p->d_out == 1u && p->k_d == 1u && p->k_h == 2u && p->k_w == 2u && p->stride_h == 2u &&
         p->stride_w == 2u && p->dilation_h == 1u && p->dilation_w == 1u && p->pad_top == 0 && p->pad_left == 0 &&
         2u * p->h_out <= p->h_in && 2u * p->w_out <= p->w_in;
}

static void maxpool_2x2_f32(const kiln_pool2d_params_t* p, const float* in, float* out) {
  uint32_t c, oy, ox;
  for (c = 0; c < p->n * p->c; ++c) {
    const float* plane = in + c * p->h_in * p->w_in;
    for (oy = 0; oy < p->h_out; ++oy) {
      const float* r0 = plane + 2u * oy * p->w_in;
      const float* r1 = r0 + p->w_in;
      for (ox = 0; ox < p->w_out; ++ox, r0 += 2, r1 += 2) {
        float m = r0[0], v = r0[1];
        if (v > m || v != v) m = v;
        v = r1[0];
        if (v > m || v != v) m = v;
        v = r1[1];
        if (v > m || v != v) m = v;
        *out++ = m;
      }
    }
  }
}

kiln_status_t kiln_maxpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out, int64_t* indices) {
  if (indices == NULL && check(p, in, out) == KILN_OK && is_2x2_stride2(p)) {
    maxpool_2x2_f32(p, in, out);
    return KILN_OK;
  }
  {
    KILN_MAXPOOL_BODY(float, -INFINITY, KILN_GT_NAN)
  }
}
kiln_status_t kiln_maxpool2d_f64(const kiln_pool2d_params_t* p, const double* in, double* out, int64_t* indices) {
  KILN_MAXPOOL_BODY(double, -INFINITY, KILN_GT_NAN)
}
kiln_status_t kiln_maxpool2d_i8(const kiln_pool2d_params_t* p, const int8_t* in, int8_t* out, int64_t* indices) {
  KILN_MAXPOOL_BODY(int8_t, INT8_MIN, KILN_GT)
}
kiln_status_t kiln_maxpool2d_u8(const kiln_pool2d_params_t* p, const uint8_t* in, uint8_t* out, int64_t* indices) {
  KILN_MAXPOOL_BODY(uint8_t, 0, KILN_GT)
}
