/*
 * Int8 fully connected layer: each input row is widened to int16 (input offset
 * added) into scratch and multiplied with every block of four weight rows by the
 * GEMM core of requant_s8.h.
 */
#include "requant_s8.h"
#include "fully_connected_s8_mve.h"

kiln_status_t kiln_fully_connected_s8(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                      const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                      int8_t* y, int16_t* scratch) {
  int32_t row_len;
  kiln_s8_output_t o;
  kiln_s8_gemm_t g;
  if (p == NULL || x == NULL || w == NULL || rq == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->rows < 0 || p->in_features <= 0 || p->out_features <= 0) return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(w) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
#if KILN_S8_MVE
  return kiln_fully_connected_s8_mve(p, x, w, bias, rq, y, scratch);
#endif
  row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)p->in_features);
  kiln_s8_output_init(&o, p->output_offset, p->act_min, p->act_max, rq, bias, p->out_features, p->in_features);
  kiln_s8_gemm_init(&g, row_len, p->out_features, w, bias, rq, &o);
  g.runs = 1, g.run_len = p->in_features, g.x_step = p->in_features, g.y_step = p->out_features;
  g.input_offset = p->input_offset;
  kiln_s8_gemm(&g, x, p->rows, scratch, y);
  return KILN_OK;
}
