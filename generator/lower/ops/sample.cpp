// GridSample (4-D) and RoiAlign, float32, lowered to crt/include/kiln/sample.h.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

KernelCall grid_sample(const Node& n) {
  require_float32(n);
  const Value* x = n.input(0);
  const Value* grid = n.input(1);
  const Value* y = n.outputs.at(0);
  if (x->shape.size() != 4 || grid->shape.size() != 4 || grid->shape[3] != 2 || y->shape.size() != 4)
    throw CompileError(n.describe() + ": only 4-D GridSample (X [N,C,H,W], grid [N,H_out,W_out,2]) is supported");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  const std::string mode = n.attr_string("mode", n.opset >= 20 ? "linear" : "bilinear");
  const std::string pad = n.attr_string("padding_mode", "zeros");
  int64_t m, pm;
  if (mode == "bilinear" || mode == "linear") m = 0;
  else if (mode == "nearest") m = 1;
  else if (mode == "bicubic" || mode == "cubic") m = 2;
  else throw CompileError(n.describe() + ": mode " + in_quotes(mode) + " is not supported");
  if (pad == "zeros") pm = 0;
  else if (pad == "border") pm = 1;
  else if (pad == "reflection") pm = 2;
  else throw CompileError(n.describe() + ": padding_mode " + in_quotes(pad) + " is not supported");
  KernelCall k;
  k.params_type = "kiln_grid_sample_params_t";
  k.params_init = ParamsInit()
                      .u("n", x->shape[0])
                      .u("c", x->shape[1])
                      .u("h_in", x->shape[2])
                      .u("w_in", x->shape[3])
                      .u("h_out", grid->shape[1])
                      .u("w_out", grid->shape[2])
                      .u("mode", m)
                      .u("padding_mode", pm)
                      .u("align_corners", n.attr_int("align_corners", 0) != 0)
                      .str();
  k.call = "kiln_grid_sample_f32(&$params, $in0, $in1, $out0)";
  return k;
}

KernelCall roi_align(const Node& n) {
  const Value* x = n.input(0);
  const Value* rois = n.input(1);
  const Value* y = n.outputs.at(0);
  require_dtype(n, x, DType::Float32, "input");
  require_dtype(n, rois, DType::Float32, "rois");
  require_dtype(n, y, DType::Float32, "output");
  require_dtype(n, n.input(2), DType::Int64, "batch_indices");
  if (x->shape.size() != 4 || rois->shape.size() != 2 || rois->shape[1] != 4 || y->shape.size() != 4)
    throw CompileError(n.describe() + ": expects X [N,C,H,W] and rois [num_rois,4]");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  const std::string ctm = n.attr_string("coordinate_transformation_mode", n.opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    throw CompileError(n.describe() + ": coordinate_transformation_mode " + in_quotes(ctm) + " is not supported");
  const std::string mode = n.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") throw CompileError(n.describe() + ": mode " + in_quotes(mode) + " is not supported");
  const int64_t sr = n.attr_int("sampling_ratio", 0);
  if (sr < 0) throw CompileError(n.describe() + ": sampling_ratio must be >= 0");
  KernelCall k;
  k.params_type = "kiln_roi_align_params_t";
  k.params_init = ParamsInit()
                      .u("n", x->shape[0])
                      .u("c", x->shape[1])
                      .u("h", x->shape[2])
                      .u("w", x->shape[3])
                      .u("num_rois", rois->shape[0])
                      .u("out_h", y->shape[2])
                      .u("out_w", y->shape[3])
                      .u("sampling_ratio", sr)
                      .f("spatial_scale", n.attr_float("spatial_scale", 1.0))
                      .u("half_pixel", ctm == "half_pixel")
                      .u("max_mode", mode == "max")
                      .str();
  k.call = "kiln_roi_align_f32(&$params, $in0, $in1, $in2, $out0)";
  return k;
}

}  // namespace

void register_sample_lowerings() {
  register_lowering("GridSample", grid_sample);
  register_lowering("RoiAlign", roi_align);
}

}  // namespace kiln
