/*
 * Integer LSTM of quantized models (KilnQLstm in docs/quantization.md): TFLite
 * Micro's UNIDIRECTIONAL_SEQUENCE_LSTM with int8 activations and weights, int16
 * gates and cell state, bit for bit. Per batch and time step:
 *   gate_g = act(sat16(FC(x_t, W_g, bias_g) + FC(h, R_g)))   g = input, forget, cell, output
 *     FC: clamp16(MultiplyByQuantizedMultiplier(sum (x + x_offset) * w + bias, fc scale)),
 *     the result in Q3.12; act = sigmoid (cell gate: tanh), int16 Q3.12 -> Q0.15 by
 *     TFLite's interpolation of the 256-entry `table` (sigmoid(i / 24) in Q0.16)
 *   cell = sat16(mul16(forget, cell) + mul16(input, cell_gate)), clipped if cell_clip
 *   h    = clamp8(h_zero_point + rescale(tanh(cell) * output))
 * and y_t = h. The state starts at zero every call (h = h_zero_point, cell = 0),
 * as after TFLite Micro's ResetVariableTensors.
 *
 * Shapes: x [batch, steps, n_input] ([steps, batch, n_input] when time_major), y the
 * same with n_cell; w_input [4, n_cell, n_input], w_recurrent [4, n_cell, n_cell],
 * bias [4, n_cell] int32, gates in the order input, forget, cell, output.
 * scratch: kiln_lstm_s8_scratch_bytes(n_cell) bytes, 2-byte aligned.
 * y must not alias x.
 */
#ifndef KILN_NN_S8_LSTM_H
#define KILN_NN_S8_LSTM_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TFLite's MultiplyByQuantizedMultiplier(v, multiplier, shift). */
typedef struct {
  int32_t multiplier;
  int32_t shift;
} kiln_lstm_scale_t;

typedef struct {
  int32_t batch, steps, n_input, n_cell;
  int32_t time_major;
  int32_t x_offset;       /* -x_zero_point */
  int32_t h_zero_point;   /* the hidden state's (and y's) zero point */
  kiln_lstm_scale_t input_fc[4], recurrent_fc[4];
  kiln_lstm_scale_t forget_times_cell, input_times_cell_gate, output_times_tanh;
  int32_t cell_tanh_multiplier, cell_tanh_shift; /* int16 tanh input rescale of the cell state */
  int32_t cell_clip;                             /* quantized clip of the cell state; 0: none */
} kiln_lstm_s8_params_t;

#define kiln_lstm_s8_scratch_bytes(n_cell) ((uint32_t)(n_cell) * 11u)

kiln_status_t kiln_lstm_s8(const kiln_lstm_s8_params_t* p, const int8_t* x, const int8_t* w_input,
                           const int8_t* w_recurrent, const int32_t* bias, const uint16_t* table, int8_t* y,
                           void* scratch);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_LSTM_H */
