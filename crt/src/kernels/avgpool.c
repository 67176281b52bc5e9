/* ONNX AveragePool, float32, up to three spatial axes, NC[D]HW. The divisor counts
 * the in-input positions of the window, plus the padding positions when
 * count_include_pad (never the positions a ceil_mode window reaches past the pads). */
#include "kiln/pool.h"
#include "rows_f32.h"

/* 1 when coordinate v lies in the input, 2 when only in the padded extent, else 0. */
static int where(int32_t v, uint32_t size, int32_t pad_begin, int32_t pad_end) {
  if (v >= 0 && v < (int32_t)size) return 1;
  return v >= -pad_begin && v < (int32_t)size + pad_end ? 2 : 0;
}

kiln_status_t kiln_avgpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out) {
  uint32_t c, oz, oy, ox, kz, ky, kx;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->stride_d == 0u || p->stride_h == 0u || p->stride_w == 0u) return KILN_ERR_BAD_ARGUMENT;
  if (p->d_out == 1u && p->h_out == 1u && p->w_out == 1u && p->k_d == p->d_in && p->k_h == p->h_in &&
      p->k_w == p->w_in && p->pad_front == 0 && p->pad_top == 0 && p->pad_left == 0 && p->pad_back == 0 &&
      p->pad_bottom == 0 && p->pad_right == 0 && p->dilation_d == 1u && p->dilation_h == 1u && p->dilation_w == 1u) {
    /* One window over the whole plane (a classifier head's pooling): the plane's sum in
     * order, the same additions as the loop below. */
    const uint32_t size = p->d_in * p->h_in * p->w_in;
    for (c = 0; c < p->n * p->c; ++c) {
      const float sum = kiln_f32_sum(in + c * size, size);
      out[c] = size > 0u ? sum / (float)size : 0.0f;
    }
    return KILN_OK;
  }
  for (c = 0; c < p->n * p->c; ++c) {
    const float* plane = in + c * p->d_in * p->h_in * p->w_in;
    for (oz = 0; oz < p->d_out; ++oz)
      for (oy = 0; oy < p->h_out; ++oy)
        for (ox = 0; ox < p->w_out; ++ox) {
          float sum = 0.0f;
          uint32_t count = 0;
          for (kz = 0; kz < p->k_d; ++kz) {
            const int32_t iz = (int32_t)(oz * p->stride_d + kz * p->dilation_d) - p->pad_front;
            const int wz = where(iz, p->d_in, p->pad_front, p->pad_back);
            for (ky = 0; ky < p->k_h; ++ky) {
              const int32_t iy = (int32_t)(oy * p->stride_h + ky * p->dilation_h) - p->pad_top;
              const int wy = where(iy, p->h_in, p->pad_top, p->pad_bottom);
              for (kx = 0; kx < p->k_w; ++kx) {
                const int32_t ix = (int32_t)(ox * p->stride_w + kx * p->dilation_w) - p->pad_left;
                const int wx = where(ix, p->w_in, p->pad_left, p->pad_right);
                if (wz == 1 && wy == 1 && wx == 1) {
                  sum += plane[((uint32_t)iz * p->h_in + (uint32_t)iy) * p->w_in + (uint32_t)ix];
                  ++count;
                } else if (p->count_include_pad && wz != 0 && wy != 0 && wx != 0) {
                  ++count; /* a padding zero that counts in the divisor */
                }
              }
            }
          }
          *out++ = count > 0u ? sum / (float)count : 0.0f;
        }
  }
  return KILN_OK;
}
