/*
 * Int8 Conv2D, int8-weight form (kiln_conv2d_s8_w8, layout in nn_s8.h): im2col
 * of one output pixel into an int8 column (conv_s8_w8.h), then each output
 * channel's dot product with its weight row plus the kernel bias. On MVE
 * (conv_s8_w8_mve.h) two pixels at a time, 16 taps per VMLADAVA.S8; on the DSP
 * extension a block of four rows at a time (kiln_s8_w8_dot4, SXTB16 + SMLAD).
 * kiln_conv2d_s8_w8q is the same with 8-byte requantization records (nn_s8.h).
 */
#include "conv_s8_w8.h"
#include "conv_s8_w8_mve.h"

/* The kernel after its checks, the requantization from either source. */
static kiln_status_t conv_w8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int8_t* w,
                             const int32_t* kernel_bias, const kiln_s8_requant_t* rq, const int32_t* qm, int8_t* y,
                             int8_t* scratch) {
  const kiln_s8_w8_requant_src_t source = {rq, qm, p->output_offset}, *src = &source;
  int32_t b, g, pix, oc, cin_g, cout_g, taps, row_len8, n_pix;
  int64_t group_weights;
  kiln_s8_output_t o;
  kiln_s8_requant_t tmp[4];
#if KILN_S8_DSP
  int form;
#endif
  cin_g = p->in_c / p->groups;
  cout_g = p->out_c / p->groups;
  taps = p->kernel_h * p->kernel_w * cin_g;
  row_len8 = (int32_t)KILN_S8_ROW_LEN8((uint32_t)taps);
  group_weights = (int64_t)((cout_g + 3) / 4) * 4 * row_len8;
  n_pix = p->out_h * p->out_w;
  kiln_s8_w8_output_init(&o, src, p->act_min, p->act_max, kernel_bias, p->out_c, taps);
#if KILN_S8_DSP
  form = KILN_S8_FORM(&o);
#endif
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    for (pix = 0; pix < n_pix; ++pix) {
      int8_t* yp = y + ((int64_t)b * n_pix + pix) * p->out_c;
      for (g = 0; g < p->groups; ++g) {
        kiln_conv_w8_column(p, xb, pix / p->out_w, pix % p->out_w, g, cin_g, row_len8, scratch);
#if KILN_S8_DSP
        for (oc = g * cout_g; oc < (g + 1) * cout_g; oc += 4) {
          /* A block's rows past the group's last are zero rows (nn_s8.h). */
          const int8_t* wblock = w + g * group_weights + (int64_t)((oc - g * cout_g) / 4) * 4 * row_len8;
          const int32_t left = (g + 1) * cout_g - oc, n = left < 4 ? left : 4;
          int32_t sum[4];
          kiln_s8_w8_dot4(wblock, scratch, taps, sum);
          kiln_s8_w8_store_any(yp + oc, sum, kernel_bias + oc, kiln_s8_w8_rq(src, oc, n, tmp, form & 1), &o, n,
                               form);
        }
#else
        for (oc = g * cout_g; oc < (g + 1) * cout_g; ++oc) {
          const int32_t r = oc - g * cout_g;
          const int8_t* wblock = w + g * group_weights + (int64_t)(r / 4) * 4 * row_len8;
          const int32_t acc = kiln_s8_w8_acc(kernel_bias[oc], kiln_s8_w8_dot(wblock, r % 4, scratch, taps));
          yp[oc] = kiln_s8_output(acc, kiln_s8_w8_rq(src, oc, 1, tmp, 0), &o);
        }
#endif
      }
    }
  }
  return KILN_OK;
}

static kiln_status_t conv_w8_check(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int8_t* w,
                                   const int32_t* kernel_bias, const void* rq, int8_t* y, int8_t* scratch) {
  if (p == NULL || x == NULL || w == NULL || kernel_bias == NULL || rq == NULL || y == NULL || scratch == NULL)
    return KILN_ERR_NULL_POINTER;
  if (p->groups <= 0 || p->in_c % p->groups != 0 || p->out_c % p->groups != 0 || p->kernel_h <= 0 ||
      p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 || p->dilation_h <= 0 || p->dilation_w <= 0)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(w) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
  return KILN_OK;
}

kiln_status_t kiln_conv2d_s8_w8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int8_t* w,
                                const int32_t* kernel_bias, const kiln_s8_requant_t* rq, int8_t* y, int8_t* scratch) {
  const kiln_status_t st = conv_w8_check(p, x, w, kernel_bias, rq, y, scratch);
#if KILN_S8_MVE
  if (st == KILN_OK) return kiln_conv2d_s8_w8_mve(p, x, w, kernel_bias, rq, y, scratch);
#endif
  return st != KILN_OK ? st : conv_w8(p, x, w, kernel_bias, rq, NULL, y, scratch);
}

/* The compact form (nn_s8.h): the portable or DSP loop on every target. */
kiln_status_t kiln_conv2d_s8_w8q(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int8_t* w,
                                 const int32_t* kernel_bias, const int32_t* qm, int8_t* y, int8_t* scratch) {
  const kiln_status_t st = conv_w8_check(p, x, w, kernel_bias, qm, y, scratch);
  return st != KILN_OK ? st : conv_w8(p, x, w, kernel_bias, NULL, qm, y, scratch);
}
