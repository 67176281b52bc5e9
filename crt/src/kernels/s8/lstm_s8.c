/* KilnQLstm (kiln/nn_s8_lstm.h): TFLite Micro's integer LSTM (int8 x int8 -> int16
 * gates and cell state), step by step as its reference kernels compute it. */
#include "kiln/nn_s8_lstm.h"

enum { GATE_INPUT = 0, GATE_FORGET = 1, GATE_CELL = 2, GATE_OUTPUT = 3 };

/* TFLite's MultiplyByQuantizedMultiplier: SaturatingRoundingDoublingHighMul after
 * an optional left shift, then RoundingDivideByPOT (ties away from zero). The left
 * shift is done in 64 bits and saturated, where TFLite's int32 would overflow. */
static inline int32_t mbqm(int32_t v, kiln_lstm_scale_t s) {
  const int left = s.shift > 0 ? s.shift : 0, right = s.shift > 0 ? 0 : -s.shift;
  int64_t a = (int64_t)v * ((int64_t)1 << left);
  int64_t ab;
  int32_t high, remainder, threshold;
  int64_t mask;
  a = a > INT32_MAX ? INT32_MAX : a < INT32_MIN ? INT32_MIN : a;
  if (a == INT32_MIN && s.multiplier == INT32_MIN) return INT32_MAX;
  ab = a * (int64_t)s.multiplier;
  high = (int32_t)((ab + (ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30)))) / ((int64_t)1 << 31));
  if (right == 0) return high;
  mask = ((int64_t)1 << right) - 1;
  remainder = (int32_t)(high & mask);
  threshold = (int32_t)(mask >> 1) + (high < 0 ? 1 : 0);
  return (high >> right) + (remainder > threshold ? 1 : 0);
}

