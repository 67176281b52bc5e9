// Signal ops (opset 17), float32, lowered to crt/include/kiln/signal.h: the
// Hann / Hamming / Blackman windows, DFT, STFT and MelWeightMatrix. Their output
// shapes are planned statically (shape inference from constant or declared
// shapes); the runtime scalars (sizes, frame step) are checked by the kernels.
#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

// Bytes of an int32/int64 scalar input.
int64_t int_scalar_bytes(const Node& n, size_t i, const char* what) {
  const Value* v = n.input(i);
  if (v == nullptr || v->num_elements() != 1)
    throw CompileError(n.describe() + ": input " + std::to_string(i) + " (" + what + ") must be a scalar");
  if (v->dtype == DType::Int64) return 8;
  if (v->dtype == DType::Int32) return 4;
  throw CompileError(n.describe() + ": " + what + " must be int32 or int64, got " + dtype_name(v->dtype));
}

LowerFn window(int64_t kind) {
  return [kind](const Node& n, const LoweringTarget&) {
    const Value* y = n.outputs.at(0);
    require_dtype(n, y, DType::Float32, "output");
    if (y->shape.size() != 1) throw CompileError(n.describe() + ": output must be 1-D");
    check_fits_32bit(n, y->shape);
    KernelCall k;
    k.params_type = "kiln_window_params_t";
    k.params_init = ParamsInit()
                        .u("count", y->shape[0])
                        .u("kind", kind)
                        .u("periodic", n.attr_int("periodic", 1) != 0)
                        .u("size_bytes", int_scalar_bytes(n, 0, "size"))
                        .str();
    k.call = "kiln_window_f32(&$params, $in0, $out0)";
    return k;
  };
}

KernelCall dft(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  require_dtype(n, x, DType::Float32, "input");
  require_dtype(n, y, DType::Float32, "output");
  if (n.opset >= 20) throw CompileError(n.describe() + ": DFT from opset 20 (axis as an input) is not supported");
  const int64_t r = int64_t(x->shape.size());
  if (r < 2 || (x->shape.back() != 1 && x->shape.back() != 2) || y->shape.size() != x->shape.size() || y->shape.back() != 2)
    throw CompileError(n.describe() + ": input must end in a dimension of 1 (real) or 2 (complex)");
  const int64_t axis = n.attr_int("axis", 1);
  if (axis < 1 || axis >= r - 1) throw CompileError(n.describe() + ": axis " + std::to_string(axis) + " is out of range");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  const bool onesided = n.attr_int("onesided", 0) != 0;
  const bool inverse = n.attr_int("inverse", 0) != 0;
  if (onesided && inverse) throw CompileError(n.describe() + ": onesided inverse DFT is not supported");
  if (onesided && x->shape.back() != 1) throw CompileError(n.describe() + ": onesided DFT needs a real input");
  int64_t n_fft = x->shape[size_t(axis)];
  if (const Value* len = n.input(1); len != nullptr) {
    n_fft = constant_input(n, 1, "dft_length")->as_int64(0);
    if (n_fft <= 0) throw CompileError(n.describe() + ": dft_length must be positive");
  }
  const int64_t n_out = onesided ? n_fft / 2 + 1 : n_fft;
  if (y->shape[size_t(axis)] != n_out)
    throw CompileError(n.describe() + ": output length " + std::to_string(y->shape[size_t(axis)]) + " along axis, expected " +
                       std::to_string(n_out));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x->shape[size_t(d)];
  for (int64_t d = axis + 1; d < r - 1; ++d) inner *= x->shape[size_t(d)];
  KernelCall k;
  k.params_type = "kiln_dft_params_t";
  k.params_init = ParamsInit()
                      .u("outer", outer)
                      .u("n_in", x->shape[size_t(axis)])
                      .u("inner", inner)
                      .u("in_comps", x->shape.back())
                      .u("n_fft", n_fft)
                      .u("n_out", n_out)
                      .u("inverse", inverse)
                      .str();
  k.call = "kiln_dft_f32(&$params, $in0, $out0)";
  return k;
}

KernelCall stft(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  require_dtype(n, x, DType::Float32, "signal");
  require_dtype(n, y, DType::Float32, "output");
  require_dtype(n, n.input(1), DType::Int64, "frame_step");
  require_dtype(n, n.input(2), DType::Float32, "window");
  require_dtype(n, n.input(3), DType::Int64, "frame_length");
  if (x->shape.size() != 3 || (x->shape[2] != 1 && x->shape[2] != 2) || y->shape.size() != 4 || y->shape[3] != 2)
    throw CompileError(n.describe() + ": expects signal [batch, length, 1 or 2] and output [batch, frames, bins, 2]");
  if (!n.input(1)) throw CompileError(n.describe() + ": frame_step is required");
  const Value* win = n.input(2);
  if (!win && !n.input(3)) throw CompileError(n.describe() + ": needs a window or a frame_length");
  if (win && win->shape.size() != 1) throw CompileError(n.describe() + ": window must be 1-D");
  const bool onesided = n.attr_int("onesided", 1) != 0;
  if (onesided && x->shape[2] != 1) throw CompileError(n.describe() + ": onesided STFT needs a real signal");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  KernelCall k;
  k.params_type = "kiln_stft_params_t";
  k.params_init = ParamsInit()
                      .u("batch", x->shape[0])
                      .u("length", x->shape[1])
                      .u("in_comps", x->shape[2])
                      .u("frames", y->shape[1])
                      .u("bins", y->shape[2])
                      .u("onesided", onesided)
                      .u("window_len", win ? win->shape[0] : 0)
                      .str();
  k.call = std::string("kiln_stft_f32(&$params, $in0, $in1, ") + (win ? "$in2" : "NULL") + ", " +
           (n.input(3) ? "$in3" : "NULL") + ", $out0)";
  return k;
}

KernelCall mel_weight_matrix(const Node& n) {
  const Value* y = n.outputs.at(0);
  require_dtype(n, y, DType::Float32, "output");
  if (y->shape.size() != 2) throw CompileError(n.describe() + ": output must be 2-D");
  check_fits_32bit(n, y->shape);
  const int64_t ib = int_scalar_bytes(n, 0, "num_mel_bins");
  if (int_scalar_bytes(n, 1, "dft_length") != ib || int_scalar_bytes(n, 2, "sample_rate") != ib)
    throw CompileError(n.describe() + ": num_mel_bins, dft_length and sample_rate must have one dtype");
  for (size_t i = 3; i <= 4; ++i) {
    require_dtype(n, n.input(i), DType::Float32, i == 3 ? "lower_edge_hertz" : "upper_edge_hertz");
    if (!n.input(i) || n.input(i)->num_elements() != 1) throw CompileError(n.describe() + ": edge frequencies must be scalars");
  }
  KernelCall k;
  k.params_type = "kiln_mel_weight_matrix_params_t";
  k.params_init = ParamsInit()
                      .u("num_mel_bins", y->shape[1])
                      .u("num_spectrogram_bins", y->shape[0])
                      .u("int_bytes", ib)
                      .str();
  k.call = "kiln_mel_weight_matrix_f32(&$params, $in0, $in1, $in2, $in3, $in4, $out0)";
  return k;
}

}  // namespace

void register_signal_lowerings() {
  register_lowering("HannWindow", window(0));
  register_lowering("HammingWindow", window(1));
  register_lowering("BlackmanWindow", window(2));
  register_lowering("DFT", dft);
  register_lowering("STFT", stft);
  register_lowering("MelWeightMatrix", mel_weight_matrix);
}

}  // namespace kiln
