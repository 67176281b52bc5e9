/*
 * The packed form of int8 Conv2D (one group) and FullyConnected (nn_s8.h,
 * kiln_conv2d_s8_pk): the same im2col of one output pixel at a time as
 * conv_s8.c (a pointwise convolution widens the pixel's channels, a window inside
 * the input one run per kernel row, a border window with its padded taps 0),
 * then every block of the packed stream against the column (pk_s8.h).
 */
#include "im2col_s8.h"
#include "pk_s8.h"

kiln_status_t kiln_conv2d_s8_pk(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed, int8_t* y,
                                int16_t* scratch) {
  int32_t b, oy, ox, ox_lo, ox_hi, row_len, taps, r, cols;
  kiln_s8_pk_t g;
  if (p == NULL || x == NULL || packed == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups != 1 || p->kernel_h <= 0 || p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 ||
      p->dilation_h <= 0 || p->dilation_w <= 0 || p->act_min != -128 || p->act_max != 127)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(packed) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
  taps = p->kernel_h * p->kernel_w * p->in_c;
  row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)taps);
  kiln_s8_pk_init(&g, packed, row_len, p->out_c, p->output_offset);
  cols = (int32_t)KILN_S8_PK_COLS((uint32_t)row_len);
  if (p->kernel_h == 1 && p->kernel_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
      p->pad_left == 0 && p->out_h == p->in_h && p->out_w == p->in_w) {
    /* Pointwise: every pixel's column is its channels, `cols` pixels per call. */
    const int32_t n = p->batch * p->in_h * p->in_w;
    int32_t i, j;
    for (i = 0; i < n; i += cols) {
      const int32_t m = n - i < cols ? n - i : cols;
      if (p->in_c == row_len) /* the pixels' columns are one run of input bytes */
        kiln_s8_widen(scratch, x + (int64_t)i * p->in_c, m * p->in_c, p->input_offset);
      else
        for (j = 0; j < m; ++j)
          kiln_s8_pk_widen(scratch + j * row_len, x + (int64_t)(i + j) * p->in_c, p->in_c, row_len, p->input_offset);
      kiln_s8_pk_columns(&g, scratch, m, y + (int64_t)i * p->out_c);
    }
    return KILN_OK;
  }
  /* Output columns [ox_lo, ox_hi) have every kernel column inside the input. */
  ox_lo = 0;
  while (ox_lo < p->out_w && ox_lo * p->stride_w - p->pad_left < 0) ++ox_lo;
  ox_hi = ox_lo;
  while (ox_hi < p->out_w && ox_hi * p->stride_w - p->pad_left + (p->kernel_w - 1) * p->dilation_w < p->in_w) ++ox_hi;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    int8_t* yp = y + (int64_t)b * p->out_h * p->out_w * p->out_c;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      const int rows_inside = iy0 >= 0 && iy0 + (p->kernel_h - 1) * p->dilation_h < p->in_h;
      for (ox = 0; ox < p->out_w;) {
        /* Up to `cols` pixels' columns, then one call. */
        const int32_t m = p->out_w - ox < cols ? p->out_w - ox : cols;
        int32_t j;
        for (j = 0; j < m; ++j) {
          int16_t* col = scratch + j * row_len;
          if (rows_inside && p->dilation_w == 1 && ox + j >= ox_lo && ox + j < ox_hi) {
            /* Inside the input a kernel row is one run of kernel_w * in_c bytes. */
            const int32_t run = p->kernel_w * p->in_c;
            const int8_t* src = xb + ((int64_t)iy0 * p->in_w + (ox + j) * p->stride_w - p->pad_left) * p->in_c;
            int16_t* dst = col;
            for (r = 0; r < p->kernel_h; ++r, src += (int64_t)p->dilation_h * p->in_w * p->in_c, dst += run)
              kiln_s8_widen(dst, src, run, p->input_offset);
            kiln_s8_zero(dst, row_len - taps);
          } else {
            kiln_s8_im2col_column(p, xb, oy, ox + j, 0, p->in_c, row_len, col);
          }
        }
        kiln_s8_pk_columns(&g, scratch, m, yp);
        yp += (int64_t)m * p->out_c;
        ox += m;
      }
    }
  }
  return KILN_OK;
}

