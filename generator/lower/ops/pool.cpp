// MaxPool (float32/float64/int8/uint8, Indices output), AveragePool, LpPool
// (1-D/2-D/3-D, ceil_mode, dilations, count_include_pad, auto_pad),
// GlobalAveragePool, GlobalMaxPool, GlobalLpPool (any rank), MaxUnpool.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "lower/spatial.h"
#include "util/error.h"

namespace kiln {

namespace {

enum class PoolKind { Max, Average, Lp };

KernelCall lower_pool(const Node& n, PoolKind kind) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": needs X");
  std::string kernel;
  if (kind == PoolKind::Max) {
    if (y->dtype != x->dtype) throw CompileError(n.describe() + ": output dtype differs from input dtype");
    switch (x->dtype) {
      case DType::Float32: kernel = "kiln_maxpool2d_f32"; break;
      case DType::Float64: kernel = "kiln_maxpool2d_f64"; break;
      case DType::Int8: kernel = "kiln_maxpool2d_i8"; break;
      case DType::UInt8: kernel = "kiln_maxpool2d_u8"; break;
      default:
        throw CompileError(n.describe() + ": input has dtype " + dtype_name(x->dtype) +
                           "; MaxPool supports float32, float64, int8 and uint8");
    }
  } else {
    require_dtype(n, x, DType::Float32, "input");
    require_dtype(n, y, DType::Float32, "output");
    kernel = kind == PoolKind::Average ? "kiln_avgpool2d_f32" : "kiln_lppool2d_f32";
  }
  const bool indices = kind == PoolKind::Max && n.outputs.size() > 1 && n.outputs[1]->dtype != DType::Undefined;
  if (indices) require_dtype(n, n.outputs[1], DType::Int64, "Indices output");
  check_fits_32bit(n, x->shape);
  const bool ceil_mode = n.attr_int("ceil_mode", 0) != 0;
  SpatialGeometry g = spatial_geometry(n, x->shape, {}, y->shape, false, /*allow_partial_windows=*/ceil_mode);
  ParamsInit p = pool_params_init(x->shape[0], x->shape[1], g);
  p.u("count_include_pad", kind == PoolKind::Average ? n.attr_int("count_include_pad", 0) : 0);
  p.u("storage_order", kind == PoolKind::Max ? n.attr_int("storage_order", 0) : 0);
  p.f("p", kind == PoolKind::Lp ? double(n.attr_int("p", 2)) : 0.0);
  KernelCall k;
  k.params_type = "kiln_pool2d_params_t";
  k.params_init = p.str();
  k.call = kernel + "(&$params, $in0, $out0" +
           (kind == PoolKind::Max ? std::string(indices ? ", $out1" : ", NULL") : std::string()) + ")";
  return k;
}

LowerFn global_pool(const std::string& kernel, bool lp) {
  return [kernel, lp](const Node& n, const LoweringTarget&) {
    require_float32(n);
    const Shape& s = n.input(0)->shape;
    if (s.size() < 2) throw CompileError(n.describe() + ": input must be N x C x ...");
    check_fits_32bit(n, s);
    KernelCall k;
    k.params_type = "kiln_global_pool_params_t";
    ParamsInit p;
    p.u("channels", s[0] * s[1]).u("size", shape_elements(Shape(s.begin() + 2, s.end())));
    if (lp) {
      const int64_t pw = n.attr_int("p", 2);
      if (pw <= 0) throw CompileError(n.describe() + ": p must be positive");
      p.f("p", double(pw));
    }
    k.params_init = p.str();
    k.call = kernel + "(&$params, $in0, $out0)";
    return k;
  };
}

KernelCall lower_max_unpool(const Node& n) {
  const Value *x = n.input(0), *idx = n.input(1), *y = n.outputs.at(0);
  if (!x || !idx) throw CompileError(n.describe() + ": needs X and I");
  require_dtype(n, x, DType::Float32, "input");
  require_dtype(n, y, DType::Float32, "output");
  require_dtype(n, idx, DType::Int64, "indices");
  if (idx->shape != x->shape) throw CompileError(n.describe() + ": indices shape differs from X");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  // Indices are flat over the shape MaxPool's input had, computed from the
  // attributes; the output (output_shape's values are static through shape
  // inference) may be larger. The output_shape input is not read at run time.
  const size_t rank = x->shape.size();
  if (rank < 3 || y->shape.size() != rank) throw CompileError(n.describe() + ": X must be N x C x spatial");
  const size_t sd = rank - 2;
  const auto kernel = n.attr_ints("kernel_shape");
  const auto strides = n.attr_ints("strides", std::vector<int64_t>(sd, 1));
  const auto pads = n.attr_ints("pads", std::vector<int64_t>(2 * sd, 0));
  if (kernel.size() != sd || strides.size() != sd || pads.size() != 2 * sd)
    throw CompileError(n.describe() + ": kernel_shape/strides/pads do not match the spatial rank");
  Shape unpooled(x->shape.begin(), x->shape.begin() + 2);
  for (size_t i = 0; i < sd; ++i) {
    const int64_t u = (x->shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + sd];
    if (u <= 0 || u > y->shape[2 + i])
      throw CompileError(n.describe() + ": output " + shape_str(y->shape) + " is smaller than the unpooled size");
    unpooled.push_back(u);
  }
  if (y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1])
    throw CompileError(n.describe() + ": output batch/channels differ from X");
  KernelCall k;
  k.params_type = "kiln_max_unpool_params_t";
  k.params_init = ParamsInit()
                      .u("in_size", shape_elements(x->shape))
                      .u("ndim", int64_t(rank))
                      .ints("unpooled_shape", unpooled)
                      .ints("out_shape", y->shape)
                      .str();
  k.call = "kiln_max_unpool_f32(&$params, $in0, $in1, $out0)";
  return k;
}

}  // namespace

void register_pool_lowerings() {
  register_lowering("MaxPool", [](const Node& n) { return lower_pool(n, PoolKind::Max); });
  register_lowering("AveragePool", [](const Node& n) { return lower_pool(n, PoolKind::Average); });
  register_lowering("LpPool", [](const Node& n) { return lower_pool(n, PoolKind::Lp); });
  register_lowering("GlobalAveragePool", global_pool("kiln_global_avgpool_f32", false));
  register_lowering("GlobalMaxPool", global_pool("kiln_global_maxpool_f32", false));
  register_lowering("GlobalLpPool", global_pool("kiln_global_lppool_f32", true));
  register_lowering("MaxUnpool", lower_max_unpool);
}

}  // namespace kiln
