// KilnQMean (docs/quantization.md) -> kiln_mean_s8 (crt/include/kiln/nn_s8_reduce.h),
// TFLite's reference QuantizedMeanOrSum bit for bit. The reduced axes must be one
// contiguous run (the front end transposes otherwise), so the input is
// [outer, reduce, inner]. The multiplier for in_scale / out_scale is adapted to
// the element count exactly as TFLite does it:
//   shift = min(floor(log2(count)), 32, 31 + S),  M' = (M << shift) / count,
//   S' = S - shift,
// and the result is MultiplyByQuantizedMultiplier(sum - x_zp * count, M', S').
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>

#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "quant/fixed_point.h"
#include "quant/folded_rescale.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// TFLite's count-adapted multiplier (reference_ops::QuantizedMeanOrSum).
quant::QuantizedMultiplier mean_multiplier(quant::QuantizedMultiplier q, int64_t count) {
  int shift = 63 - std::countl_zero(uint64_t(count));
  shift = std::min(shift, 32);
  shift = std::min(shift, 31 + q.shift);
  quant::QuantizedMultiplier r;
  r.multiplier = int32_t((int64_t(q.multiplier) << shift) / count);
  r.shift = q.shift - shift;
  return r;
}

KernelCall lower_qmean(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": needs x");
  require_dtype(n, x, DType::Int8, "input");
  require_dtype(n, y, DType::Int8, "output");
  const auto attrs = ops::get_attrs<ops::QMean>(n);
  const int64_t rank = int64_t(x->shape.size());
  std::vector<int64_t> axes;
  for (int64_t a : attrs.axes) axes.push_back(normalize_axis(n, a, rank));
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (axes.empty()) throw CompileError(n.describe() + ": axes must not be empty");
  if (axes.back() - axes.front() + 1 != int64_t(axes.size()))
    throw CompileError(n.describe() + ": the reduced axes must be contiguous");
  check_fits_32bit(n, x->shape);
  int64_t outer = 1, reduce = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t e = x->shape[size_t(d)];
    (d < axes.front() ? outer : d <= axes.back() ? reduce : inner) *= e;
  }
  if (shape_elements(y->shape) != outer * inner)
    throw CompileError(n.describe() + ": output " + shape_str(y->shape) + " does not have " +
                       std::to_string(outer * inner) + " elements");
  if (reduce <= 0 || reduce > (int64_t(1) << 22))
    throw CompileError(n.describe() + ": " + std::to_string(reduce) + " elements per mean (1 to 2^22 are supported)");
  const int64_t x_zp = attrs.x_zero_point, y_zp = attrs.y_zero_point;
  if (x_zp < -128 || x_zp > 127 || y_zp < -128 || y_zp > 127)
    throw CompileError(n.describe() + ": zero points must be int8 values");
  const double real = attrs.requant_scale;
  if (!(real > 0.0) || !std::isfinite(real)) throw CompileError(n.describe() + ": requant_scale must be positive");
  const quant::QuantizedMultiplier m = mean_multiplier(quant::quantize_multiplier(real), reduce);
  const int64_t max_abs = reduce * std::max<int64_t>(std::llabs(-128 - x_zp), std::llabs(127 - x_zp));
  quant::FoldedRescale r;
  if (!quant::fold_rescale(m, max_abs, &r))
    throw CompileError(n.describe() + ": the scale ratio is too large for TFLite's int32 arithmetic");
  KernelCall k;
  k.params_type = "kiln_mean_s8_params_t";
  k.params_init = ParamsInit()
                      .i("outer", outer)
                      .i("reduce", reduce)
                      .i("inner", inner)
                      .i("x_offset", -x_zp)
                      .raw("scale", ParamsInit()
                                        .i("round_pos", r.round_pos)
                                        .i("round_neg", r.round_neg)
                                        .i("multiplier", r.multiplier)
                                        .i("pre_shift", r.pre_shift)
                                        .i("post_shift", r.post_shift)
                                        .str())
                      .i("y_offset", y_zp)
                      .str();
  k.call = "kiln_mean_s8(&$params, $in0, $out0)";
  return k;
}

}  // namespace

void register_qnn_mean_lowerings() { register_lowering("KilnQMean", lower_qmean); }

}  // namespace kiln
