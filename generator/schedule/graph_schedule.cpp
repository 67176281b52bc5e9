#include "schedule/graph_schedule.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include "lower/lowering.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

std::vector<std::string> schedule_modes() { return {"auto", "program", "min-peak"}; }

namespace {

struct UnionFind {
  std::map<const Value*, const Value*> parent;
  const Value* find(const Value* v) {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v) return v;
    const Value* r = find(it->second);
    parent[v] = r;
    return r;
  }
  void unite(const Value* a, const Value* b) {
    a = find(a), b = find(b);
    if (a != b) parent[a] = b;
  }
};

// Why the graph is left in its order: control flow and run-time sequences carry
// ordering the value edges do not show (guards, tables written in place).
std::string unschedulable(const Graph& g, const std::vector<KernelCall>& calls) {
  size_t i = 0;
  for (const auto& n : g.nodes) {
    const std::string& t = n->op_type;
    if (t == "KilnSelect" || t == "KilnTakeSlice" || t == "KilnGuard" || t.rfind("KilnSeq", 0) == 0 ||
        t.rfind("KilnLoop", 0) == 0)
      return "the graph has control flow or run-time sequences (" + n->describe() + ")";
    if (calls[i++].placement_keeps_call) return "the graph has run-time sequences (" + n->describe() + ")";
  }
  return "";
}

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

}  // namespace

// Which values share a storage: views share their source's, placed Concat inputs
// the Concat's (through an in-place producer, as the bufferizer does).
static UnionFind shared_storages(const std::vector<const Node*>& nodes, const std::map<const Node*, int>& index,
                                 const std::vector<KernelCall>& calls) {
  UnionFind uf;
  std::set<const Value*> placed;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    const KernelCall& c = calls[i];
    if (c.alias_input >= 0 && n.input(size_t(c.alias_input)) && !n.outputs.empty())
      uf.unite(n.outputs[0], n.input(size_t(c.alias_input)));
    if (!c.view_offsets.empty() && c.view_offsets.size() == n.outputs.size() && n.input(0))
      for (const Value* o : n.outputs) uf.unite(o, n.input(0));
    if (!c.input_offsets.empty() && c.input_offsets.size() == n.inputs.size() && !n.outputs.empty() &&
        !c.placement_keeps_call) {
      for (const Value* v : n.inputs) {
        if (!v || v->is_constant() || v->is_graph_input || v->is_graph_output || !v->producer) continue;
        if (v->dtype != n.outputs[0]->dtype || placed.count(v)) continue;
        const KernelCall& pc = calls[size_t(index.at(v->producer))];
        if (pc.alias_input >= 0 || !pc.view_offsets.empty()) continue;
        placed.insert(v);
        uf.unite(v, n.outputs[0]);
        // Through an in-place producer (Relu after Conv), as the bufferizer does.
        for (const Value* u = v; u->producer;) {
          const KernelCall& uc = calls[size_t(index.at(u->producer))];
          const Value* src = nullptr;
          for (int k : uc.in_place_inputs) {
            const Value* w = u->producer->input(size_t(k));
            if (w && w->users.size() == 1 && !w->is_constant() && !w->is_graph_input && !w->is_graph_output &&
                w->producer && w->dtype == u->dtype && w->size_bytes() == u->size_bytes() && !placed.count(w)) {
              src = w;
              break;
            }
          }
          if (!src) break;
          placed.insert(src);
          uf.unite(src, n.outputs[0]);
          u = src;
        }
      }
    }
  }
  return uf;
}

