/*
 * Integer (int8) bilinear resize of quantized models (KilnQResizeBilinear in
 * docs/quantization.md), NHWC, TFLite's reference ResizeBilinearInteger bit for
 * bit. Input and output share scale and zero point.
 *
 * Source coordinates are in units of 1/1024 pixel. The compiler computes, per
 * output row, the two source rows and the fraction of the second one
 * (rows[3*oy] = y0, rows[3*oy+1] = y1, rows[3*oy+2] = dy), and the same per output
 * column (cols). Each output is
 *   s = x[y0,x0]*(1024-dy)*(1024-dx) + x[y1,x0]*dy*(1024-dx)
 *     + x[y0,x1]*(1024-dy)*dx + x[y1,x1]*dy*dx
 *   y = (s + (s > 0 ? 2^19 : -2^19)) / 2^20      (C division, toward zero)
 * dy and dx lie in [-512, 1024] (a negative fraction only where y0 == y1), so s
 * fits int32. y must not alias x.
 */
#ifndef KILN_NN_S8_RESIZE_H
#define KILN_NN_S8_RESIZE_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int32_t batch, in_h, in_w, channels;
  int32_t out_h, out_w;
} kiln_resize_bilinear_s8_params_t;

kiln_status_t kiln_resize_bilinear_s8(const kiln_resize_bilinear_s8_params_t* p, const int8_t* x,
                                      const int32_t* rows, const int32_t* cols, int8_t* y);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_RESIZE_H */
