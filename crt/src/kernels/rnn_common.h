/* Helpers shared by the RNN, GRU and LSTM kernels (internal to the crt): the ONNX
 * activation functions, tensor addressing for both layouts, and the gate
 * pre-activation x W^T + h R^T + Wb + Rb. */
#ifndef KILN_RNN_COMMON_H
#define KILN_RNN_COMMON_H

#include <math.h>

#include "kiln/rnn.h"

static inline float kiln_rnn_act(const kiln_act_t* a, float x) {
  switch (a->kind) {
    case KILN_ACT_RELU: return x > 0.0f ? x : 0.0f;
    case KILN_ACT_TANH: return tanhf(x);
    case KILN_ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case KILN_ACT_AFFINE: return a->alpha * x + a->beta;
    case KILN_ACT_LEAKY_RELU: return x >= 0.0f ? x : a->alpha * x;
    case KILN_ACT_THRESHOLDED_RELU: return x > a->alpha ? x : 0.0f;
    case KILN_ACT_SCALED_TANH: return a->alpha * tanhf(a->beta * x);
    case KILN_ACT_HARD_SIGMOID: {
      const float v = a->alpha * x + a->beta;
      return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
    case KILN_ACT_ELU: return x >= 0.0f ? x : a->alpha * (expf(x) - 1.0f);
    case KILN_ACT_SOFTSIGN: return x / (1.0f + fabsf(x));
    case KILN_ACT_SOFTPLUS: return x > 20.0f ? x : log1pf(expf(x)); /* exp overflows long before */
    default: return x;
  }
}

static inline int kiln_rnn_act_ok(const kiln_act_t* a) {
  return a->kind >= KILN_ACT_RELU && a->kind <= KILN_ACT_SOFTPLUS;
}

static inline float kiln_rnn_clip(const kiln_rnn_shape_t* s, float v) {
  if (s->clip > 0.0f) {
    if (v > s->clip) return s->clip;
    if (v < -s->clip) return -s->clip;
  }
  return v;
}

static inline int kiln_rnn_shape_ok(const kiln_rnn_shape_t* s) {
  return (s->dirs == 1 || s->dirs == 2) && s->layout <= 1 && s->hidden > 0 && !(s->clip < 0.0f);
}

/* Element offsets of X[t, b, :], Y[t, dir, b, :] and Y_h[dir, b, :] for the layout. */
static inline size_t kiln_rnn_x_off(const kiln_rnn_shape_t* s, uint32_t t, uint32_t b) {
  return (s->layout ? (size_t)b * s->seq + t : (size_t)t * s->batch + b) * s->input;
}
static inline size_t kiln_rnn_y_off(const kiln_rnn_shape_t* s, uint32_t t, uint32_t d, uint32_t b) {
  return (s->layout ? ((size_t)b * s->seq + t) * s->dirs + d : ((size_t)t * s->dirs + d) * s->batch + b) *
         s->hidden;
}
static inline size_t kiln_rnn_state_off(const kiln_rnn_shape_t* s, uint32_t d, uint32_t b) {
  return (s->layout ? (size_t)b * s->dirs + d : (size_t)d * s->batch + b) * s->hidden;
}

/* Steps batch entry b runs: sequence_lens[b] clamped to [0, seq], or seq. */
static inline uint32_t kiln_rnn_len(const kiln_rnn_shape_t* s, const int32_t* seq_lens, uint32_t b) {
  if (seq_lens == NULL) return s->seq;
  if (seq_lens[b] < 0) return 0;
  return (uint32_t)seq_lens[b] < s->seq ? (uint32_t)seq_lens[b] : s->seq;
}

/* Whether direction d runs backwards in time. */
static inline int kiln_rnn_is_reverse(const kiln_rnn_shape_t* s, uint32_t d) {
  return s->dirs == 2 ? d == 1 : s->reverse != 0;
}

/* out[j] = x . w[j] + h . r[j] + wb[j] + rb[j] for the `rows` rows starting at row0
 * (wb / rb NULL when the op has no bias; h NULL to skip the recurrent term). */
static inline void kiln_rnn_gates(const kiln_rnn_shape_t* s, uint32_t row0, uint32_t rows, const float* x,
                                  const float* w, const float* h, const float* r, const float* wb,
                                  const float* rb, float* out) {
  uint32_t j, i;
  for (j = 0; j < rows; ++j) {
    const float* wj = w + (size_t)(row0 + j) * s->input;
    float acc = 0.0f;
    for (i = 0; i < s->input; ++i) acc += x[i] * wj[i];
    if (h != NULL) {
      const float* rj = r + (size_t)(row0 + j) * s->hidden;
      for (i = 0; i < s->hidden; ++i) acc += h[i] * rj[i];
    }
    if (wb != NULL) acc += wb[row0 + j] + rb[row0 + j];
    out[j] = acc;
  }
}

#endif /* KILN_RNN_COMMON_H */
