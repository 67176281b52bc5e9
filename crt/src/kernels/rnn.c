/* ONNX RNN (simple recurrent layer), float32:
 *   H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)
 * per direction, with per-batch sequence lengths. See kiln/rnn.h for layouts. */
#include "rnn_common.h"

uint32_t kiln_rnn_scratch_floats(const kiln_rnn_params_t* p) {
  return p->s.batch * p->s.hidden + 2u * p->s.hidden;
}

kiln_status_t kiln_rnn_f32(const kiln_rnn_params_t* p, const float* x, const float* w, const float* r,
                           const float* b, const int32_t* seq_lens, const float* initial_h, float* y,
                           float* y_h, float* scratch) {
  const kiln_rnn_shape_t* s;
  uint32_t d, bi, k, j;
  if (p == NULL || x == NULL || w == NULL || r == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  s = &p->s;
  if (!kiln_rnn_shape_ok(s)) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < s->dirs; ++d)
    if (!kiln_rnn_act_ok(&p->act[d])) return KILN_ERR_BAD_ARGUMENT;
  if (y != NULL)
    for (j = 0; j < s->seq * s->dirs * s->batch * s->hidden; ++j) y[j] = 0.0f;
  for (d = 0; d < s->dirs; ++d) {
    float* h = scratch;                                   /* [batch, hidden] state */
    float* gate = scratch + (size_t)s->batch * s->hidden; /* [hidden] */
    const float* wd = w + (size_t)d * s->hidden * s->input;
    const float* rd = r + (size_t)d * s->hidden * s->hidden;
    const float* wb = b != NULL ? b + (size_t)d * 2u * s->hidden : NULL;
    const float* rb = b != NULL ? wb + s->hidden : NULL;
    for (bi = 0; bi < s->batch; ++bi)
      for (j = 0; j < s->hidden; ++j)
        h[(size_t)bi * s->hidden + j] = initial_h != NULL ? initial_h[kiln_rnn_state_off(s, d, bi) + j] : 0.0f;
    for (bi = 0; bi < s->batch; ++bi) {
      const uint32_t len = kiln_rnn_len(s, seq_lens, bi);
      float* hb = h + (size_t)bi * s->hidden;
      for (k = 0; k < len; ++k) {
        const uint32_t t = kiln_rnn_is_reverse(s, d) ? len - 1 - k : k;
        kiln_rnn_gates(s, 0, s->hidden, x + kiln_rnn_x_off(s, t, bi), wd, hb, rd, wb, rb, gate);
        for (j = 0; j < s->hidden; ++j) hb[j] = kiln_rnn_act(&p->act[d], kiln_rnn_clip(s, gate[j]));
        if (y != NULL)
          for (j = 0; j < s->hidden; ++j) y[kiln_rnn_y_off(s, t, d, bi) + j] = hb[j];
      }
      if (y_h != NULL)
        for (j = 0; j < s->hidden; ++j) y_h[kiln_rnn_state_off(s, d, bi) + j] = hb[j];
    }
  }
  return KILN_OK;
}
