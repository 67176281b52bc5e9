// MaxPool, AveragePool (1-D/2-D), GlobalAveragePool, GlobalMaxPool.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "lower/spatial.h"
#include "util/error.h"

namespace kiln {

namespace {

LowerFn pool(const std::string& kernel, bool is_max) {
  return [kernel, is_max](const Node& n) {
    require_dtype(n, n.input(0), DType::Float32, "input");
    require_dtype(n, n.outputs[0], DType::Float32, "output");
    if (is_max) {
      reject_used_output(n, 1, "Indices");
      if (n.attr_int("storage_order", 0) != 0 && n.outputs.size() > 1)
        throw CompileError(n.describe() + ": storage_order=1 is not supported");
    }
    const Value* x = n.input(0);
    const Value* y = n.outputs[0];
    check_fits_32bit(n, x->shape);
    SpatialGeometry g = spatial_geometry(n, x->shape, {}, y->shape, false);
    KernelCall k;
    k.params_type = "kiln_pool2d_params_t";
    k.params_init = ParamsInit()
                        .u("n", x->shape[0]).u("c", x->shape[1])
                        .u("h_in", g.h_in).u("w_in", g.w_in).u("h_out", g.h_out).u("w_out", g.w_out)
                        .u("k_h", g.k_h).u("k_w", g.k_w)
                        .u("stride_h", g.stride_h).u("stride_w", g.stride_w)
                        .u("dilation_h", g.dilation_h).u("dilation_w", g.dilation_w)
                        .i("pad_top", g.pad_top).i("pad_left", g.pad_left)
                        .i("pad_bottom", g.pad_bottom).i("pad_right", g.pad_right)
                        .u("count_include_pad", is_max ? 0 : n.attr_int("count_include_pad", 0))
                        .str();
    k.call = kernel + "(&$params, $in0, $out0)";
    return k;
  };
}

LowerFn global_pool(const std::string& kernel) {
  return [kernel](const Node& n) {
    require_float32(n);
    const Shape& s = n.input(0)->shape;
    if (s.size() < 2) throw CompileError(n.describe() + ": input must be N x C x ...");
    check_fits_32bit(n, s);
    KernelCall k;
    k.params_type = "kiln_global_pool_params_t";
    k.params_init = ParamsInit().u("channels", s[0] * s[1]).u("size", shape_elements(Shape(s.begin() + 2, s.end()))).str();
    k.call = kernel + "(&$params, $in0, $out0)";
    return k;
  };
}

}  // namespace

void register_pool_lowerings() {
  register_lowering("MaxPool", pool("kiln_maxpool2d_f32", true));
  register_lowering("AveragePool", pool("kiln_avgpool2d_f32", false));
  register_lowering("GlobalAveragePool", global_pool("kiln_global_avgpool_f32"));
  register_lowering("GlobalMaxPool", global_pool("kiln_global_maxpool_f32"));
}

}  // namespace kiln
