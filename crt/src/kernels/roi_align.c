/* ONNX RoiAlign (opset 16): each output bin of a region of interest pools a grid
 * of bilinear samples. Sample positions and weights follow the ONNX reference
 * (Detectron's ROIAlign): samples more than one pixel outside the image count as
 * 0, samples near the edge are clamped to it. Max mode takes, per sample, the
 * largest of the four weighted corner values, as the reference does. */
#include <math.h>

#include "kiln/sample.h"

static float bilinear(const float* img, uint32_t h, uint32_t w, float y, float x, int want_max) {
  uint32_t yl, xl, yh, xh;
  float ly, lx, hy, hx, v1, v2, v3, v4;
  if (y < -1.0f || y > (float)h || x < -1.0f || x > (float)w) return 0.0f;
  if (y <= 0.0f) y = 0.0f;
  if (x <= 0.0f) x = 0.0f;
  yl = (uint32_t)y;
  xl = (uint32_t)x;
  if (yl >= h - 1u) {
    yl = yh = h - 1u;
    y = (float)yl;
  } else {
    yh = yl + 1u;
  }
  if (xl >= w - 1u) {
    xl = xh = w - 1u;
    x = (float)xl;
  } else {
    xh = xl + 1u;
  }
  ly = y - (float)yl;
  lx = x - (float)xl;
  hy = 1.0f - ly;
  hx = 1.0f - lx;
  v1 = hy * hx * img[(size_t)yl * w + xl];
  v2 = hy * lx * img[(size_t)yl * w + xh];
  v3 = ly * hx * img[(size_t)yh * w + xl];
  v4 = ly * lx * img[(size_t)yh * w + xh];
  if (want_max) {
    float m = v1 > v2 ? v1 : v2;
    m = m > v3 ? m : v3;
    return m > v4 ? m : v4;
  }
  return v1 + v2 + v3 + v4;
}

kiln_status_t kiln_roi_align_f32(const kiln_roi_align_params_t* p, const float* x, const float* rois,
                                 const int64_t* batch_indices, float* out) {
  uint32_t r, ch, ph, pw, iy, ix;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if ((size_t)p->num_rois * p->c * p->out_h * p->out_w == 0u) return KILN_OK;
  if (x == NULL || rois == NULL || batch_indices == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->h == 0u || p->w == 0u) return KILN_ERR_BAD_ARGUMENT;
  for (r = 0; r < p->num_rois; ++r) {
    const float* roi = rois + (size_t)r * 4u;
    const float off = p->half_pixel ? 0.5f : 0.0f;
    const float x0 = roi[0] * p->spatial_scale - off, y0 = roi[1] * p->spatial_scale - off;
    const float x1 = roi[2] * p->spatial_scale - off, y1 = roi[3] * p->spatial_scale - off;
    float rw = x1 - x0, rh = y1 - y0, bw, bh;
    uint32_t gh, gw;
    float count;
    const int64_t bi = batch_indices[r];
    if (bi < 0 || bi >= (int64_t)p->n) return KILN_ERR_BAD_ARGUMENT;
    if (!p->half_pixel) {
      /* output_half_pixel (the pre-16 behaviour) forces a region of at least one pixel */
      rw = rw > 1.0f ? rw : 1.0f;
      rh = rh > 1.0f ? rh : 1.0f;
    }
    if (!(rw == rw) || !(rh == rh) || fabsf(rw) > 1e7f || fabsf(rh) > 1e7f) return KILN_ERR_BAD_ARGUMENT;
    bh = rh / (float)p->out_h;
    bw = rw / (float)p->out_w;
    gh = p->sampling_ratio > 0u ? p->sampling_ratio : (uint32_t)(bh > 0.0f ? ceilf(bh) : 0.0f);
    gw = p->sampling_ratio > 0u ? p->sampling_ratio : (uint32_t)(bw > 0.0f ? ceilf(bw) : 0.0f);
    count = (float)(gh * gw > 0u ? gh * gw : 1u);
    for (ch = 0; ch < p->c; ++ch) {
      const float* img = x + ((size_t)bi * p->c + ch) * p->h * p->w;
      for (ph = 0; ph < p->out_h; ++ph) {
        for (pw = 0; pw < p->out_w; ++pw) {
          float acc = 0.0f;
          int first = 1;
          for (iy = 0; iy < gh; ++iy) {
            const float yy = y0 + (float)ph * bh + ((float)iy + 0.5f) * bh / (float)gh;
            for (ix = 0; ix < gw; ++ix) {
              const float xx = x0 + (float)pw * bw + ((float)ix + 0.5f) * bw / (float)gw;
              const float v = bilinear(img, p->h, p->w, yy, xx, (int)p->max_mode);
              if (p->max_mode) {
                acc = (first || v > acc) ? v : acc;
                first = 0;
              } else {
                acc += v;
              }
            }
          }
          out[(((size_t)r * p->c + ch) * p->out_h + ph) * p->out_w + pw] = p->max_mode ? acc : acc / count;
        }
      }
    }
  }
  return KILN_OK;
}
