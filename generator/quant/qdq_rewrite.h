// The QDQ rewrite: quantized ONNX models onto the integer IR (docs/quantization.md).
//
// ONNX writes a quantized network in float ops between DequantizeLinear (DQ) and
// QuantizeLinear (Q) nodes, or with the QLinearConv / QLinearMatMul operators.
// This pass finds the ops whose inputs are dequantized int8 and whose result is
// quantized again, and replaces each such group by one KilnQ* op on the int8
// tensors: constant int8 weights stay int8 (reordered into the NHWC layouts of
// the contract), biases become int32 in accumulator units, a Relu / Clip before
// the Q becomes the clamp, and one-element functions become 256-entry lookup
// tables computed with ONNX's float semantics. Steps, in order:
//
//  1. uint8 -> int8: a uint8 quantized tensor is the int8 one with zero point - 128
//     (exact); uint8 graph inputs / outputs keep a float DQ / Q pair at the boundary.
//  2. Data movement (Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Identity) after
//     a per-tensor DQ moves in front of it, onto the int8 tensor; a Q of a DQ with
//     the same quantization disappears, with another one it is a requantizing lookup.
//  3. Each quantized op becomes its integer op, in schedule order. Spatial ops get
//     Transposes NCHW -> NHWC -> NCHW around them.
//  4. layout.h cancels and sinks those Transposes; boundary_layout.h lets the
//     convs read what remains in front of them (a model's NCHW input) in NCHW.
//
// An op whose group does not match (float weights, asymmetric weights, an op with
// no integer form, no kernel in this build) stays float between its DQ and Q, and
// the report says why. The pass runs after folding: the folder has no evaluator
// for DequantizeLinear, so dequantized constant weights still reach this pass as
// int8 constants behind their DQ (tests/quant checks that this stays true).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"

namespace kiln::quant {

struct QdqOptions {
  // Whether this build has a kernel (a lowering) for an integer op type. An op
  // whose integer form has none stays float and the report says so. Unset: all.
  std::function<bool(const std::string&)> has_kernel;
  // Whether the lowering of an integer op refuses its parameters (an error message)
  // or takes it (nothing). A refused group is undone and stays float. Unset: all taken.
  std::function<std::optional<std::string>(const Node&)> refuses;
};

struct FloatOp {
  std::string node;    // "Conv 'conv3'"
  std::string reason;  // why it has no integer form here
};

struct QdqReport {
  bool quantized_model = false;            // the graph has DQ / Q / QLinear* ops
  std::map<std::string, int> integer_ops;  // integer op type -> count in the rewritten graph
  std::vector<FloatOp> float_ops;          // compute ops next to DQ / Q that stayed float
  int boundary_quantize = 0, boundary_dequantize = 0;  // Q / DQ left (float boundary or float ops)
  int transposes = 0;                      // Transposes left in the graph after layout cancelling
  int absorbed_transposes = 0;             // conv inputs that read NCHW instead (quant/boundary_layout.h)
};

QdqReport rewrite_quantized_graph(Graph& g, const QdqOptions& options = {});

nlohmann::json qdq_report_to_json(const QdqReport& r);
// Lines for `kiln compile`'s summary (empty for a model that is not quantized).
std::string qdq_report_summary(const QdqReport& r);

}  // namespace kiln::quant
