/* ONNX NonMaxSuppression, following the ONNX reference implementation (and
 * onnxruntime): per batch and class, the candidates (scores above the optional
 * score threshold) in descending score order, equal scores by ascending box index;
 * a candidate is kept unless its IoU with an already kept box of the class exceeds
 * the threshold, until max_output_boxes_per_class are kept. All arithmetic in
 * float, as the reference. The selection runs twice: once to count the selected
 * boxes (compared with the planned count), once to write them.
 * scratch: cand[boxes] (candidate box numbers, heap-sorted), kept[boxes]. */
#include "kiln/selection.h"

/* The reference's order: a ranks below b (lower score, or equal score and higher index). */
static int ranks_below(const float* s, uint32_t a, uint32_t b) {
  return s[a] < s[b] || (s[a] == s[b] && a > b);
}

static void sift_down(const float* s, uint32_t* h, uint32_t root, uint32_t end) {
  uint32_t child, t;
  while ((child = 2u * root + 1u) < end) {
    if (child + 1u < end && ranks_below(s, h[child], h[child + 1u])) ++child;
    if (!ranks_below(s, h[root], h[child])) return;
    t = h[root], h[root] = h[child], h[child] = t;
    root = child;
  }
}

/* Heap sort of h[0..m): ascending rank, the best candidate last. */
static void sort_candidates(const float* s, uint32_t* h, uint32_t m) {
  uint32_t i, t;
  if (m < 2u) return;
  for (i = m / 2u; i-- > 0u;) sift_down(s, h, i, m);
  for (i = m - 1u; i > 0u; --i) {
    t = h[0], h[0] = h[i], h[i] = t;
    sift_down(s, h, 0u, i);
  }
}

static void min_max(float a, float b, float* lo, float* hi) {
  if (a >= b) *lo = b, *hi = a;
  else *lo = a, *hi = b;
}

/* True when boxes b1 and b2 (4 floats each) overlap with IoU > threshold. */
static int suppressed(const float* b1, const float* b2, uint32_t center_point_box, float iou_threshold) {
  float x1_min, x1_max, x2_min, x2_max, y1_min, y1_max, y2_min, y2_max;
  float ix_min, ix_max, iy_min, iy_max, inter, area1, area2, uni;
  if (center_point_box == 0u) {
    min_max(b1[1], b1[3], &x1_min, &x1_max);
    min_max(b2[1], b2[3], &x2_min, &x2_max);
    min_max(b1[0], b1[2], &y1_min, &y1_max);
    min_max(b2[0], b2[2], &y2_min, &y2_max);
  } else {
    const float w1 = b1[2] / 2.0f, h1 = b1[3] / 2.0f, w2 = b2[2] / 2.0f, h2 = b2[3] / 2.0f;
    x1_min = b1[0] - w1, x1_max = b1[0] + w1;
    x2_min = b2[0] - w2, x2_max = b2[0] + w2;
    y1_min = b1[1] - h1, y1_max = b1[1] + h1;
    y2_min = b2[1] - h2, y2_max = b2[1] + h2;
  }
  ix_min = x1_min > x2_min ? x1_min : x2_min;
  ix_max = x1_max < x2_max ? x1_max : x2_max;
  if (!(ix_max > ix_min)) return 0;
  iy_min = y1_min > y2_min ? y1_min : y2_min;
  iy_max = y1_max < y2_max ? y1_max : y2_max;
  if (!(iy_max > iy_min)) return 0;
  inter = (ix_max - ix_min) * (iy_max - iy_min);
  if (!(inter > 0.0f)) return 0;
  area1 = (x1_max - x1_min) * (y1_max - y1_min);
  area2 = (x2_max - x2_min) * (y2_max - y2_min);
  uni = area1 + area2 - inter;
  if (!(area1 > 0.0f) || !(area2 > 0.0f) || !(uni > 0.0f)) return 0;
  return inter / uni > iou_threshold;
}

/* One selection over all batches and classes; writes rows to out unless NULL.
 * Returns the number of selected boxes. */
static size_t select_boxes(const kiln_nms_params_t* p, const float* boxes, const float* scores, uint32_t max_out,
                           float iou_threshold, const float* score_threshold, uint32_t* cand, uint32_t* kept,
                           int64_t* out) {
  size_t total = 0;
  uint32_t b, c, i, m, nkept, k;
  for (b = 0; b < p->batches; ++b) {
    const float* bb = boxes + (size_t)b * p->boxes * 4u;
    for (c = 0; c < p->classes; ++c) {
      const float* s = scores + ((size_t)b * p->classes + c) * p->boxes;
      m = 0;
      for (i = 0; i < p->boxes; ++i)
        if (score_threshold == NULL || s[i] > *score_threshold) cand[m++] = i;
      sort_candidates(s, cand, m);
      nkept = 0;
      while (m > 0u && nkept < max_out) {
        const uint32_t top = cand[--m];
        int keep = 1;
        for (k = 0; k < nkept && keep; ++k)
          if (suppressed(bb + (size_t)top * 4u, bb + (size_t)kept[k] * 4u, p->center_point_box, iou_threshold))
            keep = 0;
        if (!keep) continue;
        kept[nkept++] = top;
        if (out != NULL) {
          out[total * 3u] = (int64_t)b;
          out[total * 3u + 1u] = (int64_t)c;
          out[total * 3u + 2u] = (int64_t)top;
        }
        ++total;
      }
    }
  }
  return total;
}

kiln_status_t kiln_non_max_suppression(const kiln_nms_params_t* p, const float* boxes, const float* scores,
                                       const int64_t* max_output_boxes_per_class, const float* iou_threshold,
                                       const float* score_threshold, int64_t* out, void* scratch) {
  uint32_t max_out = 0;
  float iou = 0.0f;
  uint32_t *cand, *kept;
  size_t total;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (p->center_point_box > 1u) return KILN_ERR_BAD_ARGUMENT;
  if (max_output_boxes_per_class != NULL && *max_output_boxes_per_class > 0)
    max_out = *max_output_boxes_per_class >= (int64_t)p->boxes ? p->boxes : (uint32_t)*max_output_boxes_per_class;
  if (iou_threshold != NULL) iou = *iou_threshold;
  if (max_out == 0u || p->batches == 0u || p->classes == 0u)
    return p->count == 0u ? KILN_OK : KILN_ERR_BAD_ARGUMENT;
  if (boxes == NULL || scores == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  cand = (uint32_t*)scratch;
  kept = cand + p->boxes;
  total = select_boxes(p, boxes, scores, max_out, iou, score_threshold, cand, kept, NULL);
  if (total != (size_t)p->count) return KILN_ERR_BAD_ARGUMENT;
  if (total == 0u) return KILN_OK;
  if (out == NULL) return KILN_ERR_NULL_POINTER;
  (void)select_boxes(p, boxes, scores, max_out, iou, score_threshold, cand, kept, out);
  return KILN_OK;
}
