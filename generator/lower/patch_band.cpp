#include "lower/patch_band.h"

namespace kiln {

namespace {

constexpr uint64_t kPatchBudgetSpeed = 65536, kPatchBudgetRam = 32768;

}  // namespace

uint64_t patch_scratch_bytes(uint64_t ce, uint64_t s, uint64_t w_in, uint64_t w_out, uint64_t rows) {
  const uint64_t floats = ce * ((rows - 1) * s + 3) * w_in + 3 * ((w_out - 1) * s + 3) + ce * rows * w_out;
  return floats * sizeof(float);
}

PatchBand choose_patch_band(uint64_t ce, uint64_t s, uint64_t w_in, uint64_t w_out, uint64_t h_out, uint64_t in_bytes,
                            uint64_t out_bytes, uint64_t expanded_bytes, bool ram_priority) {
  const uint64_t budget = ram_priority ? kPatchBudgetRam : kPatchBudgetSpeed;
  auto pays = [&](uint64_t rows) {
    const uint64_t scratch = patch_scratch_bytes(ce, s, w_in, w_out, rows);
    return (rows == 1 || scratch <= budget) && in_bytes + out_bytes + scratch < expanded_bytes;
  };
  PatchBand b;
  if (h_out == 0 || w_out == 0 || !pays(1)) return b;
  b.rows = 1;
  while (b.rows < h_out && pays(b.rows + 1)) ++b.rows;
  b.scratch_bytes = patch_scratch_bytes(ce, s, w_in, w_out, b.rows);
  return b;
}

}  // namespace kiln
