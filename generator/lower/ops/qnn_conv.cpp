// KilnQConv2D -> kiln_conv2d_s8 and KilnQDepthwiseConv2D -> kiln_depthwise_conv2d_s8
// (docs/quantization.md). The lowering does at compile time what an interpreter
// would do per inference: the weights are widened to int16 and laid out in the
// order the kernel's inner loop reads them (blocks of four output channels with
// interleaved tap pairs for Conv2D; blocks of four channels tap by tap for
// depthwise), and each
// channel's requant_scale becomes a kiln_s8_requant_t. The original int8 weights
// are not emitted. Scratch: the im2col columns of two output pixels. For a target
// with MVE (LoweringTarget::mve), Conv2D takes the int8-weight form instead
// (kiln_conv2d_s8_w8: int8 rows in 16-tap chunks, the input offset folded into the
// bias), half the flash of the int16 blocks; so does any target for the layers a
// sized parameter pool makes compact (LoweringTarget::compact_weights). A
// depthwise layer of one input channel and depth multiplier M > 1 is a Conv2D of
// M outputs and takes the Conv2D forms (conv_form_of_depthwise). A KilnQConv2D
// with input_nchw reads an NCHW input (the caller's layout, absorbed by
// quant/boundary_layout.h) where that costs no more than NHWC: the strip form on a
// DSP target, the int16-block form's NCHW entry point without DSP or MVE;
// elsewhere (the int8-weight and compact forms among them) the lowering refuses
// and the Transpose stays.
#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/spatial.h"
#include "lower/ops/ops.h"
#include "lower/ops/qnn_overlap.h"
#include "lower/ops/qnn_s8_params.h"
#include "util/error.h"

