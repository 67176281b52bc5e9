#include "fold/fold.h"

#include <chrono>
#include <deque>
#include <set>
#include <sstream>
#include <unordered_set>

#include "fold/constant_pool.h"
#include "eval/evaluate.h"
#include "fold/rewrites.h"
#include "util/error.h"

namespace kiln {

namespace {

uint64_t constant_bytes(const Graph& g) {
  // Distinct constants reachable from the graph (a constant shared by two values counts once).
  std::set<const Constant*> seen;
  uint64_t total = 0;
  for (const auto& v : g.values())
    if (v->constant && (!v->users.empty() || v->is_graph_output) && seen.insert(v->constant.get()).second)
      total += v->constant->size_bytes();
  return total;
}

// Replaces node `n` by the constants it evaluates to.
void replace_by_constants(Graph& g, ConstantPool& pool, Node* n, const std::vector<ConstantPtr>& results) {
  for (size_t i = 0; i < n->outputs.size(); ++i) {
    Value* out = n->outputs[i];
    if (i >= results.size() || !results[i]) continue;
    if (out->is_graph_output) {
      // A graph output keeps its name: the value itself becomes the constant and
      // the node gets a private, unused output in its place (so it dies).
      out->constant = pool.track(results[i]);
      out->shape = results[i]->shape();
      out->shape_known = true;
      out->producer = nullptr;
      n->outputs[i] = g.add_value(g.unique_name(out->name + "_dead"), out->dtype, out->shape);
      n->outputs[i]->producer = n;
      continue;
    }
    Value* c = g.add_value(g.unique_name(out->name + "_folded"), results[i]->dtype(), results[i]->shape());
    c->constant = pool.track(results[i]);
    g.replace_all_uses(out, c);
  }
}

}  // namespace

FoldReport fold_and_simplify(Graph& g, const FoldOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  FoldReport r;
  r.nodes_before = g.nodes.size();
  r.constant_bytes_before = constant_bytes(g);
  ConstantPool pool(options.gc);

  // Top-down worklist: nodes in schedule order; a node that changed, and the users
  // of whatever changed, are queued again so chains resolve in this one pass.
  std::deque<Node*> work;
  std::unordered_set<Node*> queued, live;
  for (auto& n : g.nodes) work.push_back(n.get()), queued.insert(n.get()), live.insert(n.get());
  auto requeue = [&](Node* u) {
    if (live.count(u) && queued.insert(u).second) work.push_back(u);
  };
  // Drops dead nodes; releases the constants their removal made unreachable.
  auto sweep = [&]() {
    std::vector<Value*> inputs;
    for (auto& p : g.nodes)
      for (Value* v : p->inputs)
        if (v && v->constant) inputs.push_back(v);
    size_t dead = g.remove_dead_nodes();
    if (dead) r.rewritten["dead-node"] += int(dead);
    live.clear();
    for (auto& p : g.nodes) live.insert(p.get());
    for (Value* v : inputs) pool.release_if_dead(v);
  };
  sweep();

  int rewrites = 0;
  while (!work.empty()) {
    if (rewrites >= options.max_rewrites) {
      r.rewrite_cap_reached = true;
      break;
    }
    Node* n = work.front();
    work.pop_front();
    queued.erase(n);
    if (!live.count(n)) continue;
    std::vector<Node*> users;
    for (Value* o : n->outputs)
      for (Node* u : o->users) users.push_back(u);

    bool changed = false;
    std::vector<Node*> revisit;
    // Shape inference, interleaved: an output whose shape hung on a constant that
    // folding has just computed (Reshape by a folded shape) is inferred now, so
    // its users can fold in this same pass.
    bool pending = false;
    for (Value* o : n->outputs) pending |= !o->shape_known && (!o->users.empty() || o->is_graph_output);
    if (pending && options.infer_shapes && options.infer_shapes(*n)) {
      r.shapes_inferred++;
      for (Node* u : users) requeue(u);
    }
    EvalResult e = evaluate_node(*n, options.size_limit_bytes);
    if (e.skipped_by_size_limit) {
      r.skipped_by_size_limit.push_back(n->describe());
    } else if (e.evaluated) {
      replace_by_constants(g, pool, n, e.outputs);
      r.folded[n->op_type]++;
      changed = true;
    }
    if (!changed) {
      RewriteContext ctx{g, pool, {}};
      std::string rule = apply_rewrites(ctx, n);
      if (!rule.empty()) {
        r.rewritten[rule]++;
        changed = true;
        revisit = std::move(ctx.revisit);
      }
    }
    if (changed) {
      ++rewrites;
      sweep();
      for (Node* u : revisit) requeue(u);
      for (Node* u : users) requeue(u);
    }
  }
  sweep();
  pool.collect(g);  // end of pass: everything unreachable goes
  r.nodes_after = g.nodes.size();
  r.constant_bytes_after = constant_bytes(g);
  const auto& st = pool.stats();
  r.constants_created = st.created;
  r.constants_created_bytes = st.created_bytes;
  r.constants_released = st.released;
  r.constants_released_bytes = st.released_bytes;
  r.peak_live_fold_bytes = st.peak_live_bytes;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

nlohmann::json fold_report_to_json(const FoldReport& r) {
  return {{"nodes_before", r.nodes_before},
          {"nodes_after", r.nodes_after},
          {"constant_bytes_before", r.constant_bytes_before},
          {"constant_bytes_after", r.constant_bytes_after},
          {"folded", r.folded},
          {"rewritten", r.rewritten},
          {"skipped_by_size_limit", r.skipped_by_size_limit},
          {"rewrite_cap_reached", r.rewrite_cap_reached},
          {"shapes_inferred", r.shapes_inferred},
          {"constant_pool",
           {{"created", r.constants_created},
            {"created_bytes", r.constants_created_bytes},
            {"released", r.constants_released},
            {"released_bytes", r.constants_released_bytes},
            {"peak_live_bytes", r.peak_live_fold_bytes}}},
          {"seconds", r.seconds}};
}

std::string fold_report_summary(const FoldReport& r) {
  std::ostringstream o;
  int folded = 0, rewritten = 0;
  for (const auto& [_, c] : r.folded) folded += c;
  for (const auto& [_, c] : r.rewritten) rewritten += c;
  o << "folding: " << r.nodes_before << " -> " << r.nodes_after << " nodes (" << folded << " folded, " << rewritten
    << " rewritten), constants " << r.constant_bytes_before << " -> " << r.constant_bytes_after << " bytes";
  if (!r.skipped_by_size_limit.empty()) o << ", " << r.skipped_by_size_limit.size() << " left by --fold-size-limit";
  if (r.rewrite_cap_reached) o << ", stopped at the rewrite cap";
  o << "\n";
  return o.str();
}

std::string fold_report_details(const FoldReport& r) {
  std::ostringstream o;
  o << fold_report_summary(r);
  if (!r.folded.empty()) {
    o << "  folded:";
    for (const auto& [op, c] : r.folded) o << " " << op << " x" << c;
    o << "\n";
  }
  if (!r.rewritten.empty()) {
    o << "  rewritten:";
    for (const auto& [rule, c] : r.rewritten) o << " " << rule << " x" << c;
    o << "\n";
  }
  for (const auto& s : r.skipped_by_size_limit) o << "  left as a runtime op by --fold-size-limit: " << s << "\n";
  o << "  constant pool: " << r.constants_created << " constants created (" << r.constants_created_bytes
    << " bytes of storage), " << r.constants_released << " released (" << r.constants_released_bytes
    << " bytes), peak " << r.peak_live_fold_bytes << " bytes live\n";
  return o.str();
}

}  // namespace kiln
