// KilnQResizeBilinear (docs/quantization.md) -> kiln_resize_bilinear_s8
// (crt/include/kiln/nn_s8_resize.h): TFLite's ResizeBilinearInteger, NHWC int8.
// The source coordinates are computed here with TFLite's integer arithmetic
// (scale in 1/1024 pixel, rounded; half-pixel centers shift by half a pixel), one
// table entry (lower source index, upper source index, fraction) per output row
// and per output column.
#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

// TFLite's ComputeInterpolationValuesInteger for every output index (C++ int32
// division truncates toward zero, as in TFLite).
std::vector<int64_t> source_table(const Node& n, int32_t in, int32_t out, bool align_corners, bool half_pixel,
                                  const char* axis) {
  int32_t scale_10 = ((1 << 10) * in + out / 2) / out;
  if (align_corners && out > 1) scale_10 = ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
  std::vector<int64_t> t;
  for (int32_t v = 0; v < out; ++v) {
    const int32_t scaled = half_pixel ? v * scale_10 + scale_10 / 2 - (1 << 9) : v * scale_10;
    const int32_t lower = std::max(scaled / (1 << 10), 0);
    const int32_t upper = std::min((scaled + (1 << 10) - 1) / (1 << 10), in - 1);
    // TFLite would read past the input here (its scale is rounded up); refuse.
    if (lower > in - 1)
      throw CompileError(n.describe() + ": output " + axis + " " + std::to_string(v) +
                         " maps past the input in TFLite's integer resize");
    t.insert(t.end(), {lower, upper, scaled - (1 << 10) * lower});
  }
  return t;
}

KernelCall lower_qresize_bilinear(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": needs x");
  require_dtype(n, x, DType::Int8, "input");
  require_dtype(n, y, DType::Int8, "output");
  if (x->shape.size() != 4 || y->shape.size() != 4 || x->shape[0] != y->shape[0] || x->shape[3] != y->shape[3])
    throw CompileError(n.describe() + ": needs NHWC input and output with equal batch and channels, got " +
                       shape_str(x->shape) + " -> " + shape_str(y->shape));
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  for (size_t d : {1, 2})
    if (x->shape[d] < 1 || y->shape[d] < 1 || x->shape[d] > (1 << 20) || y->shape[d] > (1 << 20))
      throw CompileError(n.describe() + ": spatial sizes must be in [1, 2^20]");
  const auto attrs = ops::get_attrs<ops::QResizeBilinear>(n);
  const bool align_corners = attrs.align_corners != 0;
  const bool half_pixel = attrs.half_pixel_centers != 0;
  if (align_corners && half_pixel)
    throw CompileError(n.describe() + ": align_corners and half_pixel_centers cannot both be set");
  const auto rows = source_table(n, int32_t(x->shape[1]), int32_t(y->shape[1]), align_corners, half_pixel, "row");
  const auto cols = source_table(n, int32_t(x->shape[2]), int32_t(y->shape[2]), align_corners, half_pixel, "column");
  KernelCall k;
  k.params_type = "kiln_resize_bilinear_s8_params_t";
  k.params_init = ParamsInit()
                      .i("batch", x->shape[0])
                      .i("in_h", x->shape[1])
                      .i("in_w", x->shape[2])
                      .i("channels", x->shape[3])
                      .i("out_h", y->shape[1])
                      .i("out_w", y->shape[2])
                      .str();
  k.constants.push_back(Constant::from_int64s({int64_t(rows.size())}, rows)->cast_to(DType::Int32));
  k.constants.push_back(Constant::from_int64s({int64_t(cols.size())}, cols)->cast_to(DType::Int32));
  k.call = "kiln_resize_bilinear_s8(&$params, $in0, $const0, $const1, $out0)";
  return k;
}

}  // namespace

void register_qnn_resize_lowerings() { register_lowering("KilnQResizeBilinear", lower_qresize_bilinear); }

}  // namespace kiln
