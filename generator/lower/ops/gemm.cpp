// Gemm and MatMul -> kiln_gemm_f32 / kiln_matmul_f32.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall lower_gemm(const Node& n) {
  require_float32(n);
  const Value *a = n.input(0), *b = n.input(1), *c = n.input(2);
  if (!a || !b || a->shape.size() != 2 || b->shape.size() != 2)
    throw CompileError(n.describe() + ": A and B must be matrices");
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const int64_t m = ta ? a->shape[1] : a->shape[0], k = ta ? a->shape[0] : a->shape[1];
  const int64_t nn = tb ? b->shape[0] : b->shape[1], kb = tb ? b->shape[1] : b->shape[0];
  if (k != kb) throw CompileError(n.describe() + ": inner dimensions differ: " + shape_str(a->shape) + " x " + shape_str(b->shape));
  if (n.opset < 7 && n.has_attr("broadcast") && n.attr_int("broadcast", 0) == 0 && c && c->shape != Shape{m, nn})
    throw CompileError(n.describe() + ": C must be [M,N] when broadcast=0");
  int64_t csm = 0, csn = 0;
  if (c) {
    // Right-aligned numpy broadcast of C to [M, N].
    Shape cs = c->shape;
    while (cs.size() < 2) cs.insert(cs.begin(), 1);
    if (cs.size() != 2 || (cs[0] != 1 && cs[0] != m) || (cs[1] != 1 && cs[1] != nn))
      throw CompileError(n.describe() + ": C " + shape_str(c->shape) + " does not broadcast to [" + std::to_string(m) +
                         "," + std::to_string(nn) + "]");
    csn = cs[1] == 1 ? 0 : 1;
    csm = cs[0] == 1 ? 0 : cs[1];
  }
  KernelCall kc;
  kc.params_type = "kiln_gemm_params_t";
  kc.params_init = ParamsInit()
                       .u("m", m).u("n", nn).u("k", k)
                       .u("trans_a", ta).u("trans_b", tb)
                       .f("alpha", n.attr_float("alpha", 1.0)).f("beta", n.attr_float("beta", 1.0))
                       .i("c_stride_m", csm).i("c_stride_n", csn)
                       .str();
  kc.call = std::string("kiln_gemm_f32(&$params, $in0, $in1, ") + (c ? "$in2" : "NULL") + ", $out0)";
  return kc;
}

KernelCall lower_matmul(const Node& n) {
  require_float32(n);
  Shape a = n.input(0)->shape, b = n.input(1)->shape;
  if (a.empty() || b.empty()) throw CompileError(n.describe() + ": MatMul of a scalar");
  if (a.size() == 1) a.insert(a.begin(), 1);  // [K] -> [1,K]
  if (b.size() == 1) b.push_back(1);          // [K] -> [K,1]
  const int64_t m = a[a.size() - 2], k = a.back(), nn = b.back();
  if (b[b.size() - 2] != k) throw CompileError(n.describe() + ": inner dimensions differ");
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  size_t r = std::max(ab.size(), bb.size());
  while (ab.size() < r) ab.insert(ab.begin(), 1);
  while (bb.size() < r) bb.insert(bb.begin(), 1);
  std::vector<int64_t> shape(r), sa(r), sb(r);
  int64_t acc_a = 1, acc_b = 1;
  for (size_t i = r; i-- > 0;) {
    if (ab[i] != bb[i] && ab[i] != 1 && bb[i] != 1)
      throw CompileError(n.describe() + ": batch dimensions do not broadcast");
    shape[i] = std::max(ab[i], bb[i]);
    sa[i] = ab[i] == 1 ? 0 : acc_a;
    sb[i] = bb[i] == 1 ? 0 : acc_b;
    acc_a *= ab[i];
    acc_b *= bb[i];
  }
  if (r > 8) throw CompileError(n.describe() + ": more than 8 batch dimensions");
  KernelCall kc;
  kc.params_type = "kiln_matmul_params_t";
  kc.params_init = ParamsInit()
                       .u("m", m).u("n", nn).u("k", k)
                       .u("batch_ndim", int64_t(r))
                       .ints("batch_shape", shape).ints("a_stride", sa).ints("b_stride", sb)
                       .str();
  kc.call = "kiln_matmul_f32(&$params, $in0, $in1, $out0)";
  return kc;
}

}  // namespace

void register_gemm_lowerings() {
  register_lowering("Gemm", lower_gemm);
  register_lowering("MatMul", lower_matmul);
}

}  // namespace kiln