static int16_t sat16(int32_t v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

/* TFLite's int16 Logistic, Q3.12 -> Q0.15: |3x| indexes the table in steps of 2^9
 * with linear interpolation, the negative side mirrored. */
static inline int16_t sigmoid16(int16_t v, const uint16_t* table) {
  const int32_t in = (int32_t)v * 3;
  const uint32_t abs_in = (uint32_t)(in < 0 ? -in : in);
  const uint32_t uh = abs_in >> 9;
  uint32_t r;
  if (uh >= 255u) {
    r = 0x7FFFu << 10;
  } else {
    const uint32_t ua = table[uh], ub = table[uh + 1u];
    r = (ua << 9) + (abs_in & 0x1FFu) * (ub - ua);
  }
  r = in >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
  return (int16_t)(r >> 10);
}

/* TFLite's int16 Tanh (2 sigmoid(2x) - 1 from the same table): the input rescaled
 * by multiplier and a rounding right shift, steps of 2^8. */
static inline int16_t tanh16(int16_t v, int32_t multiplier, int32_t shift, const uint16_t* table) {
  const int32_t round = shift > 0 ? (1 << (shift - 1)) : 0;
  const int32_t in = ((int32_t)v * multiplier + round) >> shift;
  const uint32_t abs_in = (uint32_t)(in < 0 ? -in : in);
  const uint32_t uh = abs_in >> 8;
  int32_t r;
  if (uh >= 255u) {
    r = (int32_t)(0xFFFFu << 8);
  } else {
    const uint32_t ua = table[uh], ub = table[uh + 1u];
    r = (int32_t)((ua << 8) + (abs_in & 0xFFu) * (ub - ua));
  }
  r = in >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
  return (int16_t)(r >> 8);
}

/* gate = act(sat16(FC(x) + FC(h))) for one batch row. */
static void lstm_gate(const kiln_lstm_s8_params_t* p, int g, const int8_t* xt, const int8_t* h, const int8_t* w_input,
                      const int8_t* w_recurrent, const int32_t* bias, const uint16_t* table, int16_t* out) {
  const int32_t ni = p->n_input, nc = p->n_cell;
  const int8_t* wi = w_input + (size_t)g * (size_t)nc * (size_t)ni;
  const int8_t* wr = w_recurrent + (size_t)g * (size_t)nc * (size_t)nc;
  const int32_t h_offset = -p->h_zero_point;
  int32_t j, k;
  const int32_t x_offset = p->x_offset;
  const kiln_lstm_scale_t sx = p->input_fc[g], sh = p->recurrent_fc[g];
  bias += g * nc;
  for (j = 0; j < nc; ++j, wi += ni, wr += nc) {
    int32_t acc_x = bias[j], acc_h = 0;
    int16_t sum;
    for (k = 0; k < ni; ++k) acc_x += (xt[k] + x_offset) * wi[k];
    for (k = 0; k < nc; ++k) acc_h += (h[k] + h_offset) * wr[k];
    sum = sat16((int32_t)sat16(mbqm(acc_x, sx)) + sat16(mbqm(acc_h, sh)));
    /* The cell gate's tanh takes Q3.12 (TFLite's cell_state_scale_power -12:
     * multiplier 3, no shift). */
    out[j] = g == GATE_CELL ? tanh16(sum, 3, 0, table) : sigmoid16(sum, table);
  }
}

kiln_status_t kiln_lstm_s8(const kiln_lstm_s8_params_t* p, const int8_t* x, const int8_t* w_input,
                           const int8_t* w_recurrent, const int32_t* bias, const uint16_t* table, int8_t* y,
                           void* scratch) {
  int16_t *gates[4], *cell;
  int8_t* h;
  int32_t b, t, j;
  if (p == NULL || x == NULL || w_input == NULL || w_recurrent == NULL || bias == NULL || table == NULL || y == NULL ||
      scratch == NULL)
    return KILN_ERR_NULL_POINTER;
  if (p->batch < 0 || p->steps < 0 || p->n_input <= 0 || p->n_cell <= 0 || p->x_offset < -127 || p->x_offset > 128 ||
      p->h_zero_point < -128 || p->h_zero_point > 127 || p->cell_tanh_shift < 0 || p->cell_tanh_shift > 30 ||
      p->cell_clip < 0 || p->cell_clip > 32767)
    return KILN_ERR_BAD_ARGUMENT;
  /* scratch: four gate rows and the cell state (int16), then the hidden state. */
  gates[0] = (int16_t*)scratch;
  for (j = 1; j < 4; ++j) gates[j] = gates[j - 1] + p->n_cell;
  cell = gates[3] + p->n_cell;
  h = (int8_t*)(cell + p->n_cell);
  for (b = 0; b < p->batch; ++b) {
    for (j = 0; j < p->n_cell; ++j) {
      cell[j] = 0;
      h[j] = (int8_t)p->h_zero_point;
    }
    for (t = 0; t < p->steps; ++t) {
      const size_t row = p->time_major ? (size_t)t * (size_t)p->batch + (size_t)b : (size_t)b * (size_t)p->steps + (size_t)t;
      const int8_t* xt = x + row * (size_t)p->n_input;
      int8_t* yt = y + row * (size_t)p->n_cell;
      int g;
      /* Every gate reads the previous hidden state, so all four come first. */
      for (g = 0; g < 4; ++g) lstm_gate(p, g, xt, h, w_input, w_recurrent, bias, table, gates[g]);
      for (j = 0; j < p->n_cell; ++j) {
        const int16_t kept = sat16(mbqm((int32_t)gates[GATE_FORGET][j] * cell[j], p->forget_times_cell));
        const int16_t added = sat16(mbqm((int32_t)gates[GATE_INPUT][j] * gates[GATE_CELL][j], p->input_times_cell_gate));
        int32_t c = sat16((int32_t)kept + added);
        if (p->cell_clip > 0) c = c > p->cell_clip ? p->cell_clip : c < -p->cell_clip ? -p->cell_clip : c;
        cell[j] = (int16_t)c;
      }
      for (j = 0; j < p->n_cell; ++j) {
        const int16_t tc = tanh16(cell[j], p->cell_tanh_multiplier, p->cell_tanh_shift, table);
        int32_t v = p->h_zero_point + mbqm((int32_t)tc * gates[GATE_OUTPUT][j], p->output_times_tanh);
        v = v < -128 ? -128 : v > 127 ? 127 : v;
        h[j] = (int8_t)v;
        yt[j] = (int8_t)v;
      }
    }
  }
  return KILN_OK;
}
