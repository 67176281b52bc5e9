// Small standalone ops lowered to crt/include/kiln/misc.h: Shrink, EyeLike,
// ReverseSequence, and Dropout when its mask is used or training_mode is a runtime
// input. Sampling (GridSample, RoiAlign) is sample.cpp, the signal ops (windows,
// DFT, STFT, MelWeightMatrix) signal.cpp.
#include <algorithm>
#include <cstring>

#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall shrink(const Node& n) {
  const Value* x = n.input(0);
  const std::string sfx = float_suffix(n, x->dtype);
  require_dtype(n, n.outputs.at(0), x->dtype, "output");
  check_fits_32bit(n, x->shape);
  KernelCall k;
  k.params_type = "kiln_shrink_params_t";
  k.params_init = ParamsInit()
                      .u("n", x->num_elements())
                      .f("lambd", n.attr_float("lambd", 0.5))
                      .f("bias", n.attr_float("bias", 0.0))
                      .str();
  k.call = "kiln_shrink_" + sfx + "(&$params, $in0, $out0)";
  k.in_place_inputs = {0};  // misc.h: out == in allowed
  return k;
}

// The bytes of the value 1 in dtype t (little-endian, as every supported target).
std::vector<int64_t> one_bytes(const Node& n, DType t) {
  uint8_t b[8] = {0};
  switch (t) {
    case DType::Float32: { float f = 1.0f; std::memcpy(b, &f, 4); break; }
    case DType::Float64: { double d = 1.0; std::memcpy(b, &d, 8); break; }
    case DType::Float16: b[0] = 0x00; b[1] = 0x3C; break;
    case DType::BFloat16: b[0] = 0x80; b[1] = 0x3F; break;
    case DType::Bool: case DType::Int8: case DType::UInt8: case DType::Int16: case DType::UInt16:
    case DType::Int32: case DType::UInt32: case DType::Int64: case DType::UInt64:
      b[0] = 1;
      break;
    default:
      throw CompileError(n.describe() + ": output dtype " + dtype_name(t) + " is not supported");
  }
  return std::vector<int64_t>(b, b + 8);
}

KernelCall eyelike(const Node& n) {
  const Value* y = n.outputs.at(0);
  if (y->shape.size() != 2) throw CompileError(n.describe() + ": EyeLike needs a 2-D input, got " + shape_str(y->shape));
  check_fits_32bit(n, y->shape);
  const int64_t k_attr = n.attr_int("k", 0);
  // Beyond the matrix every element is zero; clamping keeps the int32 field exact.
  const int64_t k_clamped = std::max<int64_t>(-y->shape[0] - 1, std::min<int64_t>(k_attr, y->shape[1] + 1));
  KernelCall k;
  k.params_type = "kiln_eyelike_params_t";
  k.params_init = ParamsInit()
                      .u("rows", y->shape[0])
                      .u("cols", y->shape[1])
                      .u("elem_size", data::elem_size(n, y->dtype))
                      .i("k", k_clamped)
                      .ints("one", one_bytes(n, y->dtype))
                      .str();
  k.call = "kiln_eyelike(&$params, $out0)";
  return k;
}

KernelCall reverse_sequence(const Node& n) {
  const Value* x = n.input(0);
  const Value* lens = n.input(1);
  require_dtype(n, lens, DType::Int64, "sequence_lens");
  if (x->shape.size() < 2) throw CompileError(n.describe() + ": input must have rank >= 2");
  check_fits_32bit(n, x->shape);
  const int64_t batch_axis = n.attr_int("batch_axis", 1), time_axis = n.attr_int("time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    throw CompileError(n.describe() + ": batch_axis and time_axis must be 0 and 1 in some order");
  if (lens->num_elements() != x->shape[size_t(batch_axis)])
    throw CompileError(n.describe() + ": sequence_lens must have one entry per batch element");
  const int64_t es = data::elem_size(n, x->dtype);
  int64_t inner = 1;
  for (size_t d = 2; d < x->shape.size(); ++d) inner *= x->shape[d];
  KernelCall k;
  k.params_type = "kiln_reverse_sequence_params_t";
  k.params_init = ParamsInit()
                      .u("dim0", x->shape[0])
                      .u("dim1", x->shape[1])
                      .u("batch_axis", batch_axis)
                      .u("inner_bytes", inner * es)
                      .str();
  k.call = "kiln_reverse_sequence(&$params, $in0, $in1, $out0)";
  return k;
}

// Dropout is deterministic only without training or with ratio 0; the kernel
// checks the runtime scalars and refuses the random case (KILN_ERR_BAD_ARGUMENT).
// A constant training_mode true with a constant (or default) ratio > 0 is
// rejected here already. The plain inference form is a view.
KernelCall dropout(const Node& n) {
  const Value* x = n.input(0);
  const Value* ratio = n.input(1);
  const Value* training = n.input(2);
  const bool mask_used = n.outputs.size() > 1 && n.outputs[1]->dtype != DType::Undefined &&
                         (!n.outputs[1]->users.empty() || n.outputs[1]->is_graph_output);
  const bool training_off = training == nullptr || (training->is_constant() && training->constant->as_int64(0) == 0);
  if (training_off && !mask_used) {
    KernelCall k;
    k.alias_input = 0;
    return k;
  }
  if (training != nullptr && training->is_constant() && training->constant->as_int64(0) != 0) {
    const double r = ratio == nullptr ? 0.5 : (ratio->is_constant() ? ratio->constant->as_double(0) : -1.0);
    if (r != 0.0 && (ratio == nullptr || ratio->is_constant()))
      throw CompileError(n.describe() + ": Dropout in training mode with ratio " + std::to_string(r) +
                         " draws random numbers; Kiln cannot reproduce them (only ratio 0 is deterministic)");
  }
  const std::string sfx = float_suffix(n, x->dtype);
  require_dtype(n, n.outputs.at(0), x->dtype, "output");
  if (ratio) require_dtype(n, ratio, DType::Float32, "ratio");
  if (ratio && ratio->num_elements() != 1) throw CompileError(n.describe() + ": ratio must be a scalar");
  if (training) require_dtype(n, training, DType::Bool, "training_mode");
  if (mask_used) require_dtype(n, n.outputs[1], DType::Bool, "mask");
  check_fits_32bit(n, x->shape);
  KernelCall k;
  k.params_type = "kiln_dropout_params_t";
  k.params_init = ParamsInit().u("n", x->num_elements()).str();
  k.call = "kiln_dropout_" + sfx + "(&$params, $in0, " + std::string(ratio ? "$in1" : "NULL") + ", " +
           (training ? "$in2" : "NULL") + ", $out0, " + (mask_used ? "$out1" : "NULL") + ")";
  k.in_place_inputs = {0};  // misc.h: out == in allowed
  return k;
}

}  // namespace

void register_misc_lowerings() {
  register_lowering("Shrink", shrink);
  register_lowering("EyeLike", eyelike);
  register_lowering("ReverseSequence", reverse_sequence);
  // The inference form is a view; the mask and a runtime training_mode need the kernel.
  register_lowering("Dropout", dropout);
}

}  // namespace kiln
