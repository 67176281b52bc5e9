#include "fold/constant_pool.h"

#include <algorithm>
#include <set>

namespace kiln {

uint64_t owned_storage_bytes(const Constant& c) {
  const auto& b = c.buffer();
  return b && b->origin() == ConstantBuffer::Origin::Owned ? b->size() : 0;
}

ConstantPtr ConstantPool::track(ConstantPtr c) {
  if (!c) return c;
  ++stats_.created;
  prune();  // so the peak below counts only what is still alive
  if (!gc_) immortal_.push_back(c);
  uint64_t bytes = owned_storage_bytes(*c);
  if (bytes > 0) {
    // A view or lazy result shares its input's buffer: count each buffer once.
    bool known = false;
    for (const auto& e : entries_)
      if (!e.buffer.owner_before(c->buffer()) && !c->buffer().owner_before(e.buffer)) known = true;
    if (!known) {
      entries_.push_back({c->buffer(), bytes});
      stats_.created_bytes += bytes;
      live_ += bytes;
      stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, live_);
    }
  }
  return c;
}

void ConstantPool::release_if_dead(Value* v) {
  if (!gc_ || v == nullptr || !v->constant) return;
  if (!v->users.empty() || v->producer || v->is_graph_input || v->is_graph_output) return;
  v->constant.reset();
  ++stats_.values_released;
}

void ConstantPool::prune() {
  std::vector<Entry> kept;
  kept.reserve(entries_.size());
  for (auto& e : entries_) {
    if (e.buffer.expired()) {
      ++stats_.released;
      stats_.released_bytes += e.bytes;
      live_ -= e.bytes;
    } else {
      kept.push_back(std::move(e));
    }
  }
  entries_ = std::move(kept);
}

void ConstantPool::collect(Graph& g) {
  if (!gc_) return;
  for (const auto& v : g.values()) release_if_dead(v.get());
  g.remove_dead_values();
  prune();
}

uint64_t ConstantPool::live_bytes() {
  prune();
  return live_;
}

}  // namespace kiln
