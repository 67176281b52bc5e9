/* ONNX Slice (any dtype) with starts/ends/axes/steps read at run time. The
 * arguments are clamped as the ONNX spec says, turned into a start offset and a
 * signed stride per dimension, and the copy is a strided walk (kiln_transpose).
 * The resulting shape must be the one the compiler planned. */
#include "index_read.h"
#include "kiln/indexing.h"
#include "kiln/layout.h"

kiln_status_t kiln_slice(const kiln_slice_params_t* p, const void* data, const void* starts, const void* ends,
                         const void* axes, const void* steps, void* out) {
  int64_t start[KILN_MAX_DIMS], step[KILN_MAX_DIMS];
  int64_t len[KILN_MAX_DIMS];
  int64_t offset = 0, stride = 1;
  uint32_t d, i, seen = 0u;
  kiln_transpose_params_t t;
  if (p == NULL || data == NULL || starts == NULL || ends == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS || p->num > p->ndim) return KILN_ERR_BAD_ARGUMENT;
  if (p->index_size != 4u && p->index_size != 8u) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < p->ndim; ++d) start[d] = 0, step[d] = 1, len[d] = p->in_shape[d];
  for (i = 0; i < p->num; ++i) {
    int64_t a = axes ? kiln_read_index(axes, p->index_size, i) : (int64_t)i;
    int64_t s = kiln_read_index(starts, p->index_size, i), e = kiln_read_index(ends, p->index_size, i);
    int64_t st = steps ? kiln_read_index(steps, p->index_size, i) : 1, n;
    if (!kiln_normalize_index(&a, p->ndim) || (seen & (1u << a)) || st == 0) return KILN_ERR_BAD_ARGUMENT;
    seen |= 1u << a;
    n = p->in_shape[a];
    if (s < 0) s += n;
    if (e < 0) e += n;
    if (st > 0) {
      s = s < 0 ? 0 : (s > n ? n : s);
      e = e < 0 ? 0 : (e > n ? n : e);
      len[a] = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = s < 0 ? 0 : (s > n - 1 ? n - 1 : s);
      e = e < -1 ? -1 : (e > n - 1 ? n - 1 : e);
      /* -st cannot overflow here unless st == INT64_MIN, which still yields length 0 or 1. */
      len[a] = s > e ? (st == INT64_MIN ? 1 : (s - e + (-st) - 1) / (-st)) : 0;
    }
    start[a] = s;
    step[a] = st;
  }
  for (d = p->ndim; d-- > 0u;) {
    if (len[d] != p->out_shape[d]) return KILN_ERR_BAD_ARGUMENT;
    if (len[d] > 0) offset += start[d] * stride;
    t.shape[d] = (int32_t)len[d];
    /* A step larger than the dimension is used at most once: keep the stride small. */
    t.in_stride[d] = len[d] > 1 ? (int32_t)(step[d] * stride) : 0;
    stride *= p->in_shape[d];
  }
  t.ndim = p->ndim;
  t.elem_size = p->elem_size;
  return kiln_transpose(&t, (const uint8_t*)data + offset * (int64_t)p->elem_size, out);
}
