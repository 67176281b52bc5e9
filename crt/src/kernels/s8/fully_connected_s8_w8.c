/*
 * Int8 fully connected layer, int8-weight form (kiln_fully_connected_s8_w8,
 * layout in nn_s8.h): each output is its weight row's dot product with the raw
 * input row plus the kernel bias. On MVE (fully_connected_s8_w8_mve.h) two rows
 * at a time, 16 taps per VMLADAVA.S8; on the DSP extension a block of four
 * outputs at a time (kiln_s8_w8_dot4, SXTB16 + SMLAD).
 * kiln_fully_connected_s8_w8q is the same with 8-byte requantization records
 * (nn_s8.h).
 */
#include "s8_w8.h"
#include "fully_connected_s8_w8_mve.h"

/* The kernel after its checks, the requantization from either source. */
static kiln_status_t fully_connected_w8(const kiln_fully_connected_s8_params_t* p, const int8_t* x, const int8_t* w,
                                        const int32_t* kernel_bias, const kiln_s8_requant_t* rq, const int32_t* qm,
                                        int8_t* y) {
  const kiln_s8_w8_requant_src_t source = {rq, qm, p->output_offset}, *src = &source;
  int32_t row, oc, row_len8;
  kiln_s8_output_t o;
  kiln_s8_requant_t tmp[4];
  row_len8 = (int32_t)KILN_S8_ROW_LEN8((uint32_t)p->in_features);
  kiln_s8_w8_output_init(&o, src, p->act_min, p->act_max, kernel_bias, p->out_features, p->in_features);
  for (row = 0; row < p->rows; ++row) {
    const int8_t* xr = x + (int64_t)row * p->in_features;
#if KILN_S8_DSP
    for (oc = 0; oc < p->out_features; oc += 4) {
      /* The last block's rows past out_features are zero rows (nn_s8.h). */
      const int32_t left = p->out_features - oc, n = left < 4 ? left : 4;
      int32_t sum[4];
      kiln_s8_w8_dot4(w + (int64_t)(oc / 4) * 4 * row_len8, xr, p->in_features, sum);
      kiln_s8_w8_store_any(y + (int64_t)row * p->out_features + oc, sum, kernel_bias + oc,
                           kiln_s8_w8_rq(src, oc, n, tmp, o.short_form), &o, n, KILN_S8_FORM(&o));
    }
#else
    for (oc = 0; oc < p->out_features; ++oc) {
      const int8_t* wblock = w + (int64_t)(oc / 4) * 4 * row_len8;
      const int32_t acc = kiln_s8_w8_acc(kernel_bias[oc], kiln_s8_w8_dot(wblock, oc % 4, xr, p->in_features));
      y[(int64_t)row * p->out_features + oc] = kiln_s8_output(acc, kiln_s8_w8_rq(src, oc, 1, tmp, 0), &o);
    }
#endif
  }
  return KILN_OK;
}

static kiln_status_t fully_connected_w8_check(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                              const int8_t* w, const int32_t* kernel_bias, const void* rq, int8_t* y,
                                              int8_t* scratch) {
  if (p == NULL || x == NULL || w == NULL || kernel_bias == NULL || rq == NULL || y == NULL || scratch == NULL)
    return KILN_ERR_NULL_POINTER;
  if (p->rows < 0 || p->in_features <= 0 || p->out_features <= 0) return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(w) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
  return KILN_OK;
}

kiln_status_t kiln_fully_connected_s8_w8(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                         const int8_t* w, const int32_t* kernel_bias, const kiln_s8_requant_t* rq,
                                         int8_t* y, int8_t* scratch) {
  const kiln_status_t st = fully_connected_w8_check(p, x, w, kernel_bias, rq, y, scratch);
#if KILN_S8_MVE
  if (st == KILN_OK) return kiln_fully_connected_s8_w8_mve(p, x, w, kernel_bias, rq, y, scratch);
#endif
  return st != KILN_OK ? st : fully_connected_w8(p, x, w, kernel_bias, rq, NULL, y);
}

/* The compact form (nn_s8.h): the portable or DSP loop on every target. */
kiln_status_t kiln_fully_connected_s8_w8q(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                          const int8_t* w, const int32_t* kernel_bias, const int32_t* qm, int8_t* y,
                                          int8_t* scratch) {
  const kiln_status_t st = fully_connected_w8_check(p, x, w, kernel_bias, qm, y, scratch);
  return st != KILN_OK ? st : fully_connected_w8(p, x, w, kernel_bias, NULL, qm, y);
}
