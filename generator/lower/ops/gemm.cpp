// Gemm and MatMul -> kiln_gemm_f32 / kiln_matmul_f32; MatMulInteger and
// QLinearMatMul -> kiln_matmul_integer_s32 / kiln_qlinear_matmul (exact int32).
#include <algorithm>
#include <climits>

#include "lower/lower_util.h"
#include "lower/ops/f32_packing.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

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
  const double alpha = n.attr_float("alpha", 1.0), beta = n.attr_float("beta", 1.0);
  // A fully connected layer (constant B, alpha 1, C a constant row): B packed for
  // the register-blocked matrix-vector kernel, beta * C folded into one bias row.
  if (b->is_constant() && !ta && float(alpha) == 1.0f && (!c || (c->is_constant() && csm == 0))) {
    kc.constants.push_back(tb ? pack_f32_gemm_blocks(*b->constant, 1, nn, k)
                              : pack_f32_gemm_blocks_transposed(*b->constant, k, nn));
    kc.unread_inputs.push_back(1);
    if (c) {
      std::vector<float> bias(static_cast<size_t>(nn));
      for (int64_t j = 0; j < nn; ++j) bias[size_t(j)] = float(beta) * float(c->constant->as_double(csn ? j : 0));
      kc.constants.push_back(Constant::from_floats({nn}, bias));
      kc.unread_inputs.push_back(2);
    }
    kc.params_type = "kiln_gemm_params_t";
    kc.params_init = ParamsInit()
                         .u("m", m).u("n", nn).u("k", k)
                         .u("trans_a", 0).u("trans_b", tb)
                         .f("alpha", 1.0).f("beta", 1.0)
                         .i("c_stride_m", 0).i("c_stride_n", 1).u("b_packed", 1)
                         .str();
    kc.call = std::string("kiln_gemm_f32(&$params, $in0, $const0, ") + (c ? "$const1" : "NULL") + ", $out0)";
    return kc;
  }
  kc.params_type = "kiln_gemm_params_t";
  kc.params_init = ParamsInit()
                       .u("m", m).u("n", nn).u("k", k)
                       .u("trans_a", ta).u("trans_b", tb)
                       .f("alpha", alpha).f("beta", beta)
                       .i("c_stride_m", csm).i("c_stride_n", csn)
                       .str();
  kc.call = std::string("kiln_gemm_f32(&$params, $in0, $in1, ") + (c ? "$in2" : "NULL") + ", $out0)";
  return kc;
}

// MatMul's shapes with numpy semantics: 1-D operands promoted, batch dims broadcast.
struct MatMulPlan {
  int64_t m = 0, n = 0, k = 0, batches = 1;
  std::vector<int64_t> shape, sa, sb;  // batch shape and per-operand batch strides (in matrices)
  bool a_vector = false, b_vector = false;
};

MatMulPlan plan_matmul(const Node& n, Shape a, Shape b) {
  if (a.empty() || b.empty()) throw CompileError(n.describe() + ": MatMul of a scalar");
  MatMulPlan p;
  p.a_vector = a.size() == 1;
  p.b_vector = b.size() == 1;
  if (a.size() == 1) a.insert(a.begin(), 1);  // [K] -> [1,K]
  if (b.size() == 1) b.push_back(1);          // [K] -> [K,1]
  p.m = a[a.size() - 2], p.k = a.back(), p.n = b.back();
  if (b[b.size() - 2] != p.k) throw CompileError(n.describe() + ": inner dimensions differ");
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  size_t r = std::max(ab.size(), bb.size());
  while (ab.size() < r) ab.insert(ab.begin(), 1);
  while (bb.size() < r) bb.insert(bb.begin(), 1);
  p.shape.resize(r), p.sa.resize(r), p.sb.resize(r);
  int64_t acc_a = 1, acc_b = 1;
  for (size_t i = r; i-- > 0;) {
    if (ab[i] != bb[i] && ab[i] != 1 && bb[i] != 1)
      throw CompileError(n.describe() + ": batch dimensions do not broadcast");
    p.shape[i] = std::max(ab[i], bb[i]);
    p.sa[i] = ab[i] == 1 ? 0 : acc_a;
    p.sb[i] = bb[i] == 1 ? 0 : acc_b;
    acc_a *= ab[i];
    acc_b *= bb[i];
    p.batches *= p.shape[i];
  }
  if (r > 8) throw CompileError(n.describe() + ": more than 8 batch dimensions");
  if (p.batches * p.m * p.n > INT32_MAX || p.batches * p.m * p.k > INT32_MAX || p.batches * p.k * p.n > INT32_MAX)
    throw CompileError(n.describe() + ": operands have more than 2^31 elements");
  return p;
}

ParamsInit& matmul_fields(ParamsInit& pi, const MatMulPlan& p) {
  return pi.u("m", p.m).u("n", p.n).u("k", p.k)
      .u("batch_ndim", int64_t(p.shape.size()))
      .ints("batch_shape", p.shape).ints("a_stride", p.sa).ints("b_stride", p.sb);
}

