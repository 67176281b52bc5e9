/*
 * kiln_fully_connected_s8_w8 on MVE (s8_mve.h): two input rows at a time as the
 * GEMM's columns (s8_mve_gemm8.h), read in place when in_features is a multiple
 * of 16, else copied into scratch with zeros up to the row length.
 */
#ifndef KILN_FULLY_CONNECTED_S8_W8_MVE_H
#define KILN_FULLY_CONNECTED_S8_W8_MVE_H

#include "s8_mve_gemm8.h"

#if KILN_S8_MVE

static kiln_status_t kiln_fully_connected_s8_w8_mve(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                                    const int8_t* w, const int32_t* kernel_bias,
                                                    const kiln_s8_requant_t* rq, int8_t* y, int8_t* scratch) {
  const int32_t row_len8 = (int32_t)KILN_S8_ROW_LEN8((uint32_t)p->in_features);
  const int direct = p->in_features == row_len8;
  int32_t row;
  kiln_s8_mve_output_t m;
  kiln_s8_mve_output_init(&m, p->output_offset, p->act_min, p->act_max, 1);
  m.right_only = kiln_s8_mve_right_only(rq, p->out_features);
  for (row = 0; row < p->rows; row += 2) {
    const int8_t* x0 = x + (int64_t)row * p->in_features;
    int8_t* y0 = y + (int64_t)row * p->out_features;
    const int two = row + 1 < p->rows;
    const int8_t* c0 = x0;
    const int8_t* c1 = x0 + p->in_features;
    if (!direct) {
      memcpy(scratch, x0, (size_t)p->in_features);
      memset(scratch + p->in_features, 0, (size_t)(row_len8 - p->in_features));
      c0 = scratch;
      if (two) {
        memcpy(scratch + row_len8, c1, (size_t)p->in_features);
        memset(scratch + row_len8 + p->in_features, 0, (size_t)(row_len8 - p->in_features));
      }
      c1 = scratch + row_len8;
    }
    kiln_s8_mve_gemm8(c0, c1, row_len8, w, kernel_bias, rq, p->out_features, &m, y0,
                      two ? y0 + p->out_features : NULL);
  }
  return KILN_OK;
}

#endif /* KILN_S8_MVE */

#endif /* KILN_FULLY_CONNECTED_S8_W8_MVE_H */
