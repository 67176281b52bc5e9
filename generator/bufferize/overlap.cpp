#include "bufferize/overlap.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <tuple>

namespace kiln {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }
int64_t mod(int64_t a, int64_t b) { return ((a % b) + b) % b; }

}  // namespace

OverlapChoice choose_overlap(uint64_t buffer_size, uint64_t in_offset, uint64_t out_size, int64_t granule,
                             int64_t min_m, int64_t max_m, uint32_t align, bool may_grow) {
  OverlapChoice best;
  if (granule <= 0 || min_m > max_m || out_size == 0) return best;
  const int64_t S = int64_t(buffer_size), r = int64_t(in_offset), out = int64_t(out_size), A = std::max<int64_t>(align, 1);
  // Only offsets where the output touches the input's buffer matter: o in (-out, S).
  const int64_t lo_m = std::max(min_m, floor_div(-out - r, granule)), hi_m = std::min(max_m, floor_div(S - r, granule) + 1);
  if (lo_m > hi_m) return best;
  // The offsets o = r + m * granule on the alignment are m = m0 + k * step.
  const int64_t step = A / std::gcd(granule, A);
  int64_t m0 = -1;
  for (int64_t m = 0; m < step && m0 < 0; ++m)
    if (mod(r + m * granule, A) == 0) m0 = m;
  if (m0 < 0) return best;
  // The buffer's size with the output at o, max(S, o + out) - min(0, o), is convex
  // in m and linear between the m where o = 0 and where o + out = S; so is |m|
  // between its sign changes. The least (size, |m|, m) over the aligned m in
  // [lo_m, hi_m] is therefore at an aligned m next to one of these points or the
  // range's ends (the same choice as trying every m in turn, overlap_test).
  auto lattice_floor = [&](int64_t m) { return m - mod(m - m0, step); };
  auto lattice_ceil = [&](int64_t m) { return m + mod(m0 - m, step); };
  const int64_t at_zero = -r, at_end = S - out - r;  // o = 0 and o + out = S, times granule
  const int64_t points[][2] = {{floor_div(at_zero, granule), ceil_div(at_zero, granule)},
                               {floor_div(at_end, granule), ceil_div(at_end, granule)},
                               {0, 0},
                               {lo_m, lo_m},
                               {hi_m, hi_m}};
  bool found = false;
  int64_t best_m = 0, best_size = 0;
  for (const auto& p : points) {
    for (int64_t m : {lattice_floor(p[0]), lattice_ceil(p[1])}) {
      if (m < lo_m || m > hi_m) continue;
      const int64_t o = r + m * granule;
      const int64_t size = std::max<int64_t>(S, o + out) - std::min<int64_t>(0, o);
      const auto key = [](int64_t sz, int64_t mm) { return std::make_tuple(sz, std::llabs(mm), mm); };
      if (!found || key(size, m) < key(best_size, best_m)) found = true, best_m = m, best_size = size;
    }
  }
  // Both limits keep sizes below a bound, so if the least size breaks one, all do.
  if (!found || (best_size != S && !may_grow) || best_size >= S + out) return best;
  const int64_t o = r + best_m * granule, lo = std::min<int64_t>(0, o);
  best.ok = true;
  best.shift = uint64_t(-lo);
  best.out_offset = uint64_t(o - lo);
  best.new_size = uint64_t(best_size);
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
