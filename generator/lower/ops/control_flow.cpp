// The internal nodes the importer creates when it flattens If, Scan and Loop
// (controlflow/control_flow.h): KilnSelect (the run-time branch choice, also a Loop's
// frozen state), KilnTakeSlice (one step of a scanned input) and KilnGuard (a Loop
// output, passed only when the loop ran the static number of iterations). All are
// byte copies, so any dtype works.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall select(const Node& n) {
  const Value* out = n.outputs.at(0);
  require_dtype(n, n.input(0), DType::Bool, "condition");
  require_dtype(n, n.input(1), out->dtype, "then value");
  require_dtype(n, n.input(2), out->dtype, "else value");
  KernelCall k;
  k.call = "kiln_select_bytes($in0, $in1, $in2, $out0, " + std::to_string(out->size_bytes()) + "u)";
  return k;
}

KernelCall take_slice(const Node& n) {
  const Value* out = n.outputs.at(0);
  require_dtype(n, n.input(0), out->dtype, "input");
  check_fits_32bit(n, n.input(0)->shape);
  KernelCall k;
  k.params_type = "kiln_take_slice_params_t";
  k.params_init = ParamsInit()
                      .u("outer", n.attr_int("outer", 1))
                      .u("axis", n.attr_int("axis_len", 1))
                      .u("inner_bytes", n.attr_int("inner", 1) * int64_t(dtype_size(out->dtype)))
                      .u("index", n.attr_int("index", 0))
                      .str();
  k.call = "kiln_take_slice(&$params, $in0, $out0)";
  return k;
}

KernelCall guard(const Node& n) {
  const Value* out = n.outputs.at(0);
  require_dtype(n, n.input(0), DType::Bool, "check");
  require_dtype(n, n.input(1), out->dtype, "value");
  KernelCall k;
  k.call = "kiln_guard_bytes($in0, $in1, $out0, " + std::to_string(out->size_bytes()) + "u)";
  k.in_place_inputs = {1};
  return k;
}

// A Loop region's markers (ir/loop_region.h): no kernel; the emitter writes the C
// loop around the body from the buffers the bufferizer gave their values.
KernelCall loop_begin(const Node& n) {
  if (n.input(0)) require_dtype(n, n.input(0), DType::Int64, "trip count");
  if (n.input(1)) require_dtype(n, n.input(1), DType::Bool, "condition");
  return KernelCall{};
}

KernelCall loop_end(const Node& n) {
  const int64_t carried = n.attr_int("carried", -1);
  if (carried < 0 || n.inputs.size() < size_t(3 + 2 * carried))
    throw CompileError(n.describe() + ": malformed loop region end");
  require_dtype(n, n.input(size_t(2 + carried)), DType::Bool, "condition output");
  return KernelCall{};
}

}  // namespace

void register_control_flow_lowerings() {
  register_lowering("KilnSelect", select);
  register_lowering("KilnTakeSlice", take_slice);
  register_lowering("KilnGuard", guard);
  register_lowering("KilnLoopBegin", loop_begin);
  register_lowering("KilnLoopEnd", loop_end);
}

}  // namespace kiln
