// KilnQBatchMatMul (docs/quantization.md) -> kiln_batch_matmul_s8
// (crt/include/kiln/nn_s8_matmul.h): TFLite's int8 BatchMatMul, a [..., M, K] times
// b [..., K, N] with numpy-broadcast batch dimensions (the front end has already
// transposed an adjoint operand). The offset of each output batch's a and b
// matrices is tabulated here, so the kernel needs no index arithmetic.
#include <algorithm>
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

KernelCall lower_qbatch_matmul(const Node& n) {
  const Value *a = n.input(0), *b = n.input(1);
  const Value* y = n.outputs.at(0);
  if (!a || !b) throw CompileError(n.describe() + ": needs a and b");
  require_dtype(n, a, DType::Int8, "input a");
  require_dtype(n, b, DType::Int8, "input b");
  require_dtype(n, y, DType::Int8, "output");
  for (const char* at : {"a_zero_point", "b_zero_point", "y_zero_point", "requant_scale"})
    if (!n.has_attr(at)) throw CompileError(n.describe() + ": attribute " + in_quotes(at) + " is required");
  const Shape &sa = a->shape, &sb = b->shape, &sy = y->shape;
  if (sa.size() < 2 || sb.size() < 2) throw CompileError(n.describe() + ": inputs must have rank 2 or more");
  check_fits_32bit(n, sa);
  check_fits_32bit(n, sb);
  check_fits_32bit(n, sy);
  const int64_t M = sa[sa.size() - 2], K = sa.back(), N = sb.back();
  if (sb[sb.size() - 2] != K)
    throw CompileError(n.describe() + ": inner dimensions differ: " + shape_str(sa) + " x " + shape_str(sb));
  // Batch dimensions, right-aligned and broadcast as numpy does.
  const size_t batch_rank = std::max(sa.size(), sb.size()) - 2;
  auto batch_dim = [&](const Shape& s, size_t d) {  // d-th of batch_rank, 1 when absent
    const size_t lead = batch_rank - (s.size() - 2);
    return d < lead ? int64_t(1) : s[d - lead];
  };
  Shape batch;
  for (size_t d = 0; d < batch_rank; ++d) {
    const int64_t da = batch_dim(sa, d), db = batch_dim(sb, d);
    if (da != db && da != 1 && db != 1)
      throw CompileError(n.describe() + ": batch dimensions of " + shape_str(sa) + " and " + shape_str(sb) +
                         " do not broadcast");
    batch.push_back(std::max(da, db));
  }
  Shape expected = batch;
  expected.insert(expected.end(), {M, N});
  if (sy != expected)
    throw CompileError(n.describe() + ": output " + shape_str(sy) + " should be " + shape_str(expected));
  const int64_t batches = shape_elements(batch);
  std::vector<int64_t> offsets;
  for (int64_t i = 0; i < batches; ++i) {
    int64_t rest = i, oa = 0, ob = 0, stride_a = M * K, stride_b = K * N;
    for (size_t d = batch_rank; d-- > 0;) {
      const int64_t idx = rest % batch[d];
      rest /= batch[d];
      const int64_t da = batch_dim(sa, d), db = batch_dim(sb, d);
      if (da > 1) oa += idx * stride_a;
      if (db > 1) ob += idx * stride_b;
      stride_a *= da;
      stride_b *= db;
    }
    offsets.insert(offsets.end(), {oa, ob});
  }
  const auto attrs = ops::get_attrs<ops::QBatchMatMul>(n);
  const int64_t a_zp = attrs.a_zero_point, b_zp = attrs.b_zero_point;
  const int64_t y_zp = attrs.y_zero_point;
  for (int64_t z : {a_zp, b_zp, y_zp})
    if (z < -128 || z > 127) throw CompileError(n.describe() + ": zero points must be int8 values");
  const int64_t act_min = attrs.act_min, act_max = attrs.act_max;
  if (act_min < -128 || act_max > 127 || act_min > act_max)
    throw CompileError(n.describe() + ": act_min/act_max is not a range inside [-128, 127]");
  const double real = attrs.requant_scale;
  if (!(real > 0.0) || !std::isfinite(real)) throw CompileError(n.describe() + ": requant_scale must be positive");
  const int64_t max_a = std::max<int64_t>(std::llabs(-128 - a_zp), std::llabs(127 - a_zp));
  const int64_t max_b = std::max<int64_t>(std::llabs(-128 - b_zp), std::llabs(127 - b_zp));
  if (K > (int64_t(1) << 30) / (max_a * max_b))
    throw CompileError(n.describe() + ": inner dimension " + std::to_string(K) +
                       " is too long for an exact int32 accumulator");
  quant::FoldedRescale r;
  if (!quant::fold_rescale(quant::quantize_multiplier(real), K * max_a * max_b, &r))
    throw CompileError(n.describe() + ": the scale ratio is too large for TFLite's int32 arithmetic");
  KernelCall k;
  k.params_type = "kiln_batch_matmul_s8_params_t";
  k.params_init = ParamsInit()
                      .i("batches", batches)
                      .i("m", M)
                      .i("k", K)
                      .i("n", N)
                      .i("a_offset", -a_zp)
                      .i("b_offset", -b_zp)
                      .raw("out", ParamsInit()
                                      .i("round_pos", r.round_pos)
                                      .i("round_neg", r.round_neg)
                                      .i("multiplier", r.multiplier)
                                      .i("pre_shift", r.pre_shift)
                                      .i("post_shift", r.post_shift)
                                      .str())
                      .i("out_offset", y_zp)
                      .i("act_min", act_min)
                      .i("act_max", act_max)
                      .str();
  k.constants.push_back(Constant::from_int64s({int64_t(offsets.size())}, offsets)->cast_to(DType::Int32));
  k.call = "kiln_batch_matmul_s8(&$params, $in0, $in1, $const0, $out0)";
  return k;
}

}  // namespace

void register_qnn_batch_matmul_lowerings() { register_lowering("KilnQBatchMatMul", lower_qbatch_matmul); }

}  // namespace kiln
