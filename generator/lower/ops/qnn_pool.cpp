// KilnQAvgPool2D and KilnQMaxPool2D (docs/quantization.md): NHWC int8 pooling ->
// kiln_avgpool2d_s8 / kiln_maxpool2d_s8 (crt/include/kiln/nn_s8_pool.h). The
// average divides by the taps inside the input; the geometry is checked here so
// the kernel never meets a window without one.
#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "lower/ops/qnn_overlap.h"
#include "lower/spatial.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

std::vector<int64_t> sized(const Node& n, const char* name, std::vector<int64_t> v, size_t count) {
  if (v.size() != count)
    throw CompileError(n.describe() + ": attribute " + in_quotes(name) + " must have " + std::to_string(count) + " values");
  return v;
}

KernelCall lower_qpool(const Node& n, bool average) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": needs x");
  require_dtype(n, x, DType::Int8, "input");
  require_dtype(n, y, DType::Int8, "output");
  if (x->shape.size() != 4 || y->shape.size() != 4)
    throw CompileError(n.describe() + ": x and y must be NHWC (rank 4), got " + shape_str(x->shape) + " -> " +
                       shape_str(y->shape));
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  const auto attrs = ops::get_attrs<ops::QPool2D>(n);
  const auto kernel = sized(n, "kernel_shape", attrs.kernel_shape, 2);
  const auto strides = sized(n, "strides", attrs.strides, 2);
  const auto pads = sized(n, "pads", attrs.pads, 4);  // top, left, bottom, right
  const int64_t act_min = attrs.act_min, act_max = attrs.act_max;
  if (act_min < -128 || act_max > 127 || act_min > act_max)
    throw CompileError(n.describe() + ": act_min/act_max [" + std::to_string(act_min) + ", " +
                       std::to_string(act_max) + "] is not a range inside [-128, 127]");
  const int64_t N = x->shape[0], H = x->shape[1], W = x->shape[2], C = x->shape[3];
  const int64_t OH = y->shape[1], OW = y->shape[2];
  if (y->shape[0] != N || y->shape[3] != C)
    throw CompileError(n.describe() + ": output " + shape_str(y->shape) + " must keep the batch and channels of " +
                       shape_str(x->shape));
  for (int d = 0; d < 2; ++d) {
    if (kernel[d] <= 0 || strides[d] <= 0 || pads[d] < 0 || pads[d + 2] < 0)
      throw CompileError(n.describe() + ": kernel_shape and strides must be positive and pads non-negative");
  }
  check_window_reach(n, H, OH, kernel[0], strides[0], 1, pads[0], pads[2]);
  check_window_reach(n, W, OW, kernel[1], strides[1], 1, pads[1], pads[3]);
  if (kernel[0] > (int64_t(1) << 23) / kernel[1])
    throw CompileError(n.describe() + ": the window has more than 2^23 taps");
  // Output size from the geometry (floor), as the front end computed it.
  auto out_size = [](int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1) {
    const int64_t span = in + p0 + p1 - k;
    return span < 0 ? int64_t(0) : span / s + 1;
  };
  if (out_size(H, kernel[0], strides[0], pads[0], pads[2]) != OH ||
      out_size(W, kernel[1], strides[1], pads[1], pads[3]) != OW)
    throw CompileError(n.describe() + ": output " + shape_str(y->shape) + " does not follow from input " +
                       shape_str(x->shape) + ", kernel_shape, strides and pads");
  // Every average window overlaps the input: the first ends after its start, the
  // last starts inside it (an average of no taps is undefined; TFLite refuses it
  // too). A max window without taps gives act_min, as in TFLite.
  if (average && OH > 0 && OW > 0 &&
      (pads[0] >= kernel[0] || pads[1] >= kernel[1] || (OH - 1) * strides[0] - pads[0] >= H ||
       (OW - 1) * strides[1] - pads[1] >= W))
    throw CompileError(n.describe() + ": a pooling window lies entirely in the padding");
  KernelCall k;
  k.params_type = "kiln_pool2d_s8_params_t";
  k.params_init = ParamsInit()
                      .i("batch", N)
                      .i("in_h", H)
                      .i("in_w", W)
                      .i("channels", C)
                      .i("out_h", OH)
                      .i("out_w", OW)
                      .i("kernel_h", kernel[0])
                      .i("kernel_w", kernel[1])
                      .i("stride_h", strides[0])
                      .i("stride_w", strides[1])
                      .i("pad_top", pads[0])
                      .i("pad_left", pads[1])
                      .i("act_min", act_min)
                      .i("act_max", act_max)
                      .str();
  k.call = std::string(average ? "kiln_avgpool2d_s8" : "kiln_maxpool2d_s8") + "(&$params, $in0, $out0)";
  // Partial reuse (lower/ops/qnn_overlap.h): per output pixel, channel c is written
  // after channel c of the window was read, so the output may start at whole
  // pixels below the input.
  if (N == 1) {
    S8Window w;
    w.in_h = H, w.in_w = W, w.in_c = C, w.out_h = OH, w.out_w = OW, w.out_c = C;
    w.kernel_h = kernel[0], w.kernel_w = kernel[1], w.stride_h = strides[0], w.stride_w = strides[1];
    w.pad_top = pads[0], w.pad_left = pads[1];
    add_s8_overlap(k, y->size_bytes(), s8_overlap_limit(w, 1, false), C);
  }
  return k;
}

}  // namespace

void register_qnn_pool_lowerings() {
  register_lowering("KilnQAvgPool2D", [](const Node& n) { return lower_qpool(n, true); });
  register_lowering("KilnQMaxPool2D", [](const Node& n) { return lower_qpool(n, false); });
}

}  // namespace kiln
