/* ONNX LSTM, float32. Gates in W/R/B are ordered i (input), o (output), f (forget),
 * c (cell); peepholes P are ordered i, o, f. With C the cell state:
 *   i  = f(X Wi^T + H Ri^T + Pi (.) C + Wbi + Rbi)
 *   f  = f(X Wf^T + H Rf^T + Pf (.) C + Wbf + Rbf)     (input_forget: f = 1 - i)
 *   c~ = g(X Wc^T + H Rc^T + Wbc + Rbc)
 *   C' = f (.) C + i (.) c~
 *   o  = f(X Wo^T + H Ro^T + Po (.) C' + Wbo + Rbo)
 *   H' = o (.) h(C')
 * Clipping (if any) applies to each pre-activation. See kiln/rnn.h for layouts. */
#include "rnn_common.h"

uint32_t kiln_lstm_scratch_floats(const kiln_lstm_params_t* p) {
  return 2u * p->s.batch * p->s.hidden + 5u * p->s.hidden;
}

kiln_status_t kiln_lstm_f32(const kiln_lstm_params_t* p, const float* x, const float* w, const float* r,
                            const float* b, const int32_t* seq_lens, const float* initial_h,
                            const float* initial_c, const float* peep, float* y, float* y_h, float* y_c,
                            float* scratch) {
  const kiln_rnn_shape_t* s;
  uint32_t d, bi, k, j, a;
  if (p == NULL || x == NULL || w == NULL || r == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  s = &p->s;
  if (!kiln_rnn_shape_ok(s)) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < s->dirs; ++d)
    for (a = 0; a < 3; ++a)
      if (!kiln_rnn_act_ok(&p->act[d][a])) return KILN_ERR_BAD_ARGUMENT;
  if (y != NULL)
    for (j = 0; j < s->seq * s->dirs * s->batch * s->hidden; ++j) y[j] = 0.0f;
  for (d = 0; d < s->dirs; ++d) {
    const uint32_t H = s->hidden;
    float* h = scratch;                             /* [batch, hidden] hidden state */
    float* c = h + (size_t)s->batch * H;            /* [batch, hidden] cell state */
    float* pre = c + (size_t)s->batch * H;          /* [4 * hidden] pre-activations i, o, f, c */
    const float* wd = w + (size_t)d * 4u * H * s->input;
    const float* rd = r + (size_t)d * 4u * H * H;
    const float* wb = b != NULL ? b + (size_t)d * 8u * H : NULL;
    const float* rb = b != NULL ? wb + 4u * H : NULL;
    const float* pd = peep != NULL ? peep + (size_t)d * 3u * H : NULL;
    const kiln_act_t* fa = &p->act[d][0];
    const kiln_act_t* ga = &p->act[d][1];
    const kiln_act_t* ha = &p->act[d][2];
    for (bi = 0; bi < s->batch; ++bi)
      for (j = 0; j < H; ++j) {
        const size_t off = kiln_rnn_state_off(s, d, bi) + j;
        h[(size_t)bi * H + j] = initial_h != NULL ? initial_h[off] : 0.0f;
        c[(size_t)bi * H + j] = initial_c != NULL ? initial_c[off] : 0.0f;
      }
    for (bi = 0; bi < s->batch; ++bi) {
      const uint32_t len = kiln_rnn_len(s, seq_lens, bi);
      float* hb = h + (size_t)bi * H;
      float* cb = c + (size_t)bi * H;
      for (k = 0; k < len; ++k) {
        const uint32_t t = kiln_rnn_is_reverse(s, d) ? len - 1 - k : k;
        /* All pre-activations read the old H before any of it is overwritten. */
        kiln_rnn_gates(s, 0, 4u * H, x + kiln_rnn_x_off(s, t, bi), wd, hb, rd, wb, rb, pre);
        for (j = 0; j < H; ++j) {
          const float c_old = cb[j];
          const float ig = kiln_rnn_act(fa, kiln_rnn_clip(s, pre[j] + (pd != NULL ? pd[j] * c_old : 0.0f)));
          const float fg = p->input_forget
                               ? 1.0f - ig
                               : kiln_rnn_act(fa, kiln_rnn_clip(s, pre[2u * H + j] +
                                                                       (pd != NULL ? pd[2u * H + j] * c_old : 0.0f)));
          const float cc = kiln_rnn_act(ga, kiln_rnn_clip(s, pre[3u * H + j]));
          const float c_new = fg * c_old + ig * cc;
          const float og = kiln_rnn_act(fa, kiln_rnn_clip(s, pre[H + j] + (pd != NULL ? pd[H + j] * c_new : 0.0f)));
          cb[j] = c_new;
          hb[j] = og * kiln_rnn_act(ha, c_new);
        }
        if (y != NULL)
          for (j = 0; j < H; ++j) y[kiln_rnn_y_off(s, t, d, bi) + j] = hb[j];
      }
      for (j = 0; j < H; ++j) {
        if (y_h != NULL) y_h[kiln_rnn_state_off(s, d, bi) + j] = hb[j];
        if (y_c != NULL) y_c[kiln_rnn_state_off(s, d, bi) + j] = cb[j];
      }
    }
  }
  return KILN_OK;
}