/* n consecutive input bytes of one channel (input offset added) to d[0], d[step],
 * d[2 * step], ...: on the DSP path four per word load (not past src[n - 1]). */
static inline void pk_strip_channel(const int8_t* src, int32_t n, int16_t* d, int32_t step, int32_t input_offset) {
  int32_t i = 0;
#if KILN_S8_DSP
  const uint32_t off2 = ((uint32_t)input_offset & 0xFFFFu) | ((uint32_t)input_offset << 16);
  for (; i + 3 < n; i += 4, d += 4 * step) {
    const uint32_t v = kiln_s8_load32(src + i);
    const uint32_t even = __sxtab16(off2, v);
    const uint32_t odd = kiln_s8_sxtab16_ror8(off2, v);
    d[0] = (int16_t)even;
    d[step] = (int16_t)odd;
    d[2 * step] = (int16_t)(even >> 16);
    d[3 * step] = (int16_t)(odd >> 16);
  }
#endif
  for (; i < n; ++i, d += step) d[0] = (int16_t)(src[i] + input_offset);
}

/* The strip of output row oy: for every input column xi - pad_left a window can
 * reach, its kernel_h rows' in_c values (input offset added; 0 outside the input)
 * at S[(xi * kernel_h + ky) * in_c + c], then 4 int16 of tail. An NCHW input
 * (nchw != 0, the caller's layout absorbed: docs/quantization.md) is read one
 * channel plane at a time; the strip is the same. */
static void pk_strip(const kiln_conv2d_s8_params_t* p, const int8_t* xb, int32_t oy, int32_t n_x, int16_t* s,
                     int nchw) {
  const int32_t c = p->in_c, kh = p->kernel_h, iy0 = oy * p->stride_h - p->pad_top, step = kh * c;
  const int32_t plane_bytes = p->in_h * p->in_w, offset = p->input_offset;
  int32_t x_lo = p->pad_left, x_hi = p->pad_left + p->in_w, xi, ky, k;
#if KILN_S8_DSP
  const uint32_t off2 = ((uint32_t)p->input_offset & 0xFFFFu) | ((uint32_t)p->input_offset << 16);
#endif
  /* Input columns [x_lo, x_hi) of the strip are inside the input. */
  if (x_hi > n_x) x_hi = n_x;
  if (x_lo > x_hi) x_lo = x_hi;
  for (ky = 0; ky < kh; ++ky) {
    const int32_t iy = iy0 + ky;
    int16_t* d = s + ky * c;
    const int inside = iy >= 0 && iy < p->in_h;
    const int8_t* src = inside ? xb + ((int64_t)iy * p->in_w + (x_lo - p->pad_left)) * c : xb;
    int32_t lo = inside ? x_lo : n_x, hi = inside ? x_hi : n_x;
    for (xi = 0; xi < lo; ++xi, d += step)
      for (k = 0; k < c; ++k) d[k] = 0;
    /* NCHW, or one channel (a depthwise layer with a multiplier, or KWS's first
     * conv): each channel's columns are one run of input bytes, each value stored
     * kernel_h * in_c apart. */
    if ((nchw || c == 1) && xi < hi) {
      const int8_t* plane = xb + (int64_t)iy * p->in_w + (x_lo - p->pad_left);
      const int32_t n = hi - xi;
      pk_strip_channel(plane, n, d, step, offset);
      for (k = 1; k < c; ++k) pk_strip_channel(plane += plane_bytes, n, d + k, step, offset);
      d += n * step;
      xi = hi;
    }
#if KILN_S8_DSP
    /* Three channels: one word load (not for the row's last pixel, whose word
     * could reach past the input), a word and a halfword store. */
    if (c == 3)
      for (; xi + 1 < hi; ++xi, d += step, src += 3) {
        const uint32_t v = kiln_s8_load32(src);
        const uint32_t even = __sxtab16(off2, v);
        const uint32_t odd = kiln_s8_sxtab16_ror8(off2, v);
        kiln_s8_store32(d, kiln_s8_pkhbt_lsl16(even, odd));
        d[2] = (int16_t)kiln_s8_pkhtb_asr16(odd, even);
      }
#endif
    for (; xi < hi; ++xi, d += step, src += c)
      for (k = 0; k < c; ++k) d[k] = (int16_t)(src[k] + p->input_offset);
    for (; xi < n_x; ++xi, d += step)
      for (k = 0; k < c; ++k) d[k] = 0;
  }
  for (k = 0; k < 4; ++k) s[n_x * step + k] = 0;
}

