/*
 * ONNX Resize / Upsample, float32, any rank. For each output element and each axis
 * the kernel finds the input coordinate (coordinate transformation), then up to 4
 * taps (index, weight) on that axis; the output is the sum over the product of the
 * per-axis taps. Coordinates are computed in double like the ONNX reference.
 */
#include <math.h>

#include "kiln/resize.h"

#define KILN_RESIZE_MAX_TAPS 4

typedef struct {
  uint32_t count;
  int32_t idx[KILN_RESIZE_MAX_TAPS];
  double w[KILN_RESIZE_MAX_TAPS];
} taps_t;

/* Input coordinate of output index `o` on one axis; `out_len` is scale * in_len as
 * the ONNX reference defines it (it may be fractional). */
static double source_coord(const kiln_resize_params_t* p, uint32_t o, int32_t in_len, double scale, double out_len,
                           double roi_start, double roi_end) {
  const double x = (double)o;
  switch (p->coord) {
    case KILN_COORD_HALF_PIXEL: return (x + 0.5) / scale - 0.5;
    case KILN_COORD_PYTORCH_HALF_PIXEL: return out_len > 1.0 ? (x + 0.5) / scale - 0.5 : 0.0;
    case KILN_COORD_ALIGN_CORNERS: return out_len == 1.0 ? 0.0 : x * (double)(in_len - 1) / (out_len - 1.0);
    case KILN_COORD_ASYMMETRIC: return x / scale;
    case KILN_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
    case KILN_COORD_TF_CROP_AND_RESIZE:
      if (out_len > 1.0) return roi_start * (double)(in_len - 1) + x * (roi_end - roi_start) * (double)(in_len - 1) / (out_len - 1.0);
      return 0.5 * (roi_start + roi_end) * (double)(in_len - 1);
  }
  return 0.0;
}

static int32_t clamp_index(int32_t i, int32_t len) { return i < 0 ? 0 : i >= len ? len - 1 : i; }

/* Keys cubic convolution weight of distance `d` (>= 0) with coefficient a. */
static double cubic_weight(double d, double a) {
  if (d <= 1.0) return ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
  if (d < 2.0) return ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
  return 0.0;
}

static void axis_taps(const kiln_resize_params_t* p, double x, int32_t len, taps_t* t) {
  const double fl = floor(x);
  const double frac = x - fl;
  const int32_t i0 = (int32_t)fl;
  uint32_t k;
  if (p->mode == KILN_RESIZE_NEAREST) {
    int32_t i = i0;
    if (frac != 0.0) {
      switch (p->nearest) {
        case KILN_NEAREST_ROUND_PREFER_FLOOR: i = frac <= 0.5 ? i0 : i0 + 1; break;
        case KILN_NEAREST_ROUND_PREFER_CEIL: i = frac < 0.5 ? i0 : i0 + 1; break;
        case KILN_NEAREST_FLOOR: i = i0; break;
        case KILN_NEAREST_CEIL: i = i0 + 1; break;
      }
    }
    t->count = 1;
    t->idx[0] = clamp_index(i, len);
    t->w[0] = 1.0;
    return;
  }
  if (p->mode == KILN_RESIZE_LINEAR) {
    t->count = 2;
    t->idx[0] = i0;
    t->idx[1] = i0 + 1;
    t->w[0] = 1.0 - frac;
    t->w[1] = frac;
  } else {
    t->count = 4;
    for (k = 0; k < 4u; ++k) {
      t->idx[k] = i0 - 1 + (int32_t)k;
      t->w[k] = cubic_weight(fabs(x - (double)t->idx[k]), (double)p->cubic_a);
    }
  }
  if (p->exclude_outside) {
    double sum = 0.0;
    for (k = 0; k < t->count; ++k) {
      if (t->idx[k] < 0 || t->idx[k] >= len) t->w[k] = 0.0;
      sum += t->w[k];
    }
    if (sum != 0.0)
      for (k = 0; k < t->count; ++k) t->w[k] /= sum;
  }
  for (k = 0; k < t->count; ++k) t->idx[k] = clamp_index(t->idx[k], len);
}

kiln_status_t kiln_resize_f32(const kiln_resize_params_t* p, const float* in, const float* roi, const float* scales,
                              float* out) {
  uint32_t o_idx[KILN_MAX_DIMS] = {0};
  int32_t in_stride[KILN_MAX_DIMS];
  taps_t taps[KILN_MAX_DIMS];
  uint32_t d, total = 1, e;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->rank == 0u || p->rank > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  if (p->coord == KILN_COORD_TF_CROP_AND_RESIZE && roi == NULL) return KILN_ERR_NULL_POINTER;
  for (d = p->rank; d-- > 0u;) {
    if (p->in_shape[d] <= 0) return KILN_ERR_BAD_ARGUMENT;
    in_stride[d] = d + 1u == p->rank ? 1 : in_stride[d + 1u] * p->in_shape[d + 1u];
    total *= (uint32_t)p->out_shape[d];
  }
  for (e = 0; e < total; ++e) {
    int outside = 0;
    uint32_t tap[KILN_MAX_DIMS] = {0};
    double acc = 0.0;
    for (d = 0; d < p->rank; ++d) {
      const int32_t len = p->in_shape[d];
      const double scale = scales != NULL ? (double)scales[d] : (double)p->out_shape[d] / (double)len;
      const double out_len = scale * (double)len;
      const double rs = roi != NULL ? (double)roi[d] : 0.0, re = roi != NULL ? (double)roi[p->rank + d] : 1.0;
      const double x = source_coord(p, o_idx[d], len, scale, out_len, rs, re);
      if (p->coord == KILN_COORD_TF_CROP_AND_RESIZE && (x < 0.0 || x > (double)(len - 1))) outside = 1;
      axis_taps(p, x, len, &taps[d]);
    }
    if (outside) {
      out[e] = p->extrapolation_value;
    } else {
      /* Odometer over the per-axis taps. */
      for (;;) {
        double w = 1.0;
        int32_t off = 0;
        for (d = 0; d < p->rank; ++d) {
          w *= taps[d].w[tap[d]];
          off += taps[d].idx[tap[d]] * in_stride[d];
        }
        if (w != 0.0) acc += w * (double)in[off];
        for (d = p->rank; d-- > 0u;) {
          if (++tap[d] < taps[d].count) break;
          tap[d] = 0;
        }
        if (d == (uint32_t)-1) break;
      }
      out[e] = (float)acc;
    }
    for (d = p->rank; d-- > 0u;) {
      if (++o_idx[d] < (uint32_t)p->out_shape[d]) break;
      o_idx[d] = 0;
    }
  }
  return KILN_OK;
}
