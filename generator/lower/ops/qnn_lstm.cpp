// KilnQLstm (docs/quantization.md) -> kiln_lstm_s8 (crt/include/kiln/nn_s8_lstm.h):
// TFLite Micro's integer UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations and
// weights, int16 gates in Q3.12 -> Q0.15 and an int16 cell state of scale
// 2^cell_scale_power). The real multipliers come from the front end; here they
// become TFLite's multiplier and shift, and the cell state's tanh gets the input
// rescale TFLite Micro derives from the cell scale's power of two.
#include <algorithm>
#include <cmath>

#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "quant/fixed_point.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

std::string scale_init(const Node& n, double real, const char* what) {
  if (!(real > 0.0) || !std::isfinite(real))
    throw CompileError(n.describe() + ": " + what + " must be positive and finite");
  const quant::QuantizedMultiplier q = quant::quantize_multiplier(real);
  return ParamsInit().i("multiplier", q.multiplier).i("shift", q.shift).str();
}

std::string scales_init(const Node& n, const std::vector<double>& v, const char* attr) {
  if (v.size() != 4) throw CompileError(n.describe() + ": attribute " + in_quotes(attr) + " needs one value per gate");
  std::string s = "{";
  for (size_t g = 0; g < 4; ++g) s += (g ? ", " : " ") + scale_init(n, v[g], attr);
  return s + " }";
}

KernelCall lower_qlstm(const Node& n) {
  const Value *x = n.input(0), *wi = n.input(1), *wr = n.input(2), *bias = n.input(3), *table = n.input(4);
  const Value* y = n.outputs.at(0);
  if (!x || !wi || !wr || !bias || !table) throw CompileError(n.describe() + ": needs x, weights, bias and table");
  require_dtype(n, x, DType::Int8, "input");
  require_dtype(n, wi, DType::Int8, "input weights");
  require_dtype(n, wr, DType::Int8, "recurrent weights");
  require_dtype(n, bias, DType::Int32, "bias");
  require_dtype(n, table, DType::UInt16, "table");
  require_dtype(n, y, DType::Int8, "output");
  for (int i = 1; i <= 4; ++i) constant_input(n, size_t(i), "weights, bias and table");
  const auto attrs = ops::get_attrs<ops::QLstm>(n);
  if (x->shape.size() != 3 || wi->shape.size() != 3 || wi->shape[0] != 4)
    throw CompileError(n.describe() + ": needs x [batch, steps, input] and input weights [4, cells, input]");
  const bool time_major = attrs.time_major != 0;
  const int64_t steps = time_major ? x->shape[0] : x->shape[1], batch = time_major ? x->shape[1] : x->shape[0];
  const int64_t n_input = x->shape[2], n_cell = wi->shape[1];
  if (wi->shape[2] != n_input || wr->shape != Shape{4, n_cell, n_cell} || bias->shape != Shape{4, n_cell} ||
      shape_elements(table->shape) != 256)
    throw CompileError(n.describe() + ": weights, bias or table do not fit " + std::to_string(n_cell) + " cells and " +
                       std::to_string(n_input) + " inputs");
  const Shape out_shape = time_major ? Shape{steps, batch, n_cell} : Shape{batch, steps, n_cell};
  if (y->shape != out_shape) throw CompileError(n.describe() + ": output should be " + shape_str(out_shape));
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, wr->shape);
  // Exact int32 accumulators (no overflow for any input): |bias| + taps * 255 * 128
  // must stay below 2^31.
  if (std::max(n_input, n_cell) > 16384) throw CompileError(n.describe() + ": more than 16384 inputs or cells");
  int64_t max_bias = 0;
  for (int64_t b : bias->constant->to_int64s()) max_bias = std::max(max_bias, b < 0 ? -b : b);
  if (max_bias + std::max(n_input, n_cell) * 255 * 128 >= (int64_t(1) << 31))
    throw CompileError(n.describe() + ": a bias of " + std::to_string(max_bias) +
                       " could overflow the int32 accumulator");
  const int64_t x_zp = attrs.x_zero_point, h_zp = attrs.h_zero_point;
  if (x_zp < -128 || x_zp > 127 || h_zp < -128 || h_zp > 127)
    throw CompileError(n.describe() + ": zero points must be int8 values");
  // TFLite Micro's Tanh of the cell state: left shift 15 + power - 3; a power-of-two
  // multiplier 3 << shift when it is not negative, else multiplier 3 and a rounding
  // right shift.
  const int64_t power = attrs.cell_scale_power;
  if (power < -30 || power > 0) throw CompileError(n.describe() + ": cell state scale 2^" + std::to_string(power) + " is out of range");
  const int64_t tanh_shift = 15 + power - 3;
  const int64_t tanh_multiplier = tanh_shift >= 0 ? (int64_t(3) << tanh_shift) : 3;
  const int64_t cell_clip = attrs.cell_clip;
  if (cell_clip < 0 || cell_clip > 32767) throw CompileError(n.describe() + ": cell_clip must be in [0, 32767]");
  KernelCall k;
  k.params_type = "kiln_lstm_s8_params_t";
  k.params_init = ParamsInit()
                      .i("batch", batch)
                      .i("steps", steps)
                      .i("n_input", n_input)
                      .i("n_cell", n_cell)
                      .i("time_major", time_major ? 1 : 0)
                      .i("x_offset", -x_zp)
                      .i("h_zero_point", h_zp)
                      .raw("input_fc", scales_init(n, attrs.input_fc_scale, "input_fc_scale"))
                      .raw("recurrent_fc", scales_init(n, attrs.recurrent_fc_scale, "recurrent_fc_scale"))
                      .raw("forget_times_cell", scale_init(n, attrs.forget_cell_scale, "forget_cell_scale"))
                      .raw("input_times_cell_gate", scale_init(n, attrs.input_cell_scale, "input_cell_scale"))
                      .raw("output_times_tanh", scale_init(n, attrs.output_hidden_scale, "output_hidden_scale"))
                      .i("cell_tanh_multiplier", tanh_multiplier)
                      .i("cell_tanh_shift", tanh_shift >= 0 ? 0 : -tanh_shift)
                      .i("cell_clip", cell_clip)
                      .str();
  k.scratch.push_back({"lstm_state", uint64_t(11 * n_cell), 4});
  k.call = "kiln_lstm_s8(&$params, $in0, $in1, $in2, $in3, $in4, $out0, $scratch0)";
  return k;
}

}  // namespace

void register_qnn_lstm_lowerings() { register_lowering("KilnQLstm", lower_qlstm); }

}  // namespace kiln
