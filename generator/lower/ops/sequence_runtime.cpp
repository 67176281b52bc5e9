// The run-time sequence table (sequence/runtime_sequences.h, crt kiln/sequence.h):
// KilnSeqBuild (elements -> table), KilnSeqInsert / KilnSeqErase (table -> table,
// in place), KilnSeqAt (table -> a copy of one element) and KilnSeqMaterialize
// (table -> every element, copies). The table is a uint8 tensor of
// KILN_SEQ_BYTES(capacity, elem_bytes) bytes; the attributes `capacity`,
// `elem_bytes` (and `slot` for an insert) are set by the pass that creates them.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

uint64_t slots_offset(int64_t capacity) { return (4u + 4u * uint64_t(capacity) + 7u) & ~uint64_t(7); }

// The params of the table `seq` (checks that it has the size the attributes say).
std::string table_params(const Node& n, const Value* seq) {
  const int64_t cap = n.attr_int("capacity", -1), eb = n.attr_int("elem_bytes", -1);
  if (cap < 0 || eb < 0) throw CompileError(n.describe() + ": attributes 'capacity' and 'elem_bytes' are required");
  const uint64_t bytes = slots_offset(cap) + uint64_t(cap) * uint64_t(eb);
  if (!seq || seq->dtype != DType::UInt8 || seq->size_bytes() != bytes || bytes > 0xffffffffu)
    throw CompileError(n.describe() + ": the sequence table is not a uint8 tensor of " + std::to_string(bytes) +
                       " bytes");
  return ParamsInit().u("capacity", cap).u("elem_bytes", eb).u("slot", n.attr_int("slot", 0)).str();
}

// "$inK, 4u" for a position input, "NULL, 0u" when omitted (ONNX's default).
std::string position_args(const Node& n, size_t k) {
  const Value* pos = n.input(k);
  if (!pos) return "NULL, 0u";
  if ((pos->dtype != DType::Int32 && pos->dtype != DType::Int64) || pos->num_elements() != 1)
    throw CompileError(n.describe() + ": the position must be one int32 or int64 value, got " +
                       dtype_name(pos->dtype) + " " + shape_str(pos->shape));
  return "$in" + std::to_string(k) + ", " + std::to_string(dtype_size(pos->dtype)) + "u";
}

void require_elem(const Node& n, const Value* e) {
  if (uint64_t(n.attr_int("elem_bytes", -1)) != e->size_bytes())
    throw CompileError(n.describe() + ": element " + in_quotes(e->name) + " has " + std::to_string(e->size_bytes()) +
                       " bytes, the sequence's elements " + std::to_string(n.attr_int("elem_bytes", -1)));
}

KernelCall build(const Node& n) {
  KernelCall k;
  k.params_type = "kiln_seq_params_t";
  k.params_init = table_params(n, n.outputs.at(0));
  for (const Value* e : n.inputs) require_elem(n, e);
  k.call = n.inputs.empty() ? "kiln_seq_build(&$params, NULL, 0u, $out0)"
                            : "kiln_seq_build(&$params, $inptrs, " + std::to_string(n.inputs.size()) + "u, $out0)";
  // Element i goes to slot i: a producer whose result only this table holds writes
  // it there directly, and the build only fills in the header (no copy).
  const int64_t eb = n.attr_int("elem_bytes", 0);
  for (size_t i = 0; i < n.inputs.size(); ++i)
    k.input_offsets.push_back(slots_offset(n.attr_int("capacity", 0)) + uint64_t(i) * uint64_t(eb));
  k.placement_keeps_call = true;
  return k;
}

KernelCall insert(const Node& n) {
  KernelCall k;
  k.params_type = "kiln_seq_params_t";
  k.params_init = table_params(n, n.input(0));
  table_params(n, n.outputs.at(0));
  require_elem(n, n.input(1));
  k.call = "kiln_seq_insert(&$params, $in0, $in1, " + position_args(n, 2) + ", $out0)";
  k.in_place_inputs = {0};  // only the table entries move; the new element goes to a free slot
  return k;
}

KernelCall erase(const Node& n) {
  KernelCall k;
  k.params_type = "kiln_seq_params_t";
  k.params_init = table_params(n, n.input(0));
  table_params(n, n.outputs.at(0));
  k.call = "kiln_seq_erase(&$params, $in0, " + position_args(n, 1) + ", $out0)";
  k.in_place_inputs = {0};
  return k;
}

KernelCall at(const Node& n) {
  if (!n.input(1)) throw CompileError(n.describe() + ": the position is required");
  KernelCall k;
  k.params_type = "kiln_seq_params_t";
  k.params_init = table_params(n, n.input(0));
  require_elem(n, n.outputs.at(0));
  k.call = "kiln_seq_at(&$params, $in0, " + position_args(n, 1) + ", $out0)";
  return k;
}

KernelCall materialize(const Node& n) {
  KernelCall k;
  k.params_type = "kiln_seq_params_t";
  k.params_init = table_params(n, n.input(0));
  for (const Value* e : n.outputs) require_elem(n, e);
  k.call = n.outputs.empty()
               ? "kiln_seq_materialize(&$params, $in0, NULL, 0u)"
               : "kiln_seq_materialize(&$params, $in0, $outptrs, " + std::to_string(n.outputs.size()) + "u)";
  return k;
}

}  // namespace

void register_sequence_runtime_lowerings() {
  register_lowering("KilnSeqBuild", build);
  register_lowering("KilnSeqInsert", insert);
  register_lowering("KilnSeqErase", erase);
  register_lowering("KilnSeqAt", at);
  register_lowering("KilnSeqMaterialize", materialize);
}

}  // namespace kiln
