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

#define KILN_MAXPOOL_BODY(T, LOWEST, BETTER)                                                                \
  uint32_t c, oz, oy, ox, kz, ky, kx;                                                                       \
  kiln_status_t s = check(p, in, out);                                                                      \
  if (s != KILN_OK) return s;                                                                               \
  for (c = 0; c < p->n * p->c; ++c) {                                                                       \
    const T* plane = in + c * p->d_in * p->h_in * p->w_in;                                                  \
    for (oz = 0; oz < p->d_out; ++oz)                                                                       \
      for (oy = 0; oy < p->h_out; ++oy)                                                                     \
        for (ox = 0; ox < p->w_out; ++ox) {                                                                 \
          T m = LOWEST;                                                                                     \
          int64_t at = -1;                                                                                  \
          for (kz = 0; kz < p->k_d; ++kz) {                                                                 \
            const int32_t iz = (int32_t)(oz * p->stride_d + kz * p->dilation_d) - p->pad_front;             \
            if (iz < 0 || iz >= (int32_t)p->d_in) continue;                                                 \
            for (ky = 0; ky < p->k_h; ++ky) {                                                               \
              const int32_t iy = (int32_t)(oy * p->stride_h + ky * p->dilation_h) - p->pad_top;             \
              if (iy < 0 || iy >= (int32_t)p->h_in) continue;                                               \
              for (kx = 0; kx < p->k_w; ++kx) {                                                             \
                const int32_t ix = (int32_t)(ox * p->stride_w + kx * p->dilation_w) - p->pad_left;          \
                T v;                                                                                        \
                if (ix < 0 || ix >= (int32_t)p->w_in) continue;                                             \
                v = plane[((uint32_t)iz * p->h_in + (uint32_t)iy) * p->w_in + (uint32_t)ix];                \
                if (at < 0 || BETTER(v, m)) {                                                               \
                  m = v;                                                                                    \
                  at = flat_index(p, c, (uint32_t)iz, (uint32_t)iy, (uint32_t)ix);                          \
                }                                                                                           \
              }                                                                                             \
            }                                                                                               \
          }                                                                                                 \
          *out++ = m;                                                                                       \
          if (indices != NULL) *indices++ = at;                                                             \
        }                                                                                                   \
  }                                                                                                         \
  return KILN_OK;

/* A later element wins only when strictly greater, so ties keep the first index. */
#define KILN_GT_NAN(v, m) ((v) > (m) || ((v) != (v) && (m) == (m)))
#define KILN_GT(v, m) ((v) > (m))

kiln_status_t kiln_maxpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out, int64_t* indices) {
  KILN_MAXPOOL_BODY(float, -INFINITY, KILN_GT_NAN)
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
