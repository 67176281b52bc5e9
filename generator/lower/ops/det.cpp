// Det, float32: determinants of the trailing n x n matrices (LU with partial pivoting
// in double, crt/src/kernels/det.c); the scratch buffer holds one matrix in double.
#include <algorithm>

#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall det(const Node& n) {
  require_float32(n);
  const Shape& s = n.input(0)->shape;
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2])
    throw CompileError(n.describe() + ": input " + shape_str(s) + " is not a (batch of) square matrices");
  check_fits_32bit(n, s);
  const int64_t dim = s.back();
  KernelCall k;
  k.params_type = "kiln_det_params_t";
  k.params_init = ParamsInit().u("batch", shape_elements(Shape(s.begin(), s.end() - 2))).u("n", dim).str();
  k.scratch.push_back({"lu", uint64_t(std::max<int64_t>(dim * dim, 1)) * 8u, 8});
  k.call = "kiln_det_f32(&$params, $in0, $out0, $scratch0)";
  return k;
}

}  // namespace

void register_det_lowerings() { register_lowering("Det", det); }

}  // namespace kiln
