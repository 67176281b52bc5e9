/* KilnQResizeBilinear (kiln/nn_s8_resize.h): TFLite's integer bilinear resize,
 * NHWC. The source rows/columns and their 1/1024 fractions are the compiler's
 * tables; each output channel is four products and one rounding division. */
#include "kiln/nn_s8_resize.h"

kiln_status_t kiln_resize_bilinear_s8(const kiln_resize_bilinear_s8_params_t* p, const int8_t* x,
                                      const int32_t* rows, const int32_t* cols, int8_t* y) {
  int32_t b, oy, ox, c, k;
  if (p == NULL || x == NULL || rows == NULL || cols == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->batch < 0 || p->in_h <= 0 || p->in_w <= 0 || p->channels < 0 || p->out_h < 0 || p->out_w < 0)
    return KILN_ERR_BAD_ARGUMENT;
  /* Every table entry inside the input, every fraction in range: nothing is read
   * out of bounds and the sums fit int32 whatever the tables hold. */
  for (k = 0; k < p->out_h; ++k)
    if (rows[3 * k] < 0 || rows[3 * k] >= p->in_h || rows[3 * k + 1] < 0 || rows[3 * k + 1] >= p->in_h ||
        rows[3 * k + 2] < -512 || rows[3 * k + 2] > 1024)
      return KILN_ERR_BAD_ARGUMENT;
  for (k = 0; k < p->out_w; ++k)
    if (cols[3 * k] < 0 || cols[3 * k] >= p->in_w || cols[3 * k + 1] < 0 || cols[3 * k + 1] >= p->in_w ||
        cols[3 * k + 2] < -512 || cols[3 * k + 2] > 1024)
      return KILN_ERR_BAD_ARGUMENT;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* image = x + (size_t)b * (size_t)p->in_h * (size_t)p->in_w * (size_t)p->channels;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t dy = rows[3 * oy + 2];
      const int8_t* row0 = image + (size_t)rows[3 * oy] * (size_t)p->in_w * (size_t)p->channels;
      const int8_t* row1 = image + (size_t)rows[3 * oy + 1] * (size_t)p->in_w * (size_t)p->channels;
      for (ox = 0; ox < p->out_w; ++ox) {
        const int32_t dx = cols[3 * ox + 2];
        const size_t c0 = (size_t)cols[3 * ox] * (size_t)p->channels, c1 = (size_t)cols[3 * ox + 1] * (size_t)p->channels;
        /* The four weights, each a product of two fractions (TFLite's order of terms). */
        const int32_t w00 = (1024 - dy) * (1024 - dx), w10 = dy * (1024 - dx);
        const int32_t w01 = (1024 - dy) * dx, w11 = dy * dx;
        for (c = 0; c < p->channels; ++c) {
          const int32_t s = row0[c0 + (size_t)c] * w00 + row1[c0 + (size_t)c] * w10 + row0[c1 + (size_t)c] * w01 +
                            row1[c1 + (size_t)c] * w11;
          *y++ = (int8_t)((s + (s > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20));
        }
      }
    }
  }
  return KILN_OK;
}
