/*
 * Int8 fully connected layer on MVE (s8_mve.h): two input rows at a time widened
 * to contiguous int16 columns in scratch (input offset added, zero padded to the
 * weight row length), then the MVE GEMM core (s8_mve_gemm.h); one row when a
 * single one is left.
 */
#ifndef KILN_FULLY_CONNECTED_S8_MVE_H
#define KILN_FULLY_CONNECTED_S8_MVE_H

#include "s8_mve_gemm.h"

#if KILN_S8_MVE

/* One input row as a column of row_len int16, zero padded. */
static inline void fc_mve_column(int16_t* dst, const int8_t* src, int32_t n, int32_t offset, int32_t row_len) {
  kiln_s8_mve_widen(dst, src, n, offset);
  kiln_s8_mve_zero(dst + n, row_len - n);
}

/* kiln_fully_connected_s8 on MVE, called after the public function checked the arguments. */
static kiln_status_t kiln_fully_connected_s8_mve(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                                 const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                                 int8_t* y, int16_t* scratch) {
  const int32_t row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)p->in_features);
  int32_t row;
  kiln_s8_mve_output_t m;
  kiln_s8_mve_output_init(&m, p->output_offset, p->act_min, p->act_max, 1);
  for (row = 0; row < p->rows; row += 2) {
    const int8_t* x0 = x + (int64_t)row * p->in_features;
    int8_t* y0 = y + (int64_t)row * p->out_features;
    const int two = row + 1 < p->rows;
    fc_mve_column(scratch, x0, p->in_features, p->input_offset, row_len);
    if (two) fc_mve_column(scratch + row_len, x0 + p->in_features, p->in_features, p->input_offset, row_len);
    kiln_s8_mve_gemm(scratch, scratch + row_len, row_len, w, bias, rq, p->out_features, &m, y0,
                     two ? y0 + p->out_features : NULL);
  }
  return KILN_OK;
}

#endif /* KILN_S8_MVE */

#endif /* KILN_FULLY_CONNECTED_S8_MVE_H */
