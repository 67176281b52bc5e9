#include "lower/ops/qnn_overlap.h"

#include <algorithm>
#include <vector>

namespace kiln {

namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 4;

// The first in-bounds tap (0 <= i0 + k * dilation < size) of a kernel, or -1.
int64_t first_tap(int64_t i0, int64_t dilation, int64_t kernel, int64_t size) {
  for (int64_t k = 0; k < kernel; ++k) {
    const int64_t i = i0 + k * dilation;
    if (i >= size) return -1;
    if (i >= 0) return k;
  }
  return -1;
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

int64_t s8_overlap_limit(const S8Window& w, int64_t step, bool reads_during_writes) {
  const int64_t n = w.out_h * w.out_w;
  if (n <= 0 || step <= 0 || w.in_c <= 0 || w.out_c <= 0 || w.stride_h <= 0 || w.stride_w <= 0 ||
      w.dilation_h <= 0 || w.dilation_w <= 0 || w.kernel_h <= 0 || w.kernel_w <= 0)
    return kS8NoOverlapLimit;
  // lo[p]: the lowest input byte output pixel p reads (kUnbounded: none).
  std::vector<int64_t> lo(size_t(n), kUnbounded);
  for (int64_t oy = 0; oy < w.out_h; ++oy) {
    const int64_t iy0 = oy * w.stride_h - w.pad_top;
    const int64_t ky = first_tap(iy0, w.dilation_h, w.kernel_h, w.in_h);
    if (ky < 0) continue;
    for (int64_t ox = 0; ox < w.out_w; ++ox) {
      const int64_t ix0 = ox * w.stride_w - w.pad_left;
      const int64_t kx = first_tap(ix0, w.dilation_w, w.kernel_w, w.in_w);
      if (kx < 0) continue;
      lo[size_t(oy * w.out_w + ox)] = ((iy0 + ky * w.dilation_h) * w.in_w + ix0 + kx * w.dilation_w) * w.in_c;
    }
  }
  // Steps from the last: `after` is the lowest byte read by the steps after step k
  // (with reads_during_writes, by step k too).
  int64_t limit = kUnbounded, after = kUnbounded;
  const int64_t steps = (n + step - 1) / step;
  for (int64_t k = steps - 1; k >= 0; --k) {
    const int64_t first = k * step, end = std::min(n, first + step);
    int64_t own = kUnbounded;
    for (int64_t p = first; p < end; ++p) own = std::min(own, lo[size_t(p)]);
    if (reads_during_writes) after = std::min(after, own);
    if (after < kUnbounded) limit = std::min(limit, after - end * w.out_c);
    if (!reads_during_writes) after = std::min(after, own);
  }
  return limit;
}

void add_s8_overlap(KernelCall& k, uint64_t out_bytes, int64_t limit, int64_t granule) {
  if (limit == kS8NoOverlapLimit || granule <= 0 || out_bytes == 0) return;
  KernelCall::Overlap ov;
  ov.input = 0;
  ov.granule = granule;
  ov.min_m = -int64_t(out_bytes) / granule - 1;
  ov.max_m = floor_div(limit, granule);  // kUnbounded / granule when nothing is read after a write
  if (ov.max_m < ov.min_m) return;
  ov.scratch = k.scratch;  // the same call, the same scratch
  k.overlaps.push_back(ov);
}

}  // namespace kiln
