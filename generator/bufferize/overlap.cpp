#include "bufferize/overlap.h"

#include <algorithm>
#include <cstdlib>

namespace kiln {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

OverlapChoice choose_overlap(uint64_t buffer_size, uint64_t in_offset, uint64_t out_size, int64_t granule,
                             int64_t min_m, int64_t max_m, uint32_t align, bool may_grow) {
  OverlapChoice best;
  if (granule <= 0 || min_m > max_m || out_size == 0) return best;
  const int64_t S = int64_t(buffer_size), r = int64_t(in_offset), out = int64_t(out_size), A = std::max<int64_t>(align, 1);
  // Only offsets where the output touches the input's buffer matter: o in (-out, S).
  const int64_t lo_m = std::max(min_m, floor_div(-out - r, granule)), hi_m = std::min(max_m, floor_div(S - r, granule) + 1);
  int64_t best_size = INT64_MAX, best_abs = INT64_MAX;
  for (int64_t m = lo_m; m <= hi_m; ++m) {
    const int64_t o = r + m * granule;
    if (((o % A) + A) % A != 0) continue;
    const int64_t lo = std::min<int64_t>(0, o), hi = std::max<int64_t>(S, o + out);
    const int64_t size = hi - lo;
    if (size != S && !may_grow) continue;
    if (size >= S + out) continue;
    if (size < best_size || (size == best_size && std::llabs(m) < best_abs)) {
      best_size = size, best_abs = std::llabs(m);
      best.ok = true;
      best.shift = uint64_t(-lo);
      best.out_offset = uint64_t(o - lo);
      best.new_size = uint64_t(size);
    }
  }
  return best;
}

std::string check_overlaps(const BufferizedProgram& program) {
  for (size_t s = 0; s < program.ops.size(); ++s) {
    const ScheduledOp& op = program.ops[s];
    if (!op.node) continue;  // inserted copies move between distinct places
    const Node& n = *op.node;
    for (size_t k = 0; k < op.outputs.size() && k < n.outputs.size(); ++k) {
      const BufferRef o = op.outputs[k];
      if (o.buffer < 0 || !n.outputs[k]) continue;
      const uint64_t osz = n.outputs[k]->size_bytes();
      for (size_t i = 0; i < op.inputs.size() && i < n.inputs.size(); ++i) {
        const BufferRef in = op.inputs[i];
        if (in.buffer != o.buffer || !n.inputs[i]) continue;
        const uint64_t isz = n.inputs[i]->size_bytes();
        if (o.offset >= in.offset + isz || in.offset >= o.offset + osz || isz == 0 || osz == 0) continue;
        const int64_t delta = int64_t(o.offset) - int64_t(in.offset);
        bool allowed = false;
        // An input already in its slice of a placed output (Concat, a sequence table).
        if (k == 0 && i < op.call.input_offsets.size() && in.offset == o.offset + op.call.input_offsets[i])
          allowed = true;
        if (k == 0 && delta == 0 && isz == osz)
          for (int p : op.call.in_place_inputs) allowed = allowed || p == int(i);
        if (k == 0)
          for (const auto& r : op.call.overlaps)
            if (r.input == int(i) && r.granule > 0 && delta % r.granule == 0 && delta / r.granule >= r.min_m &&
                delta / r.granule <= r.max_m)
              allowed = true;
        if (!allowed)
          return op.label + ": output " + std::to_string(k) + " overlaps input " + std::to_string(i) + " at " +
                 std::to_string(delta) + " bytes, which its kernel does not allow";
      }
    }
  }
  return "";
}

}  // namespace kiln
