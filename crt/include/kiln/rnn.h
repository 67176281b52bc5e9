/* Recurrent layers: ONNX RNN, GRU and LSTM (inference), float32.
 *
 * Tensors use ONNX layouts. With layout 0: X [seq, batch, input], Y [seq, dirs, batch,
 * hidden], Y_h / Y_c [dirs, batch, hidden]; with layout 1: X [batch, seq, input],
 * Y [batch, seq, dirs, hidden], Y_h / Y_c [batch, dirs, hidden]. Weights always have
 * the direction first: W [dirs, gates*hidden, input], R [dirs, gates*hidden, hidden],
 * B [dirs, 2*gates*hidden] (Wb then Rb), P [dirs, 3*hidden] (LSTM peepholes i, o, f).
 * Optional inputs (B, sequence_lens, initial_h, initial_c, P) and outputs (Y, Y_h,
 * Y_c) may be NULL. A batch entry with sequence_lens[b] < seq runs only its first
 * sequence_lens[b] steps (reverse direction: from step sequence_lens[b]-1 down to 0);
 * Y is zero past the end, Y_h / Y_c hold the state after the last valid step.
 * Outputs must not alias inputs. `scratch` holds kiln_<op>_scratch_floats() floats:
 * (batch * hidden) per state (h; LSTM also c) plus (gates + 1) * hidden.
 */
#ifndef KILN_RNN_H
#define KILN_RNN_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The activation functions ONNX recurrent ops accept (attribute `activations`). */
typedef enum {
  KILN_ACT_RELU = 0,
  KILN_ACT_TANH = 1,
  KILN_ACT_SIGMOID = 2,
  KILN_ACT_AFFINE = 3,            /* alpha * x + beta */
  KILN_ACT_LEAKY_RELU = 4,        /* x >= 0 ? x : alpha * x */
  KILN_ACT_THRESHOLDED_RELU = 5,  /* x > alpha ? x : 0 */
  KILN_ACT_SCALED_TANH = 6,       /* alpha * tanh(beta * x) */
  KILN_ACT_HARD_SIGMOID = 7,      /* max(0, min(1, alpha * x + beta)) */
  KILN_ACT_ELU = 8,               /* x >= 0 ? x : alpha * (exp(x) - 1) */
  KILN_ACT_SOFTSIGN = 9,          /* x / (1 + |x|) */
  KILN_ACT_SOFTPLUS = 10          /* log(1 + exp(x)) */
} kiln_act_kind_t;

typedef struct {
  int32_t kind; /* kiln_act_kind_t */
  float alpha, beta;
} kiln_act_t;

/* Fields shared by the three ops. Directions: 1 = forward or reverse (see `reverse`),
 * 2 = bidirectional (direction 0 forward, 1 reverse). */
typedef struct {
  uint32_t seq, batch, input, hidden;
  uint32_t dirs;
  uint32_t reverse;  /* with dirs == 1: run the reverse direction */
  uint32_t layout;   /* 0 or 1, see above */
  float clip;        /* > 0: clip gate pre-activations to [-clip, clip]; 0: no clipping */
} kiln_rnn_shape_t;

/* RNN: H = f(X W^T + H R^T + Wb + Rb). act[dir] = f for each direction. */
typedef struct {
  kiln_rnn_shape_t s;
  kiln_act_t act[2];
} kiln_rnn_params_t;
uint32_t kiln_rnn_scratch_floats(const kiln_rnn_params_t* p);
kiln_status_t kiln_rnn_f32(const kiln_rnn_params_t* p, const float* x, const float* w, const float* r,
                           const float* b, const int32_t* seq_lens, const float* initial_h, float* y,
                           float* y_h, float* scratch);

/* GRU, gates z, r, h: act[dir][0] = f (gates), act[dir][1] = g (candidate).
 * linear_before_reset: h~ = g(X Wh^T + r (.) (H Rh^T + Rbh) + Wbh)
 * otherwise            h~ = g(X Wh^T + (r (.) H) Rh^T + Rbh + Wbh); H' = (1 - z) h~ + z H. */
typedef struct {
  kiln_rnn_shape_t s;
  kiln_act_t act[2][2];
  uint32_t linear_before_reset;
} kiln_gru_params_t;
uint32_t kiln_gru_scratch_floats(const kiln_gru_params_t* p);
kiln_status_t kiln_gru_f32(const kiln_gru_params_t* p, const float* x, const float* w, const float* r,
                           const float* b, const int32_t* seq_lens, const float* initial_h, float* y,
                           float* y_h, float* scratch);

/* LSTM, gates i, o, f, c: act[dir][0] = f (gates), [1] = g (cell input), [2] = h (output).
 * input_forget couples the forget gate to the input gate: f = 1 - i. */
typedef struct {
  kiln_rnn_shape_t s;
  kiln_act_t act[2][3];
  uint32_t input_forget;
} kiln_lstm_params_t;
uint32_t kiln_lstm_scratch_floats(const kiln_lstm_params_t* p);
kiln_status_t kiln_lstm_f32(const kiln_lstm_params_t* p, const float* x, const float* w, const float* r,
                            const float* b, const int32_t* seq_lens, const float* initial_h,
                            const float* initial_c, const float* peep, float* y, float* y_h, float* y_c,
                            float* scratch);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RNN_H */
