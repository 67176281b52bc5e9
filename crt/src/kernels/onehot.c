/* ONNX OneHot (any output dtype, numeric indices): fills each lane with the off
 * value and writes the on value at the index. Float indices are truncated toward
 * zero (as a cast to int64); a NaN or out-of-range index leaves the lane off. */
#include <string.h>

#include "kiln/indexing.h"

/* indices[i] as int64; returns 0 when it has no int64 value (NaN, too large). */
static int read_any_index(const void* indices, uint32_t type, size_t i, int64_t* v) {
  const uint8_t* b = (const uint8_t*)indices;
  switch (type) {
    case KILN_INDEX_I8: { int8_t x; memcpy(&x, b + i, 1); *v = x; return 1; }
    case KILN_INDEX_U8: { uint8_t x; memcpy(&x, b + i, 1); *v = x; return 1; }
    case KILN_INDEX_I16: { int16_t x; memcpy(&x, b + 2u * i, 2); *v = x; return 1; }
    case KILN_INDEX_U16: { uint16_t x; memcpy(&x, b + 2u * i, 2); *v = x; return 1; }
    case KILN_INDEX_I32: { int32_t x; memcpy(&x, b + 4u * i, 4); *v = x; return 1; }
    case KILN_INDEX_U32: { uint32_t x; memcpy(&x, b + 4u * i, 4); *v = x; return 1; }
    case KILN_INDEX_I64: { int64_t x; memcpy(&x, b + 8u * i, 8); *v = x; return 1; }
    case KILN_INDEX_U64: {
      uint64_t x; memcpy(&x, b + 8u * i, 8);
      if (x > (uint64_t)INT64_MAX) return 0;
      *v = (int64_t)x; return 1;
    }
    case KILN_INDEX_F32: {
      float x; memcpy(&x, b + 4u * i, 4);
      if (!(x > -9.0e18f && x < 9.0e18f)) return 0;
      *v = (int64_t)x; return 1;
    }
    default: {
      double x; memcpy(&x, b + 8u * i, 8);
      if (!(x > -9.0e18 && x < 9.0e18)) return 0;
      *v = (int64_t)x; return 1;
    }
  }
}

kiln_status_t kiln_onehot(const kiln_onehot_params_t* p, const void* indices, const void* values, void* out) {
  uint32_t o, a, i;
  const uint8_t* off_v = (const uint8_t*)values;
  const uint8_t* on_v;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || indices == NULL || values == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->elem_size == 0u || p->elem_size > 8u || p->index_type > (uint32_t)KILN_INDEX_U64) return KILN_ERR_BAD_ARGUMENT;
  on_v = off_v + p->elem_size;
  for (o = 0; o < p->outer; ++o) {
    for (a = 0; a < p->depth; ++a)
      for (i = 0; i < p->inner; ++i)
        memcpy(dst + (((size_t)o * p->depth + a) * p->inner + i) * p->elem_size, off_v, p->elem_size);
    for (i = 0; i < p->inner; ++i) {
      int64_t v;
      if (!read_any_index(indices, p->index_type, (size_t)o * p->inner + i, &v)) continue;
      if (v < 0) v += (int64_t)p->depth;
      if (v < 0 || v >= (int64_t)p->depth) continue;
      memcpy(dst + (((size_t)o * p->depth + (size_t)v) * p->inner + i) * p->elem_size, on_v, p->elem_size);
    }
  }
  return KILN_OK;
}