static schedule::Problem build_problem(const Graph& g, const std::vector<KernelCall>& calls,
                                       uint32_t activation_alignment) {
  std::vector<const Node*> nodes;
  std::map<const Node*, int> index;
  for (const auto& n : g.nodes) {
    index[n.get()] = int(nodes.size());
    nodes.push_back(n.get());
  }
  UnionFind uf = shared_storages(nodes, index, calls);
  schedule::Problem p;
  std::map<const Value*, int> storage_of;  // root -> storage id
  auto storage = [&](const Value* v) -> int {
    const Value* r = uf.find(v);
    auto it = storage_of.find(r);
    if (it != storage_of.end()) return it->second;
    storage_of[r] = int(p.storages.size());
    p.storages.emplace_back();
    return int(p.storages.size()) - 1;
  };
  std::vector<uint64_t> bytes;
  std::vector<bool> caller;
  for (const auto& vp : g.values()) {
    const Value* v = vp.get();
    if (v->is_constant() || (!v->producer && !v->is_graph_input)) continue;
    const int s = storage(v);
    if (size_t(s) >= bytes.size()) bytes.resize(size_t(s) + 1, 0), caller.resize(size_t(s) + 1, false);
    bytes[size_t(s)] = std::max(bytes[size_t(s)], v->shape_known ? v->size_bytes() : 0);
    if (v->is_graph_input || v->is_graph_output) caller[size_t(s)] = true;
    if (v->is_graph_output) p.storages[size_t(s)].persistent = true;
  }
  // Bytes as live_peak() counts them once bufferized: an activation rounded up to
  // its buffer alignment, a scratch area to its own (at least 4). With the same
  // rounding the order-independent bound cannot exceed a peak an order reaches.
  for (size_t s = 0; s < p.storages.size(); ++s)
    p.storages[s].bytes = caller[s] ? 0 : align_up(bytes[s], activation_alignment);

  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    const KernelCall& c = calls[i];
    schedule::Step st;
    for (const Value* v : n.inputs) {
      if (!v || v->is_constant()) continue;
      if (v->producer) st.deps.push_back(index.at(v->producer));
      if (!storage_of.count(uf.find(v))) continue;
      const int s = storage(v);
      st.reads.push_back(s);
      p.storages[size_t(s)].users.push_back(int(i));
    }
    for (const Value* v : n.outputs) {
      if (!v || v->dtype == DType::Undefined || !storage_of.count(uf.find(v))) continue;
      const int s = storage(v);
      st.writes.push_back(s);
      p.storages[size_t(s)].producers.push_back(int(i));
    }
    for (const auto& r : c.scratch) st.scratch += align_up(r.size_bytes, std::max<uint64_t>(r.alignment, 4));
    if (!n.outputs.empty() && n.outputs[0] && storage_of.count(uf.find(n.outputs[0])))
      for (int k : c.in_place_inputs) {
        const Value* v = n.input(size_t(k));
        const Value* o = n.outputs[0];
        if (!v || v->is_constant() || v->dtype != o->dtype || v->size_bytes() != o->size_bytes()) continue;
        if (!storage_of.count(uf.find(v))) continue;
        st.in_place.push_back({storage(v), storage(o)});
      }
    if (!n.outputs.empty() && n.outputs[0] && storage_of.count(uf.find(n.outputs[0])))
      for (const auto& ov : c.overlaps) {  // partial reuse (bufferize/overlap.h): modelled as in place
        const Value* v = n.input(size_t(ov.input));
        if (!v || v->is_constant() || !storage_of.count(uf.find(v))) continue;
        st.in_place.push_back({storage(v), storage(n.outputs[0])});
      }
    p.steps.push_back(std::move(st));
  }
  for (auto& s : p.storages) {
    std::sort(s.producers.begin(), s.producers.end());
    s.producers.erase(std::unique(s.producers.begin(), s.producers.end()), s.producers.end());
  }
  return p;
}

namespace {

// Bytes of activation and scratch buffers live at each step (index = step; the
// vector has two more entries than steps, for buffers that outlive the last one).
std::vector<int64_t> live_bytes_by_step(const BufferizedProgram& program) {
  const int64_t steps = int64_t(program.ops.size());
  std::vector<int64_t> live(size_t(steps) + 2, 0);
  for (const Buffer& b : program.buffers) {
    if (b.kind != BufferKind::Activation && b.kind != BufferKind::Scratch) continue;
    if (b.last <= b.first) continue;
    const int64_t sz = int64_t(align_up(b.size_bytes, std::max<uint32_t>(b.alignment, 1)));
    live[size_t(b.first)] += sz;
    live[size_t(std::min(b.last, steps + 1))] -= sz;
  }
  int64_t cur = 0;
  for (int64_t& l : live) l = cur += l;  // deltas -> running totals
  return live;
}

}  // namespace

uint64_t live_peak(const BufferizedProgram& program) {
  const std::vector<int64_t> live = live_bytes_by_step(program);
  return uint64_t(std::max<int64_t>(0, *std::max_element(live.begin(), live.end())));
}

std::vector<const Node*> scratch_ops_at_peak(const BufferizedProgram& program) {
  const std::vector<int64_t> live = live_bytes_by_step(program);
  const int64_t peak = std::max<int64_t>(0, *std::max_element(live.begin(), live.end()));
  std::vector<const Node*> out;
  for (size_t s = 0; s < program.ops.size(); ++s) {
    const ScheduledOp& op = program.ops[s];
    if (live[s] == peak && peak > 0 && op.node && !op.scratch.empty()) out.push_back(op.node);
  }
  return out;
}