KernelCall lower_matmul(const Node& n) {
  require_float32(n);
  MatMulPlan p = plan_matmul(n, n.input(0)->shape, n.input(1)->shape);
  KernelCall kc;
  const Value* b = n.input(1);
  if (b->is_constant() && b->shape.size() == 2) {
    // A constant matrix B (a linear layer): every row of A, batches included, is one
    // matrix-vector product with B packed for the register-blocked kernel.
    kc.constants.push_back(pack_f32_gemm_blocks_transposed(*b->constant, p.k, p.n));
    kc.unread_inputs.push_back(1);
    kc.params_type = "kiln_gemm_params_t";
    kc.params_init = ParamsInit()
                         .u("m", p.batches * p.m).u("n", p.n).u("k", p.k)
                         .u("trans_a", 0).u("trans_b", 0)
                         .f("alpha", 1.0).f("beta", 1.0)
                         .i("c_stride_m", 0).i("c_stride_n", 1).u("b_packed", 1)
                         .str();
    kc.call = "kiln_gemm_f32(&$params, $in0, $const0, NULL, $out0)";
    return kc;
  }
  kc.params_type = "kiln_matmul_params_t";
  ParamsInit pi;
  kc.params_init = matmul_fields(pi, p).str();
  kc.call = "kiln_matmul_f32(&$params, $in0, $in1, $out0)";
  return kc;
}

std::string qtype_enum(const Node& n, const Value* v) {
  if (v->dtype == DType::UInt8) return "KILN_Q_U8";
  if (v->dtype == DType::Int8) return "KILN_Q_I8";
  throw CompileError(n.describe() + ": " + in_quotes(v->name) + " has dtype " + dtype_name(v->dtype) + "; uint8 or int8 only");
}

// How many values a zero point / scale of an operand has: 1 (per tensor) or one per
// row of A (per_rows) / column of B. Returns true when per row/column.
bool per_row_or_col(const Node& n, const Value* v, int64_t count, const char* what) {
  if (v == nullptr) return false;
  const int64_t c = shape_elements(v->shape);
  if (c == 1) return false;
  if (c == count && v->shape.size() <= 2) return true;
  throw CompileError(n.describe() + ": " + what + " " + shape_str(v->shape) + " must have 1 or " +
                     std::to_string(count) + " values (2-D operands only)");
}

// Fields of kiln_matmul_integer_params_t.
std::string matmul_integer_init(const Node& n, const MatMulPlan& p, const Value* a, const Value* a_zp, const Value* b,
                                const Value* b_zp) {
  for (const Value* zp : {a_zp, b_zp})
    if (zp && zp->dtype != (zp == a_zp ? a : b)->dtype)
      throw CompileError(n.describe() + ": zero point dtype differs from its operand");
  ParamsInit pi;
  matmul_fields(pi, p)
      .raw("a_type", qtype_enum(n, a)).raw("b_type", qtype_enum(n, b))
      .u("a_zp_per_row", per_row_or_col(n, a_zp, p.m, "a_zero_point"))
      .u("b_zp_per_col", per_row_or_col(n, b_zp, p.n, "b_zero_point"));
  // 255 * 255 * k must stay below 2^31 for an exact int32 sum.
  if (p.k >= (int64_t(1) << 15)) throw CompileError(n.describe() + ": K is too large for an exact int32 accumulator");
  return pi.str();
}

KernelCall lower_matmul_integer(const Node& n) {
  const Value *a = n.input(0), *b = n.input(1), *a_zp = n.input(2), *b_zp = n.input(3);
  if (!a || !b) throw CompileError(n.describe() + ": needs A and B");
  require_dtype(n, n.outputs.at(0), DType::Int32, "output");
  MatMulPlan p = plan_matmul(n, a->shape, b->shape);
  KernelCall kc;
  kc.params_type = "kiln_matmul_integer_params_t";
  kc.params_init = matmul_integer_init(n, p, a, a_zp, b, b_zp);
  kc.call = std::string("kiln_matmul_integer_s32(&$params, $in0, ") + (a_zp ? "$in2" : "NULL") + ", $in1, " +
            (b_zp ? "$in3" : "NULL") + ", $out0)";
  return kc;
}

KernelCall lower_qlinear_matmul(const Node& n) {
  const Value *a = n.input(0), *as = n.input(1), *azp = n.input(2), *b = n.input(3), *bs = n.input(4),
              *bzp = n.input(5), *ys = n.input(6), *yzp = n.input(7), *y = n.outputs.at(0);
  if (!a || !as || !azp || !b || !bs || !bzp || !ys || !yzp)
    throw CompileError(n.describe() + ": needs A, B, scales and zero points");
  for (const Value* s : {as, bs, ys}) require_dtype(n, s, DType::Float32, "scale");
  if (yzp->dtype != y->dtype || shape_elements(yzp->shape) != 1 || shape_elements(ys->shape) != 1)
    throw CompileError(n.describe() + ": y_scale and y_zero_point must be single values of y's dtype");
  MatMulPlan p = plan_matmul(n, a->shape, b->shape);
  KernelCall kc;
  kc.params_type = "kiln_qlinear_matmul_params_t";
  kc.params_init = ParamsInit()
                       .raw("mm", matmul_integer_init(n, p, a, azp, b, bzp))
                       .u("a_scale_per_row", per_row_or_col(n, as, p.m, "a_scale"))
                       .u("b_scale_per_col", per_row_or_col(n, bs, p.n, "b_scale"))
                       .raw("y_type", qtype_enum(n, y))
                       .u("batches", p.batches)
                       .str();
  kc.scratch.push_back({"accumulators", uint64_t(p.batches * p.m * p.n) * 4u, 4});
  kc.call = "kiln_qlinear_matmul(&$params, $in0, $in1, $in2, $in3, $in4, $in5, $in6, $in7, $out0, $scratch0)";
  return kc;
}

}  // namespace

void register_gemm_lowerings() {
  register_lowering("Gemm", lower_gemm);
  register_lowering("MatMul", lower_matmul);
  register_lowering("MatMulInteger", lower_matmul_integer);
  register_lowering("QLinearMatMul", lower_qlinear_matmul);
}

}  // namespace kiln
