// Resize (opset 10, 11, 13) and Upsample (opset 7, 9) -> kiln_resize_f32: nearest
// (all nearest_mode), linear and cubic (cubic_coeff_a, exclude_outside) with every
// coordinate_transformation_mode. Scales may be attributes, constants or run-time
// inputs (the kernel reads them); sizes only fix the static output shape.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

std::string coord_enum(const Node& n, const std::string& m) {
  if (m == "half_pixel") return "KILN_COORD_HALF_PIXEL";
  if (m == "pytorch_half_pixel") return "KILN_COORD_PYTORCH_HALF_PIXEL";
  if (m == "align_corners") return "KILN_COORD_ALIGN_CORNERS";
  if (m == "asymmetric") return "KILN_COORD_ASYMMETRIC";
  if (m == "tf_half_pixel_for_nn") return "KILN_COORD_TF_HALF_PIXEL_FOR_NN";
  if (m == "tf_crop_and_resize") return "KILN_COORD_TF_CROP_AND_RESIZE";
  throw CompileError(n.describe() + ": coordinate_transformation_mode " + in_quotes(m) + " is not supported");
}

std::string nearest_enum(const Node& n, const std::string& m) {
  if (m == "round_prefer_floor") return "KILN_NEAREST_ROUND_PREFER_FLOOR";
  if (m == "round_prefer_ceil") return "KILN_NEAREST_ROUND_PREFER_CEIL";
  if (m == "floor") return "KILN_NEAREST_FLOOR";
  if (m == "ceil") return "KILN_NEAREST_CEIL";
  throw CompileError(n.describe() + ": nearest_mode " + in_quotes(m) + " is not supported");
}

std::string mode_enum(const Node& n, const std::string& m) {
  if (m == "nearest") return "KILN_RESIZE_NEAREST";
  if (m == "linear" || m == "bilinear" || m == "trilinear") return "KILN_RESIZE_LINEAR";
  if (m == "cubic") return "KILN_RESIZE_CUBIC";
  throw CompileError(n.describe() + ": mode " + in_quotes(m) + " is not supported");
}

KernelCall lower_resize(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": needs X");
  require_dtype(n, x, DType::Float32, "input");
  require_dtype(n, y, DType::Float32, "output");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  const size_t rank = x->shape.size();
  if (rank == 0 || y->shape.size() != rank) throw CompileError(n.describe() + ": input and output ranks differ");
  for (int64_t d : x->shape)
    if (d <= 0) throw CompileError(n.describe() + ": empty input");

  const bool upsample = n.op_type == "Upsample";
  // Opset 10 Resize and Upsample: asymmetric coordinates, nearest rounds down.
  const bool legacy = upsample || n.opset < 11;
  const Value* roi = legacy ? nullptr : n.input(1);
  const Value* scales = legacy ? n.input(1) : n.input(2);
  if (scales && scales->num_elements() == 0) scales = nullptr;  // sizes given instead
  const std::string coord = legacy ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string mode = n.attr_string("mode", "nearest");

  ParamsInit p;
  p.u("rank", int64_t(rank)).ints("in_shape", x->shape).ints("out_shape", y->shape);
  p.raw("mode", mode_enum(n, mode));
  p.raw("coord", coord_enum(n, coord));
  p.raw("nearest", legacy ? "KILN_NEAREST_FLOOR" : nearest_enum(n, n.attr_string("nearest_mode", "round_prefer_floor")));
  p.f("cubic_a", n.attr_float("cubic_coeff_a", -0.75));
  p.u("exclude_outside", n.attr_int("exclude_outside", 0) != 0);
  p.f("extrapolation_value", n.attr_float("extrapolation_value", 0.0));

  std::string scales_arg = "NULL";
  if (upsample && n.has_attr("scales")) {
    std::vector<double> s = n.attr_floats("scales");
    if (s.size() != rank) throw CompileError(n.describe() + ": scales must have one value per axis");
    std::string arr = "{";
    for (size_t i = 0; i < s.size(); ++i) arr += (i ? ", " : "") + c_float(float(s[i]));
    p.raw("const_scales", arr + "}");
    scales_arg = "$params.const_scales";
  } else if (scales) {
    require_dtype(n, scales, DType::Float32, "scales");
    if (scales->num_elements() != int64_t(rank))
      throw CompileError(n.describe() + ": scales must have one value per axis");
    scales_arg = legacy ? "$in1" : "$in2";
  }
  std::string roi_arg = "NULL";
  if (coord == "tf_crop_and_resize") {
    if (!roi) throw CompileError(n.describe() + ": tf_crop_and_resize needs roi");
    require_dtype(n, roi, DType::Float32, "roi");
    if (roi->num_elements() != 2 * int64_t(rank))
      throw CompileError(n.describe() + ": roi must have 2 * rank values");
    roi_arg = "$in1";
  }
  KernelCall k;
  k.params_type = "kiln_resize_params_t";
  k.params_init = p.str();
  k.call = "kiln_resize_f32(&$params, $in0, " + roi_arg + ", " + scales_arg + ", $out0)";
  return k;
}

}  // namespace

void register_resize_lowerings() {
  register_lowering("Resize", lower_resize);
  register_lowering("Upsample", lower_resize);
}

}  // namespace kiln