namespace kiln {

namespace {

struct Geometry2D {
  int64_t n, in_h, in_w, in_c, out_h, out_w, out_c;
  int64_t kernel_h, kernel_w;
  std::vector<int64_t> strides, dilations, pads;
};

// Whether input 0 of a KilnQConv2D is [N, C, H, W] (ops::QConv2D::input_nchw).
bool reads_nchw(const Node& n) {
  return n.op_type == "KilnQConv2D" && ops::get_attrs<ops::QConv2D>(n).input_nchw != 0;
}

// Shapes and spatial attributes of a KilnQ conv, checked against each other.
Geometry2D conv_geometry(const Node& n, int64_t kernel_h, int64_t kernel_w) {
  const Value *x = n.input(0), *y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": needs an input");
  require_dtype(n, x, DType::Int8, "input");
  require_dtype(n, y, DType::Int8, "output");
  if (x->shape.size() != 4 || y->shape.size() != 4)
    throw CompileError(n.describe() + ": input and output must be NHWC (rank 4), got " + shape_str(x->shape) + " -> " +
                       shape_str(y->shape));
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  const ops::Window2D win = ops::get_attrs<ops::Window2D>(n);
  const Shape xs = reads_nchw(n) ? Shape{x->shape[0], x->shape[2], x->shape[3], x->shape[1]} : x->shape;
  Geometry2D g{xs[0],    xs[1],    xs[2],       xs[3],         y->shape[1], y->shape[2], y->shape[3],
               kernel_h, kernel_w, win.strides, win.dilations, win.pads};
  if (g.strides.size() != 2 || g.dilations.size() != 2 || g.pads.size() != 4)
    throw CompileError(n.describe() + ": strides and dilations need 2 values, pads 4 [top, left, bottom, right]");
  for (int64_t v : g.strides)
    if (v < 1) throw CompileError(n.describe() + ": strides must be >= 1");
  for (int64_t v : g.dilations)
    if (v < 1) throw CompileError(n.describe() + ": dilations must be >= 1");
  for (int64_t v : g.pads)
    if (v < 0) throw CompileError(n.describe() + ": pads must be >= 0");
  check_window_reach(n, g.in_h, g.out_h, kernel_h, g.strides[0], g.dilations[0], g.pads[0], g.pads[2]);
  check_window_reach(n, g.in_w, g.out_w, kernel_w, g.strides[1], g.dilations[1], g.pads[1], g.pads[3]);
  if (y->shape[0] != g.n) throw CompileError(n.describe() + ": batch of input and output differ");
  const int64_t oh = (g.in_h + g.pads[0] + g.pads[2] - (g.dilations[0] * (kernel_h - 1) + 1)) / g.strides[0] + 1;
  const int64_t ow = (g.in_w + g.pads[1] + g.pads[3] - (g.dilations[1] * (kernel_w - 1) + 1)) / g.strides[1] + 1;
  if (oh != g.out_h || ow != g.out_w)
    throw CompileError(n.describe() + ": output " + shape_str(y->shape) + " does not match the input " +
                       shape_str(x->shape) + ", kernel, strides, dilations and pads (expected " + std::to_string(oh) +
                       "x" + std::to_string(ow) + ")");
  return g;
}

std::string geometry_fields(const Geometry2D& g) {
  return ParamsInit()
      .i("batch", g.n).i("in_h", g.in_h).i("in_w", g.in_w).i("in_c", g.in_c)
      .i("out_h", g.out_h).i("out_w", g.out_w).i("out_c", g.out_c)
      .i("kernel_h", g.kernel_h).i("kernel_w", g.kernel_w)
      .i("stride_h", g.strides[0]).i("stride_w", g.strides[1])
      .i("dilation_h", g.dilations[0]).i("dilation_w", g.dilations[1])
      .i("pad_top", g.pads[0]).i("pad_left", g.pads[1])
      .str();
}

// "{ a, b }" + ", c" -> "{ a, b, c }"
std::string append_fields(const std::string& init, const std::string& more) {
  std::string head = init.substr(0, init.rfind('}'));
  while (!head.empty() && head.back() == ' ') head.pop_back();
  return head + (head.size() > 1 ? ", " : " ") + more + " }";
}

// The Conv2D forms, for a KilnQConv2D or a depthwise layer that is one
// (conv_form_of_depthwise): w8 holds out_c rows of kernel_h * kernel_w *
// (in_c / groups) int8 taps in (kh, kw, c) order; the bias is input 2 of n.
KernelCall lower_s8_conv_rows(const Node& n, const LoweringTarget& target, const Geometry2D& g, int64_t groups, const std::vector<int64_t>& w8) {
  const int64_t taps = g.kernel_h * g.kernel_w * (g.in_c / groups);
  check_s8_accumulator(n, taps);
  check_s8_bias(n, 2, g.out_c);
  const S8Quant q = read_s8_quant(n, g.out_c);
  const bool nchw = reads_nchw(n);
  if (nchw && groups != 1) throw CompileError(n.describe() + ": an NCHW input needs group 1");
  KernelCall k;
  k.params_type = "kiln_conv2d_s8_params_t";
  k.params_init = append_fields(geometry_fields(g), ".groups = " + std::to_string(groups) + ", " + s8_quant_fields(q));
  // On MVE the fastest form; elsewhere the compact one, when the parameter pool's
  // size asks for it (LoweringTarget::compact_weights). Neither reads NCHW.
  if ((target.mve || target.compact_weights.count(&n)) && !nchw) {
    // int8 weights, the input offset folded into the bias (VMLADAVA.S8, SMLAD).
    if (std::optional<ConstantPtr> kernel_bias = s8_kernel_bias(n, 2, w8, g.out_c, taps, -q.x_zero_point)) {
      k.constants.push_back(s8_weight_blocks_w8(w8, groups, g.out_c / groups, taps));
      // The compact form: 8-byte requantization records the kernel expands.
      k.constants.push_back(target.mve ? s8_requant_table(q.requant_scale, q.y_zero_point)
                                       : s8_requant_records(q.requant_scale));
      k.constants.push_back(*kernel_bias);
      k.unread_inputs.push_back(1);
      if (n.input(2)) k.unread_inputs.push_back(2);
      k.scratch.push_back({"im2col", uint64_t(2 * s8_row_len8(taps)), 8});
      k.call = target.mve ? "kiln_conv2d_s8_w8(&$params, $in0, $const0, $const2, (const kiln_s8_requant_t*)$const1, "
                            "$out0, (int8_t*)$scratch0)"
                          : "kiln_conv2d_s8_w8q(&$params, $in0, $const0, $const2, $const1, $out0, (int8_t*)$scratch0)";
      return k;
    }
  }
  if (target.dsp && groups == 1) {
    // A first layer (few input channels): the taps in (kx, ky, c) order, so that a
    // window is a slice of the strip the kernel widens once per output row.
    const uint64_t strip_bytes = uint64_t(((g.out_w - 1) * g.strides[1] + g.kernel_w) * g.kernel_h * g.in_c * 2 + 8);
    if (g.dilations[0] == 1 && g.dilations[1] == 1 && g.kernel_h * g.kernel_w > 1 && g.kernel_h * g.in_c <= 16 &&
        (g.strides[1] * g.kernel_h * g.in_c) % 2 == 0 && strip_bytes <= 4096) {
      std::vector<int64_t> wt(w8.size());
      for (int64_t r = 0; r < g.out_c; ++r)
        for (int64_t ky = 0; ky < g.kernel_h; ++ky)
          for (int64_t kx = 0; kx < g.kernel_w; ++kx)
            for (int64_t c = 0; c < g.in_c; ++c)
              wt[size_t(r * taps + (kx * g.kernel_h + ky) * g.in_c + c)] =
                  w8[size_t(r * taps + (ky * g.kernel_w + kx) * g.in_c + c)];
      if (std::optional<ConstantPtr> packed = s8_packed_blocks(n, 2, wt, g.out_c, taps, q)) {
        k.constants.push_back(*packed);
        k.unread_inputs.push_back(1);
        if (n.input(2)) k.unread_inputs.push_back(2);
        k.scratch.push_back({"strip", strip_bytes, 8});
        k.call = std::string(nchw ? "kiln_conv2d_s8_pk_strip_nchw" : "kiln_conv2d_s8_pk_strip") +
                 "(&$params, $in0, $const0, $out0, (int16_t*)$scratch0)";
        return k;
      }
    }
    // The packed and pair forms widen a pixel's window from runs of NHWC bytes; a
    // gather from NCHW planes per pixel costs more than transposing the input
    // (kiln_transpose_s8, under 3 instructions a byte), so the QDQ rewrite keeps the
    // Transpose for such a layer.
    if (nchw) throw CompileError(n.describe() + ": an NCHW input takes the strip form only on this target");
    const bool pointwise = g.kernel_h == 1 && g.kernel_w == 1 && g.strides[0] == 1 && g.strides[1] == 1 &&
                           g.pads[0] == 0 && g.pads[1] == 0 && g.out_h == g.in_h && g.out_w == g.in_w;
    // A pointwise layer on whole words of channels: two pixels by two channels per
    // pass over the taps (kiln_conv2d_s8_pw, the pair stream).
    if (pointwise && g.in_c % 4 == 0 && g.out_c % 2 == 0) {
      if (std::optional<ConstantPtr> packed = s8_packed_blocks(n, 2, w8, g.out_c, taps, q, S8Pack::Pairs)) {
        k.constants.push_back(*packed);
        k.unread_inputs.push_back(1);
        if (n.input(2)) k.unread_inputs.push_back(2);
        k.scratch.push_back({"im2col", s8_pair_scratch_bytes(g.in_c, g.n * g.out_h * g.out_w), 8});
        k.call = "kiln_conv2d_s8_pw(&$params, $in0, $const0, $out0, (int16_t*)$scratch0)";
        return k;
      }
    }
    // Bias, doubled weights and requantization in one stream per block of four
    // channels (SMLAD, SMMLAR).
    if (std::optional<ConstantPtr> packed = s8_packed_blocks(n, 2, w8, g.out_c, taps, q)) {
      k.constants.push_back(*packed);
      k.unread_inputs.push_back(1);
      if (n.input(2)) k.unread_inputs.push_back(2);
      // Columns are widened up to KILN_S8_PK_COLS at a time, within an output row
      // (a pointwise layer: over the whole image).
      k.scratch.push_back({"im2col", s8_packed_scratch_bytes(taps, pointwise ? g.n * g.out_h * g.out_w : g.out_w), 8});
      k.call = "kiln_conv2d_s8_pk(&$params, $in0, $const0, $out0, (int16_t*)$scratch0)";
      return k;
    }
  }
  // Without DSP or MVE both layouts build a column per pixel: NCHW costs the same.
  if (nchw && target.mve) throw CompileError(n.describe() + ": an NCHW input has no int8-weight form");
  k.constants.push_back(s8_weight_blocks(w8, groups, g.out_c / groups, taps));
  k.constants.push_back(s8_requant_table(q.requant_scale, q.y_zero_point));
  k.unread_inputs.push_back(1);
  k.scratch.push_back({"im2col", uint64_t(2 * s8_row_len(taps) * 2), 8});
  k.call = std::string(nchw ? "kiln_conv2d_s8_nchw" : "kiln_conv2d_s8") + "(&$params, $in0, $const0, " +
           (n.input(2) ? "$in2" : "NULL") +
           ", (const kiln_s8_requant_t*)$const1, $out0, (int16_t*)$scratch0)";
  return k;
}

KernelCall lower_qconv2d_form(const Node& n, const LoweringTarget& target) {
  const Value* w = n.input(1);
  if (!w || w->shape.size() != 4)
    throw CompileError(n.describe() + ": weights must be constant [Cout, KH, KW, Cin/group]");
  const Geometry2D g = conv_geometry(n, w->shape[1], w->shape[2]);
  const int64_t groups = ops::get_attrs<ops::QConv2D>(n).group;
  if (groups < 1 || g.in_c % groups != 0 || g.out_c % groups != 0 || w->shape[0] != g.out_c ||
      w->shape[3] != g.in_c / groups)
    throw CompileError(n.describe() + ": weights " + shape_str(w->shape) + " do not match group=" +
                       std::to_string(groups) + ", input channels " + std::to_string(g.in_c) + " and output channels " +
                       std::to_string(g.out_c));
  return lower_s8_conv_rows(n, target, g, groups, s8_weights(n, 1));
}

// A depthwise layer with depth multiplier M is, per input channel, a convolution
// with M output channels (output channel c * M + m reads input channel c only).
// With one input channel it is exactly an ordinary convolution of 1 input and M
// output channels, so it takes the Conv2D forms (im2col, the packed / strip /
// int8-weight GEMMs: SMLAD or VMLADAVA over the kernel_h * kernel_w taps of M
// rows). Several input channels keep the depthwise kernel, which runs M > 1 in
// blocks of four output channels (a grouped Conv2D, C groups of M rows, measured
// slower: an im2col column and a GEMM call per pixel and group). M == 1 keeps the
// depthwise forms (their own fast paths; a 1x1 conv of one channel is no better).
bool conv_form_of_depthwise(const Geometry2D& g, int64_t mult) { return mult > 1 && g.in_c == 1; }

// TFLite's depthwise weights [KH, KW, Cout] as Conv2D rows: out_c rows of
// kernel_h * kernel_w taps (in_c == 1, so a tap's (kh, kw, c) order is (kh, kw)).
std::vector<int64_t> depthwise_rows(const std::vector<int64_t>& w8, const Geometry2D& g) {
  const int64_t taps = g.kernel_h * g.kernel_w;
  std::vector<int64_t> rows(w8.size());
  for (int64_t t = 0; t < taps; ++t)
    for (int64_t c = 0; c < g.out_c; ++c) rows[size_t(c * taps + t)] = w8[size_t(t * g.out_c + c)];
  return rows;
}

KernelCall lower_qdepthwise_conv2d_form(const Node& n, const LoweringTarget& target) {
  const Value* w = n.input(1);
  // [KH, KW, Cout], or TFLite's [1, KH, KW, Cout].
  Shape ws = w ? w->shape : Shape{};
  if (ws.size() == 4 && ws[0] == 1) ws.erase(ws.begin());
  if (!w || ws.size() != 3) throw CompileError(n.describe() + ": weights must be constant [KH, KW, Cout]");
  const Geometry2D g = conv_geometry(n, ws[0], ws[1]);
  const int64_t mult = ops::get_attrs<ops::QDepthwiseConv2D>(n).depth_multiplier;
  if (mult < 1 || g.out_c != g.in_c * mult || ws[2] != g.out_c)
    throw CompileError(n.describe() + ": weights " + shape_str(w->shape) + " do not match input channels " +
                       std::to_string(g.in_c) + " x depth_multiplier " + std::to_string(mult) + " = " +
                       std::to_string(g.out_c) + " output channels");
  if (conv_form_of_depthwise(g, mult)) return lower_s8_conv_rows(n, target, g, 1, depthwise_rows(s8_weights(n, 1), g));
  check_s8_accumulator(n, g.kernel_h * g.kernel_w);
  check_s8_bias(n, 2, g.out_c);
  const S8Quant q = read_s8_quant(n, g.out_c);
  KernelCall k;
  k.params_type = "kiln_depthwise_conv2d_s8_params_t";
  k.params_init = append_fields(geometry_fields(g),
                                ".depth_multiplier = " + std::to_string(mult) + ", " + s8_quant_fields(q));
  const std::vector<int64_t> w8 = s8_weights(n, 1);
  const int64_t taps = g.kernel_h * g.kernel_w;
  if (target.dsp && mult == 1 && g.kernel_h == 3 && g.kernel_w == 3 && g.out_c % 4 == 0) {
    // Bias, doubled weights and requantization in one stream per block of four
    // channels; border windows are copied into scratch with the zero point around.
    std::vector<int64_t> rows(w8.size());
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t c = 0; c < g.out_c; ++c) rows[size_t(c * taps + t)] = w8[size_t(t * g.out_c + c)];
    if (std::optional<ConstantPtr> packed = s8_packed_blocks(n, 2, rows, g.out_c, taps, q, S8Pack::Depthwise)) {
      k.constants.push_back(*packed);
      k.unread_inputs.push_back(1);
      if (n.input(2)) k.unread_inputs.push_back(2);
      // 3x3, stride_w 1, dilation 1, rows of 8 outputs or more (KILN_S8_DW_PK_PLANAR,
      // nn_s8.h): a ring of three widened input rows of four channels; else a
      // border pixel's window.
      const bool planar = g.kernel_h == 3 && g.kernel_w == 3 && g.strides[1] == 1 && g.dilations[0] == 1 &&
                          g.dilations[1] == 1 && g.out_w >= 8;
      if (planar)
        k.scratch.push_back({"rows", uint64_t(24 * (4 * ((g.out_w + 3) / 4) + 2)), 8});
      else
        k.scratch.push_back({"window", uint64_t(taps * g.in_c), 8});
      k.call = "kiln_depthwise_conv2d_s8_pk(&$params, $in0, $const0, $out0, (int8_t*)$scratch0)";
      return k;
    }
  }
  k.constants.push_back(s8_depthwise_weights(w8, taps, g.out_c));
  k.constants.push_back(s8_requant_table(q.requant_scale, q.y_zero_point));
  k.unread_inputs.push_back(1);
  k.call = std::string("kiln_depthwise_conv2d_s8(&$params, $in0, $const0, ") + (n.input(2) ? "$in2" : "NULL") +
           ", (const kiln_s8_requant_t*)$const1, $out0)";
  return k;
}

