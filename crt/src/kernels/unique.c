/* ONNX Unique: a stable merge sort of the slice numbers (so equal slices keep
 * their input order and the first of each run is its first occurrence), then one
 * pass that groups equal neighbours. The outputs are written only when the number
 * of groups is the planned one.
 * scratch: perm[n] (sorted slice numbers), tmp[n] (merge buffer, then the output
 * position of each group's first slice), rep[n] (first slice of each slice's group). */
#include <string.h>

#include "kiln/selection.h"
#include "selection_elem.h"

/* Lexicographic comparison of slices a and b along the axis. */
static int slice_compare(const kiln_unique_params_t* p, const void* x, uint32_t a, uint32_t b) {
  uint32_t o, i;
  int c;
  if (a == b) return 0;
  for (o = 0; o < p->outer; ++o) {
    const size_t base = (size_t)o * p->n;
    for (i = 0; i < p->inner; ++i) {
      c = kiln_sel_compare(x, p->elem_type, (base + a) * p->inner + i, (base + b) * p->inner + i);
      if (c != 0) return c;
    }
  }
  return 0;
}

/* Bottom-up stable merge sort of perm[0..n) using tmp[0..n). */
static void sort_slices(const kiln_unique_params_t* p, const void* x, uint32_t* perm, uint32_t* tmp) {
  const uint32_t n = p->n;
  uint32_t width, lo, mid, hi, a, b, k;
  uint32_t* src = perm;
  uint32_t* dst = tmp;
  uint32_t* t;
  for (width = 1; width < n; width = (width > n / 2u) ? n : width * 2u) {
    for (lo = 0; lo < n; lo = (hi == n) ? n : hi) {
      mid = (n - lo > width) ? lo + width : n;
      hi = (n - mid > width) ? mid + width : n;
      a = lo, b = mid, k = lo;
      while (a < mid && b < hi) dst[k++] = slice_compare(p, x, src[b], src[a]) < 0 ? src[b++] : src[a++];
      while (a < mid) dst[k++] = src[a++];
      while (b < hi) dst[k++] = src[b++];
    }
    t = src, src = dst, dst = t;
  }
  if (src != perm) memcpy(perm, src, (size_t)n * sizeof(uint32_t));
}

kiln_status_t kiln_unique(const kiln_unique_params_t* p, const void* x, void* y, int64_t* indices, int64_t* inverse,
                          int64_t* counts, void* scratch) {
  uint32_t *perm, *tmp, *rep;
  uint32_t k, i, o, groups = 0, leader = 0, g;
  uint32_t es;
  size_t block;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  es = kiln_sel_size(p->elem_type);
  if (es == 0u) return KILN_ERR_BAD_ARGUMENT;
  if (p->n == 0u) return p->count == 0u ? KILN_OK : KILN_ERR_BAD_ARGUMENT;
  if (scratch == NULL || (x == NULL && p->outer > 0u && p->inner > 0u)) return KILN_ERR_NULL_POINTER;
  perm = (uint32_t*)scratch;
  tmp = perm + p->n;
  rep = tmp + p->n;
  for (k = 0; k < p->n; ++k) perm[k] = k;
  sort_slices(p, x, perm, tmp);
  for (k = 0; k < p->n; ++k) {
    if (k == 0u || slice_compare(p, x, perm[k - 1u], perm[k]) != 0) {
      leader = perm[k];
      ++groups;
    }
    rep[perm[k]] = leader;
  }
  if (groups != p->count) return KILN_ERR_BAD_ARGUMENT;
  if (y == NULL && p->outer > 0u && p->inner > 0u) return KILN_ERR_NULL_POINTER;
  /* Output position of each group, kept at its first slice. */
  g = 0;
  if (p->sorted) {
    for (k = 0; k < p->n; ++k)
      if (rep[perm[k]] == perm[k]) tmp[perm[k]] = g++;
  } else {
    for (i = 0; i < p->n; ++i)
      if (rep[i] == i) tmp[i] = g++;
  }
  block = (size_t)p->inner * es;
  for (i = 0; i < p->n; ++i) {
    if (rep[i] != i) continue;
    g = tmp[i];
    if (block > 0u)
      for (o = 0; o < p->outer; ++o)
        memcpy((uint8_t*)y + ((size_t)o * groups + g) * block, (const uint8_t*)x + ((size_t)o * p->n + i) * block,
               block);
    if (indices != NULL) indices[g] = (int64_t)i;
    if (counts != NULL) counts[g] = 0;
  }
  for (i = 0; i < p->n; ++i) {
    g = tmp[rep[i]];
    if (inverse != NULL) inverse[i] = (int64_t)g;
    if (counts != NULL) counts[g] += 1;
  }
  return KILN_OK;
}
