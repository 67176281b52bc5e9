/* ONNX Einsum, float32 and float64. One odometer walks every letter (output letters
 * outermost, summed letters innermost), so the output is written in order and each
 * operand's offset is updated incrementally from its per-letter strides. Products are
 * accumulated in double. */
#include "kiln/einsum.h"

static kiln_status_t einsum(const kiln_einsum_params_t* p, const void* const* ins, int is_f64, void* out) {
  uint32_t idx[KILN_EINSUM_MAX_LETTERS] = {0};
  int64_t off[KILN_EINSUM_MAX_OPS] = {0};
  size_t total_out = 1, total_sum = 1, o, s;
  uint32_t l, k;
  if (p == NULL || ins == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->nops == 0 || p->nops > KILN_EINSUM_MAX_OPS || p->nidx > KILN_EINSUM_MAX_LETTERS || p->nout > p->nidx)
    return KILN_ERR_BAD_ARGUMENT;
  for (k = 0; k < p->nops; ++k)
    if (ins[k] == NULL) return KILN_ERR_NULL_POINTER;
  for (l = 0; l < p->nout; ++l) total_out *= p->extent[l];
  for (l = p->nout; l < p->nidx; ++l) total_sum *= p->extent[l];
  for (o = 0; o < total_out; ++o) {
    double acc = 0.0;
    for (s = 0; s < total_sum; ++s) {
      double prod = 1.0;
      for (k = 0; k < p->nops; ++k)
        prod *= is_f64 ? ((const double*)ins[k])[off[k]] : (double)((const float*)ins[k])[off[k]];
      acc += prod;
      /* Advance the odometer over all letters; it wraps into the next output element
       * exactly when the summed letters are exhausted. */
      for (l = p->nidx; l > 0; --l) {
        const uint32_t d = l - 1;
        for (k = 0; k < p->nops; ++k) off[k] += p->stride[k][d];
        if (++idx[d] < p->extent[d]) break;
        for (k = 0; k < p->nops; ++k) off[k] -= (int64_t)p->stride[k][d] * p->extent[d];
        idx[d] = 0;
      }
    }
    if (total_sum == 0) {
      /* An empty sum: the output letters still advance. */
      for (l = p->nout; l > 0; --l) {
        const uint32_t d = l - 1;
        if (++idx[d] < p->extent[d]) break;
        idx[d] = 0;
      }
    }
    if (is_f64) ((double*)out)[o] = acc;
    else ((float*)out)[o] = (float)acc;
  }
  return KILN_OK;
}

kiln_status_t kiln_einsum_f32(const kiln_einsum_params_t* p, const void* const* ins, float* out) {
  return einsum(p, ins, 0, out);
}

kiln_status_t kiln_einsum_f64(const kiln_einsum_params_t* p, const void* const* ins, double* out) {
  return einsum(p, ins, 1, out);
}