S8Window s8_window(const Geometry2D& g) {
  S8Window w;
  w.in_h = g.in_h, w.in_w = g.in_w, w.in_c = g.in_c, w.out_h = g.out_h, w.out_w = g.out_w, w.out_c = g.out_c;
  w.kernel_h = g.kernel_h, w.kernel_w = g.kernel_w, w.stride_h = g.strides[0], w.stride_w = g.strides[1];
  w.dilation_h = g.dilations[0], w.dilation_w = g.dilations[1], w.pad_top = g.pads[0], w.pad_left = g.pads[1];
  return w;
}

// Partial reuse (lower/ops/qnn_overlap.h): one group, batch 1. Every form reads a
// pixel's window before writing its outputs, except the int8-weight form's
// pointwise path on MVE, which reads a pair of pixels in place while writing them.
KernelCall lower_qconv2d(const Node& n, const LoweringTarget& target) {
  KernelCall k = lower_qconv2d_form(n, target);
  const Value* w = n.input(1);
  const Geometry2D g = conv_geometry(n, w->shape[1], w->shape[2]);
  // An NCHW input is read plane by plane, not pixel by pixel as the overlap assumes.
  if (g.n != 1 || ops::get_attrs<ops::QConv2D>(n).group != 1 || reads_nchw(n)) return k;
  const bool w8 = k.call.rfind("kiln_conv2d_s8_w8", 0) == 0;  // w8 and the compact w8q
  const bool direct = w8 && g.kernel_h == 1 && g.kernel_w == 1 && g.in_c % 16 == 0 && g.pads[0] == 0 &&
                      g.pads[1] == 0 && (g.out_h - 1) * g.strides[0] < g.in_h && (g.out_w - 1) * g.strides[1] < g.in_w;
  add_s8_overlap(k, n.outputs[0]->size_bytes(), s8_overlap_limit(s8_window(g), direct ? 2 : 1, direct), 16);
  return k;
}

