#include "lower/lowering.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

std::map<std::string, LowerFn>& registry() {
  static std::map<std::string, LowerFn> r;
  return r;
}

// Every lowering Kiln has, registered once on first use: one entry per op file of
// lower/ops/ (declared in lower/ops/ops.h). This list is the only place that
// registers lowerings.
void register_all_lowerings() {
  register_elementwise_lowerings();
  register_unary_math_lowerings();
  register_logic_lowerings();
  register_compare_lowerings();
  register_cast_lowerings();
  register_where_lowerings();
  register_shape_lowerings();
  register_conv_lowerings();
  register_conv_transpose_lowerings();
  register_quantized_conv_lowerings();
  register_quantize_lowerings();
  register_resize_lowerings();
  register_gemm_lowerings();
  register_pool_lowerings();
  register_layout_lowerings();
  register_normalization_lowerings();
  register_reduce_lowerings();
  register_softmax_lowerings();
  register_slice_lowerings();
  register_pad_lowerings();
  register_indexing_lowerings();
  register_scatter_lowerings();
  register_generate_lowerings();
  register_selection_lowerings();
  register_rnn_lowerings();
  register_einsum_lowerings();
  register_det_lowerings();
  register_control_flow_lowerings();
  register_sequence_runtime_lowerings();
  register_loss_lowerings();
  register_optimizer_lowerings();
  register_text_lowerings();
  register_misc_lowerings();
  register_sample_lowerings();
  register_signal_lowerings();
  register_qnn_conv_lowerings();
  register_qnn_fully_connected_lowerings();
  register_qnn_pool_lowerings();
  register_qnn_elementwise_lowerings();
  register_qnn_lookup_lowerings();
  register_qnn_softmax_lowerings();
  register_qnn_quantize_lowerings();
  register_qnn_mean_lowerings();
  register_qnn_resize_lowerings();
  register_qnn_batch_matmul_lowerings();
  register_qnn_lstm_lowerings();
}

void ensure_registered() {
  static bool done = [] {
    register_all_lowerings();
    return true;
  }();
  (void)done;
}

// Ops of other domains are keyed "<domain>::<op_type>".
std::string registry_key(const std::string& domain, const std::string& op_type) {
  return domain.empty() || domain == "ai.onnx" ? op_type : domain + "::" + op_type;
}

void add_lowering(const std::string& key, LowerFn fn) {
  if (!registry().emplace(key, std::move(fn)).second)
    throw std::logic_error("two lowerings registered for " + in_quotes(key));
}

// A lowering that does not look at the target.
LowerFn ignoring_target(TargetFreeLowerFn fn) {
  return [fn](const Node& n, const LoweringTarget&) { return fn(n); };
}

}  // namespace

void register_lowering(const std::string& op_type, LowerFn fn) { add_lowering(op_type, std::move(fn)); }

void register_lowering(const std::string& op_type, TargetFreeLowerFn fn) {
  add_lowering(op_type, ignoring_target(fn));
}

void register_domain_lowering(const std::string& domain, const std::string& op_type, TargetFreeLowerFn fn) {
  add_lowering(registry_key(domain, op_type), ignoring_target(fn));
}

bool has_lowering(const std::string& op_type) {
  ensure_registered();
  return registry().count(op_type) != 0;
}

std::vector<std::string> supported_ops() {
  ensure_registered();
  std::vector<std::string> r;
  for (const auto& [k, _] : registry()) r.push_back(k);
  return r;
}

KernelCall lower_node(const Node& node, const LoweringTarget& target) {
  ensure_registered();
  auto it = registry().find(registry_key(node.domain, node.op_type));
  if (it == registry().end() && registry_key(node.domain, node.op_type) != node.op_type)
    throw CompileError(node.describe() + ": operator domain " + in_quotes(node.domain) + " is not supported" +
                       " (Kiln knows ai.onnx and the Adagrad/Momentum/Adam of ai.onnx.preview.training)");
  if (it == registry().end())
    throw CompileError(node.describe() + ": operator " + in_quotes(node.op_type) + " is not supported by Kiln");
  // Kiln's own operators are read through their definitions (ir/kiln_ops.h): a node
  // that breaks one (an attribute missing or of the wrong type, a scale that is not
  // finite) stops here, named, before its lowering reads it.
  if (node.domain.empty() && ops::is_kiln_op(node.op_type))
    if (auto problem = ops::verify_node(node)) throw CompileError(node.describe() + ": " + *problem);
  return it->second(node, target);
}

std::optional<std::string> can_lower(const Node& node, const LoweringTarget& target) {
  try {
    lower_node(node, target);
    return std::nullopt;
  } catch (const CompileError& e) {
    return std::string(e.what());
  }
}

LoweredGraph lower_graph(const Graph& graph, const LoweringTarget& target) {
  LoweredGraph lowered;
  for (const auto& n : graph.nodes) lowered.calls.emplace(n.get(), lower_node(*n, target));
  return lowered;
}

std::string c_float(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(f)) return "NAN";
  if (std::isinf(f)) return f > 0 ? "INFINITY" : "-INFINITY";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", double(f));  // 9 significant digits round-trip any float
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s + "f";
}

std::string c_int_array(const std::vector<int64_t>& v) {
  std::ostringstream o;
  o << "{";
  for (size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << v[i];
  if (v.empty()) o << "0";
  o << "}";
  return o.str();
}

LoweringTarget lowering_target_for_mcpu(const std::string& mcpu) {
  LoweringTarget t;
  const std::string cpu = mcpu.substr(0, mcpu.find('+'));
  t.mve = (cpu == "cortex-m55" || cpu == "cortex-m85") && mcpu.find("+nomve") == std::string::npos;
  t.dsp = !t.mve && (cpu == "cortex-m4" || cpu == "cortex-m7" || cpu == "cortex-m33" || cpu == "cortex-m35p") &&
          mcpu.find("+nodsp") == std::string::npos;
  return t;
}

}  // namespace kiln
