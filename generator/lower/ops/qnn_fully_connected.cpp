// KilnQFullyConnected -> kiln_fully_connected_s8 (docs/quantization.md): the int8
// weights [Nout, K] are widened to int16 blocks of four output rows with
// interleaved pairs (the kernel's read order), requant_scale becomes one
// kiln_s8_requant_t per output; scratch holds two widened input rows. For a
// target with MVE (LoweringTarget::mve), the int8-weight form instead
// (kiln_fully_connected_s8_w8: int8 rows, the input offset folded into the bias),
// also the compact form of any target (LoweringTarget::compact_weights).
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "lower/ops/qnn_overlap.h"
#include "lower/ops/qnn_s8_params.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall lower_qfully_connected_form(const Node& n, const LoweringTarget& target) {
  const Value *x = n.input(0), *w = n.input(1), *y = n.outputs.at(0);
  if (!x || !w) throw CompileError(n.describe() + ": needs an input and constant weights");
  require_dtype(n, x, DType::Int8, "input");
  require_dtype(n, y, DType::Int8, "output");
  if (x->shape.size() != 2 || w->shape.size() != 2 || y->shape.size() != 2)
    throw CompileError(n.describe() + ": input [M, K], weights [Nout, K] and output [M, Nout] must be matrices");
  const int64_t rows = x->shape[0], k = x->shape[1], nout = w->shape[0];
  if (w->shape[1] != k || y->shape[0] != rows || y->shape[1] != nout)
    throw CompileError(n.describe() + ": shapes do not match: " + shape_str(x->shape) + " x " + shape_str(w->shape) +
                       "^T -> " + shape_str(y->shape));
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  check_s8_accumulator(n, k);
  check_s8_bias(n, 2, nout);
  const S8Quant q = read_s8_quant(n, nout);
  // Every form widens or copies at most two rows at a time (the packed one up to
  // KILN_S8_PK_COLS): a single row needs scratch for one.
  const int64_t pair = std::min<int64_t>(rows, 2);
  KernelCall kc;
  kc.params_type = "kiln_fully_connected_s8_params_t";
  kc.params_init = "{ .rows = " + std::to_string(rows) + ", .in_features = " + std::to_string(k) +
                   ", .out_features = " + std::to_string(nout) + ", " + s8_quant_fields(q) + " }";
  const std::vector<int64_t> w8 = s8_weights(n, 1);
  if (target.mve || target.compact_weights.count(&n)) {
    // int8 weights, the input offset folded into the bias (VMLADAVA.S8, SMLAD): the
    // fastest form on MVE, the compact one elsewhere (LoweringTarget::compact_weights).
    if (std::optional<ConstantPtr> kernel_bias = s8_kernel_bias(n, 2, w8, nout, k, -q.x_zero_point)) {
      kc.constants.push_back(s8_weight_blocks_w8(w8, 1, nout, k));
      // The compact form: 8-byte requantization records the kernel expands.
      kc.constants.push_back(target.mve ? s8_requant_table(q.requant_scale, q.y_zero_point)
                                        : s8_requant_records(q.requant_scale));
      kc.constants.push_back(*kernel_bias);
      kc.unread_inputs.push_back(1);
      if (n.input(2)) kc.unread_inputs.push_back(2);
      kc.scratch.push_back({"rows", uint64_t(pair * s8_row_len8(k)), 8});
      kc.call = target.mve ? "kiln_fully_connected_s8_w8(&$params, $in0, $const0, $const2, "
                             "(const kiln_s8_requant_t*)$const1, $out0, (int8_t*)$scratch0)"
                           : "kiln_fully_connected_s8_w8q(&$params, $in0, $const0, $const2, $const1, $out0, "
                             "(int8_t*)$scratch0)";
      return kc;
    }
  }
  if (target.dsp) {
    // Bias, doubled weights and requantization in one stream per block of four rows.
    if (std::optional<ConstantPtr> packed = s8_packed_blocks(n, 2, w8, nout, k, q)) {
      kc.constants.push_back(*packed);
      kc.unread_inputs.push_back(1);
      if (n.input(2)) kc.unread_inputs.push_back(2);
      kc.scratch.push_back({"widened_rows", s8_packed_scratch_bytes(k, rows), 8});
      kc.call = "kiln_fully_connected_s8_pk(&$params, $in0, $const0, $out0, (int16_t*)$scratch0)";
      return kc;
    }
  }
  kc.constants.push_back(s8_weight_blocks(w8, 1, nout, k));
  kc.constants.push_back(s8_requant_table(q.requant_scale, q.y_zero_point));
  kc.unread_inputs.push_back(1);
  kc.scratch.push_back({"widened_rows", uint64_t(pair * s8_row_len(k) * 2), 8});
  kc.call = std::string("kiln_fully_connected_s8(&$params, $in0, $const0, ") + (n.input(2) ? "$in2" : "NULL") +
            ", (const kiln_s8_requant_t*)$const1, $out0, (int16_t*)$scratch0)";
  return kc;
}

// Partial reuse (lower/ops/qnn_overlap.h): rows in order, each widened (copied)
// before its outputs are written; the int8-weight form reads a row in place while
// writing it (and on MVE two rows at a time).
KernelCall lower_qfully_connected(const Node& n, const LoweringTarget& target) {
  KernelCall k = lower_qfully_connected_form(n, target);
  const Value *x = n.input(0), *y = n.outputs.at(0);
  S8Window w;
  w.in_h = w.out_h = x->shape[0], w.in_c = x->shape[1], w.out_c = y->shape[1];
  const bool w8 = k.call.rfind("kiln_fully_connected_s8_w8", 0) == 0;  // w8 and the compact w8q
  add_s8_overlap(k, y->size_bytes(), s8_overlap_limit(w, w8 ? 2 : 1, w8), 16);
  return k;
}

}  // namespace

void register_qnn_fully_connected_lowerings() { register_lowering("KilnQFullyConnected", lower_qfully_connected); }

}  // namespace kiln
