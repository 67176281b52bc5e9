/* ONNX GRU, float32. Gates in W/R/B are ordered z (update), r (reset), h (candidate):
 *   z = f(X Wz^T + H Rz^T + Wbz + Rbz)
 *   r = f(X Wr^T + H Rr^T + Wbr + Rbr)
 *   h~ = g(X Wh^T + (r (.) H) Rh^T + Rbh + Wbh)          linear_before_reset = 0
 *   h~ = g(X Wh^T + r (.) (H Rh^T + Rbh) + Wbh)          linear_before_reset = 1
 *   H' = (1 - z) (.) h~ + z (.) H
 * See kiln/rnn.h for layouts and sequence lengths. */
#include "rnn_common.h"

uint32_t kiln_gru_scratch_floats(const kiln_gru_params_t* p) {
  return p->s.batch * p->s.hidden + 4u * p->s.hidden;
}

kiln_status_t kiln_gru_f32(const kiln_gru_params_t* p, const float* x, const float* w, const float* r,
                           const float* b, const int32_t* seq_lens, const float* initial_h, float* y,
                           float* y_h, float* scratch) {
  const kiln_rnn_shape_t* s;
  uint32_t d, bi, k, j, i;
  if (p == NULL || x == NULL || w == NULL || r == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  s = &p->s;
  if (!kiln_rnn_shape_ok(s)) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < s->dirs; ++d)
    if (!kiln_rnn_act_ok(&p->act[d][0]) || !kiln_rnn_act_ok(&p->act[d][1])) return KILN_ERR_BAD_ARGUMENT;
  if (y != NULL)
    for (j = 0; j < s->seq * s->dirs * s->batch * s->hidden; ++j) y[j] = 0.0f;
  for (d = 0; d < s->dirs; ++d) {
    const uint32_t H = s->hidden;
    float* h = scratch;                             /* [batch, hidden] state */
    float* zr = scratch + (size_t)s->batch * H;     /* [2 * hidden]: z then r */
    float* cand = zr + 2u * H;                      /* [hidden] candidate pre-activation */
    float* rh = cand + H;                           /* [hidden] r (.) H */
    const float* wd = w + (size_t)d * 3u * H * s->input;
    const float* rd = r + (size_t)d * 3u * H * H;
    const float* wb = b != NULL ? b + (size_t)d * 6u * H : NULL;
    const float* rb = b != NULL ? wb + 3u * H : NULL;
    for (bi = 0; bi < s->batch; ++bi)
      for (j = 0; j < H; ++j)
        h[(size_t)bi * H + j] = initial_h != NULL ? initial_h[kiln_rnn_state_off(s, d, bi) + j] : 0.0f;
    for (bi = 0; bi < s->batch; ++bi) {
      const uint32_t len = kiln_rnn_len(s, seq_lens, bi);
      float* hb = h + (size_t)bi * H;
      for (k = 0; k < len; ++k) {
        const uint32_t t = kiln_rnn_is_reverse(s, d) ? len - 1 - k : k;
        const float* xt = x + kiln_rnn_x_off(s, t, bi);
        kiln_rnn_gates(s, 0, 2u * H, xt, wd, hb, rd, wb, rb, zr);
        for (j = 0; j < 2u * H; ++j) zr[j] = kiln_rnn_act(&p->act[d][0], kiln_rnn_clip(s, zr[j]));
        for (j = 0; j < H; ++j) {
          const float* wj = wd + (size_t)(2u * H + j) * s->input;
          const float* rj = rd + (size_t)(2u * H + j) * H;
          float xs = 0.0f, hs = 0.0f;
          for (i = 0; i < s->input; ++i) xs += xt[i] * wj[i];
          if (wb != NULL) xs += wb[2u * H + j];
          if (p->linear_before_reset) {
            for (i = 0; i < H; ++i) hs += hb[i] * rj[i];
            if (rb != NULL) hs += rb[2u * H + j];
            cand[j] = xs + zr[H + j] * hs;
          } else {
            for (i = 0; i < H; ++i) hs += zr[H + i] * hb[i] * rj[i];
            if (rb != NULL) hs += rb[2u * H + j];
            cand[j] = xs + hs;
          }
        }
        /* Every candidate used the old state; only now overwrite it. */
        for (j = 0; j < H; ++j) {
          const float hn = kiln_rnn_act(&p->act[d][1], kiln_rnn_clip(s, cand[j]));
          rh[j] = (1.0f - zr[j]) * hn + zr[j] * hb[j];
        }
        for (j = 0; j < H; ++j) hb[j] = rh[j];
        if (y != NULL)
          for (j = 0; j < H; ++j) y[kiln_rnn_y_off(s, t, d, bi) + j] = hb[j];
      }
      if (y_h != NULL)
        for (j = 0; j < H; ++j) y_h[kiln_rnn_state_off(s, d, bi) + j] = hb[j];
    }
  }
  return KILN_OK;
}