static kiln_status_t pk_strip_conv(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed,
                                   int8_t* y, int16_t* scratch, int nchw) {
  int32_t b, oy, n_x, row_len, col_step;
  kiln_s8_pk_t g;
  if (p == NULL || x == NULL || packed == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups != 1 || p->kernel_h <= 0 || p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 ||
      p->dilation_h != 1 || p->dilation_w != 1 || p->act_min != -128 || p->act_max != 127 || p->out_w <= 0 ||
      (p->stride_w * p->kernel_h * p->in_c) % 2 != 0)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(packed) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
  row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)(p->kernel_h * p->kernel_w * p->in_c));
  kiln_s8_pk_init(&g, packed, row_len, p->out_c, p->output_offset);
  /* Column ox is the strip from input column ox * stride_w: kernel_w * kernel_h *
   * in_c values in the (kx, ky, c) order of the weights, 4-byte aligned. */
  n_x = (p->out_w - 1) * p->stride_w + p->kernel_w;
  col_step = p->stride_w * p->kernel_h * p->in_c;
  g.ctl[3] = 2 * col_step;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    int8_t* yp = y + (int64_t)b * p->out_h * p->out_w * p->out_c;
    for (oy = 0; oy < p->out_h; ++oy, yp += (int64_t)p->out_w * p->out_c) {
      pk_strip(p, xb, oy, n_x, scratch, nchw);
      if (p->out_c % 4 == 0) {
        kiln_s8_pk_columns(&g, scratch, p->out_w, yp);
      } else {
        int32_t ox;
        g.ctl[3] = 2 * row_len;
        for (ox = 0; ox < p->out_w; ++ox) kiln_s8_pk_columns(&g, scratch + ox * col_step, 1, yp + ox * p->out_c);
      }
    }
  }
  return KILN_OK;
}

kiln_status_t kiln_conv2d_s8_pk_strip(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed,
                                      int8_t* y, int16_t* scratch) {
  return pk_strip_conv(p, x, packed, y, scratch, 0);
}

kiln_status_t kiln_conv2d_s8_pk_strip_nchw(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed,
                                           int8_t* y, int16_t* scratch) {
  return pk_strip_conv(p, x, packed, y, scratch, 1);
}

kiln_status_t kiln_fully_connected_s8_pk(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                         const int32_t* packed, int8_t* y, int16_t* scratch) {
  int32_t row_len, i, j, cols;
  kiln_s8_pk_t g;
  if (p == NULL || x == NULL || packed == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->rows < 0 || p->in_features <= 0 || p->out_features <= 0 || p->act_min != -128 || p->act_max != 127)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(packed) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
  row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)p->in_features);
  kiln_s8_pk_init(&g, packed, row_len, p->out_features, p->output_offset);
  cols = (int32_t)KILN_S8_PK_COLS((uint32_t)row_len);
  for (i = 0; i < p->rows; i += cols) {
    const int32_t m = p->rows - i < cols ? p->rows - i : cols;
    if (p->in_features == row_len)
      kiln_s8_widen(scratch, x + (int64_t)i * p->in_features, m * p->in_features, p->input_offset);
    else
      for (j = 0; j < m; ++j)
        kiln_s8_pk_widen(scratch + j * row_len, x + (int64_t)(i + j) * p->in_features, p->in_features, row_len,
                         p->input_offset);
    kiln_s8_pk_columns(&g, scratch, m, y + (int64_t)i * p->out_features);
  }
  return KILN_OK;
}
