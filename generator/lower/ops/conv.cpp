// Conv (1-D, 2-D and 3-D; groups, dilations, pads, auto_pad) -> kiln_conv2d_f32.
#include <algorithm>

#include "lower/lower_util.h"
#include "lower/ops/f32_packing.h"
#include "lower/ops/ops.h"
#include "lower/patch_band.h"
#include "lower/spatial.h"
#include "util/error.h"

namespace kiln {

namespace {

// Largest im2col scratch Kiln plans for one convolution, unless a single output row
// needs more: tiles of output rows keep intra-operator memory small.
// With --memory-priority ram, the tile may be part of a row (tile_cols).
constexpr uint64_t kIm2colBudgetSpeed = 4096, kIm2colBudgetRam = 3072;
// The gather tile of a 1x1 convolution whose output is placed across its input
// (bufferize/overlap.h): the columns of every input channel copied aside at once.
constexpr uint64_t kGatherBudgetSpeed = 4096, kGatherBudgetRam = 2048;

// im2col tiling for `per_column` scratch bytes per output column: whole rows
// (tile_rows) when one fits the budget, else, with RAM priority, a multiple of four
// columns of one row (tile_cols; at least four). A lean node (LoweringTarget::
// lean_tiles) takes columns within a quarter of its row (at least the RAM budget).
struct Im2colTile {
  int64_t rows = 1, cols = 0;  // cols 0: whole rows
  uint64_t bytes = 0;
};
Im2colTile im2col_tile(const Node& n, const LoweringTarget& target, uint64_t per_column, int64_t w_out, int64_t rows) {
  const bool lean = target.lean_tiles.count(&n) > 0;
  const bool ram = target.ram_priority || lean;
  const uint64_t row_bytes = per_column * uint64_t(w_out);
  const uint64_t budget = target.ram_priority ? kIm2colBudgetRam
                          : lean              ? std::max(kIm2colBudgetRam, row_bytes / 4)
                                              : kIm2colBudgetSpeed;
  Im2colTile t;
  if (ram && row_bytes > budget && w_out > 4) {
    t.cols = std::clamp<int64_t>(int64_t(budget / std::max<uint64_t>(per_column, 1)) / 4 * 4, 4, w_out);
    if (t.cols < w_out) {
      t.bytes = per_column * uint64_t(t.cols);
      return t;
    }
    t.cols = 0;
  }
  t.rows = std::clamp<int64_t>(int64_t(budget / std::max<uint64_t>(row_bytes, 1)), 1, std::max<int64_t>(rows, 1));
  t.bytes = row_bytes * uint64_t(t.rows);
  return t;
}

// A float convolution as the lowering reads it: its values, geometry and which
// kernel family its shape allows, checked against each other.
struct ConvShape {
  const Value *x, *w, *bias, *y;
  SpatialGeometry g;
  int64_t groups, c_in, c_out, cin_g, cout_g;
  bool pointwise;     // 1x1, stride 1, no padding
  bool depthwise;     // one input channel per group, several groups
  bool depthwise3x3;  // the register-blocked depthwise 3x3 kernel takes it
};

ConvShape read_conv(const Node& n) {
  require_float32(n);
  ConvShape c;
  c.x = n.input(0);
  c.w = n.input(1);
  c.bias = n.input(2);
  c.y = n.outputs.at(0);
  if (!c.x || !c.w) throw CompileError(n.describe() + ": needs X and W");
  check_fits_32bit(n, c.x->shape);
  check_fits_32bit(n, c.y->shape);
  const SpatialGeometry& g = c.g = spatial_geometry(n, c.x->shape, c.w->shape, c.y->shape, /*weights_give_kernel=*/true);
  c.groups = n.attr_int("group", 1);
  c.c_in = c.x->shape[1];
  c.c_out = c.w->shape[0];
  if (c.groups <= 0 || c.c_in % c.groups != 0 || c.c_out % c.groups != 0 || c.w->shape[1] != c.c_in / c.groups)
    throw CompileError(n.describe() + ": group=" + std::to_string(c.groups) + " does not match input channels " +
                       std::to_string(c.c_in) + " and weights " + shape_str(c.w->shape));
  require_per_channel(n, c.bias, c.c_out, "bias");
  c.cin_g = c.c_in / c.groups;
  c.cout_g = c.c_out / c.groups;
  c.pointwise = true;
  for (size_t a = 0; a < 3; ++a)
    c.pointwise = c.pointwise && g.kernel[a] == 1 && g.stride[a] == 1 && g.pad_begin[a] == 0 && g.in[a] == g.out[a];
  // One input channel per group (depthwise, or a single-channel input): the direct
  // loop, unless the depthwise 3x3 kernel takes it. A single-channel input with one
  // group (the first layer of an audio model) goes through im2col like any other.
  c.depthwise = c.cin_g == 1 && c.groups > 1;
  const bool const_weights = c.w->is_constant() && (!c.bias || c.bias->is_constant());
  c.depthwise3x3 = c.depthwise && c.cout_g == 1 && const_weights && g.out[0] == 1 && g.in[0] == 1 &&
                   g.kernel[0] == 1 && g.kernel[1] == 3 && g.kernel[2] == 3 && g.stride[1] == g.stride[2] &&
                   (g.stride[2] == 1 || g.stride[2] == 2) && g.dilation[1] == 1 && g.dilation[2] == 1 &&
                   g.pad_begin[1] >= 0 && g.pad_begin[1] <= 1 && g.pad_begin[2] >= 0 && g.pad_begin[2] <= 1;
  return c;
}

// KilnConvAdd (schedule/residual_fusion.h): Conv's inputs then the tensor added to
// its output (input 3), which the output may overwrite.
KernelCall lower_conv_add(const Node& n, const LoweringTarget& target) {
  const ConvShape c = read_conv(n);
  const SpatialGeometry& g = c.g;
  const Value* r = n.input(3);
  if (!r || r->shape != c.y->shape || c.groups != 1 || c.depthwise || !c.w->is_constant() || c.x->shape[0] != 1)
    throw CompileError(n.describe() + ": a fused Conv + Add needs one group, constant weights, batch 1 and a "
                       "residual of the output's shape");
  const uint64_t k_len = uint64_t(c.c_in * g.kernel[0] * g.kernel[1] * g.kernel[2]);
  int64_t tile_rows = 0, tile_cols = 0;
  KernelCall k;
  if (c.pointwise) {
    const int64_t plane = g.out[0] * g.out[1] * g.out[2];
    tile_rows = std::clamp<int64_t>(int64_t(kIm2colBudgetSpeed / uint64_t(c.c_out * 4)) / 4 * 4, 4,
                                    std::max<int64_t>((plane + 3) / 4 * 4, 4));
    k.scratch.push_back({"conv_tile", uint64_t(c.c_out * std::min(tile_rows, plane)) * sizeof(float), 4});
  } else {
    const Im2colTile t =
        im2col_tile(n, target, (k_len + uint64_t(c.c_out)) * sizeof(float), g.out[2], g.out[0] * g.out[1]);
    tile_rows = t.rows;
    tile_cols = t.cols;
    k.scratch.push_back({"im2col_tile", t.bytes, 4});
  }
  k.constants.push_back(pack_f32_gemm_blocks(*c.w->constant, 1, c.c_out, int64_t(k_len)));
  k.unread_inputs.push_back(1);
  k.in_place_inputs = {3};  // conv.h: out may be the residual
  k.params_type = "kiln_conv2d_params_t";
  k.params_init = conv_params_init(c.x->shape[0], c.c_in, c.c_out, g, c.groups, tile_rows)
                      .raw("weights_layout", "KILN_CONV_WEIGHTS_GEMM_BLOCKS")
                      .u("tile_cols", tile_cols)
                      .str();
  k.call = std::string("kiln_conv2d_add_f32(&$params, $in0, $const0, ") + (c.bias ? "$in2" : "NULL") +
           ", $in3, $out0, $scratch0)";
  return k;
}

// Partial reuse (KernelCall::overlaps; why each is safe: crt/include/kiln/conv.h),
// for a Conv lowered with weights `weights` in `layout` and bias `bias_arg`.
void add_conv_overlaps(KernelCall& k, const ConvShape& c, const LoweringTarget& target, const char* layout,
                       const std::string& weights, const std::string& bias_arg) {
  const SpatialGeometry& g = c.g;
  const int64_t batch = c.x->shape[0];
  if (c.depthwise3x3 && batch == 1) {
    // Plane by plane, row by row, each input row copied into the ring before any
    // output row at or below it is written: the output may start anywhere at or
    // below the input (by whole 16-byte steps).
    KernelCall::Overlap ov;
    ov.granule = 16;
    ov.min_m = -int64_t(c.y->size_bytes() / 16) - 1;
    ov.max_m = 0;
    ov.scratch = k.scratch;
    k.overlaps.push_back(ov);
  } else if (c.pointwise && c.groups == 1 && batch == 1 && c.w->is_constant() && g.out[0] * g.out[1] * g.out[2] > 0) {
    // Gathered column tiles: output column j is written only after column j of every
    // input channel was copied aside, so the output may sit at any whole number of
    // channel planes from the input.
    const int64_t plane = g.out[0] * g.out[1] * g.out[2];
    const uint64_t gather_budget = target.ram_priority ? kGatherBudgetRam : kGatherBudgetSpeed;
    const int64_t cols = std::clamp<int64_t>(int64_t(gather_budget / uint64_t(c.c_in * 4)) / 4 * 4, 4,
                                             (plane + 3) / 4 * 4);
    KernelCall::Overlap ov;
    ov.granule = plane * int64_t(sizeof(float));
    ov.min_m = -c.c_out;
    ov.max_m = c.c_in;
    ov.params_init = conv_params_init(batch, c.c_in, c.c_out, g, c.groups, cols).raw("weights_layout", layout).str();
    ov.scratch.push_back({"gather", uint64_t(c.c_in * std::min(cols, plane)) * sizeof(float), 4});
    ov.call = "kiln_conv2d_f32(&$params, $in0, " + weights + ", " + bias_arg + ", $out0, $scratch0)";
    k.overlaps.push_back(ov);
  }
}

KernelCall lower_conv(const Node& n, const LoweringTarget& target) {
  const ConvShape c = read_conv(n);
  const SpatialGeometry& g = c.g;
  int64_t tile_rows = 0, tile_cols = 0;
  KernelCall k;
  if (!c.pointwise && !c.depthwise) {
    // A "row" is one (depth, height) output position: w_out columns of patches.
    const uint64_t per_column = uint64_t(c.cin_g * g.kernel[0] * g.kernel[1] * g.kernel[2]) * sizeof(float);
    Im2colTile t = im2col_tile(n, target, per_column, g.out[2], g.out[0] * g.out[1]);
    if (!c.w->is_constant())
      t = Im2colTile{t.cols > 0 ? 1 : t.rows, 0, t.cols > 0 ? per_column * uint64_t(g.out[2]) : t.bytes};
    tile_rows = t.rows;
    tile_cols = t.cols;
    k.scratch.push_back({"im2col", t.bytes, 4});
  }
  // Constant weights are re-laid out for the register-blocked kernels (crt/src/kernels/gemm_tiles_f32.h, depthwise3x3_f32.h).
  const char* layout = "KILN_CONV_WEIGHTS_OIHW";
  std::string weights = "$in1", bias_arg = c.bias ? "$in2" : "NULL";
  if (c.depthwise3x3) {
    layout = "KILN_CONV_WEIGHTS_DEPTHWISE_3X3";
    k.constants.push_back(pack_f32_depthwise3x3(*c.w->constant, c.bias ? c.bias->constant.get() : nullptr, c.c_out));
    k.unread_inputs = c.bias ? std::vector<int>{1, 2} : std::vector<int>{1};
    weights = "$const0";
    bias_arg = "NULL";
    const uint64_t row_len = uint64_t((g.out[2] - 1) * g.stride[2] + 3);
    k.scratch.push_back({"padded_rows", 3 * row_len * sizeof(float), 4});
  } else if (!c.depthwise && c.w->is_constant()) {
    layout = "KILN_CONV_WEIGHTS_GEMM_BLOCKS";
    k.constants.push_back(
        pack_f32_gemm_blocks(*c.w->constant, c.groups, c.cout_g, c.cin_g * g.kernel[0] * g.kernel[1] * g.kernel[2]));
    k.unread_inputs.push_back(1);
    weights = "$const0";
  }
  k.params_type = "kiln_conv2d_params_t";
  k.params_init = conv_params_init(c.x->shape[0], c.c_in, c.c_out, g, c.groups, tile_rows)
                      .raw("weights_layout", layout)
                      .u("tile_cols", tile_cols)
                      .str();
  add_conv_overlaps(k, c, target, layout, weights, bias_arg);
  k.call = "kiln_conv2d_f32(&$params, $in0, " + weights + ", " + bias_arg + ", $out0, " +
           (k.scratch.empty() ? "NULL" : "$scratch0") + ")";
  return k;
}

// Patch-based inverted residual block (schedule/patch_fusion.h): inputs X, W_expand,
// B_expand, W_depthwise, B_depthwise, W_project, B_project (biases may be absent);
// the depthwise attributes and the two Clips' bounds (lo1, hi1, lo2, hi2).

KernelCall lower_inverted_residual(const Node& n, const LoweringTarget& target) {
  require_float32(n);
  const Value* x = n.input(0);
  const Value* we = n.input(1);
  const Value* be = n.input(2);
  const Value* wd = n.input(3);
  const Value* bd = n.input(4);
  const Value* wp = n.input(5);
  const Value* bp = n.input(6);
  const Value* y = n.outputs.at(0);
  if (!x || !we || !wd || !wp || !we->is_constant() || !wd->is_constant() || !wp->is_constant() ||
      x->shape.size() != 4 || x->shape[0] != 1 || y->shape.size() != 4)
    throw CompileError(n.describe() + ": a patch-based inverted residual block needs constant weights and batch 1");
  const int64_t c_in = x->shape[1], ce = we->shape[0], c_out = wp->shape[0];
  const Shape dx{1, ce, x->shape[2], x->shape[3]}, dy{1, ce, y->shape[2], y->shape[3]};
  const SpatialGeometry g = spatial_geometry(n, dx, wd->shape, dy, /*weights_give_kernel=*/true);
  const uint64_t s = uint64_t(g.stride[2]), w_in = uint64_t(g.in[2]), w_out = uint64_t(g.out[2]);
  const uint64_t h_out = uint64_t(g.out[1]);
  // The band the fusion decided with (schedule/patch_fusion.cpp); one row when no
  // band pays (a block fused by hand, not by that pass).
  PatchBand pb = choose_patch_band(uint64_t(ce), s, w_in, w_out, h_out, x->size_bytes(), y->size_bytes(),
                                   uint64_t(ce) * uint64_t(x->shape[2]) * w_in * sizeof(float),
                                   target.ram_priority);
  if (pb.rows == 0) pb = {1, patch_scratch_bytes(uint64_t(ce), s, w_in, w_out, 1)};
  const uint64_t band = pb.rows;
  KernelCall k;
  k.constants.push_back(pack_f32_gemm_blocks(*we->constant, 1, ce, c_in));
  k.constants.push_back(pack_f32_depthwise3x3(*wd->constant, bd ? bd->constant.get() : nullptr, ce));
  k.constants.push_back(pack_f32_gemm_blocks(*wp->constant, 1, c_out, ce));
  k.unread_inputs = {1, 3, 5};
  if (bd) k.unread_inputs.push_back(4);
  const std::string dw = conv_params_init(1, ce, ce, g, ce, 0).raw("weights_layout", "KILN_CONV_WEIGHTS_DEPTHWISE_3X3").str();
  k.params_type = "kiln_inverted_residual_params_t";
  k.params_init = ParamsInit()
                      .raw("dw", dw)
                      .u("c_in", c_in)
                      .u("c_out", c_out)
                      .u("band_rows", int64_t(band))
                      .f("lo1", n.attr_float("lo1", 0.0))
                      .f("hi1", n.attr_float("hi1", 0.0))
                      .f("lo2", n.attr_float("lo2", 0.0))
                      .f("hi2", n.attr_float("hi2", 0.0))
                      .str();
  k.scratch.push_back({"patch", pb.scratch_bytes, 4});
  k.call = std::string("kiln_inverted_residual_f32(&$params, $in0, $const0, ") + (be ? "$in2" : "NULL") +
           ", $const1, $const2, " + (bp ? "$in6" : "NULL") + ", $out0, $scratch0)";
  return k;
}

}  // namespace

void register_conv_lowerings() {
  register_lowering("Conv", lower_conv);
  register_lowering("KilnConvAdd", lower_conv_add);
  register_lowering("KilnInvertedResidual", lower_inverted_residual);
}

}  // namespace kiln