// Depthwise, depth multiplier 1, batch 1: channel c of an output pixel is written
// after channel c of its window was read (every form), so the output may start at
// whole pixels below the input (lower/ops/qnn_overlap.h).
KernelCall lower_qdepthwise_conv2d(const Node& n, const LoweringTarget& target) {
  KernelCall k = lower_qdepthwise_conv2d_form(n, target);
  Shape ws = n.input(1)->shape;
  if (ws.size() == 4 && ws[0] == 1) ws.erase(ws.begin());
  const Geometry2D g = conv_geometry(n, ws[0], ws[1]);
  if (conv_form_of_depthwise(g, ops::get_attrs<ops::QDepthwiseConv2D>(n).depth_multiplier)) {
    // As lower_qconv2d: one input channel is never the in-place pointwise path.
    if (g.n == 1) add_s8_overlap(k, n.outputs[0]->size_bytes(), s8_overlap_limit(s8_window(g), 1, false), 16);
    return k;
  }
  if (g.n != 1 || g.out_c != g.in_c) return k;
  add_s8_overlap(k, n.outputs[0]->size_bytes(), s8_overlap_limit(s8_window(g), 1, false), g.in_c);
  return k;
}

}  // namespace

void register_qnn_conv_lowerings() {
  register_lowering("KilnQConv2D", lower_qconv2d);
  register_lowering("KilnQDepthwiseConv2D", lower_qdepthwise_conv2d);
}

}  // namespace kiln
