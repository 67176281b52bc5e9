#include "emit/op_summary.h"

namespace kiln {

namespace {

uint64_t elements(const Value* v) {
  if (v == nullptr) return 0;
  uint64_t n = 1;
  for (int64_t d : v->shape) n *= uint64_t(d < 0 ? 0 : d);
  return n;
}

// Elements of `w` per slice along axis `axis` (the weights one output element uses).
uint64_t per_slice(const Value* w, size_t axis) {
  if (w == nullptr || axis >= w->shape.size() || w->shape[axis] <= 0) return 0;
  return elements(w) / uint64_t(w->shape[axis]);
}

}  // namespace

uint64_t multiply_accumulates(const Node& n) {
  const std::string& t = n.op_type;
  const Value* out = n.outputs.empty() ? nullptr : n.outputs[0];
  // Each output element is a dot product with one output channel's weights:
  // W [Cout, Cin/group, kH, kW] (ONNX), [Cout, KH, KW, Cin/group] (KilnQConv2D),
  // [Nout, K] (KilnQFullyConnected).
  if (t == "Conv" || t == "ConvInteger" || t == "KilnQConv2D" || t == "KilnQFullyConnected")
    return elements(out) * per_slice(n.input(1), 0);
  if (t == "QLinearConv") return elements(out) * per_slice(n.input(3), 0);
  if (t == "KilnQDepthwiseConv2D") {  // W [KH, KW, Cout]
    const Value* w = n.input(1);
    return w == nullptr || w->shape.empty() ? 0 : elements(out) * per_slice(w, w->shape.size() - 1);
  }
  // Each input element is scattered into Cout/group * kH * kW outputs: W [Cin, Cout/group, kH, kW].
  if (t == "ConvTranspose") return elements(n.input(0)) * per_slice(n.input(1), 0);
  if (t == "Gemm") {
    const Value* a = n.input(0);
    if (a == nullptr || a->shape.size() != 2) return 0;
    return elements(out) * uint64_t(a->shape[n.attr_int("transA", 0) ? 0 : 1]);
  }
  if (t == "MatMul" || t == "MatMulInteger" || t == "QLinearMatMul") {
    const Value* a = n.input(0);
    if (a == nullptr || a->shape.empty()) return 0;
    return elements(out) * uint64_t(a->shape.back());  // K; a 1-D A is [K]
  }
  return 0;
}

}  // namespace kiln
