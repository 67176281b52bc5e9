// The folder's constant pool: it records every constant the fold pass creates and,
// after each pass (and as soon as a folded node's inputs die), releases the ones no
// longer reachable from the graph, so dead intermediates never pile up. This is
// the garbage collector of the seed's DisposablePool, on top of reference counts:
// "release" means dropping the graph's last reference; the storage goes with it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ir/graph.h"

namespace kiln {

struct ConstantPoolStats {
  uint64_t created = 0;          // constants registered by the pass
  uint64_t created_bytes = 0;    // bytes of storage they allocated (views and lazy results: 0)
  uint64_t released = 0;         // registered constants whose storage was freed
  uint64_t released_bytes = 0;
  uint64_t values_released = 0;  // dead values whose constant the collector dropped
  uint64_t peak_live_bytes = 0;  // most storage held by registered constants at once
};

class ConstantPool {
 public:
  // gc=false keeps every registered constant alive until the pool dies (what a
  // compiler with immortal constant attributes does): the benchmark's baseline.
  explicit ConstantPool(bool gc) : gc_(gc) {}

  bool gc_enabled() const { return gc_; }
  // Registers a constant created by folding; returns it.
  ConstantPtr track(ConstantPtr c);
  // Drops the constant of `v` if nothing can reach it any more (no users, no
  // producer, not a graph input/output). Cheap; called on a rewritten node's inputs.
  void release_if_dead(Value* v);
  // Full sweep: every unreachable value loses its constant and is removed from the
  // graph. Called after each pass.
  void collect(Graph& g);
  // Storage bytes currently held by registered constants.
  uint64_t live_bytes();
  const ConstantPoolStats& stats() const { return stats_; }

 private:
  struct Entry {
    std::weak_ptr<const ConstantBuffer> buffer;  // owned storage, if the constant allocated any
    uint64_t bytes = 0;
  };
  void prune();

  bool gc_;
  std::vector<Entry> entries_;
  std::vector<ConstantPtr> immortal_;  // gc disabled
  uint64_t live_ = 0;
  ConstantPoolStats stats_;
};

// Bytes of storage `c` owns (its buffer, when it is heap memory the folder made).
uint64_t owned_storage_bytes(const Constant& c);

}  // namespace kiln
