#include "driver/weight_form_cost.h"

#include <algorithm>
#include <cmath>

namespace kiln {

namespace {

// Instructions per multiply-add of each int8 weight form's kernel, per
// instruction-set path, measured on QEMU (`kiln verify --profile`, -icount
// shift=0: the layer's instructions / its MACs, summed over the layers of that
// kernel, so a MAC-weighted mean; the rate varies with the shape: few taps cost
// more per MAC) on test_data_set_0 of the MLPerf Tiny models:
//   dsp: mps2-an386 (Cortex-M4). pk: IC's eight 3x3 / 1x1 layers, 10,634,840 /
//     12,058,624; pw: KWS's four pointwise layers, 1,532,640 / 2,048,000; strip:
//     the first layers of KWS and IC, 1,035,960 / 762,368; fully connected pk:
//     KWS, 1,000 / 768. The compact forms with every layer compact (the smallest
//     pool): conv w8q on KWS's five layers, 6,437,680 / 2,368,000; fully
//     connected w8q on KWS, 2,440 / 768.
//   portable: mps2-an385 (Cortex-M3), KWS: int16 conv (kiln_conv2d_s8), 8,667,160 /
//     2,368,000; int16 fully connected 3,600 / 768; the compact forms at the
//     smallest pool, conv w8q 17,325,600 / 2,368,000, fully connected w8q 5,360 /
//     768.
// The DSP-only forms (pk, pw, strip) are never chosen on the portable path.
struct KernelRate {
  const char* kernel;
  double dsp, portable;
};
constexpr KernelRate kRates[] = {
    {"kiln_conv2d_s8_pk", 0.88, 0.0},
    {"kiln_conv2d_s8_pw", 0.75, 0.0},
    {"kiln_conv2d_s8_pk_strip", 1.36, 0.0},
    {"kiln_fully_connected_s8_pk", 1.30, 0.0},
    {"kiln_conv2d_s8_w8q", 2.72, 7.32},
    {"kiln_fully_connected_s8_w8q", 3.18, 6.98},
    {"kiln_conv2d_s8", 3.66, 3.66},
    {"kiln_fully_connected_s8", 4.69, 4.69},
};
// MVE: the int8-weight form is already the fastest there, so no choice is made
// between forms and one rate serves (KWS on mps3-an547: 1,454,312 instructions
// for 2,656,768 MACs, the whole model).
constexpr double kMveRate = 0.55;
// A kernel not in the table (never one of the two forms of a layer today).
constexpr double kUnknownRate = 4.0;

}  // namespace

int64_t layer_macs(const Node& n) {
  const Value *w = n.input(1), *y = n.outputs.empty() ? nullptr : n.outputs[0];
  if (!w || !y || y->shape.empty() || y->shape.back() <= 0) return 0;
  int64_t out = 1, weights = 1;
  for (int64_t d : y->shape) out *= d;
  for (int64_t d : w->shape) weights *= d;
  return out * (weights / y->shape.back());
}

std::string kernel_name(const KernelCall& call) { return call.call.substr(0, call.call.find('(')); }

uint64_t call_parameter_bytes(const Node& n, const KernelCall& call, uint32_t alignment) {
  auto rounded = [&](uint64_t b) { return (b + alignment - 1) / alignment * alignment; };
  uint64_t bytes = 0;
  for (const ConstantPtr& c : call.constants) bytes += rounded(c->size_bytes());
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    const Value* v = n.inputs[i];
    if (!v || !v->is_constant()) continue;
    if (std::find(call.unread_inputs.begin(), call.unread_inputs.end(), int(i)) != call.unread_inputs.end()) continue;
    bytes += rounded(v->constant->size_bytes());
  }
  return bytes;
}

int64_t estimated_instructions(const Node& n, const KernelCall& call, const LoweringTarget& target) {
  double rate = kUnknownRate;
  if (target.mve) {
    rate = kMveRate;
  } else {
    const std::string kernel = kernel_name(call);
    for (const KernelRate& r : kRates)
      if (kernel == r.kernel && (target.dsp ? r.dsp : r.portable) > 0) rate = target.dsp ? r.dsp : r.portable;
  }
  return int64_t(std::llround(rate * double(layer_macs(n))));
}

}  // namespace kiln