namespace {

void reorder(Graph& g, const std::vector<int>& order) {
  std::vector<std::list<std::unique_ptr<Node>>::iterator> its;
  for (auto it = g.nodes.begin(); it != g.nodes.end(); ++it) its.push_back(it);
  std::list<std::unique_ptr<Node>> out;
  for (int i : order) out.splice(out.end(), g.nodes, its[size_t(i)]);
  g.nodes.swap(out);
}

}  // namespace

std::vector<const Node*> node_order(const Graph& g) {
  std::vector<const Node*> order;
  for (const auto& n : g.nodes) order.push_back(n.get());
  return order;
}

void set_node_order(Graph& g, const std::vector<const Node*>& order) {
  std::map<const Node*, int> index;
  for (const auto& n : g.nodes) index.emplace(n.get(), int(index.size()));
  std::vector<int> positions;
  for (const Node* n : order) {
    auto it = index.find(n);
    if (it == index.end() || it->second < 0) throw std::logic_error("set_node_order: not an order of the graph's nodes");
    positions.push_back(it->second);
    it->second = -1;  // each node once
  }
  if (positions.size() != g.nodes.size()) throw std::logic_error("set_node_order: not an order of the graph's nodes");
  reorder(g, positions);
}

ScheduleReport schedule_graph(Graph& g, const std::string& mode, const LoweredGraph& lowered,
                              uint32_t activation_alignment, const std::function<uint64_t(const Graph&)>& bound_of) {
  const auto modes = schedule_modes();
  if (std::find(modes.begin(), modes.end(), mode) == modes.end())
    throw CompileError("--schedule " + in_quotes(mode) + " is not one of auto, program, min-peak");
  ScheduleReport r;
  r.mode = mode;
  if (mode == "program") {
    r.note = "program order (--schedule program)";
    return r;
  }
  std::vector<KernelCall> calls;
  for (const auto& n : g.nodes) {
    auto it = lowered.calls.find(n.get());
    if (it == lowered.calls.end()) {
      r.note = "not searched: " + n->describe() + " was not lowered";
      return r;
    }
    calls.push_back(it->second);
  }
  if (std::string why = unschedulable(g, calls); !why.empty()) {
    r.note = "not searched: " + why;
    return r;
  }
  const schedule::Problem p = build_problem(g, calls, activation_alignment);
  std::vector<int> program(p.steps.size());
  std::iota(program.begin(), program.end(), 0);
  const schedule::Result best = schedule::min_peak_order(p);
  r.searched = true;
  r.exact = best.exact;
  r.states = best.states;
  r.any_order_bound = schedule::order_independent_bound(p);
  r.program_peak = bound_of(g);
  r.chosen_peak = r.program_peak;
  if (best.order == program) {
    r.note = "the program order is already of least peak";
    return r;
  }
  reorder(g, best.order);
  const uint64_t chosen = bound_of(g);
  if (mode == "auto" && chosen >= r.program_peak) {
    // Back to the program order: the inverse permutation of best.order.
    std::vector<int> back(best.order.size());
    for (size_t k = 0; k < best.order.size(); ++k) back[size_t(best.order[k])] = int(k);
    reorder(g, back);
    r.note = "kept the program order: the searched order's peak (" + std::to_string(chosen) + " B) is not lower";
    return r;
  }
  r.reordered = true;
  r.chosen_peak = chosen;
  r.note = mode == "auto" ? "searched order (lower peak)" : "searched order (--schedule min-peak)";
  return r;
}

nlohmann::json schedule_report_json(const ScheduleReport& r) {
  nlohmann::json j;
  j["mode"] = r.mode;
  j["searched"] = r.searched;
  j["reordered"] = r.reordered;
  j["note"] = r.note;
  if (r.searched) {
    j["exact"] = r.exact;
    j["states"] = r.states;
    j["order_independent_bound"] = r.any_order_bound;
    j["program_order_peak"] = r.program_peak;
    j["chosen_order_peak"] = r.chosen_peak;
  }
  return j;
}

std::string schedule_report_text(const ScheduleReport& r) {
  std::ostringstream s;
  s << "schedule: " << r.mode;
  if (r.searched) {
    s << " (" << (r.exact ? "exact" : "beam") << " search, " << r.states << " states): live peak "
      << r.program_peak << " B in program order, " << r.chosen_peak << " B as scheduled; ";
    // The bound is over the graph's nodes as the search sees them; operators fused
    // after scheduling (elementwise chains, in-place steps) can go below it.
    if (r.any_order_bound <= r.chosen_peak)
      s << "no order needs less than " << r.any_order_bound << " B";
    else
      s << "operators fused after scheduling go below the unfused graph's bound of " << r.any_order_bound << " B";
  }
  s << "; " << r.note << "\n";
  return s.str();
}

}  // namespace kiln
