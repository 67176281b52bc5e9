// The cost model of the int8 layers' weight forms (driver/flash_budget.h chooses
// between them): a form's parameter-pool bytes, read off its KernelCall, and its
// estimated instructions per inference, from the layer's multiply-adds and the
// kernel's instructions per multiply-add measured on QEMU (the table in
// weight_form_cost.cpp says where each number comes from).
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "lower/lowering.h"

namespace kiln {

// The multiply-adds of one int8 Conv2D / depthwise / fully connected node: output
// elements x the weights that feed one output (weights / output channels).
int64_t layer_macs(const Node& n);

// The kernel a call runs: "kiln_conv2d_s8_pk" of "kiln_conv2d_s8_pk(&$params, ...)".
std::string kernel_name(const KernelCall& call);

// The parameter-pool bytes `call` puts there on `n`'s account: its computed
// constants and the constant inputs it reads, each rounded up to `alignment` (the
// bufferizer's constant alignment, so sums match the pool's packing).
uint64_t call_parameter_bytes(const Node& n, const KernelCall& call, uint32_t alignment = 16);

// Estimated instructions per inference of `call` on `n` for this target (mve / dsp /
// neither): layer_macs(n) x the kernel's measured instructions per multiply-add.
int64_t estimated_instructions(const Node& n, const KernelCall& call, const LoweringTarget& target);

}  // namespace kiln
