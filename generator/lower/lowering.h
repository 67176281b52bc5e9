// Lowering: each graph node becomes one call into the crt kernel library.
//
// A lowering function looks at one node (its attributes, input/output dtypes and
// static shapes) and returns a KernelCall: the C text of the call, with
// placeholders for the buffers, an optional `static const` parameter struct, and
// the scratch buffers the kernel needs. It knows the kernel API (crt/include/
// kiln_kernels.h) but nothing about memory: where buffers live is decided later by
// the bufferizer and the planner, and the emitter substitutes the placeholders.
//
// Placeholders in `call`:
//   $in0, $in1, ...     pointer to input i, typed `const <ctype>*` (NULL if omitted)
//   $out0, ...          pointer to output i, typed `<ctype>*`
//   $scratch0, ...      pointer to scratch buffer i, typed `void*`
//   $params             name of the emitted parameter struct (take its address: &$params)
//   $inptrs / $outptrs  a `const void* const[]` / `void* const[]` of all inputs / outputs
//                       (for variadic kernels such as Concat)
//   $const0, ...        pointer to KernelCall::constants[i], typed `const <ctype>*`
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln {

struct ScratchRequest {
  std::string purpose;     // "im2col": becomes part of the buffer's name in reports
  uint64_t size_bytes = 0;
  uint32_t alignment = 4;
};

struct KernelCall {
  std::string params_type;   // e.g. "kiln_conv2d_params_t"; empty when the call has no struct
  std::string params_init;   // C99 initializer, e.g. "{ .n = 1, .c_in = 3 }"
  std::string call;          // e.g. "kiln_conv2d_f32(&$params, $in0, $in1, $in2, $out0, $scratch0)"
  std::vector<ScratchRequest> scratch;
  // Constants the lowering computed (weights in the kernel's layout, per-channel
  // requantization parameters): each becomes a parameter-pool buffer, read as $const<i>.
  std::vector<ConstantPtr> constants;
  // Constant inputs the call does not read (their content went into `constants`):
  // they get no parameter-pool bytes on this op's account ($in<i> would be NULL).
  std::vector<int> unread_inputs;
  // For view ops (Reshape, Flatten, Identity, ...): output 0 has the same bytes as
  // input `alias_input`; `call` is empty and the bufferizer makes the output an alias
  // (or emits a copy when aliasing is not legal).
  int alias_input = -1;
  // Inputs whose buffer output 0 may take over: the kernel reads every input
  // element i before it writes out[i] (out == in is allowed, see the kernel's
  // header). The bufferizer reuses one of them only when this op is the last user
  // of that buffer and its size and dtype equal the output's (--no-in-place: never).
  std::vector<int> in_place_inputs;
  // Partial reuse: output 0 may start inside the bytes of input `input` when this op
  // is the last user of that input's buffer, at out_offset - in_offset = m * granule
  // for min_m <= m <= max_m (the kernel never overwrites an input byte it has still
  // to read; each kernel's header says why). The bufferizer picks m (memory/
  // overlap.h); when it uses the rule, the call's params_init and scratch become the
  // rule's (the kernel may need another mode and a buffer to run that way).
  struct Overlap {
    int input = 0;
    int64_t granule = 16;
    int64_t min_m = 0, max_m = 0;
    std::string call;                      // replaces KernelCall::call when used (non-empty)
    std::string params_init;               // replaces KernelCall::params_init when used
    std::vector<ScratchRequest> scratch;   // replaces KernelCall::scratch when used
  };
  std::vector<Overlap> overlaps;
  // Sub-range views (Slice, Split of a contiguous range): output k is the bytes at
  // view_offsets[k] inside input 0. `call` stays valid; the bufferizer uses it only
  // when view aliasing is off.
  std::vector<uint64_t> view_offsets;
  // Concat along its outermost non-unit axis: input k is the contiguous bytes at
  // input_offsets[k] of output 0, so a producer may write there directly and the
  // call disappears (placement). `call` stays valid for inputs that cannot be placed.
  std::vector<uint64_t> input_offsets;
  // With input_offsets: the call still runs after its inputs were placed (it writes
  // more than their slices, e.g. a run-time sequence table's header), and an input
  // is placed only when this op is its one user and it is aligned at its offset to
  // its element size. The kernel skips an input already at its slice.
  bool placement_keeps_call = false;
};

// What the lowerings may know of the target CPU and of the memory choices of one
// compilation, to choose a kernel's form. Nothing else carries it: the driver
// builds it (from CompileOptions::mcpu and --memory-priority) and passes it to
// lower_graph / lower_node, which pass it to every lowering. `mve`: the CPU has
// the M-profile Vector Extension (Helium; Cortex-M55, Cortex-M85), whose int8 dot
// product wants int8 weights (docs/quantization.md). `dsp`: the Arm DSP extension
// without MVE (Cortex-M4, M7, M33, M35P), whose int8 GEMM reads the packed form
// (kiln_conv2d_s8_pk, crt/include/kiln/nn_s8.h). The default: none of them.
struct LoweringTarget {
  bool mve = false;
  bool dsp = false;
  // --memory-priority ram: scratch tiles sized for RAM rather than speed (smaller
  // im2col / gather tiles, more instructions).
  bool ram_priority = false;
  // --memory-priority auto: the convolutions whose im2col tile is live at the
  // workspace's peak take lean column tiles (a quarter of an output row) while the
  // others keep speed tiles (driver/memory_tuning.h decides, docs/memory-planning.md).
  std::set<const Node*> lean_tiles;
  // A parameter pool with a size (--with-parameter-buffer "...;size=N"): the int8
  // Conv2D / depthwise / fully connected layers that take their compact weight form
  // (int8 weights as stored, kiln_conv2d_s8_w8 / kiln_fully_connected_s8_w8) instead
  // of the widened fast forms, so that the parameters fit (driver/flash_budget.h
  // decides, layer by layer). Empty: the fastest forms.
  std::set<const Node*> compact_weights;
};
// The target features of an -mcpu value ("cortex-m55", "cortex-m85+nofp", ...;
// "+nomve" turns MVE off, "+nodsp" the DSP extension; empty or unknown: none).
LoweringTarget lowering_target_for_mcpu(const std::string& mcpu);

// A lowering: the kernel call of one node for one target. It stays a function object
// because the op files register lambdas made by small factories that capture the
// kernel's name and dtype rule (elementwise.cpp's binary("add", ...), pool.cpp's
// global_pool(...)): a plain function pointer cannot hold those.
using LowerFn = std::function<KernelCall(const Node&, const LoweringTarget&)>;
// Most lowerings choose their kernel from the node alone and are plain functions.
using TargetFreeLowerFn = KernelCall (*)(const Node&);

// Registers a lowering for an op type (default ONNX domain). Called by the
// registration function of each op file in lower/ops/ (listed in lower/ops/ops.h and
// called, all of them, from one list in lowering.cpp).
void register_lowering(const std::string& op_type, LowerFn fn);
void register_lowering(const std::string& op_type, TargetFreeLowerFn fn);
// Registers a lowering for an op of another domain (e.g. ai.onnx.preview.training).
void register_domain_lowering(const std::string& domain, const std::string& op_type, TargetFreeLowerFn fn);
// The lowering for `node` on `target`; throws CompileError naming the node when the
// op type has no lowering. The lowering itself throws CompileError for unsupported
// dtypes/attributes, always naming the node (node.describe()).
KernelCall lower_node(const Node& node, const LoweringTarget& target);
// Whether lower_node(node, target) succeeds: nothing, or why not (the text of the
// CompileError it throws: the node is not supported as it stands). It runs the
// lowering and drops the call. Any other exception (std::logic_error, ...) is an
// internal error of a lowering and propagates: it is never taken for a refusal.
std::optional<std::string> can_lower(const Node& node, const LoweringTarget& target);
bool has_lowering(const std::string& op_type);
std::vector<std::string> supported_ops();

// The lowering pass: the kernel call of every node of `graph` (lower_node), in
// schedule order. Bufferization (bufferize/bufferize.h) takes it from here.
struct LoweredGraph {
  std::map<const Node*, KernelCall> calls;
};
LoweredGraph lower_graph(const Graph& graph, const LoweringTarget& target);

// Helpers shared by the op files.
std::string c_float(double v);            // round-trippable float literal: "0.5f", "-INFINITY"
std::string c_int_array(const std::vector<int64_t>& v);  // "{1, 2, 3}"

}  // namespace kiln
